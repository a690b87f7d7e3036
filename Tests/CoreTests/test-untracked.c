/*
 * test-untracked.c — reads between sg_untracked_begin/end inside a callback
 * are not dependencies; the section belongs to the running callback only.
 */
#include "harness.h"

static int formula_a_plus_peek_b(cell *self) { /* a + untracked(b) */
  int a = IN(self, 0);
  sg_untracked_begin();
  int b = IN(self, 1);
  sg_untracked_begin(); /* sections nest */
  b += IN(self, 1) - self->in[1]->value;
  CHECK_EQ(sg_untracked_end(), SG_OK);
  CHECK(sg_current() == self->node); /* still the running node */
  CHECK_EQ(sg_untracked_end(), SG_OK);
  return a + b;
}

TEST(untracked_reads_are_not_dependencies) {
  sg_graph *g = sg_graph_new();
  cell a, b, c;
  STORED(&a, g, "a", 1);
  STORED(&b, g, "b", 10);
  COMPUTED(&c, g, "c", formula_a_plus_peek_b, &a, &b);
  CHECK_EQ(READ(&c), 11);
  CHECK_EQ(SOURCE_COUNT(c.node), 1);
  CHECK_EQ(DEPENDENT_COUNT(b.node), 0);
  SET(&b, 20); /* invisible to c */
  CHECK_EQ(STATE(c.node), SG_CLEAN);
  CHECK_EQ(READ(&c), 11);
  CHECK_EQ(c.runs, 1);
  SET(&a, 2); /* a tracked write re-runs c, which then peeks the new b */
  CHECK_EQ(READ(&c), 22);
  CHECK_EQ(c.runs, 2);
  CHECK_EQ(SOURCE_COUNT(c.node), 1);
  DESTROY(&c);
  DESTROY(&b);
  DESTROY(&a);
  GRAPH_FREE(g);
}

/* An untracked read of a computed still brings it up to date, and that
 * computed records its own sources as usual: untracked is per frame. */
static int formula_peek(cell *self) {
  sg_untracked_begin();
  int v = IN(self, 0);
  sg_untracked_end();
  return v;
}

TEST(untracked_inner_computed_still_tracks) {
  sg_graph *g = sg_graph_new();
  cell a, inner, outer;
  STORED(&a, g, "a", 3);
  COMPUTED(&inner, g, "inner", formula_double, &a);
  COMPUTED(&outer, g, "outer", formula_peek, &inner);
  CHECK_EQ(READ(&outer), 6);
  CHECK_EQ(SOURCE_COUNT(outer.node), 0);
  CHECK_EQ(SOURCE_COUNT(inner.node), 1); /* inner's read of a counted */
  CHECK_EQ(DEPENDENT_COUNT(a.node), 1);
  SET(&a, 4);
  CHECK_EQ(READ(&outer), 6); /* outer does not know */
  CHECK_EQ(READ(&inner), 8);
  CHECK_EQ(inner.runs, 2);
  CHECK_EQ(outer.runs, 1);
  DESTROY(&outer);
  DESTROY(&inner);
  DESTROY(&a);
  GRAPH_FREE(g);
}

/* An effect that peeks: it runs for what it tracks, not for what it peeks. */
static int formula_effect_peek(cell *self) {
  int tracked = IN(self, 0);
  sg_untracked_begin();
  int peeked = IN(self, 1);
  sg_untracked_end();
  return tracked * 100 + peeked;
}

TEST(untracked_in_effect) {
  sg_graph *g = sg_graph_new();
  cell a, b, e;
  STORED(&a, g, "a", 1);
  STORED(&b, g, "b", 2);
  EFFECT(&e, g, "e", formula_effect_peek, &a, &b);
  CHECK_EQ(e.value, 102);
  SET(&b, 3);
  CHECK_EQ(e.runs, 1);
  SET(&a, 4);
  CHECK_EQ(e.runs, 2);
  CHECK_EQ(e.value, 403);
  CHECK_EQ(SOURCE_COUNT(e.node), 1);
  DESTROY(&e);
  DESTROY(&b);
  DESTROY(&a);
  GRAPH_FREE(g);
}

/* Outside callbacks untracked sections change nothing. */
TEST(untracked_outside_callbacks) {
  sg_graph *g = sg_graph_new();
  cell a, b;
  STORED(&a, g, "a", 1);
  COMPUTED(&b, g, "b", formula_plus1, &a);
  sg_untracked_begin();
  CHECK(sg_current() == NULL);
  CHECK_EQ(READ(&b), 2);
  CHECK_EQ(sg_untracked_end(), SG_OK);
  CHECK_EQ(SOURCE_COUNT(b.node), 1); /* b's own read of a still counts */
  DESTROY(&b);
  DESTROY(&a);
  GRAPH_FREE(g);
}
