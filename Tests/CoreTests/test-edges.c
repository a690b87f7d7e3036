/*
 * test-edges.c — a source read many times in one run is one edge: on the
 * list path (few sources), on the hash-index path (more than
 * SG_INDEX_THRESHOLD = 8 sources), and when the read order changes.
 */
#include "harness.h"

#include <stdbool.h>

enum { MANY = 12 }; /* > 8: the node gets a hash index of its sources */

typedef struct reader {
  cell base;
  cell *sources;
  int order[3 * MANY]; /* which source to read, in this order */
  int reads;
} reader;

static int formula_read_listed(cell *self) {
  reader *r = (reader *)self;
  int sum = 0;
  for (int i = 0; i < r->reads; i++) sum += cell_in(self, &r->sources[r->order[i]]);
  return sum;
}

static void set_order(reader *r, const int *order, int reads) {
  memcpy(r->order, order, reads * sizeof *order);
  r->reads = reads;
}

TEST(edges_same_source_30_reads_one_edge) {
  sg_graph *g = sg_graph_new();
  cell s;
  reader r = {.sources = &s, .reads = 30}; /* order: all zero = s, 30 times */
  STORED(&s, g, "s", 2);
  COMPUTED(&r.base, g, "r", formula_read_listed, NULL);
  CHECK_EQ(READ(&r.base), 60);
  CHECK_EQ(SOURCE_COUNT(r.base.node), 1);
  CHECK_EQ(DEPENDENT_COUNT(s.node), 1);
  for (int v = 3; v < 6; v++) { /* re-runs: still one edge */
    SET(&s, v);
    CHECK_EQ(READ(&r.base), 30 * v);
    CHECK_EQ(SOURCE_COUNT(r.base.node), 1);
    CHECK_EQ(DEPENDENT_COUNT(s.node), 1);
  }
  CHECK_EQ(r.base.runs, 4);
  DESTROY(&r.base);
  CHECK_EQ(DEPENDENT_COUNT(s.node), 0);
  DESTROY(&s);
  GRAPH_FREE(g);
}

/* Reads of the last sources read again (c, t, c, t) are answered from the
 * run's memo of them, but only while they are up to date: an effect that
 * then writes c's source and reads c once more sees c's new value. */
typedef struct rereader {
  cell base;
  cell *c, *t, *s;
  int last_read; /* the run's last read of c */
} rereader;

static int formula_reread_after_write(cell *self) {
  rereader *r = (rereader *)self;
  int sum = cell_in(self, r->c) + cell_in(self, r->t);
  sum += cell_in(self, r->c) + cell_in(self, r->t);
  SET(r->s, 5);
  r->last_read = cell_in(self, r->c);
  return sum + r->last_read;
}

TEST(edges_recent_reads_see_a_write_in_between) {
  sg_graph *g = sg_graph_new();
  cell s, t, c;
  rereader r = {.c = &c, .t = &t, .s = &s};
  STORED(&s, g, "s", 1);
  STORED(&t, g, "t", 100);
  COMPUTED(&c, g, "c", formula_double, &s);
  EFFECT(&r.base, g, "e", formula_reread_after_write, NULL);
  CHECK_EQ(r.last_read, 10); /* the write made c stale: it ran again for this read */
  CHECK_EQ(c.runs, 2);
  CHECK_EQ(r.base.value, 2 + 100 + 2 + 100 + 10);
  /* The last read stamped the effect's link to c with c's new version: its
   * re-check finds nothing newer, so it does not run again. */
  CHECK_EQ(r.base.runs, 1);
  CHECK_EQ(SOURCE_COUNT(r.base.node), 2);
  CHECK_EQ(DEPENDENT_COUNT(c.node), 1);
  DESTROY(&r.base);
  DESTROY(&c);
  DESTROY(&t);
  DESTROY(&s);
  GRAPH_FREE(g);
}

/* A source made, read and destroyed inside a run (a temporary) leaves the
 * run's memo of recent reads with its link: reading it again is refused as
 * stale, and a node made next, which the core gives the freed slot (its
 * free slots are reused last in, first out), is a new source, recorded as
 * such, whose writes run the reader again. */
static sg_graph *temp_graph;
typedef struct temp_reader {
  cell base;
  cell temp, kept;
  bool made;
  bool same_slot;
  int stale_read;
} temp_reader;

static int formula_temp_then_kept(cell *self) {
  temp_reader *r = (temp_reader *)self;
  if (!r->made) {
    r->made = true;
    STORED(&r->temp, temp_graph, "temp", 7);
    (void)cell_in(self, &r->temp);
    (void)cell_in(self, &r->temp); /* off the cursor again: now in the memo */
    sg_node *temp = r->temp.node;
    DESTROY(&r->temp);
    r->stale_read = sg_read(temp);
    STORED(&r->kept, temp_graph, "kept", 5);
    r->same_slot = r->kept.node == temp;
  }
  return cell_in(self, &r->kept);
}

TEST(edges_a_temporary_destroyed_in_the_run_leaves_the_memo) {
  temp_graph = sg_graph_new();
  temp_reader r = {0};
  COMPUTED(&r.base, temp_graph, "r", formula_temp_then_kept, NULL);
  CHECK_EQ(READ(&r.base), 5);
  CHECK_EQ(r.stale_read, SG_ESTALE);
  CHECK(r.same_slot); /* the case the memo must survive: its old entry names the new node */
  CHECK_EQ(SOURCE_COUNT(r.base.node), 1); /* kept, recorded */
  SET(&r.kept, 9);
  CHECK_EQ(READ(&r.base), 9);
  CHECK_EQ(r.base.runs, 2);
  DESTROY(&r.base);
  DESTROY(&r.kept);
  GRAPH_FREE(temp_graph);
}

static void check_edges(cell *sources, reader *r, int distinct, const int *expected_deps) {
  CHECK_EQ(SOURCE_COUNT(r->base.node), distinct);
  for (int i = 0; i < MANY; i++) CHECK_EQ(DEPENDENT_COUNT(sources[i].node), expected_deps[i]);
}

TEST(edges_many_sources_read_twice_hash_path) {
  sg_graph *g = sg_graph_new();
  cell s[MANY];
  reader r = {.sources = s};
  int order[2 * MANY], ones[MANY];
  for (int i = 0; i < MANY; i++) {
    STORED(&s[i], g, "s", i);
    order[i] = order[MANY + i] = i; /* 0..11 then 0..11 again */
    ones[i] = 1;
  }
  set_order(&r, order, 2 * MANY);
  COMPUTED(&r.base, g, "r", formula_read_listed, NULL);
  const int sum = MANY * (MANY - 1) / 2;
  CHECK_EQ(READ(&r.base), 2 * sum);
  check_edges(s, &r, MANY, ones);

  /* pairwise: 0,0,1,1,... — each repeat right after the first read */
  for (int i = 0; i < MANY; i++) order[2 * i] = order[2 * i + 1] = i;
  set_order(&r, order, 2 * MANY);
  SET(&s[0], 100);
  CHECK_EQ(READ(&r.base), 2 * (sum + 100));
  check_edges(s, &r, MANY, ones);
  CHECK_EQ(r.base.runs, 2);

  /* the write reaches r through one edge: one mark, one run */
  SET(&s[MANY - 1], 0);
  CHECK_EQ(READ(&r.base), 2 * (sum + 100 - (MANY - 1)));
  CHECK_EQ(r.base.runs, 3);
  DESTROY(&r.base);
  for (int i = 0; i < MANY; i++) CHECK_EQ(DEPENDENT_COUNT(s[i].node), 0);
  for (int i = 0; i < MANY; i++) DESTROY(&s[i]);
  GRAPH_FREE(g);
}

TEST(edges_reordered_reads_keep_counts) {
  sg_graph *g = sg_graph_new();
  cell s[MANY];
  reader r = {.sources = s};
  int order[3 * MANY], deps[MANY];
  for (int i = 0; i < MANY; i++) STORED(&s[i], g, "s", 1 << i);
  COMPUTED(&r.base, g, "r", formula_read_listed, NULL);

  /* run 1: forward, each twice in a row */
  for (int i = 0; i < MANY; i++) order[2 * i] = order[2 * i + 1] = i, deps[i] = 1;
  set_order(&r, order, 2 * MANY);
  CHECK_EQ(READ(&r.base), 2 * ((1 << MANY) - 1));
  check_edges(s, &r, MANY, deps);
  sg_node *listed[MANY];
  CHECK_EQ(SOURCES(r.base.node, listed, MANY), MANY);
  for (int i = 0; i < MANY; i++) CHECK(listed[i] == s[i].node);

  /* run 2: backward, three rounds: the links are moved, not duplicated */
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < MANY; i++) order[k * MANY + i] = MANY - 1 - i;
  set_order(&r, order, 3 * MANY);
  SET(&s[0], 0);
  CHECK_EQ(READ(&r.base), 3 * ((1 << MANY) - 2));
  check_edges(s, &r, MANY, deps);
  CHECK_EQ(SOURCES(r.base.node, listed, MANY), MANY);
  for (int i = 0; i < MANY; i++) CHECK(listed[i] == s[MANY - 1 - i].node); /* read order */

  /* run 3: only the even ones, odd-first shuffle of them: odd edges go */
  int n = 0;
  for (int i = MANY - 2; i >= 0; i -= 2) order[n++] = i;
  for (int i = 0; i < MANY; i += 2) order[n++] = i;
  for (int i = 0; i < MANY; i++) deps[i] = i % 2 == 0;
  set_order(&r, order, n);
  SET(&s[0], 1);
  int even = 0;
  for (int i = 0; i < MANY; i += 2) even += 1 << i;
  CHECK_EQ(READ(&r.base), 2 * even);
  check_edges(s, &r, MANY / 2, deps);

  /* a write to a dropped source no longer reaches r */
  SET(&s[1], 0);
  CHECK_EQ(STATE(r.base.node), SG_CLEAN);
  CHECK_EQ(READ(&r.base), 2 * even);

  /* run 4: all again, interleaved duplicates far apart */
  n = 0;
  for (int i = 0; i < MANY; i++) order[n++] = (i * 5) % MANY; /* 5 is coprime to 12 */
  for (int i = 0; i < MANY; i++) order[n++] = i;
  for (int i = 0; i < MANY; i++) deps[i] = 1;
  set_order(&r, order, n);
  SET(&s[2], 0);
  int all = 0;
  for (int i = 0; i < MANY; i++) all += s[i].value;
  CHECK_EQ(READ(&r.base), 2 * all);
  check_edges(s, &r, MANY, deps);
  CHECK_EQ(r.base.runs, 4);

  DESTROY(&r.base);
  for (int i = 0; i < MANY; i++) CHECK_EQ(DEPENDENT_COUNT(s[i].node), 0);
  for (int i = 0; i < MANY; i++) DESTROY(&s[i]);
  GRAPH_FREE(g);
}
