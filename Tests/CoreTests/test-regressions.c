/*
 * test-regressions.c — core bugs found by the fuzzer (Tests/Fuzz) and the
 * Swift differential test (Tests/StateGraphTests/Differential*.swift), each
 * reduced to the smallest program that showed it. The transactions here do
 * what a binding's do: log a node's value and version before its first
 * change, and on failure restore the value and call sg_rollback().
 */
#include "harness.h"

/* A binding's transaction log, big enough for these tests. */
typedef struct tx {
  cell *node[8];
  int value[8];
  uint64_t version[8];
  int count;
} tx;

static void tx_log(tx *t, cell *c) {
  for (int i = 0; i < t->count; i++)
    if (t->node[i] == c) return;
  t->node[t->count] = c;
  t->value[t->count] = c->value;
  t->version[t->count] = NODE_VERSION(c->node);
  t->count++;
}

static void tx_set(tx *t, cell *c, int value) {
  tx_log(t, c);
  SET(c, value);
}

static void tx_rollback(tx *t) {
  for (int i = t->count - 1; i >= 0; i--) {
    t->node[i]->value = t->value[i];
    CHECK_EQ(sg_rollback(t->node[i]->node, t->version[i]), SG_OK);
  }
  t->count = 0;
}

/* A compute callback that logs its cell before a change, as the Swift
 * wrapper's does inside a batch. */
static tx *logging; /* the open transaction, or NULL */

static int logged_compute(sg_node *node, void *context) {
  cell *c = context;
  int before = c->value;
  int rc = cell_compute(node, context);
  if (rc == SG_CHANGED && logging) {
    int after = c->value;
    c->value = before; /* log the value from before this run */
    tx_log(logging, c);
    c->value = after;
  }
  return rc;
}

static void logged_computed(cell *c, sg_graph *g, const char *name, cell_formula f, cell *in) {
  memset(c, 0, sizeof *c);
  c->formula = f;
  c->in[0] = in;
  CHECK_EQ(sg_computed_new(g, &(sg_node_info){name, __FILE__, __LINE__}, logged_compute, c, NULL,
                           &c->node),
           SG_OK);
}

static int formula_is3(cell *self) { return IN(self, 0) == 3 ? 9 : 0; }

/* Differential test: a computed node stale before the batch (a write it has
 * not seen), read inside, rolled back. Its restored value is the stale one
 * and the sources its in-batch run read did not change: it used to pass as
 * CLEAN and read 1 for good. A rolled-back computed node now runs again. */
TEST(regression_stale_computed_rolled_back) {
  sg_graph *g = sg_graph_new();
  cell s, c;
  tx t = {0};
  STORED(&s, g, "s", 1);
  logged_computed(&c, g, "c", formula_copy, &s);
  CHECK_EQ(READ(&c), 1);
  SET(&s, 2); /* c is stale now */
  sg_batch_begin();
  logging = &t;
  CHECK_EQ(READ(&c), 2);
  CHECK_EQ(t.count, 1);
  logging = NULL;
  tx_rollback(&t);
  CHECK_EQ(STATE(c.node), SG_DIRTY);
  CHECK_EQ(sg_batch_end(), SG_OK);
  CHECK_EQ(READ(&c), 2);
  CHECK_EQ(c.runs, 3);
  DESTROY(&c);
  DESTROY(&s);
  GRAPH_FREE(g);
}

/* Differential test: after a rollback gave `middle` back version v, its next
 * change was numbered v + 1 again — the version `top` had seen inside the
 * batch. `top` found "its" version and kept a value computed from the
 * rolled-back state. A change now takes a version the node never had. */
TEST(regression_versions_not_reused) {
  sg_graph *g = sg_graph_new();
  cell s, middle, top;
  tx t = {0};
  STORED(&s, g, "s", 1);
  logged_computed(&middle, g, "middle", formula_copy, &s);
  logged_computed(&top, g, "top", formula_is3, &middle);
  CHECK_EQ(READ(&top), 0);
  uint64_t before = NODE_VERSION(middle.node);
  sg_batch_begin();
  logging = &t;
  tx_set(&t, &s, 2);
  CHECK_EQ(READ(&top), 0);
  logging = NULL;
  tx_rollback(&t);
  CHECK_EQ(sg_batch_end(), SG_OK);
  CHECK_EQ(NODE_VERSION(middle.node), before);
  SET(&s, 3);
  CHECK_EQ(READ(&middle), 3);
  CHECK(NODE_VERSION(middle.node) > before + 1); /* not the version top saw */
  CHECK_EQ(READ(&top), 9);
  DESTROY(&top);
  DESTROY(&middle);
  DESTROY(&s);
  GRAPH_FREE(g);
}

/* Fuzzer: a node DIRTY because a source was destroyed (its link is gone) was
 * turned into CHECK by the rollback of another source, re-checked against
 * the links it still had, and passed as CLEAN with a value computed from the
 * destroyed node: the read answered SG_OK instead of SG_ECALLBACK. */
TEST(regression_lost_source_stays_dirty) {
  sg_graph *g = sg_graph_new();
  cell x, y, c;
  STORED(&x, g, "x", 1);
  STORED(&y, g, "y", 2);
  COMPUTED(&c, g, "c", formula_sum, &x, &y);
  CHECK_EQ(READ(&c), 3);
  DESTROY(&y);
  CHECK_EQ(STATE(c.node), SG_DIRTY);
  sg_batch_begin();
  CHECK_EQ(sg_rollback(x.node, NODE_VERSION(x.node)), SG_OK); /* x ends where it began */
  CHECK_EQ(sg_batch_end(), SG_OK);
  CHECK_EQ(STATE(c.node), SG_DIRTY);
  CHECK_EQ(sg_read(c.node), SG_ECALLBACK); /* it runs, and finds y gone */
  CHECK_EQ(c.runs, 2);
  DESTROY(&c);
  DESTROY(&x);
  GRAPH_FREE(g);
}

/* Fuzzer: a rollback of a source turned a node that never ran (or whose
 * last run failed) from DIRTY into CHECK. It ran all the same, but its
 * state said "maybe stale" where the header promises DIRTY. */
TEST(regression_never_ran_stays_dirty) {
  sg_graph *g = sg_graph_new();
  cell s, c;
  STORED(&s, g, "s", 1);
  COMPUTED(&c, g, "c", formula_copy, &s);
  CHECK_EQ(sg_rollback(s.node, NODE_VERSION(s.node)), SG_OK);
  CHECK_EQ(STATE(c.node), SG_DIRTY);
  CHECK_EQ(sg_rollback(c.node, 0), SG_OK);
  CHECK_EQ(STATE(c.node), SG_DIRTY);
  CHECK_EQ(READ(&c), 1);
  DESTROY(&c);
  DESTROY(&s);
  GRAPH_FREE(g);
}

typedef struct watched_cell {
  cell base;
  int calls;
} watched_cell;

static int count_watch(sg_node *node, void *context) {
  (void)node;
  ((watched_cell *)context)->calls++;
  return SG_OK;
}

/* Fuzzer: removing the watcher (NULL) of an armed node left it armed, and
 * the next write called the NULL watcher: a crash. */
TEST(regression_watcher_removed_while_armed) {
  sg_graph *g = sg_graph_new();
  cell s;
  watched_cell w = {0};
  STORED(&s, g, "s", 1);
  COMPUTED(&w.base, g, "w", formula_copy, &s);
  CHECK_EQ(sg_node_set_watcher(w.base.node, count_watch), SG_OK);
  CHECK_EQ(READ(&w.base), 1);
  CHECK_EQ(sg_node_arm(w.base.node), SG_OK);
  CHECK_EQ(sg_node_set_watcher(w.base.node, NULL), SG_OK);
  SET(&s, 2); /* reaches the armed node: nobody to call */
  CHECK_EQ(w.calls, 0);
  CHECK_EQ(sg_node_set_watcher(w.base.node, count_watch), SG_OK);
  CHECK_EQ(READ(&w.base), 2);
  CHECK_EQ(sg_node_arm(w.base.node), SG_OK);
  SET(&s, 3);
  CHECK_EQ(w.calls, 1);
  DESTROY(&w.base);
  DESTROY(&s);
  GRAPH_FREE(g);
}

/* A computation that makes a node, reads it and
 * destroys it (a temporary) ran again on every read. Destroy marked every
 * dependent DIRTY, the running one included, though its run had already
 * used the value. A dependent that is running on this thread and read the
 * node in this run now keeps its result. */
typedef struct temporary {
  cell base;
  sg_graph *graph;
} temporary;

static int formula_temporary(cell *self) {
  temporary *t = (temporary *)self;
  static cell scratch; /* outlives the run: its node may be freed later */
  STORED(&scratch, t->graph, "scratch", 7);
  int value = cell_in(self, &scratch);
  DESTROY(&scratch);
  return value;
}

TEST(regression_temporary_node_read_in_a_run) {
  sg_graph *g = sg_graph_new();
  temporary t = {.graph = g};
  COMPUTED(&t.base, g, "t", formula_temporary, NULL);
  CHECK_EQ(READ(&t.base), 7);
  CHECK_EQ(READ(&t.base), 7);
  CHECK_EQ(t.base.runs, 1);
  CHECK_EQ(STATE(t.base.node), SG_CLEAN);
  CHECK_EQ(SOURCE_COUNT(t.base.node), 0);
  DESTROY(&t.base);
  GRAPH_FREE(g);
}
