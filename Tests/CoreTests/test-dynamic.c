/*
 * test-dynamic.c — dependencies are what the last run read: after a branch
 * switch the dropped source no longer invalidates, and the edge counts say
 * exactly that.
 */
#include "harness.h"

static int formula_pick(cell *self) { /* cond ? x : y */
  return IN(self, 0) ? IN(self, 1) : IN(self, 2);
}

TEST(dynamic_branch_switch_drops_source) {
  sg_graph *g = sg_graph_new();
  cell cond, x, y, pick;
  STORED(&cond, g, "cond", 1);
  STORED(&x, g, "x", 10);
  STORED(&y, g, "y", 20);
  COMPUTED(&pick, g, "pick", formula_pick, &cond, &x, &y);
  CHECK_EQ(READ(&pick), 10);
  sg_node *sources[4];
  CHECK_EQ(SOURCES(pick.node, sources, 4), 2);
  CHECK(sources[0] == cond.node && sources[1] == x.node); /* in read order */
  CHECK_EQ(DEPENDENT_COUNT(y.node), 0);

  SET(&y, 21); /* not read yet: no effect at all */
  CHECK_EQ(STATE(pick.node), SG_CLEAN);
  CHECK_EQ(READ(&pick), 10);
  CHECK_EQ(pick.runs, 1);

  SET(&cond, 0);
  CHECK_EQ(READ(&pick), 21);
  CHECK_EQ(pick.runs, 2);
  CHECK_EQ(SOURCES(pick.node, sources, 4), 2);
  CHECK(sources[0] == cond.node && sources[1] == y.node);
  CHECK_EQ(DEPENDENT_COUNT(x.node), 0);
  CHECK_EQ(DEPENDENT_COUNT(y.node), 1);
  CHECK_EQ(DEPENDENT_COUNT(cond.node), 1);

  SET(&x, 11); /* dropped source: pick is not even marked */
  SET(&x, 12);
  CHECK_EQ(STATE(pick.node), SG_CLEAN);
  CHECK_EQ(READ(&pick), 21);
  CHECK_EQ(pick.runs, 2);

  SET(&y, 22); /* the current source still does */
  CHECK_EQ(READ(&pick), 22);
  CHECK_EQ(pick.runs, 3);

  SET(&cond, 1); /* and back */
  CHECK_EQ(READ(&pick), 12);
  CHECK_EQ(pick.runs, 4);
  CHECK_EQ(DEPENDENT_COUNT(x.node), 1);
  CHECK_EQ(DEPENDENT_COUNT(y.node), 0);
  SET(&y, 23);
  CHECK_EQ(READ(&pick), 12);
  CHECK_EQ(pick.runs, 4);

  DESTROY(&pick);
  DESTROY(&y);
  DESTROY(&x);
  DESTROY(&cond);
  GRAPH_FREE(g);
}

/* Reads the first `count` of its inputs: the source list grows and shrinks. */
static int formula_first_n(cell *self) {
  int count = IN(self, 0), sum = 0;
  for (int i = 1; i <= count && i < 4; i++) sum += IN(self, i);
  return sum;
}

TEST(dynamic_source_count_follows_reads) {
  sg_graph *g = sg_graph_new();
  cell count, p, q, r, sum;
  STORED(&count, g, "count", 0);
  STORED(&p, g, "p", 1);
  STORED(&q, g, "q", 2);
  STORED(&r, g, "r", 4);
  COMPUTED(&sum, g, "sum", formula_first_n, &count, &p, &q, &r);
  static const int counts[] = {0, 3, 1, 2, 0, 3};
  static const int sums[] = {0, 7, 1, 3, 0, 7};
  for (int i = 0; i < 6; i++) {
    SET(&count, counts[i]);
    CHECK_EQ(READ(&sum), sums[i]);
    CHECK_EQ(SOURCE_COUNT(sum.node), 1 + counts[i]);
    CHECK_EQ(DEPENDENT_COUNT(p.node), counts[i] >= 1);
    CHECK_EQ(DEPENDENT_COUNT(q.node), counts[i] >= 2);
    CHECK_EQ(DEPENDENT_COUNT(r.node), counts[i] >= 3);
  }
  CHECK_EQ(sum.runs, 6);
  DESTROY(&sum);
  DESTROY(&r);
  DESTROY(&q);
  DESTROY(&p);
  DESTROY(&count);
  GRAPH_FREE(g);
}
