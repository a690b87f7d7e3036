/*
 * test-chain.c — a chain of 100,000 computeds, each reading the previous.
 * The first read recurses through every callback (the core continues on
 * helper threads with big stacks); the re-read after a write is iterative.
 * 10,000 under SG_TEST_QUICK (valgrind).
 */
#include "harness.h"

static void run_chain(int n) {
  sg_graph *g = sg_graph_new();
  cell *chain = calloc(n, sizeof *chain);
  REQUIRE(chain != NULL);
  STORED(&chain[0], g, "head", 1);
  for (int i = 1; i < n; i++) COMPUTED(&chain[i], g, "link", formula_plus1, &chain[i - 1]);
  cell *last = &chain[n - 1];
  CHECK_EQ(NODE_COUNT(g), n);

  CHECK_EQ(READ(last), n); /* 1 + (n - 1) */
  for (int i = 1; i < n; i++)
    if (chain[i].runs != 1 || chain[i].value != i + 1) {
      CHECK_EQ(chain[i].runs, 1);
      CHECK_EQ(chain[i].value, i + 1);
      break; /* one report, not a hundred thousand */
    }
  CHECK_EQ(DEPENDENT_COUNT(chain[0].node), 1);
  CHECK_EQ(SOURCE_COUNT(last->node), 1);

  SET(&chain[0], 1000);
  CHECK_EQ(STATE(chain[1].node), SG_DIRTY);
  CHECK_EQ(STATE(last->node), SG_CHECK); /* marking reached the end */
  CHECK_EQ(READ(last), 1000 + n - 1);
  int wrong = 0;
  for (int i = 1; i < n; i++) wrong += chain[i].runs != 2;
  CHECK_EQ(wrong, 0);
  CHECK_EQ(RUN_COUNT(chain[n / 2].node), 2);
  CHECK_EQ(READ(&chain[n / 2]), 1000 + n / 2);
  CHECK_EQ(chain[n / 2].runs, 2);

  /* head first: one iterative marking of the whole chain, then the rest */
  for (int i = 0; i < n; i++) DESTROY(&chain[i]);
  int destroyed = 0;
  for (int i = 1; i < n; i++) destroyed += chain[i].destroyed;
  CHECK_EQ(destroyed, n - 1);
  CHECK_EQ(NODE_COUNT(g), 0);
  free(chain);
  GRAPH_FREE(g);
}

TEST(chain_100k_deep) { run_chain(harness_quick() ? 10000 : 100000); }

/* An effect at the end of a deep chain: its first run does the deep read. */
TEST(chain_deep_effect) {
  const int n = harness_quick() ? 5000 : 50000;
  sg_graph *g = sg_graph_new();
  cell *chain = calloc(n + 1, sizeof *chain);
  REQUIRE(chain != NULL);
  STORED(&chain[0], g, "head", 0);
  for (int i = 1; i < n; i++) COMPUTED(&chain[i], g, "link", formula_plus1, &chain[i - 1]);
  EFFECT(&chain[n], g, "watch", formula_copy, &chain[n - 1]);
  CHECK_EQ(chain[n].value, n - 1);
  SET(&chain[0], 10);
  CHECK_EQ(chain[n].runs, 2);
  CHECK_EQ(chain[n].value, n + 9);
  for (int i = n; i >= 0; i--) DESTROY(&chain[i]);
  free(chain);
  GRAPH_FREE(g);
}
