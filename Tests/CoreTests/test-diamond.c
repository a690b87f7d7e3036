/*
 * test-diamond.c — a → b, a → c, (b, c) → d: after a write each of b, c, d
 * runs exactly once, and d never sees b and c from different writes.
 */
#include "harness.h"

static int formula_triple(cell *self) { return IN(self, 0) * 3; }

/* d records every (b, c) pair it is shown. */
typedef struct seen_pairs {
  cell base;
  int b[16], c[16];
  int count;
  int glitches;
} seen_pairs;

static int formula_pair(cell *self) {
  seen_pairs *d = (seen_pairs *)self;
  int b = IN(self, 0), c = IN(self, 1);
  if (d->count < 16) {
    d->b[d->count] = b;
    d->c[d->count] = c;
  }
  d->count++;
  if (b / 2 != c / 3) d->glitches++; /* b = 2a, c = 3a for one and the same a */
  return b + c;
}

TEST(diamond_each_node_once_no_glitch) {
  sg_graph *g = sg_graph_new();
  cell a, b, c;
  seen_pairs d = {0};
  STORED(&a, g, "a", 1);
  COMPUTED(&b, g, "b", formula_double, &a);
  COMPUTED(&c, g, "c", formula_triple, &a);
  COMPUTED(&d.base, g, "d", formula_pair, &b, &c);
  CHECK_EQ(READ(&d.base), 5);
  CHECK_EQ(DEPENDENT_COUNT(a.node), 2);
  CHECK_EQ(SOURCE_COUNT(d.base.node), 2);

  for (int v = 2; v <= 10; v++) {
    SET(&a, v);
    CHECK_EQ(READ(&d.base), 5 * v);
    CHECK_EQ(b.runs, v);
    CHECK_EQ(c.runs, v);
    CHECK_EQ(d.base.runs, v);
  }
  CHECK_EQ(d.glitches, 0);
  CHECK_EQ(d.count, 10);
  for (int i = 0; i < 10; i++) {
    CHECK_EQ(d.b[i], 2 * (i + 1));
    CHECK_EQ(d.c[i], 3 * (i + 1));
  }
  DESTROY(&d.base);
  DESTROY(&c);
  DESTROY(&b);
  DESTROY(&a);
  GRAPH_FREE(g);
}

/* Reading a middle node first must not make d see a mix either. */
TEST(diamond_partial_read_between) {
  sg_graph *g = sg_graph_new();
  cell a, b, c;
  seen_pairs d = {0};
  STORED(&a, g, "a", 1);
  COMPUTED(&b, g, "b", formula_double, &a);
  COMPUTED(&c, g, "c", formula_triple, &a);
  COMPUTED(&d.base, g, "d", formula_pair, &b, &c);
  CHECK_EQ(READ(&d.base), 5);
  SET(&a, 4);
  CHECK_EQ(READ(&c), 12); /* c first: b stays stale until d asks */
  CHECK_EQ(b.runs, 1);
  CHECK_EQ(READ(&d.base), 20);
  CHECK_EQ(b.runs, 2);
  CHECK_EQ(c.runs, 2);
  CHECK_EQ(d.base.runs, 2);
  CHECK_EQ(d.glitches, 0);
  DESTROY(&d.base);
  DESTROY(&c);
  DESTROY(&b);
  DESTROY(&a);
  GRAPH_FREE(g);
}

/* a → m[0..99] → sink: one write, each middle node once, the sink once. */
enum { WIDE = 100 };

typedef struct middle {
  cell base;
  int index;
} middle;

typedef struct wide_sink {
  cell base;
  middle *mids;
  int glitches;
} wide_sink;

static int formula_offset(cell *self) { return IN(self, 0) + ((middle *)self)->index; }

static int formula_wide_sum(cell *self) {
  wide_sink *s = (wide_sink *)self;
  int sum = 0, first = 0;
  for (int i = 0; i < WIDE; i++) {
    int v = cell_in(self, &s->mids[i].base);
    if (i == 0) first = v;
    else if (v != first + i) s->glitches++; /* all from the same write of a */
    sum += v;
  }
  return sum;
}

TEST(diamond_wide_100) {
  sg_graph *g = sg_graph_new();
  cell a;
  middle mid[WIDE];
  wide_sink sink = {.mids = mid};
  STORED(&a, g, "a", 0);
  for (int i = 0; i < WIDE; i++) {
    mid[i].index = i;
    COMPUTED(&mid[i].base, g, "m", formula_offset, &a);
  }
  COMPUTED(&sink.base, g, "sink", formula_wide_sum, NULL);
  const int offsets = WIDE * (WIDE - 1) / 2;
  CHECK_EQ(READ(&sink.base), offsets);
  CHECK_EQ(DEPENDENT_COUNT(a.node), WIDE);
  CHECK_EQ(SOURCE_COUNT(sink.base.node), WIDE);

  for (int v = 1; v <= 5; v++) {
    SET(&a, v);
    CHECK_EQ(READ(&sink.base), WIDE * v + offsets);
    CHECK_EQ(sink.base.runs, v + 1);
    for (int i = 0; i < WIDE; i++) CHECK_EQ(mid[i].base.runs, v + 1);
  }
  CHECK_EQ(sink.glitches, 0);
  DESTROY(&sink.base);
  for (int i = 0; i < WIDE; i++) DESTROY(&mid[i].base);
  DESTROY(&a);
  GRAPH_FREE(g);
}
