/*
 * test-trace.c — tracing records the exact chain each write causes: marks,
 * recomputes with their outcome (cut off by equality included), effects and
 * watchers; chains reach a handler as they complete; tracing is per thread
 * and refuses misuse.
 */
#include "harness.h"

/* The events as sg_trace_write prints them; free() the result. */
static char *text_of(const sg_trace_event *events, size_t count) {
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  REQUIRE(out != NULL);
  CHECK_EQ(sg_trace_write(events, count, out), SG_OK);
  fclose(out);
  return text;
}

static char *trace_text(const sg_trace *trace) {
  size_t count;
  const sg_trace_event *events = sg_trace_events(trace, &count);
  return text_of(events, count);
}

/* Ends the trace, checks its text, frees it. */
static void expect_trace(const char *expected, const char *file, int line) {
  sg_trace *trace = NULL;
  int rc = sg_trace_end(&trace);
  if (rc != SG_OK) harness_fail(file, line, "sg_trace_end: %s", sg_strerror(rc));
  char *text = trace_text(trace);
  if (strcmp(text, expected) != 0)
    harness_fail(file, line, "trace differs:\n--- expected\n%s--- got\n%s", expected, text);
  free(text);
  sg_trace_free(trace);
}
#define EXPECT_TRACE(expected) expect_trace(expected, __FILE__, __LINE__)

static int formula_tenth(cell *self) { return IN(self, 0) / 10; }

/* a → b = sign(a), a → c = a / 10, (b, c) → d = b + c, d → effect e. */
typedef struct diamond {
  sg_graph *g;
  cell a, b, c, d, e;
} diamond;

static void diamond_build(diamond *m) {
  m->g = sg_graph_new();
  cell_stored_at(&m->a, m->g, "a", 1, "diamond.c", 1);
  cell_computed_at(&m->b, m->g, "b", formula_sign, (cell *[]){&m->a, NULL}, "diamond.c", 2);
  cell_computed_at(&m->c, m->g, "c", formula_tenth, (cell *[]){&m->a, NULL}, "diamond.c", 3);
  cell_computed_at(&m->d, m->g, "d", formula_sum, (cell *[]){&m->b, &m->c, NULL}, "diamond.c",
                   4);
  cell_effect_at(&m->e, m->g, "e", formula_copy, (cell *[]){&m->d, NULL}, "diamond.c", 5);
}

static void diamond_free(diamond *m) {
  DESTROY(&m->e);
  DESTROY(&m->d);
  DESTROY(&m->c);
  DESTROY(&m->b);
  DESTROY(&m->a);
  GRAPH_FREE(m->g);
}

/* Both middle nodes cut off: nothing below them runs. Marking is
 * depth-first from a stack, so d shows up under c, the last one marked. */
TEST(trace_diamond_everything_cut_off) {
  diamond m;
  diamond_build(&m);
  REQUIRE(sg_trace_begin(NULL, NULL) == SG_OK);
  SET(&m.a, 2); /* sign 1 → 1, tenth 0 → 0 */
  EXPECT_TRACE("write a (diamond.c:1)\n"
               "  b: dirty\n"
               "  c: dirty\n"
               "    d: check\n"
               "      e: check\n"
               "  e: verified, not run\n"
               "    d: verified, not recomputed\n"
               "      b: recomputed, unchanged (cut off)\n"
               "      c: recomputed, unchanged (cut off)\n");
  CHECK_EQ(m.e.runs, 1);
  CHECK_EQ(m.d.runs, 1);
  diamond_free(&m);
}

/* a = 15 after 1: sign 1 → 1 (b cut off), tenth 0 → 1 (c changed): d
 * recomputes once, then e runs. */
static const char one_side_cut_off[] = "write a (diamond.c:1)\n"
                                       "  b: dirty\n"
                                       "  c: dirty\n"
                                       "    d: check\n"
                                       "      e: check\n"
                                       "  e: ran\n"
                                       "    d: recomputed, changed\n"
                                       "      b: recomputed, unchanged (cut off)\n"
                                       "      c: recomputed, changed\n";

/* A write in two steps (sg_write_begin_unchecked, then sg_write_end) records
 * the chain sg_changed() does: the effects the write reached run in its span. */
TEST(trace_write_in_two_steps_is_one_chain) {
  diamond m;
  diamond_build(&m);
  REQUIRE(sg_trace_begin(NULL, NULL) == SG_OK);
  m.a.value = 15; /* sign 1 → 1, tenth 0 → 1 */
  CHECK_EQ(sg_write_begin_unchecked(m.a.node), SG_OK);
  CHECK_EQ(m.e.runs, 1); /* marked, nothing run yet */
  CHECK_EQ(sg_write_end(), SG_OK);
  CHECK_EQ(m.e.runs, 2);
  EXPECT_TRACE(one_side_cut_off);
  diamond_free(&m);
}

/* b cut off, c changed: d recomputes (once), then e runs. */
TEST(trace_diamond_one_side_cut_off) {
  diamond m;
  diamond_build(&m);
  REQUIRE(sg_trace_begin(NULL, NULL) == SG_OK);
  SET(&m.a, 15); /* sign 1 → 1, tenth 0 → 1 */
  sg_trace *trace = NULL;
  REQUIRE(sg_trace_end(&trace) == SG_OK);
  char *text = trace_text(trace);
  CHECK_STR(text, one_side_cut_off);
  free(text);

  /* The same chain, field by field. */
  size_t count;
  const sg_trace_event *ev = sg_trace_events(trace, &count);
  CHECK_EQ(count, 9);
  if (count == 9) {
    CHECK_EQ(ev[0].kind, SG_TRACE_WRITE);
    CHECK_EQ(ev[0].depth, 0);
    CHECK_EQ(ev[0].node_id, DESCRIBE(m.a.node).id);
    CHECK_EQ(ev[0].node_kind, SG_STORED);
    CHECK_STR(ev[0].file, "diamond.c");
    CHECK_EQ(ev[0].line, 1);
    CHECK_EQ(ev[2].kind, SG_TRACE_MARK);
    CHECK_EQ(ev[2].state, SG_DIRTY);
    CHECK_EQ(ev[3].state, SG_CHECK);
    CHECK_EQ(ev[3].depth, 2);
    CHECK_EQ(ev[4].node_kind, SG_EFFECT);
    CHECK_EQ(ev[5].kind, SG_TRACE_UPDATE);
    CHECK_EQ(ev[5].result, SG_TRACE_RAN);
    CHECK_EQ(ev[6].result, SG_TRACE_CHANGED);
    CHECK_EQ(ev[7].result, SG_TRACE_UNCHANGED);
    CHECK_STR(ev[7].name, "b");
    CHECK_EQ(ev[7].depth, 3);
    CHECK_EQ(ev[8].result, SG_TRACE_CHANGED);
  }
  sg_trace_free(trace);
  CHECK_EQ(m.e.value, 2);
  CHECK_EQ(m.d.runs, 2);
  CHECK_EQ(m.e.runs, 2);
  diamond_free(&m);
}

/* A handler gets each chain when its root returns: writes in a batch, the
 * end of the batch that runs the effect, a lazy read outside callbacks. */
typedef struct chains {
  char *text[8];
  int count;
} chains;

static void collect_chain(const sg_trace_event *chain, size_t count, void *user) {
  chains *c = user;
  if (c->count < 8) c->text[c->count] = text_of(chain, count);
  c->count++;
}

static int formula_twice(cell *self) { return IN(self, 0) * 2; }

TEST(trace_chains_reach_the_handler) {
  sg_graph *g = sg_graph_new();
  cell x, y, z;
  cell_stored_at(&x, g, "x", 1, "batch.c", 1);
  cell_computed_at(&y, g, "y", formula_twice, (cell *[]){&x, NULL}, "batch.c", 2);
  CHECK_EQ(READ(&y), 2);
  cell_effect_at(&z, g, "z", formula_copy, (cell *[]){&x, NULL}, "batch.c", 3);

  chains seen = {0};
  REQUIRE(sg_trace_begin(collect_chain, &seen) == SG_OK);
  sg_batch_begin();
  SET(&x, 5);
  SET(&x, 6); /* y and z are stale already: nothing new to mark */
  CHECK_EQ(seen.count, 2);
  CHECK_EQ(sg_batch_end(), SG_OK);
  CHECK_EQ(seen.count, 3);
  CHECK_EQ(READ(&y), 12);
  CHECK_EQ(READ(&y), 12); /* up to date: no root, no chain */
  CHECK_EQ(seen.count, 4);
  EXPECT_TRACE("write x (batch.c:1)\n"
               "  y: dirty\n"
               "  z: dirty\n"
               "write x (batch.c:1)\n"
               "end of batch\n"
               "  z: ran\n"
               "read y (batch.c:2)\n"
               "  y: recomputed, changed\n");
  if (seen.count == 4) {
    CHECK_STR(seen.text[0], "write x (batch.c:1)\n  y: dirty\n  z: dirty\n");
    CHECK_STR(seen.text[1], "write x (batch.c:1)\n");
    CHECK_STR(seen.text[2], "end of batch\n  z: ran\n");
    CHECK_STR(seen.text[3], "read y (batch.c:2)\n  y: recomputed, changed\n");
  }
  for (int i = 0; i < seen.count && i < 8; i++) free(seen.text[i]);
  CHECK_EQ(z.runs, 2);
  DESTROY(&z);
  DESTROY(&y);
  DESTROY(&x);
  GRAPH_FREE(g);
}

/* Work inside a callback nests under it: an effect's first run reads a
 * computed that runs for the first time. Destroying a source shows the
 * failure that follows: the effect's input cannot read it any more. */
TEST(trace_create_first_run_destroy_and_failure) {
  sg_graph *g = sg_graph_new();
  cell a, c, e;
  cell_stored_at(&a, g, "a", 1, "first.c", 1);
  cell_computed_at(&c, g, "c", formula_plus1, (cell *[]){&a, NULL}, "first.c", 2);
  REQUIRE(sg_trace_begin(NULL, NULL) == SG_OK);
  cell_effect_at(&e, g, "e", formula_copy, (cell *[]){&c, NULL}, "first.c", 3);
  EXPECT_TRACE("create e (first.c:3)\n"
               "  e: ran\n"
               "    c: computed (first run)\n");

  REQUIRE(sg_trace_begin(NULL, NULL) == SG_OK);
  DESTROY(&a);
  EXPECT_TRACE("destroy a (first.c:1)\n"
               "  c: dirty\n"
               "    e: check\n"
               "  e: abandoned\n"
               "    c: failed\n");
  DESTROY(&e);
  DESTROY(&c);
  GRAPH_FREE(g);
}

static int watcher_calls;
static int count_watcher(sg_node *node, void *context) {
  (void)node, (void)context;
  watcher_calls++;
  return 0;
}

TEST(trace_watcher_and_rollback) {
  sg_graph *g = sg_graph_new();
  cell x, w;
  cell_stored_at(&x, g, "x", 1, "watch.c", 1);
  cell_computed_at(&w, g, "w", formula_plus1, (cell *[]){&x, NULL}, "watch.c", 2);
  CHECK_EQ(sg_node_set_watcher(w.node, count_watcher), SG_OK);
  CHECK_EQ(READ(&w), 2);
  CHECK_EQ(sg_node_arm(w.node), SG_OK);
  watcher_calls = 0;

  REQUIRE(sg_trace_begin(NULL, NULL) == SG_OK);
  SET(&x, 2);
  CHECK_EQ(watcher_calls, 1);
  /* a rollback inside a batch: w goes back to CHECK, nothing is told */
  sg_batch_begin();
  uint64_t version = NODE_VERSION(x.node);
  SET(&x, 3);
  x.value = 2;
  CHECK_EQ(sg_rollback(x.node, version), SG_OK);
  CHECK_EQ(sg_batch_end(), SG_OK);
  EXPECT_TRACE("write x (watch.c:1)\n"
               "  w: dirty\n"
               "  w: watcher notified\n"
               "write x (watch.c:1)\n"
               "rollback x (watch.c:1)\n");
  CHECK_EQ(READ(&w), 3);
  DESTROY(&w);
  DESTROY(&x);
  GRAPH_FREE(g);
}

/* Off by default; nothing is recorded before begin or after end. */
TEST(trace_records_only_between_begin_and_end) {
  sg_graph *g = sg_graph_new();
  cell x, y;
  cell_stored_at(&x, g, "x", 1, "off.c", 1);
  cell_computed_at(&y, g, "y", formula_plus1, (cell *[]){&x, NULL}, "off.c", 2);
  CHECK_EQ(READ(&y), 2);
  SET(&x, 2); /* not tracing */
  REQUIRE(sg_trace_begin(NULL, NULL) == SG_OK);
  sg_trace *trace = NULL;
  CHECK_EQ(sg_trace_end(&trace), SG_OK);
  SET(&x, 3); /* not tracing any more */
  size_t count = 99;
  CHECK(sg_trace_events(trace, &count) != NULL);
  CHECK_EQ(count, 0);
  sg_trace_free(trace);
  CHECK_EQ(READ(&y), 4);
  DESTROY(&y);
  DESTROY(&x);
  GRAPH_FREE(g);
}

static int begin_result, end_result;
static int formula_traces(cell *self) {
  begin_result = sg_trace_begin(NULL, NULL);
  sg_trace *trace = NULL;
  end_result = sg_trace_end(&trace);
  sg_trace_free(trace);
  return IN(self, 0);
}

TEST(trace_misuse) {
  sg_trace *trace = NULL;
  CHECK_EQ(sg_trace_end(&trace), SG_ENOTRACE); /* not tracing */
  CHECK_EQ(sg_trace_end(NULL), SG_EINVAL);
  CHECK_EQ(sg_trace_begin(NULL, NULL), SG_OK);
  CHECK_EQ(sg_trace_begin(NULL, NULL), SG_EBUSY); /* no nesting */
  CHECK_EQ(sg_trace_end(NULL), SG_EINVAL);         /* still tracing */

  /* inside a callback: neither begin nor end */
  sg_graph *g = sg_graph_new();
  cell x, y;
  STORED(&x, g, "x", 1);
  COMPUTED(&y, g, "y", formula_traces, &x);
  CHECK_EQ(READ(&y), 1);
  CHECK_EQ(begin_result, SG_EBUSY);
  CHECK_EQ(end_result, SG_EBUSY);
  CHECK_EQ(sg_trace_end(&trace), SG_OK);
  sg_trace_free(trace);

  CHECK_EQ(sg_trace_write(NULL, 1, stdout), SG_EINVAL);
  CHECK_EQ(sg_trace_write(NULL, 0, NULL), SG_EINVAL);
  CHECK_EQ(sg_trace_write(NULL, 0, stdout), SG_OK); /* nothing to write */
  size_t count = 99;
  CHECK(sg_trace_events(NULL, &count) != NULL);
  CHECK_EQ(count, 0);
  sg_trace_free(NULL);
  DESTROY(&y);
  DESTROY(&x);
  GRAPH_FREE(g);
}

/* Another thread's writes to the same nodes are not in this thread's trace. */
typedef struct other_writer {
  cell *x;
  _Atomic int started;
} other_writer;

static void *write_many(void *arg) {
  other_writer *w = arg;
  atomic_store(&w->started, 1);
  for (int i = 0; i < 200; i++) CHECK_EQ(sg_changed(w->x->node), SG_OK);
  return NULL;
}

TEST(threads_trace_is_per_thread) {
  sg_graph *g = sg_graph_new();
  cell x, y;
  cell_stored_at(&x, g, "x", 1, "threads.c", 1);
  cell_computed_at(&y, g, "y", formula_plus1, (cell *[]){&x, NULL}, "threads.c", 2);
  CHECK_EQ(READ(&y), 2);
  other_writer w = {.x = &x};
  REQUIRE(sg_trace_begin(NULL, NULL) == SG_OK);
  pthread_t other = spawn_thread(write_many, &w, 0);
  while (!atomic_load(&w.started)) {
  }
  CHECK_EQ(sg_changed(x.node), SG_OK);
  pthread_join(other, NULL);
  sg_trace *trace = NULL;
  REQUIRE(sg_trace_end(&trace) == SG_OK);
  size_t count;
  const sg_trace_event *events = sg_trace_events(trace, &count);
  /* our write, and y marked by it unless the other thread marked it first */
  CHECK(count == 1 || count == 2);
  if (count >= 1) CHECK_EQ(events[0].kind, SG_TRACE_WRITE);
  for (size_t i = 1; i < count; i++) CHECK_EQ(events[i].depth, 1);
  sg_trace_free(trace);
  DESTROY(&y);
  DESTROY(&x);
  GRAPH_FREE(g);
}

/* Two writes in two steps whose ends follow both begins (a binding that
 * holds two locks across two sg_write_begin_unchecked calls): the first end
 * runs both writes' effects and closes both traced writes, the second finds
 * nothing, and the trace can end. */
static void *two_begins_main(void *arg) {
  int *rc_out = arg;
  sg_graph *g = sg_graph_new();
  cell s, t, e;
  STORED(&s, g, "s", 1);
  STORED(&t, g, "t", 1);
  EFFECT(&e, g, "e", formula_copy, &s);
  REQUIRE(sg_trace_begin(NULL, NULL) == SG_OK);
  s.value = 2;
  t.value = 2;
  CHECK_EQ(sg_write_begin_unchecked(s.node), SG_OK);
  CHECK_EQ(sg_write_begin_unchecked(t.node), SG_OK);
  CHECK_EQ(sg_write_end(), SG_OK);
  CHECK_EQ(sg_write_end(), SG_OK);
  CHECK_EQ(e.value, 2);
  sg_trace *trace = NULL;
  int rc = sg_trace_end(&trace);
  *rc_out = rc;
  if (rc == SG_OK) sg_trace_free(trace);
  DESTROY(&e);
  DESTROY(&t);
  DESTROY(&s);
  GRAPH_FREE(g);
  return NULL; /* a trace left begun is freed as the thread exits */
}

/* On a thread of its own, so that a trace left open does not leak into the
 * tests that follow. */
TEST(trace_two_begins_then_two_ends_close_both_spans) {
  int rc = 0;
  pthread_t th = spawn_thread(two_begins_main, &rc, 0);
  pthread_join(th, NULL);
  CHECK_EQ(rc, SG_OK); /* both spans closed: the trace can end */
}

/* A write in two steps made by an effect that runs in the flush of
 * another write in two steps (the Swift wrapper's every write) records the
 * same chain as the same writes made with sg_changed(). */
static int two_step_mode; /* 1: effects write in two steps */
static int formula_copy_to_b(cell *self) {
  int v = IN(self, 0);
  cell *b = self->in[1];
  b->value = v;
  if (two_step_mode) {
    CHECK_EQ(sg_write_begin_unchecked(b->node), SG_OK);
    CHECK_EQ(sg_write_end(), SG_OK);
  } else {
    CHECK_EQ(sg_changed(b->node), SG_OK);
  }
  return v;
}

static char *nested_write_trace(int two_steps) {
  sg_graph *g = sg_graph_new();
  cell a, b, e1, e2;
  STORED(&a, g, "a", 1);
  STORED(&b, g, "b", 1);
  two_step_mode = two_steps;
  /* e1 reads a and writes b (in[1] is only written, never read) */
  EFFECT(&e1, g, "e1", formula_copy_to_b, &a, &b);
  EFFECT(&e2, g, "e2", formula_copy, &b);
  REQUIRE(sg_trace_begin(NULL, NULL) == SG_OK);
  a.value = 5;
  if (two_steps) {
    CHECK_EQ(sg_write_begin_unchecked(a.node), SG_OK);
    CHECK_EQ(sg_write_end(), SG_OK);
  } else {
    CHECK_EQ(sg_changed(a.node), SG_OK);
  }
  CHECK_EQ(e2.value, 5);
  sg_trace *trace = NULL;
  CHECK_EQ(sg_trace_end(&trace), SG_OK);
  char *text = trace ? trace_text(trace) : strdup("(no trace)");
  sg_trace_free(trace);
  DESTROY(&e2);
  DESTROY(&e1);
  DESTROY(&b);
  DESTROY(&a);
  GRAPH_FREE(g);
  return text;
}

TEST(trace_nested_two_step_writes_match_sg_changed) {
  char *one = nested_write_trace(0);
  char *two = nested_write_trace(1);
  CHECK_STR(two, one);
  free(one);
  free(two);
}
