/*
 * test-effect-order.c — which effect runs first, and which writes re-run
 * what: owners before the effects their runs created, no re-entry from a
 * handler's own write, and loops ended with SG_ECYCLE instead of a hang.
 */
#include "harness.h"
#include "sg_testing.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <semaphore.h>

/* ------------------------------------------------- owners before children */

/* outer reads `positive` (a > 0); while it is true its run keeps one inner
 * effect reading a, made on its first run; when false it destroys it. The
 * C form of a tracking group that creates a nested group. */
typedef struct owner {
  cell base;
  cell inner;
  bool has_inner;
  int inner_saw_zero;
} owner;

static int formula_inner(cell *self) {
  int v = IN(self, 0);
  owner *o = (owner *)((char *)self - offsetof(owner, inner));
  if (v == 0) o->inner_saw_zero++;
  return v;
}

static int formula_owner(cell *self) {
  owner *o = (owner *)self;
  int positive = IN(self, 0);
  if (positive && !o->has_inner) {
    EFFECT(&o->inner, DESCRIBE(self->node).graph, "inner", formula_inner, self->in[1]);
    o->has_inner = true;
  } else if (!positive && o->has_inner) {
    DESTROY(&o->inner);
    o->has_inner = false;
  }
  return positive;
}

static int formula_positive(cell *self) { return IN(self, 0) > 0; }

TEST(effect_order_owner_runs_before_the_effect_it_created) {
  sg_graph *g = sg_graph_new();
  cell a, positive;
  owner o = {0};
  STORED(&a, g, "a", 1);
  COMPUTED(&positive, g, "positive", formula_positive, &a);
  EFFECT(&o.base, g, "outer", formula_owner, &positive, &a);
  CHECK(o.has_inner);
  CHECK_EQ(o.inner.runs, 1);

  SET(&a, 5); /* positive stays true: outer is cut off, inner runs once */
  CHECK_EQ(o.base.runs, 1);
  CHECK_EQ(o.inner.runs, 2);
  CHECK_EQ(o.inner.value, 5);

  SET(&a, 0); /* reaches inner directly, outer through positive */
  CHECK_EQ(o.base.runs, 2);  /* outer first: it disposes of inner */
  CHECK_EQ(o.inner_saw_zero, 0);
  CHECK(!o.has_inner);
  CHECK_EQ(o.inner.destroyed, 1);

  SET(&a, 3); /* outer makes a new inner, which runs once, at its creation */
  CHECK_EQ(o.base.runs, 3);
  CHECK(o.has_inner);
  CHECK_EQ(o.inner.runs, 1);
  CHECK_EQ(o.inner.value, 3);

  DESTROY(&o.inner);
  DESTROY(&o.base);
  DESTROY(&positive);
  DESTROY(&a);
  GRAPH_FREE(g);
}

/* ------------------------------------------- computes that write sources */

static int formula_increments_its_source(cell *self) {
  int v = IN(self, 0);
  cell *s = self->in[0];
  int rc = sg_changed(s->node); /* "s = s + 1" announced from inside */
  self->in[1]->value = rc;      /* what the write answered */
  return v;
}

TEST(effect_order_compute_writing_its_source_is_a_cycle) {
  sg_graph *g = sg_graph_new();
  cell s, c, answer = {0};
  STORED(&s, g, "s", 1);
  COMPUTED(&c, g, "c", formula_increments_its_source, &s, &answer);
  uint64_t version = NODE_VERSION(s.node);
  CHECK_EQ(READ(&c), 1);
  CHECK_EQ(answer.value, SG_ECYCLE);
  CHECK_EQ(c.runs, 1); /* at once, not 100,000 runs */
  CHECK_EQ(NODE_VERSION(s.node), version); /* the write was refused */
  CHECK(strstr(sg_last_cycle(), "c (") != NULL);
  CHECK(strstr(sg_last_cycle(), "writes s") != NULL);
  CHECK_EQ(READ(&c), 1); /* and it stays up to date */
  CHECK_EQ(c.runs, 1);
  DESTROY(&c);
  DESTROY(&s);
  GRAPH_FREE(g);
}

/* c reads d, d reads s, and c writes s: c depends on s through d, so the
 * write is refused as it is for a direct source. (Unrefused, every run of c
 * made itself stale again; the formula stops writing after 50 runs so that
 * the test fails instead of hanging.) */
static int formula_writes_source_of_its_source(cell *self) {
  int v = IN(self, 0); /* d */
  cell *s = self->in[1];
  if (self->runs <= 50) {
    s->value++;
    self->in[2]->value = sg_changed(s->node);
  }
  return v;
}

TEST(effect_order_compute_writing_a_transitive_source_is_a_cycle) {
  sg_graph *g = sg_graph_new();
  cell s, d, c, answer = {0};
  STORED(&s, g, "s", 1);
  COMPUTED(&d, g, "d", formula_copy, &s);
  COMPUTED(&c, g, "c", formula_writes_source_of_its_source, &d, &s, &answer);
  uint64_t version = NODE_VERSION(s.node);
  CHECK_EQ(READ(&c), 1);
  CHECK_EQ(answer.value, SG_ECYCLE);
  CHECK_EQ(c.runs, 1);
  CHECK_EQ(d.runs, 1);
  CHECK_EQ(NODE_VERSION(s.node), version); /* refused: nothing marked */
  CHECK(strstr(sg_last_cycle(), "c (") != NULL);
  CHECK(strstr(sg_last_cycle(), "writes s") != NULL);
  CHECK(strstr(sg_last_cycle(), "through d") != NULL);
  DESTROY(&c);
  DESTROY(&d);
  DESTROY(&s);
  GRAPH_FREE(g);
}

/* ------------------------------------------------ cascades of effects */

/* 250 effects in a row: stage k reads x[k-1] and writes x[k] = x[k-1] + 1
 * (x[0] is s). An observer reads every x. Nothing loops, so one write of s
 * settles without error, and the observer runs once, after the last stage,
 * seeing every final value. */
enum { STAGES = 250 };
static cell stage_x[STAGES + 1], stage[STAGES + 1], observer;
static int observer_stale_in_last_run;

static int formula_stage(cell *self) {
  int v = IN(self, 0);
  cell *out = self->in[1];
  if (out->value != v + 1) {
    out->value = v + 1;
    CHECK_EQ(sg_changed(out->node), SG_OK);
  }
  return v;
}

static int formula_observe_all(cell *self) {
  (void)self;
  int stale = 0;
  for (int k = 1; k <= STAGES; k++) {
    int rc = sg_read(stage_x[k].node);
    if (rc < 0) self->error = rc;
    stale += stage_x[k].value != stage_x[0].value + k;
  }
  observer_stale_in_last_run = stale;
  return 0;
}

TEST(effect_order_long_cascade_settles_without_a_false_loop) {
  sg_graph *g = sg_graph_new();
  STORED(&stage_x[0], g, "s", 0);
  for (int k = 1; k <= STAGES; k++) STORED(&stage_x[k], g, "x", k);
  for (int k = 1; k <= STAGES; k++)
    EFFECT(&stage[k], g, "stage", formula_stage, &stage_x[k - 1], &stage_x[k]);
  EFFECT(&observer, g, "observer", formula_observe_all, NULL);
  CHECK_EQ(observer_stale_in_last_run, 0);
  stage_x[0].value = 1000;
  CHECK_EQ(sg_changed(stage_x[0].node), SG_OK);
  CHECK_EQ(stage_x[STAGES].value, 1000 + STAGES);
  CHECK_EQ(observer_stale_in_last_run, 0);
  CHECK_EQ(observer.runs, 2); /* creation, then once after the last stage */
  for (int k = 1; k <= STAGES; k++) CHECK_EQ(stage[k].runs, 2);
  CHECK_EQ(observer.error, 0);
  DESTROY(&observer);
  for (int k = STAGES; k >= 1; k--) DESTROY(&stage[k]);
  for (int k = STAGES; k >= 0; k--) DESTROY(&stage_x[k]);
  GRAPH_FREE(g);
}

/* A destroy callback that writes runs when the flush lets go of the
 * destroyed effect's queue entry; the effects its write reaches still run
 * in that flush, and stay reachable by later writes. a's handler destroys
 * b, which the same write had queued; b's destroy callback writes x, which
 * c reads. */
static cell late_x, late_b, late_c;

static void write_x_on_destroy(void *context) {
  (void)context;
  late_x.value++;
  CHECK_EQ(sg_changed(late_x.node), SG_OK);
}

static int formula_destroys_b(cell *self) {
  int v = IN(self, 0);
  if (v == 1) CHECK_EQ(sg_node_destroy(late_b.node), SG_OK);
  return v;
}

TEST(effect_order_write_from_a_destroy_callback_in_a_flush_runs_its_effects) {
  sg_graph *g = sg_graph_new();
  cell s, a;
  STORED(&s, g, "s", 0);
  STORED(&late_x, g, "x", 0);
  EFFECT(&a, g, "a", formula_destroys_b, &s);
  memset(&late_b, 0, sizeof late_b);
  late_b.formula = formula_copy;
  late_b.in[0] = &s;
  CHECK_EQ(sg_effect_new(g, &(sg_node_info){.name = "b"}, cell_effect, &late_b,
                         write_x_on_destroy, &late_b.node), SG_OK);
  EFFECT(&late_c, g, "c", formula_copy, &late_x);
  SET(&s, 1); /* a destroys b; b's destroy callback writes x = 1 */
  CHECK_EQ(late_x.value, 1);
  CHECK_EQ(late_c.value, 1);
  CHECK_EQ(late_c.runs, 2);
  SET(&late_x, 5); /* and c still hears of later writes */
  CHECK_EQ(late_c.value, 5);
  CHECK_EQ(late_c.runs, 3);
  DESTROY(&late_c);
  DESTROY(&a);
  DESTROY(&late_x);
  DESTROY(&s);
  GRAPH_FREE(g);
}

/* -------------------------------------- owners first, across threads */

/* parent reads q and s; while s == 0 its run keeps one child effect that
 * reads s, and when s != 0 it destroys it: the child must never see s != 0.
 * Thread 2 writes q, which runs parent there; while that run is paused
 * (it has read s == 0), this thread writes s = 1. Its flush must not run
 * the child before the parent's run is over: the parent goes round once
 * more on thread 2 and disposes of the child. */
typedef struct cross_parent {
  cell base;
  cell child;
  sg_graph *g;
  bool has_child;
  _Atomic int child_saw_nonzero;
  _Atomic int pause;
  sem_t in_run, resume;
} cross_parent;

static cross_parent xp;

static int formula_child_of_s(cell *self) {
  int v = IN(self, 0);
  if (v != 0) xp.child_saw_nonzero++;
  return v;
}

static int formula_cross_parent(cell *self) {
  (void)IN(self, 0); /* q */
  int s = IN(self, 1);
  if (xp.pause) {
    xp.pause = 0;
    sem_post(&xp.in_run);
    sem_wait(&xp.resume);
  }
  if (s == 0 && !xp.has_child) {
    EFFECT(&xp.child, xp.g, "child", formula_child_of_s, self->in[1]);
    xp.has_child = true;
  } else if (s != 0 && xp.has_child) {
    DESTROY(&xp.child);
    xp.has_child = false;
  }
  return s;
}

static void *write_q_main(void *arg) {
  SET((cell *)arg, 1);
  return NULL;
}

TEST(threads_owner_running_elsewhere_runs_before_its_child) {
  sg_graph *g = sg_graph_new();
  cell q, s;
  STORED(&q, g, "q", 0);
  STORED(&s, g, "s", 0);
  memset(&xp, 0, sizeof xp);
  xp.g = g;
  sem_init(&xp.in_run, 0, 0);
  sem_init(&xp.resume, 0, 0);
  EFFECT(&xp.base, g, "parent", formula_cross_parent, &q, &s);
  CHECK(xp.has_child);
  CHECK_EQ(xp.child.runs, 1);
  xp.pause = 1;
  pthread_t other = spawn_thread(write_q_main, &q, 0);
  sem_wait(&xp.in_run); /* parent runs on the other thread, having read s == 0 */
  SET(&s, 1);
  sem_post(&xp.resume);
  pthread_join(other, NULL);
  CHECK_EQ(xp.child_saw_nonzero, 0);
  CHECK_EQ(xp.child.runs, 1);
  CHECK(!xp.has_child);
  CHECK_EQ(xp.child.destroyed, 1);
  CHECK_EQ(xp.base.runs, 3); /* creation, q's write, s's write */
  sem_destroy(&xp.in_run);
  sem_destroy(&xp.resume);
  DESTROY(&xp.base);
  DESTROY(&s);
  DESTROY(&q);
  GRAPH_FREE(g);
}

/* ----------------------------------------------------- loops of effects */

/* ping copies a into b + 1; pong copies b into a + 1: each write re-runs
 * the other, forever. The write that starts it answers SG_ECYCLE. */
static int formula_ping(cell *self) {
  int v = IN(self, 0);
  cell *target = self->in[1];
  target->value = v + 1;
  sg_changed(target->node);
  return v;
}

TEST(effect_order_two_effects_writing_each_other_end_with_a_cycle) {
  sg_graph *g = sg_graph_new();
  cell a, b, ping, pong;
  STORED(&a, g, "a", 0);
  STORED(&b, g, "b", 0);
  EFFECT(&ping, g, "ping", formula_ping, &a, &b); /* b = 1 at creation */
  /* pong's first run writes a = 2, which re-runs ping, and so on: the
   * creation itself reports the loop (pong exists all the same). */
  memset(&pong, 0, sizeof pong);
  pong.formula = formula_ping;
  pong.in[0] = &b;
  pong.in[1] = &a;
  CHECK_EQ(sg_effect_new(g, &(sg_node_info){.name = "pong"}, cell_effect, &pong, NULL,
                         &pong.node), SG_ECYCLE);
  CHECK(ping.runs > 1 && ping.runs <= 102);
  a.value = 100;
  CHECK_EQ(sg_changed(a.node), SG_ECYCLE);
  CHECK(strstr(sg_last_cycle(), "ping") != NULL);
  CHECK(strstr(sg_last_cycle(), "pong") != NULL);
  CHECK(ping.runs <= 2 * 102 && pong.runs <= 2 * 102);
  DESTROY(&ping);
  DESTROY(&pong);
  /* nothing else was harmed: the nodes still read and write */
  SET(&a, 7);
  CHECK_EQ(READ(&a), 7);
  DESTROY(&a);
  DESTROY(&b);
  GRAPH_FREE(g);
}

/* A real loop still ends in SG_ECYCLE, and the report names its members
 * in the order they ran, not the effects that merely watch it. */
static int formula_watch_both(cell *self) { return IN(self, 0) + IN(self, 1); }

TEST(effect_order_loop_report_names_its_members_only) {
  sg_graph *g = sg_graph_new();
  cell a, b, ping, pong, bystander;
  STORED(&a, g, "a", 0);
  STORED(&b, g, "b", 1);
  EFFECT(&bystander, g, "bystander", formula_watch_both, &a, &b);
  memset(&ping, 0, sizeof ping);
  ping.formula = formula_ping;
  ping.in[0] = &a;
  ping.in[1] = &b;
  CHECK_EQ(sg_effect_new(g, &(sg_node_info){.name = "ping", .file = "loop.c", .line = 1},
                         cell_effect, &ping, NULL, &ping.node), SG_OK);
  memset(&pong, 0, sizeof pong);
  pong.formula = formula_ping;
  pong.in[0] = &b;
  pong.in[1] = &a;
  CHECK_EQ(sg_effect_new(g, &(sg_node_info){.name = "pong", .file = "loop.c", .line = 2},
                         cell_effect, &pong, NULL, &pong.node), SG_ECYCLE);
  CHECK_STR(sg_last_cycle(), "ping (loop.c:1) -> pong (loop.c:2) -> ping (loop.c:1)"
                             " (effects writing what the other reads, again and again)");
  CHECK(ping.runs <= 102 && pong.runs <= 102);
  DESTROY(&ping);
  DESTROY(&pong);
  DESTROY(&bystander);
  DESTROY(&a);
  DESTROY(&b);
  GRAPH_FREE(g);
}

/* Each new thread's first flush must not look like the previous thread's
 * first flush: the effect's run count per flush is keyed by a process-wide
 * flush id. Before, 101 short-lived threads writing once each ended with a
 * false SG_ECYCLE (every thread's first flush had the same id). */
static void *write_once(void *arg) {
  cell *source = arg;
  source->value++;
  return (void *)(intptr_t)sg_changed(source->node);
}

TEST(threads_first_flushes_of_many_threads_are_no_loop) {
  sg_graph *g = sg_graph_new();
  cell a, watcher;
  STORED(&a, g, "a", 0);
  EFFECT(&watcher, g, "watcher", formula_positive, &a);
  for (int i = 0; i < 250; i++) {
    pthread_t t = spawn_thread(write_once, &a, 0);
    void *rc;
    pthread_join(t, &rc);
    CHECK_EQ((int)(intptr_t)rc, SG_OK);
  }
  CHECK_EQ(watcher.runs, 251);
  DESTROY(&watcher);
  DESTROY(&a);
  GRAPH_FREE(g);
}

/* ------------------------------------ loops the lap count must still see */

/* Runs past this many mean the loop was never ended: the effects stop
 * writing, so a failing test ends instead of hanging. */
#define RUNAWAY 3000

/* Two nested owners in a loop, reached through a child: outer reads x and
 * writes y, its child inner reads y and writes x, and inner's child leaf
 * reads z. A batch writing x and z runs the owners ahead of leaf's entry:
 * those runs must count as laps like any other. */
static struct {
  sg_graph *g;
  sg_node *x, *y, *z, *outer, *inner, *leaf;
  int outer_runs, inner_runs;
} nest;

static int nest_leaf(sg_node *n, void *c) {
  (void)n, (void)c;
  return sg_read(nest.z);
}

static int nest_inner(sg_node *n, void *c) {
  (void)n, (void)c;
  CHECK_EQ(sg_read(nest.y), SG_OK);
  if (!nest.leaf)
    CHECK_EQ(sg_effect_new(nest.g, &(sg_node_info){.name = "leaf"}, nest_leaf, NULL, NULL,
                           &nest.leaf), SG_OK);
  else if (++nest.inner_runs < RUNAWAY)
    sg_changed(nest.x);
  return SG_OK;
}

static int nest_outer(sg_node *n, void *c) {
  (void)n, (void)c;
  CHECK_EQ(sg_read(nest.x), SG_OK);
  if (!nest.inner)
    CHECK_EQ(sg_effect_new(nest.g, &(sg_node_info){.name = "inner"}, nest_inner, NULL, NULL,
                           &nest.inner), SG_OK);
  else if (++nest.outer_runs < RUNAWAY)
    sg_changed(nest.y);
  return SG_OK;
}

TEST(effect_order_nested_owners_writing_each_other_end_with_a_cycle) {
  memset(&nest, 0, sizeof nest);
  nest.g = sg_graph_new();
  CHECK_EQ(sg_stored_new(nest.g, &(sg_node_info){.name = "x"}, &nest.x), SG_OK);
  CHECK_EQ(sg_stored_new(nest.g, &(sg_node_info){.name = "y"}, &nest.y), SG_OK);
  CHECK_EQ(sg_stored_new(nest.g, &(sg_node_info){.name = "z"}, &nest.z), SG_OK);
  CHECK_EQ(sg_effect_new(nest.g, &(sg_node_info){.name = "outer"}, nest_outer, NULL, NULL,
                         &nest.outer), SG_OK);
  CHECK(nest.leaf != NULL);
  sg_batch_begin();
  CHECK_EQ(sg_changed(nest.x), SG_OK);
  CHECK_EQ(sg_changed(nest.z), SG_OK);
  CHECK_EQ(sg_batch_end(), SG_ECYCLE);
  CHECK(nest.outer_runs <= 102 && nest.inner_runs <= 102);
  CHECK(strstr(sg_last_cycle(), "outer") != NULL);
  CHECK(strstr(sg_last_cycle(), "inner") != NULL);
  CHECK(strstr(sg_last_cycle(), "leaf") == NULL); /* the loop, not who reached it */
  CHECK_EQ(sg_node_destroy(nest.leaf), SG_OK);
  CHECK_EQ(sg_node_destroy(nest.inner), SG_OK);
  CHECK_EQ(sg_node_destroy(nest.outer), SG_OK);
  CHECK_EQ(sg_node_destroy(nest.x), SG_OK);
  CHECK_EQ(sg_node_destroy(nest.y), SG_OK);
  CHECK_EQ(sg_node_destroy(nest.z), SG_OK);
  GRAPH_FREE(nest.g);
}

/* A loop through destroy callbacks: maker reads s, destroys the child its
 * last run made and makes a new one, whose destroy callback writes s. The
 * callbacks run as the flush lets go of queue entries; their writes must
 * continue the chain of causes, so the loop ends after its laps. */
static struct {
  sg_graph *g;
  sg_node *s, *maker, *child;
  int maker_runs;
} churn;

static void churn_child_gone(void *c) {
  (void)c;
  sg_changed(churn.s);
}

static int churn_child(sg_node *n, void *c) {
  (void)n, (void)c;
  return sg_read(churn.s);
}

static int churn_maker(sg_node *n, void *c) {
  (void)n, (void)c;
  CHECK_EQ(sg_read(churn.s), SG_OK);
  if (++churn.maker_runs > RUNAWAY) return SG_OK;
  if (churn.child) CHECK_EQ(sg_node_destroy(churn.child), SG_OK);
  CHECK_EQ(sg_effect_new(churn.g, &(sg_node_info){.name = "child"}, churn_child, NULL,
                         churn_child_gone, &churn.child), SG_OK);
  return SG_OK;
}

TEST(effect_order_loop_through_destroy_callbacks_ends_with_a_cycle) {
  memset(&churn, 0, sizeof churn);
  churn.g = sg_graph_new();
  CHECK_EQ(sg_stored_new(churn.g, &(sg_node_info){.name = "s"}, &churn.s), SG_OK);
  CHECK_EQ(sg_effect_new(churn.g, &(sg_node_info){.name = "maker"}, churn_maker, NULL, NULL,
                         &churn.maker), SG_OK);
  churn.maker_runs = 0;
  CHECK_EQ(sg_changed(churn.s), SG_ECYCLE);
  CHECK(churn.maker_runs <= 2 * 102);
  CHECK(strstr(sg_last_cycle(), "maker") != NULL);
  CHECK_EQ(sg_node_destroy(churn.maker), SG_OK);
  churn.maker_runs = RUNAWAY + 1; /* the last child's callback: no new child */
  CHECK_EQ(sg_node_destroy(churn.child), SG_OK);
  CHECK_EQ(sg_node_destroy(churn.s), SG_OK);
  GRAPH_FREE(churn.g);
}

/* Loop detection costs no walk for an effect's first run in a flush, and
 * for a later one a walk back to its previous run only: a cascade of many
 * effects is linear, and a ring of R effects looping 100 laps takes about
 * R steps per run, not a walk of the whole chain each time. */
#define WIDE 20000
#define RING 50
static sg_node *wide_s[WIDE + 1];

static int wide_stage(sg_node *n, void *c) {
  (void)n;
  intptr_t i = (intptr_t)c;
  CHECK_EQ(sg_read(wide_s[i]), SG_OK);
  sg_changed(wide_s[i + 1]);
  return SG_OK;
}

static int ring_stage(sg_node *n, void *c) {
  (void)n;
  intptr_t i = (intptr_t)c;
  CHECK_EQ(sg_read(wide_s[i]), SG_OK);
  sg_changed(wide_s[(i + 1) % RING]);
  return SG_OK;
}

TEST(effect_order_loop_detection_walks_back_to_the_previous_run_only) {
  sg_graph *g = sg_graph_new();
  static sg_node *stage[WIDE];
  for (int i = 0; i <= WIDE; i++) CHECK_EQ(sg_stored_new(g, NULL, &wide_s[i]), SG_OK);
  for (intptr_t i = 0; i < WIDE; i++)
    CHECK_EQ(sg_effect_new(g, NULL, wide_stage, (void *)i, NULL, &stage[i]), SG_OK);
  uint64_t before = sg__cause_steps();
  CHECK_EQ(sg_changed(wide_s[0]), SG_OK);
  CHECK(sg__cause_steps() - before <= WIDE); /* a walk per entry: WIDE^2 / 2 */
  for (int i = 0; i < WIDE; i++) CHECK_EQ(sg_node_destroy(stage[i]), SG_OK);

  for (intptr_t i = 0; i < RING; i++) {
    sg_effect_new(g, NULL, ring_stage, (void *)i, NULL, &stage[i]);
  }
  before = sg__cause_steps();
  CHECK_EQ(sg_changed(wide_s[0]), SG_ECYCLE);
  /* about 100 laps of RING runs, each walking back RING steps */
  CHECK(sg__cause_steps() - before <= (uint64_t)102 * RING * (RING + 1));
  for (int i = 0; i < RING; i++) CHECK_EQ(sg_node_destroy(stage[i]), SG_OK);
  for (int i = 0; i <= WIDE; i++) CHECK_EQ(sg_node_destroy(wide_s[i]), SG_OK);
  GRAPH_FREE(g);
}

/* --------------------------- a deferred child and its owner's open batch */

/* Thread 2 opens a batch and creates owner P there, whose first run makes
 * child C (reading s) and pauses. This thread writes s: C is stale and its
 * owner runs on thread 2, so C is deferred to P. When P's run ends, C runs
 * on thread 2 before sg_effect_new returns, not when its batch ends (which
 * might be never: the thread could exit with it open). */
static struct {
  sg_graph *g;
  sg_node *s, *p, *c;
  sem_t made, go;
  _Atomic int c_runs;
  int c_runs_before_batch_end;
} handed;

static int handed_child(sg_node *n, void *x) {
  (void)n, (void)x;
  handed.c_runs++;
  return sg_read(handed.s);
}

static int handed_owner(sg_node *n, void *x) {
  (void)n, (void)x;
  if (!handed.c) {
    CHECK_EQ(sg_effect_new(handed.g, &(sg_node_info){.name = "C"}, handed_child, NULL, NULL,
                           &handed.c), SG_OK);
    sem_post(&handed.made);
    sem_wait(&handed.go);
  }
  return SG_OK;
}

static void *handed_batch_thread(void *arg) {
  (void)arg;
  sg_batch_begin();
  CHECK_EQ(sg_effect_new(handed.g, &(sg_node_info){.name = "P"}, handed_owner, NULL, NULL,
                         &handed.p), SG_OK);
  handed.c_runs_before_batch_end = handed.c_runs;
  CHECK_EQ(sg_batch_end(), SG_OK);
  return NULL;
}

TEST(threads_deferred_child_runs_when_its_owner_lets_go_in_an_open_batch) {
  memset(&handed, 0, sizeof handed);
  sem_init(&handed.made, 0, 0);
  sem_init(&handed.go, 0, 0);
  handed.g = sg_graph_new();
  CHECK_EQ(sg_stored_new(handed.g, &(sg_node_info){.name = "s"}, &handed.s), SG_OK);
  pthread_t t2 = spawn_thread(handed_batch_thread, NULL, 0);
  sem_wait(&handed.made);
  CHECK_EQ(handed.c_runs, 1); /* its first run */
  CHECK_EQ(sg_changed(handed.s), SG_OK);
  CHECK_EQ(handed.c_runs, 1); /* deferred to P, running on thread 2 */
  sem_post(&handed.go);
  pthread_join(t2, NULL);
  CHECK_EQ(handed.c_runs_before_batch_end, 2);
  CHECK_EQ(handed.c_runs, 2);
  CHECK_EQ(sg_node_destroy(handed.c), SG_OK);
  CHECK_EQ(sg_node_destroy(handed.p), SG_OK);
  CHECK_EQ(sg_node_destroy(handed.s), SG_OK);
  GRAPH_FREE(handed.g);
  sem_destroy(&handed.made);
  sem_destroy(&handed.go);
}

/* An owner whose run fails stays stale; each of its queued children would
 * run it ahead once more. It is tried once per flush: the children run as
 * after a failed run, and the owner's next write-driven run tries again. */
#define BROOD 150
static struct {
  sg_graph *g;
  sg_node *s, *owner, *kids[BROOD];
  int owner_runs, kid_runs;
  bool fail;
} brood;

static int brood_kid(sg_node *n, void *x) {
  (void)n, (void)x;
  brood.kid_runs++;
  return sg_read(brood.s);
}

static int brood_owner(sg_node *n, void *x) {
  (void)n, (void)x;
  brood.owner_runs++;
  CHECK_EQ(sg_read(brood.s), SG_OK);
  if (!brood.kids[0])
    for (int k = 0; k < BROOD; k++)
      CHECK_EQ(sg_effect_new(brood.g, &(sg_node_info){.name = "kid"}, brood_kid, NULL, NULL,
                             &brood.kids[k]), SG_OK);
  return brood.fail ? SG_ECALLBACK : SG_OK;
}

TEST(effect_order_failed_owner_is_tried_once_for_all_its_children) {
  memset(&brood, 0, sizeof brood);
  brood.g = sg_graph_new();
  CHECK_EQ(sg_stored_new(brood.g, &(sg_node_info){.name = "s"}, &brood.s), SG_OK);
  CHECK_EQ(sg_effect_new(brood.g, &(sg_node_info){.name = "owner"}, brood_owner, NULL, NULL,
                         &brood.owner), SG_OK);
  brood.fail = true;
  brood.owner_runs = brood.kid_runs = 0;
  sg_changed(brood.s);
  CHECK_EQ(brood.owner_runs, 1);
  CHECK_EQ(brood.kid_runs, BROOD);
  brood.fail = false;
  CHECK_EQ(sg_changed(brood.s), SG_OK); /* tried again: a new write */
  CHECK_EQ(brood.owner_runs, 2);
  CHECK_EQ(brood.kid_runs, 2 * BROOD);
  for (int k = 0; k < BROOD; k++) CHECK_EQ(sg_node_destroy(brood.kids[k]), SG_OK);
  CHECK_EQ(sg_node_destroy(brood.owner), SG_OK);
  CHECK_EQ(sg_node_destroy(brood.s), SG_OK);
  GRAPH_FREE(brood.g);
}
