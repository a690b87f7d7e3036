/* Instructions per node of a chain update in the C core, for callgrind.
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

int main(int argc, char **argv) {
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
