/*
 * test-protocol.c — the node protocol's promises under the interleavings
 * that broke earlier versions (docs/core-protocol.md). Each test orders its
 * threads with semaphores, or with the core's scheduling points where the
 * window lies inside the core, so every run takes the same path.
 */
#include "harness.h"
#include "sg_testing.h"

#include <pthread.h>
#include <semaphore.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------ destroy vs release */

typedef struct self_destroying {
  cell base;
  sem_t destroyed, finish;
} self_destroying;

static int formula_destroy_self(cell *self) {
  self_destroying *s = (self_destroying *)self;
  CHECK_EQ(sg_node_destroy(self->node), SG_OK);
  sem_post(&s->destroyed);
  sem_wait(&s->finish);
  return 7;
}

static void *read_unchecked_main(void *arg) {
  cell *c = arg;
  (void)sg_read_unchecked(c->node); /* no pin: the hold is its last reference */
  return NULL;
}

static self_destroying *releasing; /* for the hook */
static pthread_t releaser;
static pthread_t reader_thread;

/* The releaser has dropped the last reference and is about to take the
 * lock to bury the node: let the computing thread finish and release its
 * claim first. The old core buried the node on both sides. */
static void hook_release_after_owner(const char *point, bool blocked) {
  (void)blocked;
  if (!pthread_equal(pthread_self(), releaser)) return;
  if (strcmp(point, "unpin: last reference, before the lock") != 0) return;
  sg__set_scheduling_hook(NULL);
  sem_post(&releasing->finish);
  pthread_join(reader_thread, NULL);
}

TEST(threads_destroy_in_compute_vs_release_buries_once) {
  sg_graph *g = sg_graph_new();
  self_destroying c;
  sem_init(&c.destroyed, 0, 0);
  sem_init(&c.finish, 0, 0);
  COMPUTED(&c.base, g, "c", formula_destroy_self, NULL);
  CHECK_EQ(sg_node_hold(c.base.node), SG_OK);
  releasing = &c;
  releaser = pthread_self();
  reader_thread = spawn_thread(read_unchecked_main, &c.base, 0);
  sem_wait(&c.destroyed); /* c is destroyed and still claimed by the reader */
  bool ordered = sg__set_scheduling_hook(hook_release_after_owner);
  if (!ordered) sem_post(&c.finish);
  CHECK_EQ(sg_node_release(c.base.node), SG_OK);
  if (!ordered) pthread_join(reader_thread, NULL);
  CHECK_EQ(c.base.destroyed, 1);
  CHECK_EQ(NODE_COUNT(g), 0);
  sem_destroy(&c.destroyed);
  sem_destroy(&c.finish);
  GRAPH_FREE(g);
}

/* ------------------------------------------ rollback vs running dependent */

/* d = s * 10, reading s's value only after two pauses, so a write and a
 * rollback of s can happen between its sg_read and its use of the value. */
typedef struct slow_times_ten {
  cell base;
  sem_t read, resume_read, used, resume_finish;
  _Atomic int pause;
} slow_times_ten;

static int formula_slow_times_ten(cell *self) {
  slow_times_ten *d = (slow_times_ten *)self;
  cell *s = self->in[0];
  int rc = sg_read(s->node);
  if (rc < 0) return rc;
  if (d->pause) {
    sem_post(&d->read);
    sem_wait(&d->resume_read);
  }
  int v = s->value * 10;
  if (d->pause) {
    d->pause = 0;
    sem_post(&d->used);
    sem_wait(&d->resume_finish);
  }
  return v;
}

static void *read_main(void *arg) {
  (void)READ((cell *)arg);
  return NULL;
}

TEST(threads_rollback_while_dependent_runs_leaves_no_stale_value) {
  sg_graph *g = sg_graph_new();
  cell s;
  slow_times_ten d = {0};
  sem_init(&d.read, 0, 0);
  sem_init(&d.resume_read, 0, 0);
  sem_init(&d.used, 0, 0);
  sem_init(&d.resume_finish, 0, 0);
  STORED(&s, g, "s", 2);
  COMPUTED(&d.base, g, "d", formula_slow_times_ten, &s);
  CHECK_EQ(READ(&d.base), 20);
  CHECK_EQ(sg_changed(s.node), SG_OK); /* same value, new version: d runs again */
  uint64_t before = NODE_VERSION(s.node);
  d.pause = 1;
  pthread_t t = spawn_thread(read_main, &d.base, 0);
  sem_wait(&d.read); /* d's run read s's version */
  sg_batch_begin();
  s.value = 3;
  CHECK_EQ(sg_changed(s.node), SG_OK); /* reaches d while it runs */
  sem_post(&d.resume_read);
  sem_wait(&d.used); /* d's run used 3 */
  s.value = 2;
  CHECK_EQ(sg_rollback(s.node, before), SG_OK); /* the batch is undone */
  CHECK_EQ(sg_batch_end(), SG_OK);
  sem_post(&d.resume_finish);
  pthread_join(t, NULL);
  CHECK_EQ(READ(&d.base), 20);
  CHECK_EQ(d.base.runs, 3); /* first; after SET (it used 3); its re-run */
  CHECK_EQ(STATE(d.base.node), SG_CLEAN);
  DESTROY(&d.base);
  DESTROY(&s);
  GRAPH_FREE(g);
}

/* -------------------------------------------------------- thread exit */

static pthread_key_t late_key; /* made after the library's own key */

static void late_destructor(void *node) {
  CHECK_EQ(sg_node_destroy(node), SG_OK); /* after the library's state went */
}

static void *exiting_main(void *arg) {
  cell *c = arg;
  CHECK_EQ(READ(c), 5); /* the library makes this thread's state */
  pthread_setspecific(late_key, c->node);
  return NULL;
}

TEST(threads_destroy_from_a_later_thread_exit_destructor) {
  sg_graph *g = sg_graph_new();
  cell s, c;
  STORED(&s, g, "s", 4);
  COMPUTED(&c, g, "c", formula_plus1, &s);
  (void)READ(&s); /* this thread's state exists, so the library's key does */
  REQUIRE(pthread_key_create(&late_key, late_destructor) == 0);
  pthread_t t = spawn_thread(exiting_main, &c, 0);
  pthread_join(t, NULL);
  CHECK_EQ(c.destroyed, 1);
  CHECK_EQ(IS_LIVE(c.node), 0);
  CHECK_EQ(DEPENDENT_COUNT(s.node), 0);
  pthread_key_delete(late_key);
  DESTROY(&s);
  GRAPH_FREE(g);
}

/* --------------------------------------------- waits across two graphs */

/* c1 in graph 1 and c2 in graph 2 are computed at once by two threads; each
 * callback then creates an effect in the other graph that reads the other
 * node. Each thread would wait for the other: exactly one of them is told
 * SG_ECYCLE (its effect's first run fails), the other goes on. */
typedef struct crossing {
  cell base;
  sg_graph *other_graph;
  cell *other;
  sem_t *mine, *theirs;
  int effect_rc;
  char cycle[256];
} crossing;

static int read_other(sg_node *node, void *context) {
  crossing *x = context;
  return sg_read(x->other->node);
}

static int formula_crossing(cell *self) {
  crossing *x = (crossing *)self;
  sem_post(x->mine);
  sem_wait(x->theirs);
  sg_node *e = NULL;
  x->effect_rc = sg_effect_new(x->other_graph, &(sg_node_info){.name = "e"}, read_other, x, NULL, &e);
  snprintf(x->cycle, sizeof x->cycle, "%s", sg_last_cycle());
  if (e) CHECK_EQ(sg_node_destroy(e), SG_OK);
  return 1;
}

static void *crossing_main(void *arg) {
  crossing *x = arg;
  CHECK_EQ(sg_read(x->base.node), SG_OK);
  return NULL;
}

TEST(threads_waits_across_graphs_find_the_loop) {
  sg_graph *g1 = sg_graph_new(), *g2 = sg_graph_new();
  sem_t in1, in2;
  sem_init(&in1, 0, 0);
  sem_init(&in2, 0, 0);
  crossing x1 = {.other_graph = g2, .mine = &in1, .theirs = &in2};
  crossing x2 = {.other_graph = g1, .mine = &in2, .theirs = &in1};
  x1.other = &x2.base;
  x2.other = &x1.base;
  COMPUTED(&x1.base, g1, "c1", formula_crossing, NULL);
  COMPUTED(&x2.base, g2, "c2", formula_crossing, NULL);
  pthread_t t1 = spawn_thread(crossing_main, &x1, 0);
  pthread_t t2 = spawn_thread(crossing_main, &x2, 0);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  int failed = (x1.effect_rc == SG_ECALLBACK) + (x2.effect_rc == SG_ECALLBACK);
  int ok = (x1.effect_rc == SG_OK) + (x2.effect_rc == SG_OK);
  CHECK_EQ(failed, 1);
  CHECK_EQ(ok, 1);
  const char *cycle = x1.effect_rc == SG_ECALLBACK ? x1.cycle : x2.cycle;
  CHECK(strstr(cycle, "c1") != NULL);
  CHECK(strstr(cycle, "c2") != NULL);
  CHECK_EQ(x1.base.runs, 1);
  CHECK_EQ(x2.base.runs, 1);
  sem_destroy(&in1);
  sem_destroy(&in2);
  DESTROY(&x1.base);
  DESTROY(&x2.base);
  GRAPH_FREE(g1);
  GRAPH_FREE(g2);
}

/* ----------------------------------------- deep first reads, same thread */

enum { DEEP = 20000 };

typedef struct identity {
  pthread_t reader;
  pthread_mutex_t model_lock; /* recursive, held by the reader across sg_read */
  _Atomic int foreign_thread, lock_refused;
} identity;

static identity who;
static int deep_length;
static __thread int reader_mark;

typedef struct deep_cell {
  cell base;
} deep_cell;

static int formula_locked_plus1(cell *self) {
  if (!pthread_equal(pthread_self(), who.reader) || reader_mark != 42) who.foreign_thread++;
  if (pthread_mutex_trylock(&who.model_lock) != 0) {
    who.lock_refused++;
    return IN(self, 0) + 1;
  }
  int v = IN(self, 0) + 1;
  pthread_mutex_unlock(&who.model_lock);
  return v;
}

static void *deep_reader_main(void *arg) {
  cell *tail = arg;
  who.reader = pthread_self();
  reader_mark = 42;
  pthread_mutex_lock(&who.model_lock);
  CHECK_EQ(READ(tail), deep_length - 1);
  pthread_mutex_unlock(&who.model_lock);
  return NULL;
}

TEST(threads_deep_first_read_stays_on_the_reading_thread) {
  int n = deep_length = harness_quick() ? 3000 : DEEP;
  sg_graph *g = sg_graph_new();
  cell *chain = calloc(n, sizeof *chain);
  REQUIRE(chain != NULL);
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&who.model_lock, &attr);
  pthread_mutexattr_destroy(&attr);
  who.foreign_thread = who.lock_refused = 0;
  STORED(&chain[0], g, "head", 0);
  for (int i = 1; i < n; i++)
    COMPUTED(&chain[i], g, "link", formula_locked_plus1, &chain[i - 1]);
  /* a small stack: the evaluation must switch stacks many times */
  pthread_t t;
  pthread_attr_t tattr;
  pthread_attr_init(&tattr);
  pthread_attr_setstacksize(&tattr, 512 * 1024);
  REQUIRE(pthread_create(&t, &tattr, deep_reader_main, &chain[n - 1]) == 0);
  pthread_attr_destroy(&tattr);
  pthread_join(t, NULL);
  CHECK_EQ(who.foreign_thread, 0);
  CHECK_EQ(who.lock_refused, 0);
  CHECK_EQ(chain[n - 1].value, n - 1);
  for (int i = n - 1; i >= 0; i--) DESTROY(&chain[i]);
  free(chain);
  pthread_mutex_destroy(&who.model_lock);
  GRAPH_FREE(g);
}

/* --------------------------------------- writers never wait for handlers */

typedef struct waiting_effect {
  cell base;
  sem_t running, writer_done;
  _Atomic int wait_in_run; /* the run number that waits for the writer */
  _Atomic int timed_out;
  pthread_t ran_on[8];
} waiting_effect;

static int formula_waits_for_writer(cell *self) {
  waiting_effect *e = (waiting_effect *)self;
  int v = IN(self, 0);
  int run = self->runs - 1; /* 0-based: the harness counts before the formula */
  if (run < 8) e->ran_on[run] = pthread_self();
  if (run == e->wait_in_run) {
    sem_post(&e->running);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 10;
    if (sem_timedwait(&e->writer_done, &until) != 0) e->timed_out = 1;
  }
  return v;
}

static void *write_main(void *arg) {
  SET((cell *)arg, 1);
  return NULL;
}

TEST(threads_writer_does_not_wait_for_a_running_handler) {
  sg_graph *g = sg_graph_new();
  cell s;
  waiting_effect e = {.wait_in_run = 1};
  sem_init(&e.running, 0, 0);
  sem_init(&e.writer_done, 0, 0);
  STORED(&s, g, "s", 0);
  EFFECT(&e.base, g, "e", formula_waits_for_writer, &s); /* run 0, here */
  pthread_t a = spawn_thread(write_main, &s, 0);           /* run 1, on a */
  sem_wait(&e.running);
  SET(&s, 2); /* must return while run 1 waits for us */
  sem_post(&e.writer_done);
  pthread_join(a, NULL);
  CHECK_EQ(e.timed_out, 0);
  CHECK_EQ(e.base.runs, 3); /* run 2 saw our write, on the handler's thread */
  CHECK_EQ(e.base.value, 2);
  CHECK(pthread_equal(e.ran_on[2], a));
  sem_destroy(&e.running);
  sem_destroy(&e.writer_done);
  DESTROY(&e.base);
  DESTROY(&s);
  GRAPH_FREE(g);
}

/* --------------------------------------------------------------- misuse */

TEST(protocol_misuse_is_an_error) {
  sg_graph *g = sg_graph_new();
  cell s, c;
  STORED(&s, g, "s", 1);
  COMPUTED(&c, g, "c", formula_plus1, &s);
  CHECK_EQ(READ(&c), 2);
  /* a release without a hold frees nothing */
  CHECK_EQ(sg_node_release(c.node), SG_ENOTHELD);
  CHECK_EQ(sg_node_release(NULL), SG_EINVAL);
  CHECK(IS_LIVE(c.node));
  CHECK_EQ(c.destroyed, 0);
  CHECK_EQ(READ(&c), 2);
  CHECK_EQ(sg_node_hold(c.node), SG_OK);
  CHECK_EQ(sg_node_release(c.node), SG_OK);
  CHECK_EQ(sg_node_release(c.node), SG_ENOTHELD);
  /* a version never handed out */
  uint64_t v = NODE_VERSION(s.node);
  CHECK_EQ(sg_rollback(s.node, v + 1), SG_EVERSION);
  CHECK_EQ(NODE_VERSION(s.node), v);
  CHECK_EQ(sg_rollback(s.node, v), SG_OK);
  /* texts that name the problem */
  CHECK(strstr(sg_strerror(SG_ESTALE), "graph") != NULL);
  sg_trace *trace = NULL;
  CHECK_EQ(sg_trace_end(&trace), SG_ENOTRACE);
  DESTROY(&c);
  DESTROY(&s);
  GRAPH_FREE(g);
}

/* A freed graph's address is never given to a new graph, so its handle
 * stays stale. (The old core freed it: malloc handed the same address to
 * the next graph, and the old handle passed every check.) */
TEST(protocol_freed_graph_stays_stale) {
  sg_graph *old = sg_graph_new();
  GRAPH_FREE(old);
  sg_graph *fresh[64];
  int reused = 0;
  for (int i = 0; i < 64; i++) {
    fresh[i] = sg_graph_new();
    reused += fresh[i] == old;
  }
  CHECK_EQ(reused, 0);
  size_t count = 0;
  CHECK_EQ(sg_graph_node_count(old, &count), SG_ESTALE);
  CHECK_EQ(sg_graph_free(old), SG_ESTALE);
  sg_node *n = NULL;
  CHECK_EQ(sg_stored_new(old, NULL, &n), SG_ESTALE);
  for (int i = 0; i < 64; i++) GRAPH_FREE(fresh[i]);
}

/* A freed graph's handle stays stale while the next 1023 graphs are made
 * and freed (the header promises 1024), and a program that makes and frees
 * graphs without end keeps no more than 1024 of them. */
TEST(protocol_freed_graphs_kept_are_bounded) {
  sg_graph *old = sg_graph_new();
  GRAPH_FREE(old);
  for (int i = 0; i < 1023; i++) {
    sg_graph *g = sg_graph_new();
    CHECK(g != old);
    GRAPH_FREE(g);
  }
  sg_node *n = NULL;
  CHECK_EQ(sg_stored_new(old, NULL, &n), SG_ESTALE);
  CHECK(n == NULL);
  for (int i = 0; i < 3000; i++) GRAPH_FREE(sg_graph_new());
  CHECK_EQ(sg__kept_graphs(), 1024);
}

/* -------------------------------------- destroy in a compute vs visitor */

typedef struct visited {
  sem_t visiting;
  cell *computing; /* read by the visitor: computed by the destroyer */
  sg_node *target; /* the node whose visit reads it */
  int read_rc;
  char cycle[256];
} visited;

static visited v_state;

static void visitor_reads_computing(sg_snapshot *s, size_t i, void *context, void *user) {
  visited *v = user;
  if (sg_snapshot_entries(s, NULL)[i].node != v->target) return;
  sem_post(&v->visiting);
  v->read_rc = sg_read(v->computing->node); /* waits for the destroyer's compute */
  snprintf(v->cycle, sizeof v->cycle, "%s", sg_last_cycle());
}

static void *snapshot_main(void *arg);
static pthread_t snapshotter;

/* Starts the snapshot from inside the run, so that c is this thread's
 * before the visitor reads it. */
static int formula_destroy_visited(cell *self) {
  snapshotter = spawn_thread(snapshot_main, self->in[0], 0);
  sem_wait(&v_state.visiting);
  usleep(20 * 1000); /* let the visitor start waiting for us (either order ends the same) */
  CHECK_EQ(sg_node_destroy(v_state.target), SG_OK);
  return 1;
}

static void *snapshot_main(void *arg) {
  sg_snapshot *snap = NULL;
  sg_graph *g = DESCRIBE(((cell *)arg)->node).graph;
  CHECK_EQ(sg_snapshot_graph(g, visitor_reads_computing, &v_state, &snap), SG_OK);
  sg_snapshot_free(snap);
  return NULL;
}

TEST(threads_destroy_in_compute_while_its_visitor_waits_for_it) {
  sg_graph *g = sg_graph_new();
  cell x, c;
  STORED(&x, g, "x", 1);
  cell anchor; /* any live node: the snapshot thread finds the graph through it */
  STORED(&anchor, g, "anchor", 0);
  COMPUTED(&c, g, "c", formula_destroy_visited, &anchor);
  sem_init(&v_state.visiting, 0, 0);
  v_state.computing = &c;
  v_state.target = x.node;
  v_state.read_rc = 0;
  sg_stored_set_context(x.node, &x);
  CHECK_EQ(READ(&c), 1); /* c's run destroys x while the visitor is on x */
  pthread_join(snapshotter, NULL);
  CHECK_EQ(v_state.read_rc, SG_ECYCLE);
  CHECK(strstr(v_state.cycle, "c") != NULL);
  CHECK_EQ(IS_LIVE(x.node), 0);
  CHECK_EQ(c.runs, 1);
  sem_destroy(&v_state.visiting);
  DESTROY(&c);
  DESTROY(&anchor);
  GRAPH_FREE(g);
}

/* --------------------------------- no false cycle from an earlier run */

/* a reads b only while `flag` says so; b reads a only while it does not.
 * Each flip turns the dependency around; the edges of the previous run
 * point the other way, and must not be taken for a cycle. `condition` is a
 * computed between flag and both, so a and b are CHECK (not DIRTY) when the
 * other one reaches them. */
static int formula_a(cell *self) {
  int on = IN(self, 0); /* condition */
  return on ? IN(self, 1) + 1 : 100;
}

static int formula_b(cell *self) {
  int on = IN(self, 0);
  return on ? 200 : IN(self, 1) + 1;
}

TEST(protocol_edges_of_an_earlier_run_are_no_cycle) {
  sg_graph *g = sg_graph_new();
  cell flag, condition, a, b;
  STORED(&flag, g, "flag", 1);
  COMPUTED(&condition, g, "condition", formula_copy, &flag);
  COMPUTED(&a, g, "a", formula_a, &condition, &b);
  COMPUTED(&b, g, "b", formula_b, &condition, &a);
  for (int round = 0; round < 4; round++) {
    int on = round % 2 == 0;
    SET(&flag, on);
    cell *first = round < 2 ? &b : &a; /* read the one that used to be read */
    int expect_a = on ? 201 : 100, expect_b = on ? 200 : 101;
    CHECK_EQ(READ(first), first == &a ? expect_a : expect_b);
    CHECK_EQ(READ(&a), expect_a);
    CHECK_EQ(READ(&b), expect_b);
    CHECK_EQ(first->error, 0);
  }
  DESTROY(&a);
  DESTROY(&b);
  DESTROY(&condition);
  DESTROY(&flag);
  GRAPH_FREE(g);
}

/* ------------------------------------------------ binding slot at exit */

static _Atomic int slot_values_freed;
static void free_slot_value(void *value) {
  CHECK_EQ(*(int *)value, 42);
  slot_values_freed++;
}

static void *slot_main(void *arg) {
  *sg_binding_slot() = arg;
  return NULL;
}

TEST(threads_binding_slot_value_is_freed_at_thread_exit) {
  static int value = 42;
  slot_values_freed = 0;
  sg_binding_slot_set_destructor(free_slot_value);
  pthread_join(spawn_thread(slot_main, &value, 0), NULL);
  pthread_join(spawn_thread(slot_main, NULL, 0), NULL); /* NULL: nothing to free */
  sg_binding_slot_set_destructor(NULL);
  CHECK_EQ(slot_values_freed, 1);
}

/* ------------------------------------- creation vs a stale handle's destroy */

/* A checked destroy through a handle whose slot a new node is taking: the
 * new node must not be pinnable before it is whole (callbacks set, in the
 * live list). Ordered by the creating thread's scheduling point just
 * before it takes the graph lock: there the destroy runs to its end. */
static sg_node *stale_handle;
static pthread_t creating_thread;
static int stale_destroy_rc;

static void *destroy_stale_main(void *arg) {
  (void)arg;
  stale_destroy_rc = sg_node_destroy(stale_handle);
  return NULL;
}

static void hook_destroy_stale_during_creation(const char *point, bool blocked) {
  (void)blocked;
  if (!pthread_equal(pthread_self(), creating_thread)) return;
  if (strcmp(point, "create: before the graph lock") != 0) return;
  sg__set_scheduling_hook(NULL);
  pthread_join(spawn_thread(destroy_stale_main, NULL, 0), NULL);
}

TEST(protocol_stale_destroy_cannot_reach_a_node_being_created) {
  sg_graph *g = sg_graph_new();
  cell s, old, fresh;
  STORED(&s, g, "s", 4);
  COMPUTED(&old, g, "old", formula_copy, &s);
  stale_handle = old.node;
  DESTROY(&old); /* its slot is the next computed one handed out */
  creating_thread = pthread_self();
  stale_destroy_rc = 1;
  REQUIRE(sg__set_scheduling_hook(hook_destroy_stale_during_creation));
  COMPUTED(&fresh, g, "fresh", formula_copy, &s);
  sg__set_scheduling_hook(NULL);
  CHECK(fresh.node == stale_handle); /* the slot was reused: the race is real */
  CHECK_EQ(stale_destroy_rc, SG_ESTALE);
  CHECK_EQ(fresh.destroyed, 0);
  CHECK(IS_LIVE(fresh.node));
  CHECK_EQ(NODE_COUNT(g), 2);
  CHECK_EQ(READ(&fresh), 4);
  DESTROY(&fresh);
  CHECK_EQ(fresh.destroyed, 1);
  DESTROY(&s);
  GRAPH_FREE(g);
}

/* ------------------------- a new effect destroyed before its first run */

/* Another thread finds a new effect in a snapshot and destroys it between
 * its creation and its first run (the creating call lets go of the lock
 * between the two). The creating call must not touch its memory after the
 * destroy freed it, nor run it. Ordered by the creating thread's second
 * lock point after "create: before the graph lock": the lock the first run
 * is made under. */
static sg_graph *first_run_graph;
static int first_run_locks = -1; /* -1: not creating yet */
static int first_run_destroy_rc = 1;

static void *destroy_new_effect_main(void *arg) {
  (void)arg;
  sg_snapshot *s = NULL;
  CHECK_EQ(sg_snapshot_graph(first_run_graph, NULL, NULL, &s), SG_OK);
  size_t count = 0;
  const sg_snapshot_entry *entries = sg_snapshot_entries(s, &count);
  for (size_t i = 0; i < count; i++)
    if (entries[i].kind == SG_EFFECT) first_run_destroy_rc = sg_node_destroy(entries[i].node);
  sg_snapshot_free(s);
  return NULL;
}

static void hook_destroy_effect_before_its_first_run(const char *point, bool blocked) {
  (void)blocked;
  if (!pthread_equal(pthread_self(), creating_thread)) return;
  if (strcmp(point, "create: before the graph lock") == 0) first_run_locks = 0;
  if (first_run_locks < 0 || strcmp(point, "lock") != 0 || ++first_run_locks < 2) return;
  sg__set_scheduling_hook(NULL);
  pthread_join(spawn_thread(destroy_new_effect_main, NULL, 0), NULL);
}

static int count_run(sg_node *n, void *ctx) {
  (void)n;
  ((int *)ctx)[0]++;
  return SG_OK;
}

static void count_destroy(void *ctx) { ((int *)ctx)[1]++; }

TEST(protocol_effect_destroyed_before_its_first_run_never_runs) {
  first_run_graph = sg_graph_new();
  int counts[2] = {0, 0}; /* runs, destroy callbacks */
  sg_node *e = NULL;
  sg_node_info info = {"e", __FILE__, __LINE__};
  creating_thread = pthread_self();
  REQUIRE(sg__set_scheduling_hook(hook_destroy_effect_before_its_first_run));
  CHECK_EQ(sg_effect_new(first_run_graph, &info, count_run, counts, count_destroy, &e), SG_OK);
  sg__set_scheduling_hook(NULL);
  first_run_locks = -1;
  CHECK_EQ(first_run_destroy_rc, SG_OK);
  CHECK_EQ(counts[0], 0);
  CHECK_EQ(counts[1], 1);
  CHECK_EQ(sg_node_destroy(e), SG_ESTALE);
  CHECK_EQ(NODE_COUNT(first_run_graph), 0);
  GRAPH_FREE(first_run_graph);
}

/* ------------------------------- two visitors of one node vs its destroy */

/* x is visited twice at once; the later visit returns first. A compute
 * then destroys x while the remaining visitor reads that very compute: the
 * destroy waits for the visitor, the visitor for the compute. Both visits
 * must count, or the loop goes unseen and both wait for ever. The second
 * visit comes from another thread, or from the first visitor's own nested
 * snapshot. */
typedef struct two_visits {
  sg_graph *g;
  sg_node *target;  /* x */
  cell *computing;  /* c: its run destroys x */
  int nested;
  sem_t first_in, resume_first, done;
  pthread_t first_visitor;
  int read_rc, destroy_rc;
} two_visits;

static two_visits tv;

static void visit_nothing(sg_snapshot *s, size_t i, void *context, void *user) {
  (void)s, (void)i, (void)context, (void)user;
}

static void *second_visit_main(void *arg) {
  (void)arg;
  sg_snapshot *snap = NULL;
  CHECK_EQ(sg_snapshot_graph(tv.g, visit_nothing, NULL, &snap), SG_OK);
  sg_snapshot_free(snap);
  return NULL;
}

static void first_visitor(sg_snapshot *s, size_t i, void *context, void *user) {
  (void)context, (void)user;
  if (sg_snapshot_entries(s, NULL)[i].node != tv.target) return;
  if (tv.nested) second_visit_main(NULL); /* visits x again, and returns */
  sem_post(&tv.first_in);
  sem_wait(&tv.resume_first);
  tv.read_rc = sg_read(tv.computing->node); /* c is the destroyer's */
}

static void *first_visit_main(void *arg) {
  (void)arg;
  sg_snapshot *snap = NULL;
  CHECK_EQ(sg_snapshot_graph(tv.g, first_visitor, NULL, &snap), SG_OK);
  sg_snapshot_free(snap);
  return NULL;
}

static int formula_destroy_twice_visited(cell *self) {
  (void)IN(self, 0);
  tv.first_visitor = spawn_thread(first_visit_main, NULL, 0);
  sem_wait(&tv.first_in);
  if (!tv.nested) pthread_join(spawn_thread(second_visit_main, NULL, 0), NULL);
  sem_post(&tv.resume_first);
  tv.destroy_rc = sg_node_destroy(tv.target);
  return 1;
}

static void *read_then_post_main(void *arg) {
  (void)READ((cell *)arg);
  sem_post(&tv.done);
  return NULL;
}

static void destroy_while_visited_twice(int nested) {
  sg_graph *g = sg_graph_new();
  cell x, anchor, c;
  STORED(&x, g, "x", 1);
  STORED(&anchor, g, "anchor", 0);
  COMPUTED(&c, g, "c", formula_destroy_twice_visited, &anchor);
  tv = (two_visits){.g = g, .target = x.node, .computing = &c, .nested = nested};
  sem_init(&tv.first_in, 0, 0);
  sem_init(&tv.resume_first, 0, 0);
  sem_init(&tv.done, 0, 0);
  pthread_t reader = spawn_thread(read_then_post_main, &c, 0);
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += 10;
  if (sem_timedwait(&tv.done, &until) != 0) {
    CHECK(!"the destroy and the visitor wait for each other"); /* threads left blocked */
    return;
  }
  pthread_join(reader, NULL);
  pthread_join(tv.first_visitor, NULL);
  CHECK_EQ(tv.destroy_rc, SG_OK);
  CHECK_EQ(tv.read_rc, SG_ECYCLE);
  CHECK_EQ(IS_LIVE(x.node), 0);
  CHECK_EQ(c.runs, 1);
  sem_destroy(&tv.first_in);
  sem_destroy(&tv.resume_first);
  sem_destroy(&tv.done);
  DESTROY(&c);
  DESTROY(&anchor);
  GRAPH_FREE(g);
}

TEST(threads_destroy_waits_for_every_visitor_of_two_threads) {
  destroy_while_visited_twice(0);
}

TEST(threads_destroy_waits_for_a_visitor_whose_nested_visit_ended) {
  destroy_while_visited_twice(1);
}
