/*
 * test-destroy.c — destroying a node unlinks it from both sides, makes its
 * dependents DIRTY, runs its destroy callback exactly once; a graph frees
 * only when empty.
 */
#include "harness.h"

#include <pthread.h>

TEST(destroy_computed_leaves_source_lists) {
  sg_graph *g = sg_graph_new();
  cell a, b, c;
  STORED(&a, g, "a", 1);
  COMPUTED(&b, g, "b", formula_double, &a);
  COMPUTED(&c, g, "c", formula_plus1, &a);
  CHECK_EQ(READ(&b) + READ(&c), 4);
  CHECK_EQ(DEPENDENT_COUNT(a.node), 2);
  CHECK_EQ(NODE_COUNT(g), 3);

  DESTROY(&b);
  CHECK_EQ(b.destroyed, 1);
  CHECK_EQ(DEPENDENT_COUNT(a.node), 1);
  sg_node *left[2];
  CHECK_EQ(DEPENDENTS(a.node, left, 2), 1);
  CHECK(left[0] == c.node);
  CHECK_EQ(NODE_COUNT(g), 2);
  CHECK_EQ(IS_LIVE(b.node), 0);
  SET(&a, 2); /* reaches c only */
  CHECK_EQ(READ(&c), 3);
  CHECK_EQ(b.runs, 1);
  CHECK_EQ(b.destroyed, 1);

  DESTROY(&c);
  CHECK_EQ(DEPENDENT_COUNT(a.node), 0);
  DESTROY(&a);
  CHECK_EQ(c.destroyed, 1);
  GRAPH_FREE(g);
}

TEST(destroy_source_marks_dependents_dirty) {
  sg_graph *g = sg_graph_new();
  cell x, a, b, c;
  STORED(&x, g, "x", 1);
  STORED(&a, g, "a", 10);
  COMPUTED(&b, g, "b", formula_sum, &x, &a); /* reads x, then a */
  COMPUTED(&c, g, "c", formula_plus1, &b);
  CHECK_EQ(READ(&c), 12);
  CHECK_EQ(SOURCE_COUNT(b.node), 2);

  DESTROY(&a);
  CHECK_EQ(STATE(b.node), SG_DIRTY); /* an input is gone */
  CHECK_EQ(STATE(c.node), SG_CHECK);
  CHECK_EQ(SOURCE_COUNT(b.node), 1);
  CHECK_EQ(DEPENDENT_COUNT(x.node), 1);
  CHECK_EQ(NODE_COUNT(g), 3);

  /* b's formula still reads a: the stale read fails the run */
  CHECK_EQ(sg_read(b.node), SG_ECALLBACK);
  CHECK_EQ(b.error, SG_ESTALE);
  CHECK_EQ(STATE(b.node), SG_DIRTY);
  /* c's refresh brings b up to date first; b fails again, c never runs */
  CHECK_EQ(sg_read(c.node), SG_ECALLBACK);
  CHECK_EQ(b.runs, 3);
  CHECK_EQ(c.runs, 1);
  CHECK_EQ(STATE(c.node), SG_CHECK);

  /* the program stops reading a: all is well again */
  b.in[1] = NULL;
  CHECK_EQ(READ(&c), 2);
  CHECK_EQ(SOURCE_COUNT(b.node), 1);
  CHECK_EQ(b.runs, 4);
  CHECK_EQ(c.runs, 2);

  DESTROY(&c);
  DESTROY(&b);
  DESTROY(&x);
  CHECK_EQ(b.destroyed + c.destroyed, 2);
  GRAPH_FREE(g);
}

/* Destroying the middle of a → b → c unlinks b on both sides. */
TEST(destroy_middle_of_chain) {
  sg_graph *g = sg_graph_new();
  cell a, b, c;
  STORED(&a, g, "a", 1);
  COMPUTED(&b, g, "b", formula_plus1, &a);
  COMPUTED(&c, g, "c", formula_plus1, &b);
  CHECK_EQ(READ(&c), 3);
  DESTROY(&b);
  CHECK_EQ(DEPENDENT_COUNT(a.node), 0);
  CHECK_EQ(SOURCE_COUNT(c.node), 0);
  CHECK_EQ(STATE(c.node), SG_DIRTY);
  SET(&a, 5); /* reaches nobody */
  CHECK_EQ(STATE(c.node), SG_DIRTY);
  CHECK_EQ(c.runs, 1);
  CHECK_EQ(b.destroyed, 1);
  DESTROY(&c);
  DESTROY(&a);
  CHECK_EQ(c.destroyed, 1);
  GRAPH_FREE(g);
}

/* An effect whose source goes away is DIRTY and so runs once more. */
static int formula_maybe(cell *self) { return self->in[0] ? IN(self, 0) : -1; }

TEST(destroy_source_of_effect_reruns_it) {
  sg_graph *g = sg_graph_new();
  cell a, b, e;
  STORED(&a, g, "a", 3);
  COMPUTED(&b, g, "b", formula_double, &a);
  EFFECT(&e, g, "e", formula_maybe, &b);
  CHECK_EQ(e.value, 6);
  e.in[0] = NULL; /* the program drops b before destroying it */
  DESTROY(&b);
  CHECK_EQ(e.runs, 2);
  CHECK_EQ(e.value, -1);
  CHECK_EQ(SOURCE_COUNT(e.node), 0);
  CHECK_EQ(DEPENDENT_COUNT(a.node), 0);
  DESTROY(&e);
  DESTROY(&a);
  CHECK_EQ(b.destroyed + e.destroyed, 2);
  GRAPH_FREE(g);
}

/* A computed destroying itself inside its own compute callback. */
static int formula_destroy_self(cell *self) {
  int v = IN(self, 0);
  if (self->runs == 2) CHECK_EQ(sg_node_destroy(self->node), SG_OK);
  return v;
}

TEST(destroy_computed_inside_own_callback) {
  sg_graph *g = sg_graph_new();
  cell a, b;
  STORED(&a, g, "a", 1);
  COMPUTED(&b, g, "b", formula_destroy_self, &a);
  CHECK_EQ(READ(&b), 1);
  SET(&a, 2);
  /* the run completes (b's value is stored), but the node is gone by the
   * time the read returns: the read says so */
  CHECK_EQ(sg_read(b.node), SG_ESTALE);
  CHECK_EQ(b.runs, 2);
  CHECK_EQ(b.value, 2);
  CHECK_EQ(b.destroyed, 1);
  CHECK_EQ(DEPENDENT_COUNT(a.node), 0);
  CHECK_EQ(sg_read(b.node), SG_ESTALE);
  CHECK_EQ(NODE_COUNT(g), 1);
  DESTROY(&a);
  GRAPH_FREE(g);
}

TEST(destroy_graph_free_busy_until_empty) {
  sg_graph *g = sg_graph_new();
  REQUIRE(g != NULL);
  cell a, b;
  STORED(&a, g, "a", 1);
  COMPUTED(&b, g, "b", formula_copy, &a);
  CHECK_EQ(READ(&b), 1);
  CHECK_EQ(sg_graph_free(g), SG_EBUSY);
  DESTROY(&a);
  CHECK_EQ(sg_graph_free(g), SG_EBUSY); /* b is still there */
  CHECK_EQ(NODE_COUNT(g), 1);
  DESTROY(&b);
  CHECK_EQ(b.destroyed, 1);
  CHECK_EQ(NODE_COUNT(g), 0);
  CHECK_EQ(sg_graph_free(g), SG_OK);
  /* destroy callbacks ran once each, never again with the graph gone */
  CHECK_EQ(b.destroyed, 1);
}

/* A destroyed effect can still wait in an open batch's queue: freeing the
 * graph then would leave the queue a dangling graph (a use after free at
 * sg_batch_end). The graph is busy until the batch ends. (Core fix.) */
TEST(destroy_graph_free_busy_while_effect_queued) {
  sg_graph *g = sg_graph_new();
  cell s, e;
  STORED(&s, g, "s", 1);
  EFFECT(&e, g, "e", formula_copy, &s);
  sg_batch_begin();
  SET(&s, 2); /* queues e on this thread */
  DESTROY(&e);
  DESTROY(&s);
  CHECK_EQ(NODE_COUNT(g), 0);
  CHECK_EQ(sg_graph_free(g), SG_EBUSY);
  CHECK_EQ(e.destroyed, 0); /* the queue still holds it */
  CHECK_EQ(sg_batch_end(), SG_OK);
  CHECK_EQ(e.runs, 1); /* destroyed: it did not run */
  CHECK_EQ(e.destroyed, 1);
  GRAPH_FREE(g);
}

/* A thread that ends with a batch still open drops its queue on exit. */
static void *write_in_open_batch(void *arg) {
  sg_batch_begin();
  SET((cell *)arg, 5);
  return NULL; /* no sg_batch_end */
}

TEST(destroy_thread_exit_releases_queue) {
  sg_graph *g = sg_graph_new();
  cell s, e;
  STORED(&s, g, "s", 1);
  EFFECT(&e, g, "e", formula_copy, &s);
  pthread_t t;
  REQUIRE(pthread_create(&t, NULL, write_in_open_batch, &s) == 0);
  pthread_join(t, NULL);
  CHECK_EQ(e.runs, 1); /* its batch never ended */
  DESTROY(&e);
  DESTROY(&s);
  CHECK_EQ(e.destroyed, 1);
  GRAPH_FREE(g);
}

/* Destroy callbacks run once with no lock held: one may use the graph. */
typedef struct reentrant {
  cell base;
  sg_node *other;
  int other_rc;
} reentrant;

static void destroy_other(void *context) {
  reentrant *r = context;
  r->base.destroyed++;
  r->other_rc = sg_node_destroy(r->other); /* would deadlock under the lock */
}

TEST(destroy_callback_may_call_into_graph) {
  sg_graph *g = sg_graph_new();
  cell a;
  reentrant r = {0};
  STORED(&a, g, "a", 1);
  sg_node_info info = {"r", __FILE__, __LINE__};
  r.base.in[0] = &a;
  r.base.formula = formula_copy;
  r.other = a.node;
  CHECK_EQ(sg_computed_new(g, &info, cell_compute, &r, destroy_other, &r.base.node),
           SG_OK);
  CHECK_EQ(sg_read(r.base.node), SG_OK);
  CHECK_EQ(r.base.value, 1);
  CHECK_EQ(sg_node_destroy(r.base.node), SG_OK);
  CHECK_EQ(r.base.destroyed, 1);
  CHECK_EQ(r.other_rc, SG_OK);
  CHECK_EQ(NODE_COUNT(g), 0);
  GRAPH_FREE(g);
}

/* A held handle outlives its node: checked calls answer SG_ESTALE, and the
 * memory (with the destroy callback) goes with the last release. */
TEST(destroy_held_node_stays_addressable) {
  sg_graph *g = sg_graph_new();
  cell s, c;
  STORED(&s, g, "s", 1);
  COMPUTED(&c, g, "c", formula_plus1, &s);
  CHECK_EQ(READ(&c), 2);
  CHECK_EQ(sg_node_hold(c.node), SG_OK);
  sg_node_hold_unchecked(c.node); /* holds nest */
  DESTROY(&c);
  CHECK_EQ(c.destroyed, 0); /* held: the context stays */
  CHECK_EQ(sg_rollback(c.node, 1), SG_ESTALE);
  CHECK_EQ(sg_node_hold(c.node), SG_ESTALE);
  sg_node_release(c.node);
  CHECK_EQ(c.destroyed, 0);
  sg_node_release(c.node);
  CHECK_EQ(c.destroyed, 1);
  CHECK_EQ(sg_node_hold(NULL), SG_EINVAL);
  sg_node_release(NULL); /* harmless */
  DESTROY(&s);
  GRAPH_FREE(g);
}

/* A destroy callback runs when the node's memory goes, which may be in the
 * middle of a computation on that thread (here, the one that destroyed the
 * node). Its reads are no dependency of that computation: writing what the
 * callback read does not make the computation stale. */
static cell quiet_z;
static int quiet_callback_read;

static void read_z_on_destroy(void *context) {
  (void)context;
  quiet_callback_read = sg_read(quiet_z.node) == SG_OK;
}

static int formula_destroys_victim(cell *self) {
  int v = IN(self, 0);
  cell *victim = self->in[1];
  if (victim->node) {
    CHECK_EQ(sg_node_destroy(victim->node), SG_OK);
    victim->node = NULL;
  }
  return v;
}

TEST(destroy_callback_reads_are_no_dependency_of_the_running_compute) {
  sg_graph *g = sg_graph_new();
  cell x, victim, c;
  STORED(&x, g, "x", 1);
  STORED(&quiet_z, g, "z", 2);
  memset(&victim, 0, sizeof victim);
  victim.formula = formula_copy;
  victim.in[0] = &x;
  CHECK_EQ(sg_computed_new(g, &(sg_node_info){.name = "victim"}, cell_compute, &victim,
                           read_z_on_destroy, &victim.node), SG_OK);
  COMPUTED(&c, g, "c", formula_destroys_victim, &x, &victim);
  CHECK_EQ(READ(&c), 1);
  CHECK(quiet_callback_read); /* the callback ran, inside c's run, and read z */
  CHECK_EQ(c.runs, 1);
  SET(&quiet_z, 3);
  CHECK_EQ(READ(&c), 1);
  CHECK_EQ(c.runs, 1); /* z is not c's source */
  DESTROY(&c);
  DESTROY(&quiet_z);
  DESTROY(&x);
  GRAPH_FREE(g);
}
