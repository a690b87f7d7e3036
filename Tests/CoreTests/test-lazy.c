/*
 * test-lazy.c — computeds run when read, not before, and at most once per
 * change: lazy, cached, re-run after a write, no read means no run.
 */
#include "harness.h"

TEST(lazy_not_run_until_read) {
  sg_graph *g = sg_graph_new();
  cell a, b;
  STORED(&a, g, "a", 2);
  COMPUTED(&b, g, "b", formula_double, &a);
  CHECK_EQ(b.runs, 0);
  CHECK_EQ(RUN_COUNT(b.node), 0);
  CHECK_EQ(STATE(b.node), SG_DIRTY); /* never ran */
  CHECK_EQ(SOURCE_COUNT(b.node), 0); /* edges appear by reading */
  CHECK_EQ(READ(&b), 4);
  CHECK_EQ(b.runs, 1);
  CHECK_EQ(STATE(b.node), SG_CLEAN);
  CHECK_EQ(SOURCE_COUNT(b.node), 1);
  CHECK_EQ(DEPENDENT_COUNT(a.node), 1);
  DESTROY(&b);
  DESTROY(&a);
  GRAPH_FREE(g);
}

TEST(lazy_cached_read_twice_runs_once) {
  sg_graph *g = sg_graph_new();
  cell a, b, c;
  STORED(&a, g, "a", 3);
  COMPUTED(&b, g, "b", formula_double, &a);
  COMPUTED(&c, g, "c", formula_plus1, &b);
  CHECK_EQ(READ(&c), 7);
  CHECK_EQ(READ(&c), 7);
  CHECK_EQ(READ(&b), 6); /* b was brought up to date by c's read */
  CHECK_EQ(b.runs, 1);
  CHECK_EQ(c.runs, 1);
  CHECK_EQ(RUN_COUNT(c.node), 1);
  DESTROY(&c);
  DESTROY(&b);
  DESTROY(&a);
  GRAPH_FREE(g);
}

TEST(lazy_write_then_one_run_on_next_read) {
  sg_graph *g = sg_graph_new();
  cell a, b, c;
  STORED(&a, g, "a", 1);
  COMPUTED(&b, g, "b", formula_double, &a);
  COMPUTED(&c, g, "c", formula_plus1, &b);
  CHECK_EQ(READ(&c), 3);
  SET(&a, 5);
  /* the write only marks: direct dependent DIRTY, the one below CHECK */
  CHECK_EQ(STATE(b.node), SG_DIRTY);
  CHECK_EQ(STATE(c.node), SG_CHECK);
  CHECK_EQ(b.runs, 1);
  CHECK_EQ(c.runs, 1);
  CHECK_EQ(READ(&c), 11);
  CHECK_EQ(READ(&c), 11);
  CHECK_EQ(b.runs, 2);
  CHECK_EQ(c.runs, 2);
  /* several writes between reads still cost one run each */
  SET(&a, 6);
  SET(&a, 7);
  SET(&a, 8);
  CHECK_EQ(READ(&c), 17);
  CHECK_EQ(b.runs, 3);
  CHECK_EQ(c.runs, 3);
  DESTROY(&c);
  DESTROY(&b);
  DESTROY(&a);
  GRAPH_FREE(g);
}

TEST(lazy_no_read_no_run) {
  sg_graph *g = sg_graph_new();
  cell a, b;
  STORED(&a, g, "a", 1);
  COMPUTED(&b, g, "b", formula_double, &a);
  CHECK_EQ(READ(&b), 2);
  for (int i = 2; i <= 50; i++) SET(&a, i);
  CHECK_EQ(b.runs, 1); /* fifty writes, nobody asked */
  CHECK_EQ(NODE_VERSION(a.node), 49);
  /* reading the stored source from outside runs nothing either */
  CHECK_EQ(READ(&a), 50);
  CHECK_EQ(b.runs, 1);
  DESTROY(&b);
  DESTROY(&a);
  GRAPH_FREE(g);
}

/* sg_read_where_unchecked reads as sg_read_unchecked does and says where:
 * 1 inside a callback (the read is recorded), 0 outside, or the error. */
static int where_inside;
static int formula_where(cell *self) {
  where_inside = sg_read_where_unchecked(self->in[0]->node);
  return self->in[0]->value + 1;
}

TEST(lazy_read_where_says_inside_or_outside) {
  sg_graph *g = sg_graph_new();
  cell a, b, e;
  STORED(&a, g, "a", 2);
  COMPUTED(&b, g, "b", formula_where, &a);
  EFFECT(&e, g, "e", formula_copy, &a);
  CHECK_EQ(sg_read_where_unchecked(b.node), 0); /* outside: runs b */
  CHECK_EQ(b.runs, 1);
  CHECK_EQ(where_inside, 1);
  CHECK_EQ(SOURCE_COUNT(b.node), 1); /* recorded, as sg_read_unchecked records */
  CHECK_EQ(b.value, 3);
  CHECK_EQ(sg_read_where_unchecked(a.node), 0);
  CHECK_EQ(sg_read_where_unchecked(e.node), SG_EKIND);
  DESTROY(&e);
  DESTROY(&b);
  DESTROY(&a);
  GRAPH_FREE(g);
}

/* sg_read_where_unchecked inside an untracked section of a callback answers
 * 1, inside a callback, and records no dependency: the Swift getter skips
 * Observation for any read inside a callback, as it did asking sg_current(). */
static int where_untracked;
static int formula_where_untracked(cell *self) {
  sg_untracked_begin();
  where_untracked = sg_read_where_unchecked(self->in[1]->node);
  sg_untracked_end();
  return IN(self, 0);
}

TEST(lazy_read_where_in_untracked_section) {
  sg_graph *g = sg_graph_new();
  cell a, x, b;
  STORED(&a, g, "a", 2);
  STORED(&x, g, "x", 5);
  COMPUTED(&b, g, "b", formula_where_untracked, &a, &x);
  CHECK_EQ(READ(&b), 2);
  CHECK_EQ(where_untracked, 1); /* "inside" */
  CHECK_EQ(SOURCE_COUNT(b.node), 1); /* but x is no dependency */
  DESTROY(&b);
  DESTROY(&x);
  DESTROY(&a);
  GRAPH_FREE(g);
}
