/*
 * test-misuse.c — misuse gets an exact error code, never a crash: NULL
 * handles and pointers, stale handles (destroyed nodes, freed graphs),
 * writing to a computed, wrong kinds, unbalanced batch/untracked ends, a
 * cycle, nodes of two graphs; and every code has its own text.
 */
#include "harness.h"

static int destroy_calls;
static void count_destroy(void *context) { destroy_calls++; }
static int run_nothing(sg_node *node, void *context) { return SG_OK; }
static int run_fail(sg_node *node, void *context) {
  (*(int *)context)++;
  return SG_EINVAL; /* any negative code: "my callback failed" */
}

TEST(misuse_null_handles) {
  sg_graph *g = sg_graph_new();
  sg_node *n = NULL;
  sg_node_info info = {"n", __FILE__, __LINE__};
  CHECK_EQ(sg_read(NULL), SG_EINVAL);
  CHECK_EQ(sg_changed(NULL), SG_EINVAL);
  CHECK_EQ(sg_node_destroy(NULL), SG_EINVAL);
  CHECK_EQ(sg_rollback(NULL, 0), SG_EINVAL);
  CHECK_EQ(sg_node_set_watcher(NULL, run_nothing), SG_EINVAL);
  CHECK_EQ(sg_node_arm(NULL), SG_EINVAL);
  CHECK_EQ(sg_node_check(NULL, 0), SG_EINVAL);
  CHECK_EQ(sg_graph_free(NULL), SG_EINVAL);
  CHECK_EQ(sg_stored_new(NULL, &info, &n), SG_EINVAL);
  CHECK_EQ(sg_stored_new(g, &info, NULL), SG_EINVAL);
  destroy_calls = 0;
  CHECK_EQ(sg_computed_new(NULL, &info, run_nothing, NULL, count_destroy, &n), SG_EINVAL);
  CHECK_EQ(sg_computed_new(g, &info, NULL, NULL, count_destroy, &n), SG_EINVAL);
  CHECK_EQ(sg_computed_new(g, &info, run_nothing, NULL, count_destroy, NULL), SG_EINVAL);
  CHECK_EQ(sg_effect_new(NULL, &info, run_nothing, NULL, count_destroy, &n), SG_EINVAL);
  CHECK_EQ(sg_effect_new(g, &info, NULL, NULL, count_destroy, &n), SG_EINVAL);
  CHECK_EQ(sg_effect_new(g, &info, run_nothing, NULL, count_destroy, NULL), SG_EINVAL);
  CHECK_EQ(destroy_calls, 0); /* "on error `destroy` is not called" */
  CHECK(n == NULL);           /* and *out is left alone */

  /* introspection: a NULL handle or a NULL out-pointer, never a value */
  sg_node_description d;
  size_t count = 77;
  uint64_t version = 77;
  sg_node *listed[1];
  CHECK_EQ(sg_node_describe(NULL, &d), SG_EINVAL);
  CHECK_EQ(sg_node_version(NULL, &version), SG_EINVAL);
  CHECK_EQ(sg_node_sources(NULL, listed, 1, &count), SG_EINVAL);
  CHECK_EQ(sg_node_dependents(NULL, listed, 1, &count), SG_EINVAL);
  CHECK_EQ(sg_graph_node_count(NULL, &count), SG_EINVAL);
  CHECK_EQ(sg_graph_node_count(g, NULL), SG_EINVAL);
  CHECK_EQ(sg_stored_new(g, NULL, &n), SG_OK);
  CHECK_EQ(sg_node_describe(n, NULL), SG_EINVAL);
  CHECK_EQ(sg_node_version(n, NULL), SG_EINVAL);
  CHECK_EQ(sg_node_sources(n, listed, 1, NULL), SG_EINVAL);
  CHECK_EQ(sg_node_dependents(n, NULL, 1, &count), SG_EINVAL); /* room for 1, no buffer */
  CHECK_EQ(count, 77);   /* failed calls write nothing */
  CHECK_EQ(version, 77);
  CHECK_EQ(sg_node_sources(n, NULL, 0, &count), SG_OK); /* sizing a buffer */
  CHECK_EQ(count, 0);

  /* NULL info is fine: the node introduces itself with "" */
  CHECK_EQ(sg_node_describe(n, &d), SG_OK);
  CHECK_STR(d.name, "");
  CHECK_STR(d.file, "");
  CHECK_EQ(d.line, 0);
  CHECK(d.graph == g);
  CHECK_EQ(sg_node_destroy(n), SG_OK);
  CHECK_EQ(NODE_COUNT(g), 0);
  GRAPH_FREE(g);
}

TEST(misuse_stale_handles) {
  sg_graph *g = sg_graph_new();
  cell s, c;
  sg_node *e = NULL;
  STORED(&s, g, "s", 1);
  COMPUTED(&c, g, "c", formula_copy, &s);
  CHECK_EQ(sg_effect_new(g, NULL, run_nothing, NULL, NULL, &e), SG_OK);
  CHECK_EQ(READ(&c), 1);
  DESTROY(&c);
  DESTROY(&s);
  CHECK_EQ(sg_node_destroy(e), SG_OK);
  /* no node is created from here on, so no handle's memory is reused */
  sg_node *stale[] = {s.node, c.node, e};
  sg_node_description d;
  size_t count = 77;
  uint64_t version = 77;
  sg_node *listed[1];
  for (int i = 0; i < 3; i++) {
    CHECK_EQ(sg_read(stale[i]), SG_ESTALE);
    CHECK_EQ(sg_changed(stale[i]), SG_ESTALE);
    CHECK_EQ(sg_node_destroy(stale[i]), SG_ESTALE);
    CHECK_EQ(sg_rollback(stale[i], 0), SG_ESTALE);
    CHECK_EQ(sg_node_set_watcher(stale[i], run_nothing), SG_ESTALE);
    CHECK_EQ(sg_node_arm(stale[i]), SG_ESTALE);
    CHECK_EQ(sg_node_describe(stale[i], &d), SG_ESTALE);
    CHECK_EQ(sg_node_version(stale[i], &version), SG_ESTALE);
    CHECK_EQ(sg_node_sources(stale[i], listed, 1, &count), SG_ESTALE);
    CHECK_EQ(sg_node_dependents(stale[i], listed, 1, &count), SG_ESTALE);
    CHECK_EQ(sg_node_check(stale[i], 0), SG_ESTALE);
  }
  CHECK_EQ(count, 77);
  CHECK_EQ(version, 77);
  CHECK_EQ(c.destroyed, 1); /* the second destroy did not call it again */
  GRAPH_FREE(g);
}

/* The whole case: a computed is destroyed while a program still
 * holds its handle, and reads it — from outside and from inside another
 * node's callback. */
typedef struct stale_reader {
  cell base;
  sg_node *target;
  int rc;
} stale_reader;

static int formula_read_target(cell *self) {
  stale_reader *r = (stale_reader *)self;
  r->rc = sg_read(r->target);
  return 1; /* succeeds regardless: only the code is under test */
}

TEST(misuse_read_destroyed_node) {
  sg_graph *g = sg_graph_new();
  cell s, c;
  stale_reader reader = {0};
  STORED(&s, g, "s", 4);
  COMPUTED(&c, g, "c", formula_double, &s);
  /* made before the destroy: made after, it could get c's memory, and the
   * stale handle would name it (see test-introspection.c) */
  COMPUTED(&reader.base, g, "reader", formula_read_target, NULL);
  CHECK_EQ(READ(&c), 8);
  sg_node *handle = c.node;
  DESTROY(&c);
  CHECK_EQ(c.destroyed, 1);
  CHECK_EQ(sg_read(handle), SG_ESTALE);
  CHECK_EQ(c.runs, 1); /* not recomputed */

  reader.target = handle;
  CHECK_EQ(READ(&reader.base), 1);
  CHECK_EQ(reader.rc, SG_ESTALE);
  CHECK_EQ(SOURCE_COUNT(reader.base.node), 0); /* no edge to a dead node */
  CHECK_EQ(DEPENDENT_COUNT(s.node), 0);
  CHECK_EQ(c.destroyed, 1);
  DESTROY(&reader.base);
  DESTROY(&s);
  GRAPH_FREE(g);
}

/* Writing to a computed: refused, and nothing happens — no version bump,
 * no marking, no effect. */
TEST(misuse_write_to_computed) {
  sg_graph *g = sg_graph_new();
  cell s, c, e;
  STORED(&s, g, "s", 1);
  COMPUTED(&c, g, "c", formula_plus1, &s);
  EFFECT(&e, g, "e", formula_copy, &c);
  uint64_t before = NODE_VERSION(c.node);
  CHECK_EQ(sg_changed(c.node), SG_EKIND);
  CHECK_EQ(sg_changed(e.node), SG_EKIND);
  CHECK_EQ(NODE_VERSION(c.node), before);
  CHECK_EQ(STATE(c.node), SG_CLEAN);
  CHECK_EQ(STATE(e.node), SG_CLEAN);
  CHECK_EQ(c.runs, 1);
  CHECK_EQ(e.runs, 1);
  /* an effect has no version to roll back either */
  CHECK_EQ(sg_rollback(e.node, 0), SG_EKIND);
  CHECK_EQ(e.runs, 1);
  DESTROY(&e);
  DESTROY(&c);
  DESTROY(&s);
  GRAPH_FREE(g);
}

/* A freed graph's handle is stale too (as long as no new graph got its
 * memory: none is created here). */
TEST(misuse_freed_graph) {
  sg_graph *g = sg_graph_new();
  sg_node *n = NULL;
  size_t count = 77;
  CHECK_EQ(sg_graph_free(g), SG_OK);
  CHECK_EQ(sg_graph_free(g), SG_ESTALE);
  CHECK_EQ(sg_graph_node_count(g, &count), SG_ESTALE);
  CHECK_EQ(count, 77);
  destroy_calls = 0;
  CHECK_EQ(sg_stored_new(g, NULL, &n), SG_ESTALE);
  CHECK_EQ(sg_computed_new(g, NULL, run_nothing, NULL, count_destroy, &n), SG_ESTALE);
  CHECK_EQ(sg_effect_new(g, NULL, run_nothing, NULL, count_destroy, &n), SG_ESTALE);
  CHECK(n == NULL);
  CHECK_EQ(destroy_calls, 0);
}

/* A graph each thread created a node in (each remembers it as checked)
 * and then freed is stale for both: the memo of the last graph a thread
 * found does not outlive a graph freed by another thread. */
typedef struct stale_creator {
  sg_graph *g;
  sem_t made, freed, tried;
  int status;
} stale_creator;

static void *create_before_and_after_free(void *arg) {
  stale_creator *c = arg;
  sg_node *n = NULL;
  CHECK_EQ(sg_stored_new(c->g, NULL, &n), SG_OK);
  CHECK_EQ(sg_node_destroy(n), SG_OK);
  sem_post(&c->made);
  sem_wait(&c->freed);
  n = NULL;
  c->status = sg_stored_new(c->g, NULL, &n);
  CHECK(n == NULL);
  sem_post(&c->tried);
  return NULL;
}

TEST(threads_freed_graph_is_stale_for_every_thread_that_used_it) {
  stale_creator c = {.g = sg_graph_new(), .status = 77};
  sem_init(&c.made, 0, 0);
  sem_init(&c.freed, 0, 0);
  sem_init(&c.tried, 0, 0);
  pthread_t other;
  pthread_create(&other, NULL, create_before_and_after_free, &c);
  sg_node *n = NULL;
  CHECK_EQ(sg_stored_new(c.g, NULL, &n), SG_OK);
  CHECK_EQ(sg_node_destroy(n), SG_OK);
  sem_wait(&c.made);
  CHECK_EQ(sg_graph_free(c.g), SG_OK);
  sem_post(&c.freed);
  sem_wait(&c.tried);
  pthread_join(other, NULL);
  CHECK_EQ(c.status, SG_ESTALE);
  n = NULL;
  CHECK_EQ(sg_stored_new(c.g, NULL, &n), SG_ESTALE);
  CHECK(n == NULL);
  sem_destroy(&c.made);
  sem_destroy(&c.freed);
  sem_destroy(&c.tried);
}

/* A graph with nodes refuses to be freed, and stays usable. */
TEST(misuse_free_busy_graph) {
  sg_graph *g = sg_graph_new();
  cell s;
  STORED(&s, g, "s", 1);
  CHECK_EQ(sg_graph_free(g), SG_EBUSY);
  CHECK_EQ(NODE_COUNT(g), 1);
  SET(&s, 2);
  DESTROY(&s);
  GRAPH_FREE(g);
}

/* The cycle in brief (test-cycles.c has the rest): the exact code, the
 * names, and a graph that still works once the loop is broken. */
typedef struct loop_cell {
  cell base;
  cell *next; /* NULL: a constant */
} loop_cell;

static int formula_loop(cell *self) {
  loop_cell *l = (loop_cell *)self;
  return l->next ? cell_in(self, l->next) + 1 : 0;
}

TEST(misuse_cycle) {
  sg_graph *g = sg_graph_new();
  loop_cell a = {0}, b = {0};
  cell_computed_at(&a.base, g, "a", formula_loop, (cell *[]){NULL}, "sheet", 1);
  cell_computed_at(&b.base, g, "b", formula_loop, (cell *[]){NULL}, "sheet", 2);
  a.next = &b.base;
  b.next = &a.base;
  CHECK_EQ(sg_read(a.base.node), SG_ECYCLE);
  CHECK_STR(sg_last_cycle(), "a (sheet:1) -> b (sheet:2) -> a (sheet:1)");
  CHECK_EQ(STATE(a.base.node), SG_DIRTY);
  b.next = NULL;
  CHECK_EQ(READ(&a.base), 1);
  DESTROY(&a.base);
  DESTROY(&b.base);
  GRAPH_FREE(g);
}

static int read_effect(cell *self) { /* reads whatever is in in[0] */
  self->error = sg_read(self->in[0]->node);
  return 0;
}

TEST(misuse_wrong_kind) {
  sg_graph *g = sg_graph_new();
  cell s, c, e, reader;
  STORED(&s, g, "s", 1);
  COMPUTED(&c, g, "c", formula_copy, &s);
  EFFECT(&e, g, "e", formula_copy, &s);
  CHECK_EQ(sg_changed(c.node), SG_EKIND);
  CHECK_EQ(sg_changed(e.node), SG_EKIND);
  CHECK_EQ(sg_read(e.node), SG_EKIND);
  CHECK_EQ(sg_node_set_watcher(s.node, run_nothing), SG_EKIND);
  CHECK_EQ(sg_node_set_watcher(e.node, run_nothing), SG_EKIND);
  CHECK_EQ(sg_node_arm(s.node), SG_EKIND);
  CHECK_EQ(sg_node_arm(e.node), SG_EKIND);
  CHECK_EQ(KIND(s.node), SG_STORED);
  CHECK_EQ(KIND(c.node), SG_COMPUTED);
  CHECK_EQ(KIND(e.node), SG_EFFECT);
  /* reading an effect from inside a compute: the same code, no edge */
  memset(&reader, 0, sizeof reader);
  reader.in[0] = &e;
  reader.formula = read_effect;
  sg_node_info info = {"reader", __FILE__, __LINE__};
  CHECK_EQ(sg_computed_new(g, &info, cell_compute, &reader, NULL, &reader.node), SG_OK);
  CHECK_EQ(sg_read(reader.node), SG_ECALLBACK); /* the formula failed with... */
  CHECK_EQ(reader.error, SG_EKIND);             /* ...this */
  CHECK_EQ(SOURCE_COUNT(reader.node), 0);
  CHECK_EQ(DEPENDENT_COUNT(e.node), 0);
  CHECK_EQ(e.runs, 1);
  CHECK_EQ(sg_node_destroy(reader.node), SG_OK);
  DESTROY(&e);
  DESTROY(&c);
  DESTROY(&s);
  GRAPH_FREE(g);
}

TEST(misuse_unbalanced_ends) {
  CHECK_EQ(sg_batch_depth(), 0);
  CHECK_EQ(sg_batch_end(), SG_EBATCH);
  CHECK_EQ(sg_batch_depth(), 0); /* nothing happened */
  sg_batch_begin();
  CHECK_EQ(sg_batch_end(), SG_OK);
  CHECK_EQ(sg_batch_end(), SG_EBATCH);

  CHECK_EQ(sg_untracked_end(), SG_EUNTRACKED); /* a code of its own, not a batch's */
  sg_untracked_begin();
  sg_untracked_begin();
  CHECK_EQ(sg_untracked_end(), SG_OK);
  CHECK_EQ(sg_untracked_end(), SG_OK);
  CHECK_EQ(sg_untracked_end(), SG_EUNTRACKED);
  CHECK_STR(sg_strerror(SG_EUNTRACKED), "untracked section ended without a begin");
  CHECK_STR(sg_strerror(SG_EBATCH), "batch ended without a begin");
  CHECK(sg_current() == NULL);
}

/* Inside a callback the untracked depth belongs to the running node: an end
 * without a begin in the same callback is refused even when the outside
 * has one open. */
static int formula_end_without_begin(cell *self) {
  return sg_untracked_end(); /* the code becomes the value, for the test to see */
}

TEST(misuse_untracked_end_inside_callback) {
  sg_graph *g = sg_graph_new();
  cell c;
  COMPUTED(&c, g, "c", formula_end_without_begin, NULL);
  sg_untracked_begin(); /* outside, not the callback's */
  CHECK_EQ(READ(&c), SG_EUNTRACKED);
  CHECK_EQ(sg_untracked_end(), SG_OK); /* the outside section is intact */
  CHECK_EQ(sg_untracked_end(), SG_EUNTRACKED);
  DESTROY(&c);
  GRAPH_FREE(g);
}

/* A compute in graph 1 that reads a node of graph 2. */
typedef struct crossing {
  cell base;
  sg_node *foreign;
  int rc;
} crossing;

static int formula_cross(cell *self) {
  crossing *x = (crossing *)self;
  x->rc = sg_read(x->foreign);
  return 7; /* ignores the error: the run succeeds, nothing recorded */
}

TEST(misuse_other_graph_inside_compute) {
  sg_graph *g1 = sg_graph_new(), *g2 = sg_graph_new();
  cell foreign_stored, foreign_computed;
  STORED(&foreign_stored, g2, "s2", 1);
  COMPUTED(&foreign_computed, g2, "c2", formula_copy, &foreign_stored);
  crossing x = {.foreign = foreign_stored.node};
  COMPUTED(&x.base, g1, "x", formula_cross, NULL);
  CHECK_EQ(READ(&x.base), 7);
  CHECK_EQ(x.rc, SG_EGRAPH);
  CHECK_EQ(SOURCE_COUNT(x.base.node), 0);
  CHECK_EQ(DEPENDENT_COUNT(foreign_stored.node), 0);

  x.foreign = foreign_computed.node; /* a computed: not even brought up to date */
  DESTROY(&x.base);
  COMPUTED(&x.base, g1, "x", formula_cross, NULL);
  CHECK_EQ(READ(&x.base), 7);
  CHECK_EQ(x.rc, SG_EGRAPH);
  CHECK_EQ(foreign_computed.runs, 0);
  CHECK_EQ(SOURCE_COUNT(x.base.node), 0);
  /* from outside any callback, reading either graph is fine */
  CHECK_EQ(READ(&foreign_computed), 1);

  DESTROY(&x.base);
  DESTROY(&foreign_computed);
  DESTROY(&foreign_stored);
  GRAPH_FREE(g1);
  GRAPH_FREE(g2);
}

TEST(misuse_failing_callbacks) {
  sg_graph *g = sg_graph_new();
  int runs = 0;
  sg_node *c = NULL, *e = NULL;
  CHECK_EQ(sg_computed_new(g, NULL, run_fail, &runs, NULL, &c), SG_OK);
  CHECK_EQ(sg_read(c), SG_ECALLBACK);
  CHECK_EQ(STATE(c), SG_DIRTY); /* stays stale: the next read tries again */
  CHECK_EQ(sg_read(c), SG_ECALLBACK);
  CHECK_EQ(runs, 2);
  /* an effect whose first run fails exists all the same */
  CHECK_EQ(sg_effect_new(g, NULL, run_fail, &runs, NULL, &e), SG_ECALLBACK);
  CHECK(e != NULL);
  CHECK_EQ(sg_node_check(e, 0), SG_OK);
  CHECK_EQ(runs, 3);
  CHECK_EQ(NODE_COUNT(g), 2);
  CHECK_EQ(sg_node_destroy(e), SG_OK);
  CHECK_EQ(sg_node_destroy(c), SG_OK);
  GRAPH_FREE(g);
}

TEST(misuse_strerror_and_version) {
  static const int codes[] = {
#define SG__CODE(name, value, message) name,
    SG_ERRORS(SG__CODE)
#undef SG__CODE
  };
  enum { N = sizeof codes / sizeof codes[0] };
  CHECK_EQ(N, 13);
  for (int i = 0; i < N; i++) {
    CHECK(codes[i] < 0);
    const char *text = sg_strerror(codes[i]);
    CHECK(text != NULL && text[0] != 0);
    CHECK(strcmp(text, sg_strerror(SG_OK)) != 0);
    CHECK(strcmp(text, sg_strerror(-1000)) != 0);
    for (int j = 0; j < i; j++) CHECK(strcmp(text, sg_strerror(codes[j])) != 0);
  }
  CHECK_STR(sg_strerror(SG_OK), "success");
  CHECK_STR(sg_strerror(-1000), "unknown error");
  CHECK_STR(sg_strerror(42), "unknown error");
  CHECK_STR(sg_strerror(SG_ECYCLE), "dependency cycle");

  CHECK_STR(sg_version(), SG_VERSION_STRING);
  char built[32];
  snprintf(built, sizeof built, "%d.%d.%d", SG_VERSION_MAJOR, SG_VERSION_MINOR,
           SG_VERSION_PATCH);
  CHECK_STR(sg_version(), built);
  CHECK_EQ(SG_VERSION_NUMBER,
           SG_VERSION_MAJOR * 10000 + SG_VERSION_MINOR * 100 + SG_VERSION_PATCH);
}

/* The door finds a node's slot without a lock: addresses that are not the
 * start of a slot holding a node are told apart, whatever they point at. */
TEST(misuse_addresses_that_are_not_nodes) {
  sg_graph *g = sg_graph_new();
  sg_node *n = NULL;
  CHECK_EQ(sg_stored_new(g, NULL, &n), SG_OK);
  long on_stack[64] = {0};
  void *on_heap = calloc(1, 256);
  sg_node *not_nodes[] = {
    (sg_node *)on_stack, (sg_node *)on_heap, (sg_node *)g,
    (sg_node *)((char *)n + 8), (sg_node *)((char *)n + 64), /* inside its slot */
    (sg_node *)((char *)n + 96), /* the next slot: free or never used (no other node
                                     is live: every test frees its own) */
    (sg_node *)((char *)n + 256), /* an effect's slot size: not a stored slot's start */
  };
  for (size_t i = 0; i < sizeof not_nodes / sizeof *not_nodes; i++) {
    CHECK_EQ(sg_read(not_nodes[i]), SG_ESTALE);
    CHECK_EQ(sg_changed(not_nodes[i]), SG_ESTALE);
    CHECK_EQ(sg_node_release(not_nodes[i]), SG_ESTALE);
    CHECK_EQ(sg_node_hold(not_nodes[i]), SG_ESTALE);
    CHECK_EQ(sg_node_check(not_nodes[i], 0), SG_ESTALE);
  }
  CHECK_EQ(sg_read(n), SG_OK); /* the real one still answers */
  free(on_heap);
  CHECK_EQ(sg_node_destroy(n), SG_OK);
  GRAPH_FREE(g);
}

/* A destroyed node's slot goes to the next node made: the old handle then
 * names the new node (a pointer cannot tell), and its id tells. */
TEST(misuse_reused_slot_is_told_by_its_id) {
  sg_graph *g = sg_graph_new();
  sg_node *old = NULL, *made = NULL;
  sg_node_description d;
  CHECK_EQ(sg_stored_new(g, NULL, &old), SG_OK);
  CHECK_EQ(sg_node_describe(old, &d), SG_OK);
  uint64_t old_id = d.id;
  CHECK_EQ(sg_node_destroy(old), SG_OK);
  CHECK_EQ(sg_node_check(old, old_id), SG_ESTALE);
  CHECK_EQ(sg_stored_new(g, NULL, &made), SG_OK);
  REQUIRE(made == old); /* the slot is reused first (a free list) */
  CHECK_EQ(sg_node_check(old, old_id), SG_ESTALE);
  CHECK_EQ(sg_node_describe(made, &d), SG_OK);
  CHECK(d.id > old_id);
  CHECK_EQ(sg_node_check(made, d.id), SG_OK);
  CHECK_EQ(sg_node_destroy(made), SG_OK);
  GRAPH_FREE(g);
}
