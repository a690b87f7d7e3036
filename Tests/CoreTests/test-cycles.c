/*
 * test-cycles.c — a computed that (transitively) reads itself gets
 * SG_ECYCLE, sg_last_cycle() names the cycle with file:line, and the graph
 * stays usable: no hang, no unbounded recursion, no leak.
 */
#include "harness.h"

#include <pthread.h>

/* Nodes of a "spreadsheet" with fixed, readable places. */
#define SHEET "sheet.c"

static void computed_at_line(cell *c, sg_graph *g, const char *name, cell_formula f,
                             int line, cell *in0) {
  cell_computed_at(c, g, name, f, (cell *[]){in0, NULL}, SHEET, line);
}

TEST(cycle_self_read) {
  sg_graph *g = sg_graph_new();
  cell self;
  computed_at_line(&self, g, "self", formula_plus1, 10, NULL);
  self.in[0] = &self; /* reads itself */
  /* the inner read gets SG_ECYCLE; the callback returns it, so does the outer */
  CHECK_EQ(sg_read(self.node), SG_ECYCLE);
  CHECK_EQ(self.error, SG_ECYCLE);
  CHECK_STR(sg_last_cycle(), "self (sheet.c:10) -> self (sheet.c:10)");
  CHECK_EQ(self.runs, 1);
  CHECK_EQ(STATE(self.node), SG_DIRTY);
  CHECK_EQ(SOURCE_COUNT(self.node), 0); /* a failed read records nothing */
  CHECK_EQ(DEPENDENT_COUNT(self.node), 0);
  /* again: same answer, no hang */
  CHECK_EQ(sg_read(self.node), SG_ECYCLE);
  CHECK_EQ(self.runs, 2);
  DESTROY(&self);
  CHECK_EQ(self.destroyed, 1);
  GRAPH_FREE(g);
}

/* A callback that swallows the cycle error and returns some other failure:
 * the reader sees SG_ECALLBACK; one that ignores it entirely succeeds. */
static int formula_fail_differently(cell *self) {
  int rc = sg_read(self->node);
  self->error = rc == SG_ECYCLE ? SG_EINVAL : rc;
  return 0;
}

static int formula_ignore_cycle(cell *self) {
  return sg_read(self->node) == SG_ECYCLE ? 42 : -1;
}

TEST(cycle_self_read_other_returns) {
  sg_graph *g = sg_graph_new();
  cell a, b;
  computed_at_line(&a, g, "a", formula_fail_differently, 20, NULL);
  CHECK_EQ(sg_read(a.node), SG_ECALLBACK);
  CHECK_STR(sg_last_cycle(), "a (sheet.c:20) -> a (sheet.c:20)");
  computed_at_line(&b, g, "b", formula_ignore_cycle, 21, NULL);
  CHECK_EQ(READ(&b), 42);
  CHECK_EQ(STATE(b.node), SG_CLEAN);
  CHECK_EQ(SOURCE_COUNT(b.node), 0);
  CHECK_STR(sg_last_cycle(), "b (sheet.c:21) -> b (sheet.c:21)");
  DESTROY(&a);
  DESTROY(&b);
  GRAPH_FREE(g);
}

/* a → b → c → a (each reads the next), with a switch to break the loop. */
typedef struct link_cell {
  cell base;
  cell *exit; /* when set, read this instead of in[0] */
} link_cell;

static int formula_next(cell *self) {
  link_cell *l = (link_cell *)self;
  return (l->exit ? cell_in(self, l->exit) : IN(self, 0)) + 1;
}

TEST(cycle_three_nodes_named_in_order) {
  sg_graph *g = sg_graph_new();
  link_cell a = {0}, b = {0}, c = {0};
  computed_at_line(&a.base, g, "a", formula_next, 1, &b.base);
  computed_at_line(&b.base, g, "b", formula_next, 2, &c.base);
  computed_at_line(&c.base, g, "c", formula_next, 3, &a.base);
  CHECK_EQ(sg_read(a.base.node), SG_ECYCLE);
  CHECK_STR(sg_last_cycle(), "a (sheet.c:1) -> b (sheet.c:2) -> c (sheet.c:3) -> a (sheet.c:1)");
  CHECK_EQ(sg_read(b.base.node), SG_ECYCLE); /* entered elsewhere, named from there */
  CHECK_STR(sg_last_cycle(), "b (sheet.c:2) -> c (sheet.c:3) -> a (sheet.c:1) -> b (sheet.c:2)");
  CHECK_EQ(a.base.runs + b.base.runs + c.base.runs, 6);
  link_cell *all[] = {&a, &b, &c};
  for (int i = 0; i < 3; i++) {
    CHECK_EQ(STATE(all[i]->base.node), SG_DIRTY);
    CHECK_EQ(SOURCE_COUNT(all[i]->base.node), 0);
  }

  /* break the loop: c reads a stored x instead of a */
  cell x;
  STORED(&x, g, "x", 100);
  c.exit = &x;
  CHECK_EQ(READ(&a.base), 103);
  CHECK_EQ(READ(&b.base), 102);
  CHECK_EQ(a.base.runs + b.base.runs + c.base.runs, 9);
  SET(&x, 200);
  CHECK_EQ(READ(&a.base), 203);
  CHECK_EQ(a.base.runs + b.base.runs + c.base.runs, 12);
  CHECK_EQ(SOURCE_COUNT(c.base.node), 1);

  /* and close it again through a write: the cycle is found again */
  c.exit = NULL;
  SET(&x, 300);
  CHECK_EQ(sg_read(a.base.node), SG_ECYCLE);
  CHECK_STR(sg_last_cycle(), "a (sheet.c:1) -> b (sheet.c:2) -> c (sheet.c:3) -> a (sheet.c:1)");

  DESTROY(&a.base);
  DESTROY(&b.base);
  DESTROY(&c.base);
  DESTROY(&x);
  CHECK_EQ(a.base.destroyed + b.base.destroyed + c.base.destroyed, 3);
  GRAPH_FREE(g);
}

TEST(cycle_unnamed_nodes) {
  sg_graph *g = sg_graph_new();
  cell a;
  memset(&a, 0, sizeof a);
  a.formula = formula_plus1;
  a.in[0] = &a;
  CHECK_EQ(sg_computed_new(g, NULL, cell_compute, &a, NULL, &a.node), SG_OK);
  CHECK_EQ(sg_read(a.node), SG_ECYCLE);
  CHECK_STR(sg_last_cycle(), "(unnamed) -> (unnamed)");
  CHECK_EQ(sg_node_destroy(a.node), SG_OK);
  GRAPH_FREE(g);
}

/* An effect caught in a cycle: creation reports the failed first run. */
TEST(cycle_through_effect) {
  sg_graph *g = sg_graph_new();
  cell loop, e;
  computed_at_line(&loop, g, "loop", formula_plus1, 5, NULL);
  loop.in[0] = &loop;
  memset(&e, 0, sizeof e);
  e.formula = formula_copy;
  e.in[0] = &loop;
  sg_node_info info = {"watch", SHEET, 6};
  CHECK_EQ(sg_effect_new(g, &info, cell_effect, &e, NULL, &e.node), SG_ECALLBACK);
  CHECK_EQ(e.error, SG_ECYCLE);
  CHECK_STR(sg_last_cycle(), "loop (sheet.c:5) -> loop (sheet.c:5)");
  CHECK_EQ(sg_node_destroy(e.node), SG_OK);
  DESTROY(&loop);
  GRAPH_FREE(g);
}

/* A long cycle: first evaluation recurses through thousands of callbacks,
 * crossing onto helper threads, and still finds its way back. */
TEST(cycle_long_loop_no_overflow) {
  const int n = harness_quick() ? 2000 : 20000;
  sg_graph *g = sg_graph_new();
  cell *ring = calloc(n, sizeof *ring);
  REQUIRE(ring != NULL);
  for (int i = 0; i < n; i++) COMPUTED(&ring[i], g, "r", formula_plus1, NULL);
  for (int i = 0; i < n; i++) ring[i].in[0] = &ring[(i + 1) % n];
  CHECK_EQ(sg_read(ring[0].node), SG_ECYCLE);
  /* n steps and the way back: "r -> r -> ... -> r" */
  const char *text = sg_last_cycle();
  int arrows = 0; /* by hand: strstr under ASan rescans the rest each time */
  for (const char *p = text; *p; p++) arrows += strncmp(p, " -> ", 4) == 0;
  CHECK_EQ(arrows, n);
  for (int i = 0; i < n; i++) CHECK_EQ(ring[i].runs, 1);
  for (int i = 0; i < n; i++) DESTROY(&ring[i]);
  free(ring);
  GRAPH_FREE(g);
}

/* The thread owns the text: copy it before the thread (and it) is gone. */
static void *copy_last_cycle(void *out) {
  snprintf(out, 64, "%s", sg_last_cycle());
  return NULL;
}

TEST(cycle_report_is_per_thread) {
  sg_graph *g = sg_graph_new();
  cell self;
  computed_at_line(&self, g, "self", formula_plus1, 7, NULL);
  self.in[0] = &self;
  CHECK_EQ(sg_read(self.node), SG_ECYCLE);
  char other[64] = "unset";
  pthread_t t;
  REQUIRE(pthread_create(&t, NULL, copy_last_cycle, other) == 0);
  pthread_join(t, NULL);
  CHECK_STR(other, ""); /* that thread never met a cycle */
  CHECK_STR(sg_last_cycle(), "self (sheet.c:7) -> self (sheet.c:7)");
  DESTROY(&self);
  GRAPH_FREE(g);
}
