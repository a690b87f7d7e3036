/* Instructions per node of a chain update in the C core, for callgrind; and
 * per stored + computed pair created, read once and destroyed.
 *
 *   head -> c1 -> ... -> c_LENGTH, each computed reading its input with
 *   sg_read_unchecked and adding one; an update writes the head
 *   (sg_changed_unchecked) and reads the tail, so every node runs once.
 *
 * chain-instructions.sh builds this against the core's sources and runs it
 * under callgrind collecting only inside run_updates(); instructions ÷
 * (updates × LENGTH) is the figure. Checks its result: the tail must equal
 * the head's value + LENGTH and every node must have run once per update. */
#include <stdio.h>
#include <stdlib.h>
#include "stategraph.h"

enum { LENGTH = 1000 };

typedef struct {
  sg_node *input;
  const long *input_value;
  long value;
} cell;

static long head_value;
static long runs;
static cell cells[LENGTH];
static sg_node *nodes[LENGTH];

static int compute(sg_node *node, void *context) {
  (void)node;
  cell *c = context;
  sg_read_unchecked(c->input);
  runs++;
  long next = *c->input_value + 1;
  if (next == c->value) return SG_UNCHANGED;
  c->value = next;
  return SG_CHANGED;
}

/* The measured part: `updates` writes of the head, each followed by a read of the tail. */
__attribute__((noinline)) long run_updates(sg_node *head, sg_node *tail, long first, long updates) {
  long checksum = 0;
  for (long i = first; i < first + updates; i++) {
    head_value = i;
    sg_changed_unchecked(head);
    sg_read_unchecked(tail);
    checksum += cells[LENGTH - 1].value;
  }
  return checksum;
}

/* Creation, the core's share of the Swift creation workload: `count` stored
 * nodes, `count` computeds each reading one of them once, then all destroyed.
 * Measured separately (create_pairs, destroy_pairs). */
static long pair_compute(sg_node *node, void *context) {
  (void)node;
  cell *c = context;
  sg_read_unchecked(c->input);
  c->value = *c->input_value + 1;
  return SG_CHANGED;
}

static int pair_callback(sg_node *node, void *context) { return (int)pair_compute(node, context); }

__attribute__((noinline)) long create_pairs(sg_graph *graph, sg_node **stored, sg_node **computed,
                                            long *values, cell *pairs, long count) {
  long checksum = 0;
  for (long k = 0; k < count; k++) {
    values[k] = k;
    if (sg_stored_new(graph, NULL, &stored[k]) != SG_OK) return -1;
  }
  for (long k = 0; k < count; k++) {
    pairs[k] = (cell){stored[k], &values[k], 0};
    if (sg_computed_new(graph, NULL, pair_callback, &pairs[k], NULL, &computed[k]) != SG_OK)
      return -1;
  }
  for (long k = 0; k < count; k++) {
    sg_read_unchecked(computed[k]);
    checksum += pairs[k].value;
  }
  return checksum;
}

__attribute__((noinline)) void destroy_pairs(sg_node **stored, sg_node **computed, long count) {
  for (long k = 0; k < count; k++) sg_node_destroy(computed[k]);
  for (long k = 0; k < count; k++) sg_node_destroy(stored[k]);
}

static int creation(long count) {
  sg_graph *graph = sg_graph_new();
  sg_node **stored = calloc(count, sizeof *stored), **computed = calloc(count, sizeof *computed);
  long *values = calloc(count, sizeof *values);
  cell *pairs = calloc(count, sizeof *pairs);
  long checksum = create_pairs(graph, stored, computed, values, pairs, count);
  long expected = count * (count + 1) / 2;
  destroy_pairs(stored, computed, count);
  sg_graph_free(graph);
  free(stored), free(computed), free(values), free(pairs);
  printf("%ld stored + %ld computed: checksum %ld (expected %ld): %s\n", count, count, checksum,
         expected, checksum == expected ? "ok" : "WRONG");
  return checksum == expected ? 0 : 1;
}

/* Effects, the core's share of one write reaching many handlers: one stored
 * node read by EFFECTS effects; a write runs each once (run_effect_writes). */
enum { EFFECTS = 1000 };
static long effect_sum, effect_runs;

static int effect_run(sg_node *node, void *context) {
  (void)node;
  sg_read_unchecked(context);
  effect_runs++;
  effect_sum += head_value;
  return 0;
}

__attribute__((noinline)) void run_effect_writes(sg_node *head, long first, long writes) {
  for (long i = first; i < first + writes; i++) {
    head_value = i;
    sg_changed_unchecked(head);
  }
}

static int effects(long writes) {
  sg_graph *graph = sg_graph_new();
  sg_node *head = NULL, *effect[EFFECTS];
  if (sg_stored_new(graph, NULL, &head) != SG_OK) return 2;
  for (int k = 0; k < EFFECTS; k++)
    if (sg_effect_new(graph, NULL, effect_run, head, NULL, &effect[k]) != SG_OK) return 2;
  run_effect_writes(head, 1, 2);
  effect_runs = effect_sum = 0;
  run_effect_writes(head, 3, writes);
  long expected = 0;
  for (long i = 3; i < 3 + writes; i++) expected += i * EFFECTS;
  int ok = effect_runs == writes * EFFECTS && effect_sum == expected;
  printf("%d effects, %ld writes: %ld runs, sum %ld (expected %ld): %s\n", EFFECTS, writes,
         effect_runs, effect_sum, expected, ok ? "ok" : "WRONG");
  for (int k = 0; k < EFFECTS; k++) sg_node_destroy(effect[k]);
  sg_node_destroy(head);
  sg_graph_free(graph);
  return ok ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc > 2 && argv[1][0] == 'c') return creation(atol(argv[2])); /* chain create N */
  if (argc > 2 && argv[1][0] == 'e') return effects(atol(argv[2]));  /* chain effects N */
  long updates = argc > 1 ? atol(argv[1]) : 100;
  sg_graph *graph = sg_graph_new();
  sg_node *head = NULL;
  if (sg_stored_new(graph, NULL, &head) != SG_OK) return 2;
  sg_node *input = head;
  const long *input_value = &head_value;
  for (int k = 0; k < LENGTH; k++) {
    cells[k] = (cell){input, input_value, -1};
    if (sg_computed_new(graph, NULL, compute, &cells[k], NULL, &nodes[k]) != SG_OK) return 2;
    input = nodes[k];
    input_value = &cells[k].value;
  }
  sg_read_unchecked(nodes[LENGTH - 1]);
  /* Warm-up: the first updates grow the walk's stacks. */
  run_updates(head, nodes[LENGTH - 1], 1, 3);
  runs = 0;
  long checksum = run_updates(head, nodes[LENGTH - 1], 4, updates);
  long expected = 0;
  for (long i = 4; i < 4 + updates; i++) expected += i + LENGTH;
  int ok = checksum == expected && runs == updates * LENGTH;
  printf("chain of %d, %ld updates: checksum %ld (expected %ld), %ld runs (expected %ld): %s\n",
         LENGTH, updates, checksum, expected, runs, updates * LENGTH, ok ? "ok" : "WRONG");
  for (int k = LENGTH - 1; k >= 0; k--) sg_node_destroy(nodes[k]);
  sg_node_destroy(head);
  sg_graph_free(graph);
  return ok ? 0 : 1;
}
