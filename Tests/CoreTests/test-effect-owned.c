/*
 * test-effect-owned.c — an effect created outside its owner's run, naming
 * the owner (sg_effect_new_owned): the owner comes first for its later
 * changes and for its first run.
 */
#include "harness.h"

#include <pthread.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stddef.h>

/* outer reads `positive` (a > 0) and, once false, destroys the inner effect
 * (made by the test, outside outer's run, with outer as its owner). */
typedef struct keeper {
  cell base;
  cell inner;
  bool has_inner;
  int inner_saw_zero;
} keeper;

static int formula_inner(cell *self) {
  int v = IN(self, 0);
  keeper *k = (keeper *)((char *)self - offsetof(keeper, inner));
  if (v == 0) k->inner_saw_zero++;
  return v;
}

static int formula_keeper(cell *self) {
  keeper *k = (keeper *)self;
  int positive = IN(self, 0);
  if (!positive && k->has_inner) {
    CHECK_EQ(sg_node_destroy(k->inner.node), SG_OK);
    k->has_inner = false;
  }
  return positive;
}

static int formula_positive(cell *self) { return IN(self, 0) > 0; }

static void make_inner(keeper *k, sg_graph *g, cell *a) {
  k->inner = (cell){.formula = formula_inner, .in = {a}};
  k->has_inner = true; /* before the first run: an owner run first may drop it */
  sg_node_info info = {"inner", __FILE__, __LINE__};
  CHECK_EQ(sg_effect_new_owned(g, &info, cell_effect, &k->inner, NULL, k->base.node,
                               &k->inner.node),
           SG_OK);
}

TEST(effect_owned_owner_runs_before_it_on_a_later_change) {
  sg_graph *g = sg_graph_new();
  cell a, positive;
  keeper k = {0};
  STORED(&a, g, "a", 1);
  COMPUTED(&positive, g, "positive", formula_positive, &a);
  EFFECT(&k.base, g, "outer", formula_keeper, &positive);
  make_inner(&k, g, &a); /* outside outer's run */
  CHECK_EQ(k.inner.runs, 1);

  SET(&a, 5); /* positive unchanged: inner runs alone */
  CHECK_EQ(k.base.runs, 1);
  CHECK_EQ(k.inner.runs, 2);

  SET(&a, 0); /* reaches both: outer first, which destroys inner */
  CHECK_EQ(k.base.runs, 2);
  CHECK(!k.has_inner);
  CHECK_EQ(k.inner.runs, 2);
  CHECK_EQ(k.inner_saw_zero, 0);
  DESTROY(&k.base);
  DESTROY(&positive);
  DESTROY(&a);
  GRAPH_FREE(g);
}

TEST(effect_owned_stale_owner_runs_before_its_first_run) {
  sg_graph *g = sg_graph_new();
  cell a, positive;
  keeper k = {0};
  STORED(&a, g, "a", 1);
  COMPUTED(&positive, g, "positive", formula_positive, &a);
  EFFECT(&k.base, g, "outer", formula_keeper, &positive);

  sg_batch_begin();
  SET(&a, 0); /* outer is stale until the batch ends */
  make_inner(&k, g, &a); /* outer runs first, here, and drops it */
  CHECK_EQ(k.base.runs, 2);
  CHECK(!k.has_inner);
  CHECK_EQ(k.inner.runs, 0);
  CHECK_EQ(sg_batch_end(), SG_OK);
  CHECK_EQ(k.base.runs, 2); /* ran once for the change */
  CHECK_EQ(k.inner_saw_zero, 0);

  SET(&a, 2);
  make_inner(&k, g, &a); /* outer up to date: the first run happens at once */
  CHECK_EQ(k.base.runs, 3);
  CHECK_EQ(k.inner.runs, 1);
  CHECK_EQ(k.inner.value, 2);
  CHECK_EQ(sg_node_destroy(k.inner.node), SG_OK);
  DESTROY(&k.base);
  DESTROY(&positive);
  DESTROY(&a);
  GRAPH_FREE(g);
}

/* An effect whose run names itself as a new effect's owner: the owners
 * above it are its own, which this thread's flush brings up to date in
 * order, never from inside its callback. */
typedef struct nested {
  sg_graph *g;
  sg_node *s, *t, *top, *mid, *child;
  int top_runs, mid_runs, child_runs;
  int top_runs_inside_mid; /* top's runs that happened inside mid's callback */
  bool in_mid;
} nested;

static int nested_child(sg_node *n, void *ctx) {
  nested *x = ctx;
  x->child_runs++;
  return SG_UNCHANGED;
}

static int nested_mid(sg_node *n, void *ctx) {
  nested *x = ctx;
  x->mid_runs++;
  CHECK_EQ(sg_read(x->t), SG_OK);
  if (x->mid_runs == 2) { /* reached by the write of t */
    x->in_mid = true;
    CHECK_EQ(sg_changed(x->s), SG_OK); /* top reads s: stale, queued here */
    sg_node_info info = {"child", __FILE__, __LINE__};
    CHECK_EQ(sg_effect_new_owned(x->g, &info, nested_child, x, NULL, n, &x->child), SG_OK);
    x->in_mid = false;
  }
  return SG_UNCHANGED;
}

static int nested_top(sg_node *n, void *ctx) {
  nested *x = ctx;
  x->top_runs++;
  if (x->in_mid) x->top_runs_inside_mid++;
  CHECK_EQ(sg_read(x->s), SG_OK);
  if (x->top_runs == 1) {
    sg_node_info info = {"mid", __FILE__, __LINE__};
    CHECK_EQ(sg_effect_new(x->g, &info, nested_mid, x, NULL, &x->mid), SG_OK);
  }
  return SG_UNCHANGED;
}

TEST(effect_owned_by_the_running_effect_leaves_its_owners_to_the_flush) {
  nested x = {.g = sg_graph_new()};
  sg_node_info s = {"s", __FILE__, __LINE__}, t = {"t", __FILE__, __LINE__};
  sg_node_info top = {"top", __FILE__, __LINE__};
  CHECK_EQ(sg_stored_new(x.g, &s, &x.s), SG_OK);
  CHECK_EQ(sg_stored_new(x.g, &t, &x.t), SG_OK);
  CHECK_EQ(sg_effect_new(x.g, &top, nested_top, &x, NULL, &x.top), SG_OK);
  CHECK_EQ(x.top_runs, 1);
  CHECK_EQ(x.mid_runs, 1);

  CHECK_EQ(sg_changed(x.t), SG_OK); /* mid runs, writes s, creates child */
  CHECK_EQ(x.mid_runs, 2);
  CHECK_EQ(x.child_runs, 1); /* at once, as a child created in a run */
  CHECK_EQ(x.top_runs_inside_mid, 0);
  CHECK_EQ(x.top_runs, 2); /* after mid's run, from the queue */
  CHECK_EQ(sg_node_destroy(x.child), SG_OK);
  CHECK_EQ(sg_node_destroy(x.mid), SG_OK);
  CHECK_EQ(sg_node_destroy(x.top), SG_OK);
  CHECK_EQ(sg_node_destroy(x.t), SG_OK);
  CHECK_EQ(sg_node_destroy(x.s), SG_OK);
  GRAPH_FREE(x.g);
}

/* An owner running on another thread when its new effect's first run comes:
 * the creating call returns at once and the owner's thread makes the first
 * run when its run ends; destroyed meanwhile (a cancelled restart), the
 * effect never runs. */
typedef struct handover {
  sg_graph *g;
  sg_node *q, *owner, *child;
  sem_t go, in_owner, let_go;
  pthread_t child_ran_on;
  bool block; /* the owner's next run blocks until let go */
  int child_runs, child_destroyed;
} handover;

static int handover_owner(sg_node *n, void *ctx) {
  handover *h = ctx;
  CHECK_EQ(sg_read(h->q), SG_OK);
  if (h->block) {
    h->block = false;
    sem_post(&h->in_owner);
    CHECK(wait_10s(&h->let_go));
  }
  return SG_OK;
}

static int handover_child(sg_node *n, void *ctx) {
  handover *h = ctx;
  h->child_runs++;
  h->child_ran_on = pthread_self();
  return SG_OK;
}

static void handover_child_destroyed(void *ctx) { ((handover *)ctx)->child_destroyed++; }

static void *handover_write_q(void *arg) {
  handover *h = arg;
  CHECK(wait_10s(&h->go)); /* the owner's run here blocks */
  CHECK_EQ(sg_changed(h->q), SG_OK); /* runs the owner here */
  return NULL;
}

static void handover_run(bool cancel) {
  handover h = {.g = sg_graph_new()};
  sem_init(&h.go, 0, 0);
  sem_init(&h.in_owner, 0, 0);
  sem_init(&h.let_go, 0, 0);
  sg_node_info q = {"q", __FILE__, __LINE__}, owner = {"owner", __FILE__, __LINE__};
  sg_node_info child = {"child", __FILE__, __LINE__};
  CHECK_EQ(sg_stored_new(h.g, &q, &h.q), SG_OK);
  CHECK_EQ(sg_effect_new(h.g, &owner, handover_owner, &h, NULL, &h.owner), SG_OK);
  pthread_t writer = spawn_thread(handover_write_q, &h, 0);
  h.block = true;
  sem_post(&h.go);
  REQUIRE(wait_10s(&h.in_owner)); /* the owner runs on the writer's thread */
  CHECK_EQ(sg_effect_new_owned(h.g, &child, handover_child, &h, handover_child_destroyed, h.owner,
                               &h.child),
           SG_OK);
  CHECK_EQ(h.child_runs, 0); /* left to the owner's thread */
  if (cancel) CHECK_EQ(sg_node_destroy(h.child), SG_OK);
  sem_post(&h.let_go);
  pthread_join(writer, NULL);
  if (cancel) {
    CHECK_EQ(h.child_runs, 0);
    CHECK_EQ(h.child_destroyed, 1);
  } else {
    CHECK_EQ(h.child_runs, 1);
    CHECK(pthread_equal(h.child_ran_on, writer));
    CHECK_EQ(sg_node_destroy(h.child), SG_OK);
    CHECK_EQ(h.child_destroyed, 1);
  }
  CHECK_EQ(sg_node_destroy(h.owner), SG_OK);
  CHECK_EQ(sg_node_destroy(h.q), SG_OK);
  CHECK_EQ(NODE_COUNT(h.g), 0);
  GRAPH_FREE(h.g);
  sem_destroy(&h.go);
  sem_destroy(&h.in_owner);
  sem_destroy(&h.let_go);
}

TEST(threads_effect_owned_first_run_is_the_busy_owners_threads) { handover_run(false); }

TEST(threads_effect_owned_cancelled_while_handed_over_never_runs) { handover_run(true); }
