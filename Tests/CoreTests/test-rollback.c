/*
 * test-rollback.c — transactions: a write inside a batch that is undone
 * (value restored, then sg_rollback to the old version) notifies nobody.
 */
#include "harness.h"

/* Undo a write the way a binding's failed transaction does. */
static void restore(cell *stored, int value, uint64_t version) {
  stored->value = value;
  CHECK_EQ(sg_rollback(stored->node, version), SG_OK);
}

TEST(rollback_effect_does_not_run) {
  sg_graph *g = sg_graph_new();
  cell s, t, tenfold, direct, through;
  STORED(&s, g, "s", 1);
  STORED(&t, g, "t", 5);
  COMPUTED(&tenfold, g, "tenfold", formula_double, &s);
  EFFECT(&direct, g, "direct", formula_sum, &s, &t);
  EFFECT(&through, g, "through", formula_copy, &tenfold);
  CHECK_EQ(tenfold.runs, 1);

  uint64_t s0 = NODE_VERSION(s.node), t0 = NODE_VERSION(t.node);
  sg_batch_begin();
  SET(&s, 2);
  SET(&s, 3);
  SET(&t, 6);
  CHECK_EQ(NODE_VERSION(s.node), s0 + 2);
  restore(&s, 1, s0);
  restore(&t, 5, t0);
  CHECK_EQ(NODE_VERSION(s.node), s0);
  CHECK_EQ(sg_batch_end(), SG_OK);
  CHECK_EQ(direct.runs, 1);
  CHECK_EQ(through.runs, 1);
  CHECK_EQ(tenfold.runs, 1); /* the effect re-checked it: nothing to do */
  CHECK_EQ(STATE(tenfold.node), SG_CLEAN);
  CHECK_EQ(STATE(direct.node), SG_CLEAN);

  /* a partial undo: t restored, s kept — exactly one run each */
  sg_batch_begin();
  SET(&s, 4);
  SET(&t, 7);
  restore(&t, 5, t0);
  CHECK_EQ(sg_batch_end(), SG_OK);
  CHECK_EQ(direct.runs, 2);
  CHECK_EQ(direct.value, 4 + 5);
  CHECK_EQ(through.runs, 2);
  CHECK_EQ(through.value, 8);

  /* and later writes are seen as usual */
  SET(&t, 8);
  CHECK_EQ(direct.runs, 3);
  CHECK_EQ(direct.value, 12);
  DESTROY(&through);
  DESTROY(&direct);
  DESTROY(&tenfold);
  DESTROY(&t);
  DESTROY(&s);
  GRAPH_FREE(g);
}

TEST(rollback_computed_read_inside_batch) {
  sg_graph *g = sg_graph_new();
  cell s, doubled, plus, watch_s, watch_doubled;
  STORED(&s, g, "s", 1);
  COMPUTED(&doubled, g, "doubled", formula_double, &s);
  COMPUTED(&plus, g, "plus", formula_plus1, &doubled);
  EFFECT(&watch_s, g, "watch_s", formula_copy, &s);
  EFFECT(&watch_doubled, g, "watch_doubled", formula_copy, &plus);
  CHECK_EQ(plus.value, 3);

  uint64_t s0 = NODE_VERSION(s.node);
  sg_batch_begin();
  SET(&s, 5);
  CHECK_EQ(READ(&plus), 11); /* the transaction sees its own write */
  restore(&s, 1, s0);
  CHECK_EQ(READ(&plus), 3); /* and the restored value after the undo */
  CHECK_EQ(READ(&doubled), 2);
  CHECK_EQ(doubled.runs, 3);
  CHECK_EQ(plus.runs, 3);
  CHECK_EQ(sg_batch_end(), SG_OK);
  CHECK_EQ(watch_s.runs, 1); /* s ended where it started */
  /* plus changed twice inside (3 → 11 → 3): its version moved, so the
   * effect that reads it runs once and sees the restored value */
  CHECK_EQ(watch_doubled.runs, 2);
  CHECK_EQ(watch_doubled.value, 3);
  CHECK_EQ(READ(&plus), 3);
  CHECK_EQ(plus.runs, 3);
  DESTROY(&watch_doubled);
  DESTROY(&watch_s);
  DESTROY(&plus);
  DESTROY(&doubled);
  DESTROY(&s);
  GRAPH_FREE(g);
}

/* A computed whose last run failed must not pass as up to date when a
 * rollback turns its DIRTY into CHECK and its sources' versions match.
 * (Core fix: a failed run clears has_run.) */
TEST(rollback_failed_computed_is_not_trusted) {
  sg_graph *g = sg_graph_new();
  cell s;
  flaky c = {0};
  STORED(&s, g, "s", 1);
  COMPUTED(&c.base, g, "c", formula_flaky, &s);
  CHECK_EQ(READ(&c.base), 1);
  c.fail = 1;
  SET(&s, 2);
  CHECK_EQ(sg_read(c.base.node), SG_ECALLBACK);
  CHECK_EQ(c.base.runs, 2);

  uint64_t s0 = NODE_VERSION(s.node);
  sg_batch_begin();
  SET(&s, 3);
  restore(&s, 2, s0);
  CHECK_EQ(sg_batch_end(), SG_OK);
  CHECK_EQ(sg_read(c.base.node), SG_ECALLBACK); /* runs, fails again */
  CHECK_EQ(c.base.runs, 3);
  c.fail = 0;
  CHECK_EQ(READ(&c.base), 2); /* not the value from before the failure */
  CHECK_EQ(c.base.runs, 4);
  DESTROY(&c.base);
  DESTROY(&s);
  GRAPH_FREE(g);
}
