/*
 * test-cutoff.c — equality cutoff: a computed that reports SG_UNCHANGED
 * stops propagation, so nothing below it runs.
 */
#include "harness.h"

TEST(cutoff_stops_dependents) {
  sg_graph *g = sg_graph_new();
  cell a, b, c;
  STORED(&a, g, "a", 5);
  COMPUTED(&b, g, "b.sign", formula_sign, &a); /* 5, 6, 7 all give 1 */
  COMPUTED(&c, g, "c", formula_plus1, &b);
  CHECK_EQ(READ(&c), 2);
  uint64_t b_version = NODE_VERSION(b.node);

  SET(&a, 6);
  CHECK_EQ(READ(&c), 2);
  CHECK_EQ(b.runs, 2); /* b had to look */
  CHECK_EQ(c.runs, 1); /* c did not: b's value was equal */
  CHECK_EQ(NODE_VERSION(b.node), b_version);
  CHECK_EQ(STATE(c.node), SG_CLEAN);

  SET(&a, -3); /* now the sign flips: c runs */
  CHECK_EQ(READ(&c), 0);
  CHECK_EQ(b.runs, 3);
  CHECK_EQ(c.runs, 2);
  DESTROY(&c);
  DESTROY(&b);
  DESTROY(&a);
  GRAPH_FREE(g);
}

/* A long tail below the cutoff: none of it runs, however deep. */
TEST(cutoff_deep_tail_untouched) {
  enum { TAIL = 50 };
  sg_graph *g = sg_graph_new();
  cell a, sign, tail[TAIL];
  STORED(&a, g, "a", 1);
  COMPUTED(&sign, g, "sign", formula_sign, &a);
  for (int i = 0; i < TAIL; i++)
    COMPUTED(&tail[i], g, "tail", formula_plus1, i ? &tail[i - 1] : &sign);
  CHECK_EQ(READ(&tail[TAIL - 1]), 1 + TAIL);
  for (int v = 2; v < 20; v++) {
    SET(&a, v);
    CHECK_EQ(READ(&tail[TAIL - 1]), 1 + TAIL);
  }
  CHECK_EQ(sign.runs, 19);
  for (int i = 0; i < TAIL; i++) CHECK_EQ(tail[i].runs, 1);
  for (int i = TAIL - 1; i >= 0; i--) DESTROY(&tail[i]);
  DESTROY(&sign);
  DESTROY(&a);
  GRAPH_FREE(g);
}
