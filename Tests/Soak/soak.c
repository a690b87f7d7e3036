/*
 * soak.c — a long run of the C core under several threads: `make soak`.
 *
 * Each worker thread loops over rounds. A round builds a small private graph
 * (a stored node, two computed nodes over it and over a read-only shared
 * node, an effect over them), writes it a few times and checks every value
 * and every effect run exactly; it also reads a shared counter node that
 * another worker keeps incrementing (through a computed and an effect, so
 * edges to shared nodes are made and dropped from all threads at once, and
 * writes mark other threads' nodes) and checks that what it sees never goes
 * backwards and never runs ahead of what the writer stored. Then it
 * destroys everything, in an order that varies (sources first sometimes:
 * dependents must then fail cleanly with SG_ECALLBACK). Every few rounds a
 * burst of a long chain adds volume.
 *
 * Meanwhile the main thread samples the resident set size (/proc/self/statm)
 * every 250 ms. After a warm-up (a fifth of the run, at least two seconds)
 * the RSS must stay flat: it may not exceed the level reached during the
 * warm-up by more than 10% or 4 MiB, whichever is more. Any wrong value,
 * error code or growth fails the run (exit status 1).
 *
 *   SOAK_SECONDS   run time (default 60)
 *   SOAK_THREADS   worker threads (default 4)
 */
#define _GNU_SOURCE
#include "stategraph.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { MAX_THREADS = 64, CHAIN = 200, WRITES_PER_ROUND = 4 };

static sg_graph *graph;
static sg_node *constant;          /* shared, never written: value CONSTANT */
static const int CONSTANT = 3;
static int thread_count;
static sg_node *counters[MAX_THREADS];          /* worker i writes counters[i] */
static _Atomic long counter_value[MAX_THREADS]; /* its value */
static atomic_long contexts_live;               /* allocated, not yet freed */
static atomic_bool stop;
static atomic_int failures;

#define SOAK_CHECK(cond, ...)                                      \
  do {                                                             \
    if (!(cond)) {                                                 \
      if (atomic_fetch_add(&failures, 1) < 10) {                   \
        fprintf(stderr, "soak: %s:%d: ", __FILE__, __LINE__);      \
        fprintf(stderr, __VA_ARGS__);                              \
        fprintf(stderr, "\n");                                     \
      }                                                            \
    }                                                              \
  } while (0)

/* Atomic: effects of one worker run on other workers' threads too. */
typedef struct totals {
  _Atomic unsigned long long rounds, nodes, edges, effect_runs, writes;
} totals;

/* ------------------------------------------------------------ the values */

/* A node's value, owned by this program as a binding would own it. Atomic:
 * effects over shared counters run on whichever thread wrote. */
typedef struct value_cell {
  sg_node *node;
  _Atomic long value;
  _Atomic long runs;
  struct value_cell *in; /* the input it reads (besides shared ones) */
  atomic_bool gone;      /* destroyed: a binding does not read it any more */
  int counter;           /* for shared-counter readers: which counter */
  totals *totals;        /* of the thread that built it */
} value_cell;

static value_cell *cell_new(totals *t, value_cell *in) {
  value_cell *c = calloc(1, sizeof *c);
  atomic_store(&c->value, -1);
  c->in = in;
  c->totals = t;
  atomic_fetch_add(&contexts_live, 1);
  return c;
}

static void cell_free(void *context) {
  free(context);
  atomic_fetch_sub(&contexts_live, 1);
}

static int read_input(value_cell *self, sg_node *node, long *out, _Atomic long *value) {
  int rc = sg_read(node);
  if (rc == SG_OK) {
    *out = atomic_load(value);
    self->totals->edges++;
  }
  return rc;
}

/* a = in + CONSTANT */
static int compute_plus(sg_node *node, void *context) {
  value_cell *self = context;
  long in = 0, k = 0;
  if (atomic_load(&self->in->gone)) return SG_ESTALE;
  int rc = read_input(self, self->in->node, &in, &self->in->value);
  if (rc < 0) return rc;
  _Atomic long constant_value = CONSTANT;
  if ((rc = read_input(self, constant, &k, &constant_value)) < 0) return rc;
  atomic_fetch_add(&self->runs, 1);
  long next = in + k;
  if (next == atomic_load(&self->value)) return SG_UNCHANGED;
  atomic_store(&self->value, next);
  return SG_CHANGED;
}

/* b = a * 2 */
static int compute_double(sg_node *node, void *context) {
  value_cell *self = context;
  long in = 0;
  if (atomic_load(&self->in->gone)) return SG_ESTALE;
  int rc = read_input(self, self->in->node, &in, &self->in->value);
  if (rc < 0) return rc;
  atomic_fetch_add(&self->runs, 1);
  long next = in * 2;
  if (next == atomic_load(&self->value)) return SG_UNCHANGED;
  atomic_store(&self->value, next);
  return SG_CHANGED;
}

/* An effect over b: counts runs and keeps what it saw. */
static int effect_copy(sg_node *node, void *context) {
  value_cell *self = context;
  long in = 0;
  if (atomic_load(&self->in->gone)) return SG_ESTALE;
  int rc = read_input(self, self->in->node, &in, &self->in->value);
  if (rc < 0) return rc;
  atomic_store(&self->value, in);
  atomic_fetch_add(&self->runs, 1);
  return SG_OK;
}

/* A computed or effect over another worker's counter: what it sees may only
 * grow, and never exceeds what the writer has stored. Runs of one node never
 * overlap, so the compare-and-store needs no lock. */
static int follow_counter(sg_node *node, void *context) {
  value_cell *self = context;
  long seen = 0;
  int rc = read_input(self, counters[self->counter], &seen, &counter_value[self->counter]);
  if (rc < 0) return rc;
  atomic_fetch_add(&self->runs, 1);
  long before = atomic_load(&self->value);
  SOAK_CHECK(seen >= before, "counter %d went back from %ld to %ld", self->counter, before, seen);
  SOAK_CHECK(seen <= atomic_load(&counter_value[self->counter]), "counter %d ran ahead",
             self->counter);
  atomic_store(&self->value, seen);
  return seen == before ? SG_UNCHANGED : SG_CHANGED;
}

/* ------------------------------------------------------------ the worker */

typedef struct worker {
  int index;
  unsigned seed;
  totals totals;
  pthread_t thread;
} worker;

/* Private cells are freed at the end of their round, once every node that
 * reads them is gone; a destroy callback only counts. Cells of nodes that
 * other threads may still be running (counter followers) are freed by their
 * destroy callback, which the core calls when no thread uses them any more. */
static void counted_destroy(void *context) { (void)context; }

static value_cell *computed(sg_callback fn, value_cell *in, totals *t, sg_destroy destroy) {
  value_cell *c = cell_new(t, in);
  SOAK_CHECK(sg_computed_new(graph, NULL, fn, c, destroy, &c->node) == SG_OK, "sg_computed_new");
  t->nodes++;
  return c;
}

static value_cell *effect(sg_callback fn, value_cell *in, totals *t, sg_destroy destroy) {
  value_cell *c = cell_new(t, in);
  atomic_store(&c->value, 0);
  SOAK_CHECK(sg_effect_new(graph, NULL, fn, c, destroy, &c->node) == SG_OK, "sg_effect_new");
  t->nodes++;
  return c;
}

/* The binding marks a cell gone before destroying its node: formulas that
 * read it then fail without touching the stale handle. */
static void destroy(value_cell *c) {
  atomic_store(&c->gone, true);
  SOAK_CHECK(sg_node_destroy(c->node) == SG_OK, "sg_node_destroy");
}

/* One round: private graph with exact checks, plus shared-counter readers. */
static void round_of(worker *w, unsigned long long round) {
  totals *t = &w->totals;
  value_cell *s = cell_new(t, NULL);
  atomic_store(&s->value, (long)(round % 5));
  SOAK_CHECK(sg_stored_new(graph, NULL, &s->node) == SG_OK, "sg_stored_new");
  t->nodes++;
  value_cell *a = computed(compute_plus, s, t, counted_destroy);
  value_cell *b = computed(compute_double, a, t, counted_destroy);
  value_cell *e = effect(effect_copy, b, t, counted_destroy);
  long expected = (atomic_load(&s->value) + CONSTANT) * 2;
  SOAK_CHECK(atomic_load(&e->value) == expected && atomic_load(&e->runs) == 1,
             "effect first run saw %ld, expected %ld", atomic_load(&e->value), expected);

  /* Followers of the next worker's counter: edges to a node another thread
   * writes, and an effect that runs on that thread. */
  int other = (w->index + 1) % thread_count;
  value_cell *follower = cell_new(t, NULL);
  follower->counter = other;
  SOAK_CHECK(sg_computed_new(graph, NULL, follow_counter, follower, cell_free, &follower->node) ==
               SG_OK, "sg_computed_new");
  value_cell *watcher = cell_new(t, NULL);
  watcher->counter = other;
  atomic_store(&watcher->value, 0);
  SOAK_CHECK(sg_effect_new(graph, NULL, follow_counter, watcher, cell_free, &watcher->node) ==
               SG_OK, "sg_effect_new");
  t->nodes += 2;

  for (int j = 0; j < WRITES_PER_ROUND; j++) {
    long next = (long)((round + (unsigned)j * 7) % 11);
    long runs = atomic_load(&e->runs);
    long before = atomic_load(&s->value);
    if (next != before) { /* a binding writes only a different value */
      atomic_store(&s->value, next);
      SOAK_CHECK(sg_changed(s->node) == SG_OK, "sg_changed");
      t->writes++;
    }
    /* the effect ran right here, once, iff the value really changed */
    expected = (next + CONSTANT) * 2;
    SOAK_CHECK(atomic_load(&e->runs) == runs + (next != before), "effect ran %ld times, not %d",
               atomic_load(&e->runs) - runs, next != before);
    SOAK_CHECK(atomic_load(&e->value) == expected, "effect saw %ld, expected %ld",
               atomic_load(&e->value), expected);
    SOAK_CHECK(sg_read(b->node) == SG_OK && atomic_load(&b->value) == expected, "b = %ld, not %ld",
               atomic_load(&b->value), expected);
    SOAK_CHECK(sg_read(follower->node) == SG_OK, "reading a counter follower");
    /* a new value of this worker's counter: marks other workers' followers
     * and runs their watcher effects here, on this thread */
    atomic_fetch_add(&counter_value[w->index], 1);
    SOAK_CHECK(sg_changed(counters[w->index]) == SG_OK, "sg_changed(counter)");
    t->writes++;
  }
  t->effect_runs += (unsigned long long)atomic_load(&e->runs);

  /* Tear down; sometimes sources first, and then a read must fail cleanly. */
  switch (round % 3) {
  case 0:
    destroy(e); destroy(b); destroy(a); destroy(s);
    break;
  case 1:
    destroy(s);
    SOAK_CHECK(sg_read(b->node) == SG_ECALLBACK, "reading over a destroyed source");
    destroy(b); destroy(e); destroy(a);
    break;
  default:
    destroy(a);
    SOAK_CHECK(sg_read(b->node) == SG_ECALLBACK, "reading over a destroyed source");
    destroy(e); destroy(b); destroy(s);
    break;
  }
  destroy(follower);
  destroy(watcher);
  cell_free(e); cell_free(b); cell_free(a); cell_free(s);
}

/* A chain of CHAIN computed nodes over one stored node, read, written,
 * read again and dropped: volume. */
static void burst(worker *w) {
  totals *t = &w->totals;
  value_cell *cells[CHAIN + 1];
  cells[0] = cell_new(t, NULL);
  atomic_store(&cells[0]->value, 0);
  SOAK_CHECK(sg_stored_new(graph, NULL, &cells[0]->node) == SG_OK, "sg_stored_new");
  t->nodes++;
  for (int i = 1; i <= CHAIN; i++) cells[i] = computed(compute_plus, cells[i - 1], t, counted_destroy);
  SOAK_CHECK(sg_read(cells[CHAIN]->node) == SG_OK, "reading the chain");
  SOAK_CHECK(atomic_load(&cells[CHAIN]->value) == (long)CHAIN * CONSTANT, "chain = %ld",
             atomic_load(&cells[CHAIN]->value));
  atomic_store(&cells[0]->value, 1);
  SOAK_CHECK(sg_changed(cells[0]->node) == SG_OK, "sg_changed");
  t->writes++;
  SOAK_CHECK(sg_read(cells[CHAIN]->node) == SG_OK, "reading the chain");
  SOAK_CHECK(atomic_load(&cells[CHAIN]->value) == 1 + (long)CHAIN * CONSTANT, "chain = %ld",
             atomic_load(&cells[CHAIN]->value));
  for (int i = CHAIN; i >= 0; i--) destroy(cells[i]);
  for (int i = 0; i <= CHAIN; i++) cell_free(cells[i]);
}

static void *work(void *arg) {
  worker *w = arg;
  for (unsigned long long round = 0; !atomic_load(&stop); round++) {
    round_of(w, round);
    if (round % 64 == 63) burst(w);
    w->totals.rounds++;
  }
  return NULL;
}

/* -------------------------------------------------------------- the main */

static long rss_kib(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  long size = 0, resident = 0;
  if (!f) return -1;
  if (fscanf(f, "%ld %ld", &size, &resident) != 2) resident = -1;
  fclose(f);
  return resident < 0 ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static long env_long(const char *name, long fallback) {
  const char *text = getenv(name);
  return text && *text ? atol(text) : fallback;
}

int main(void) {
  double seconds = (double)env_long("SOAK_SECONDS", 60);
  thread_count = (int)env_long("SOAK_THREADS", 4);
  if (thread_count < 1 || thread_count > MAX_THREADS || seconds <= 0) {
    fprintf(stderr, "soak: SOAK_THREADS must be 1..%d, SOAK_SECONDS > 0\n", MAX_THREADS);
    return 2;
  }
  graph = sg_graph_new();
  sg_stored_new(graph, &(sg_node_info){.name = "constant"}, &constant);
  for (int i = 0; i < thread_count; i++)
    sg_stored_new(graph, &(sg_node_info){.name = "counter"}, &counters[i]);

  worker workers[MAX_THREADS];
  for (int i = 0; i < thread_count; i++) {
    workers[i] = (worker){.index = i, .seed = (unsigned)i};
    pthread_create(&workers[i].thread, NULL, work, &workers[i]);
  }

  double start = now(), warm_up = seconds / 5 < 2 ? 2 : seconds / 5;
  if (warm_up > seconds / 2) warm_up = seconds / 2;
  long rss_start = rss_kib(), rss_warm = 0, rss_max = 0, rss_min_after = -1, rss_last = 0;
  int samples = 0;
  while (now() - start < seconds) {
    usleep(250 * 1000);
    long rss = rss_kib();
    rss_last = rss;
    if (now() - start < warm_up) {
      if (rss > rss_warm) rss_warm = rss;
    } else {
      if (rss > rss_max) rss_max = rss;
      if (rss_min_after < 0 || rss < rss_min_after) rss_min_after = rss;
      samples++;
    }
  }
  atomic_store(&stop, true);
  struct { unsigned long long rounds, nodes, edges, effect_runs, writes; } sum = {0};
  for (int i = 0; i < thread_count; i++) {
    pthread_join(workers[i].thread, NULL);
    sum.rounds += atomic_load(&workers[i].totals.rounds);
    sum.nodes += atomic_load(&workers[i].totals.nodes);
    sum.edges += atomic_load(&workers[i].totals.edges);
    sum.effect_runs += atomic_load(&workers[i].totals.effect_runs);
    sum.writes += atomic_load(&workers[i].totals.writes);
  }
  double elapsed = now() - start;

  size_t left = 0;
  sg_graph_node_count(graph, &left);
  SOAK_CHECK(atomic_load(&contexts_live) == 0, "%ld contexts never freed",
             atomic_load(&contexts_live));
  SOAK_CHECK(left == (size_t)thread_count + 1, "%zu nodes left, expected %d", left,
             thread_count + 1);
  for (int i = 0; i < thread_count; i++) sg_node_destroy(counters[i]);
  sg_node_destroy(constant);
  SOAK_CHECK(sg_graph_free(graph) == SG_OK, "sg_graph_free");

  long allowed = rss_warm / 10 > 4096 ? rss_warm / 10 : 4096;
  long growth = rss_max - rss_warm;
  printf("soak: %d threads, %.1f s (warm-up %.1f s)\n", thread_count, elapsed, warm_up);
  printf("  rounds            %12llu\n", sum.rounds);
  printf("  nodes created     %12llu  (%.0f/s), all destroyed\n", sum.nodes, sum.nodes / elapsed);
  printf("  edges (reads)     %12llu  (%.0f/s)\n", sum.edges, sum.edges / elapsed);
  printf("  effect runs       %12llu  (private effects; counter watchers not counted)\n",
         sum.effect_runs);
  printf("  writes            %12llu\n", sum.writes);
  printf("  rss KiB: start %ld, end of warm-up %ld, after: min %ld max %ld last %ld (%d samples)\n",
         rss_start, rss_warm, rss_min_after, rss_max, rss_last, samples);
  printf("  rss growth after warm-up: %ld KiB (allowed %ld KiB)\n", growth, allowed);
  SOAK_CHECK(samples > 0, "no samples after the warm-up");
  SOAK_CHECK(growth <= allowed, "resident memory grew by %ld KiB after the warm-up", growth);
  int failed = atomic_load(&failures);
  printf("soak: %s\n", failed ? "FAILED" : "OK");
  return failed ? 1 : 0;
}
