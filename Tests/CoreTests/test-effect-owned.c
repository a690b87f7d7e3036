/*
 * test-effect-owned.c — an effect created outside its owner's run, naming
 * the owner (sg_effect_new_owned): the owner comes first for its later
 * changes and for its first run.
 */
#include "harness.h"

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
