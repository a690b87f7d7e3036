/*
 * test-threads.c — several threads on one graph: writers, readers, effects,
 * nodes created and destroyed meanwhile. Bounded iterations; main.c's
 * watchdog turns a deadlock into a failure with the test's name.
 */
#include "harness.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>

static int formula_triple(cell *self) { return IN(self, 0) * 3; }

/* ------------------------------------------------------------ the stress */

typedef struct stress {
  int iterations;
  pthread_barrier_t start;
  cell s[4];                     /* writer w owns s[w] and s[w + 2] */
  cell total;                    /* s0 + s1 + s2 + s3 */
  cell left, right, diamond;     /* 2·s0, 3·s0, their sum */
  cell mix;                      /* total + diamond */
  cell watch_total, watch_mix;   /* effects */
  atomic_int writes[4];          /* sg_changed calls per stored node */
  atomic_int reads;
} stress;

typedef struct worker {
  stress *st;
  int index;
} worker;

/* Values only grow, so every computed's value only grows: a reader that
 * sees one go down has seen a stale overwrite. */
static void *writer_main(void *arg) {
  worker *w = arg;
  stress *st = w->st;
  cell *mine[2] = {&st->s[w->index], &st->s[w->index + 2]};
  pthread_barrier_wait(&st->start);
  for (int i = 1; i <= st->iterations; i++) {
    if (i % 4 == 0) { /* sometimes both in one batch */
      sg_batch_begin();
      SET(mine[0], mine[0]->value + 1);
      SET(mine[1], mine[1]->value + 1);
      CHECK_EQ(sg_batch_end(), SG_OK);
      st->writes[w->index]++;
      st->writes[w->index + 2]++;
    } else {
      cell *one = mine[i % 2];
      SET(one, one->value + 1);
      st->writes[one - st->s]++;
    }
    if (i % 16 == 0) (void)READ(&st->mix); /* writers read too */
  }
  return NULL;
}

static void *reader_main(void *arg) {
  worker *w = arg;
  stress *st = w->st;
  int last_total = 0, last_diamond = 0, last_mix = 0;
  pthread_barrier_wait(&st->start);
  for (int i = 0; i < st->iterations; i++) {
    int total = READ(&st->total);
    int diamond = READ(&st->diamond);
    int mix = READ(&st->mix);
    CHECK(total >= last_total);
    CHECK(diamond >= last_diamond);
    CHECK(mix >= last_mix);
    last_total = total, last_diamond = diamond, last_mix = mix;
    st->reads++;
  }
  return NULL;
}

/* Creates, reads and destroys its own nodes while the others work. A node's
 * cell must outlive the node until its destroy callback ran: an effect
 * queued on a writer's thread is released (and its callback called) there. */
static void *churn_main(void *arg) {
  worker *w = arg;
  stress *st = w->st;
  pthread_barrier_wait(&st->start);
  sg_graph *g = DESCRIBE(st->total.node).graph;
  for (int i = 0; i < st->iterations / 8; i++) {
    cell doubled, watch;
    COMPUTED(&doubled, g, "churn.doubled", formula_double, &st->s[1]);
    EFFECT(&watch, g, "churn.watch", formula_copy, &st->total);
    int v = READ(&doubled);
    CHECK(v % 2 == 0 && v >= 0);
    DESTROY(&watch);
    DESTROY(&doubled);
    while (watch.destroyed == 0 || doubled.destroyed == 0) sched_yield();
    CHECK_EQ(watch.destroyed, 1);
    CHECK_EQ(doubled.destroyed, 1);
  }
  return NULL;
}

TEST(threads_stress_consistent_final_values) {
  stress *st = calloc(1, sizeof *st);
  REQUIRE(st != NULL);
  st->iterations = harness_quick() ? 2000 : 20000;
  sg_graph *g = sg_graph_new();
  for (int i = 0; i < 4; i++) STORED(&st->s[i], g, "s", 0);
  COMPUTED(&st->total, g, "total", formula_sum, &st->s[0], &st->s[1], &st->s[2], &st->s[3]);
  COMPUTED(&st->left, g, "left", formula_double, &st->s[0]);
  COMPUTED(&st->right, g, "right", formula_triple, &st->s[0]);
  COMPUTED(&st->diamond, g, "diamond", formula_sum, &st->left, &st->right);
  COMPUTED(&st->mix, g, "mix", formula_sum, &st->total, &st->diamond);
  EFFECT(&st->watch_total, g, "watch_total", formula_copy, &st->total);
  EFFECT(&st->watch_mix, g, "watch_mix", formula_copy, &st->mix);

  enum { WRITERS = 2, READERS = 2, THREADS = WRITERS + READERS + 1 };
  worker workers[THREADS];
  pthread_t threads[THREADS];
  pthread_barrier_init(&st->start, NULL, THREADS);
  for (int i = 0; i < THREADS; i++) {
    workers[i] = (worker){st, i < WRITERS ? i : i - WRITERS};
    void *(*fn)(void *) = i < WRITERS ? writer_main : i < THREADS - 1 ? reader_main : churn_main;
    threads[i] = spawn_thread(fn, &workers[i], 0);
  }
  for (int i = 0; i < THREADS; i++) pthread_join(threads[i], NULL);
  pthread_barrier_destroy(&st->start);

  /* every write landed, and everything agrees with a direct computation */
  int writes = 0, sum = 0;
  for (int i = 0; i < 4; i++) {
    CHECK_EQ(st->s[i].value, st->writes[i]);
    writes += st->writes[i];
    sum += st->s[i].value;
  }
  CHECK_EQ(writes, WRITERS * st->iterations * 5 / 4); /* every 4th writes two */
  const int s0 = st->s[0].value;
  CHECK_EQ(READ(&st->total), sum);
  CHECK_EQ(READ(&st->left), 2 * s0);
  CHECK_EQ(READ(&st->right), 3 * s0);
  CHECK_EQ(READ(&st->diamond), 5 * s0);
  CHECK_EQ(READ(&st->mix), sum + 5 * s0);
  /* the effects saw the last state: every write was followed by a run */
  CHECK_EQ(st->watch_total.value, sum);
  CHECK_EQ(st->watch_mix.value, sum + 5 * s0);
  /* no computation twice for one change: at most one run per write + first */
  CHECK(st->total.runs >= 2 && st->total.runs <= writes + 1);
  CHECK(st->left.runs >= 2 && st->left.runs <= st->writes[0] + 1);
  CHECK(st->diamond.runs <= st->writes[0] + 1);
  CHECK(st->watch_total.runs <= writes + 1);
  CHECK_EQ(st->reads, READERS * st->iterations);
  /* the churn left no edge behind */
  CHECK_EQ(DEPENDENT_COUNT(st->s[1].node), 1);
  CHECK_EQ(DEPENDENT_COUNT(st->total.node), 2);
  CHECK_EQ(NODE_COUNT(g), 11);

  DESTROY(&st->watch_mix);
  DESTROY(&st->watch_total);
  DESTROY(&st->mix);
  DESTROY(&st->diamond);
  DESTROY(&st->right);
  DESTROY(&st->left);
  DESTROY(&st->total);
  for (int i = 0; i < 4; i++) DESTROY(&st->s[i]);
  GRAPH_FREE(g);
  free(st);
}

/* ------------------------------------- one writer, exact effect counts */

typedef struct solo {
  int iterations;
  cell s, doubled, watch;
  atomic_int stop;
} solo;

static void *solo_reader(void *arg) {
  solo *so = arg;
  while (!so->stop) (void)READ(&so->doubled); /* refreshes, never runs effects */
  return NULL;
}

TEST(threads_effect_once_per_write_with_readers) {
  solo so = {.iterations = harness_quick() ? 1000 : 10000};
  sg_graph *g = sg_graph_new();
  STORED(&so.s, g, "s", 0);
  COMPUTED(&so.doubled, g, "doubled", formula_double, &so.s);
  EFFECT(&so.watch, g, "watch", formula_copy, &so.doubled);
  pthread_t readers[3];
  for (int i = 0; i < 3; i++) readers[i] = spawn_thread(solo_reader, &so, 0);
  int wrong = 0;
  for (int i = 1; i <= so.iterations; i++) {
    SET(&so.s, i);
    /* the effect ran on this thread before sg_changed returned */
    wrong += so.watch.runs != i + 1 || so.watch.value != 2 * i;
  }
  so.stop = 1;
  for (int i = 0; i < 3; i++) pthread_join(readers[i], NULL);
  CHECK_EQ(wrong, 0);
  CHECK_EQ(so.watch.runs, so.iterations + 1);
  CHECK(so.doubled.runs <= so.iterations + 1);
  DESTROY(&so.watch);
  DESTROY(&so.doubled);
  DESTROY(&so.s);
  GRAPH_FREE(g);
}

/* ---------------------- the same stale chain needed by four threads */

typedef struct race {
  cell *chain;
  int n;
  pthread_barrier_t start;
  int at[4];
  int seen[4];
} race;

typedef struct racer {
  race *r;
  int index;
} racer;

static void *racer_main(void *arg) {
  racer *me = arg;
  race *r = me->r;
  pthread_barrier_wait(&r->start);
  r->seen[me->index] = READ(&r->chain[r->at[me->index]]);
  return NULL;
}

static void race_round(race *r) {
  pthread_t t[4];
  racer who[4];
  pthread_barrier_init(&r->start, NULL, 4);
  /* small stacks: the first evaluation hops onto helper threads early */
  for (int i = 0; i < 4; i++) {
    who[i] = (racer){r, i};
    t[i] = spawn_thread(racer_main, &who[i], 512 * 1024);
  }
  for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
  pthread_barrier_destroy(&r->start);
}

TEST(threads_shared_stale_chain_computed_once) {
  race r = {.n = harness_quick() ? 3000 : 20000};
  sg_graph *g = sg_graph_new();
  r.chain = calloc(r.n, sizeof *r.chain);
  REQUIRE(r.chain != NULL);
  STORED(&r.chain[0], g, "head", 0);
  for (int i = 1; i < r.n; i++) COMPUTED(&r.chain[i], g, "link", formula_plus1, &r.chain[i - 1]);
  for (int i = 0; i < 4; i++) r.at[i] = (int)((long)r.n * (4 - i) / 4) - 1; /* end, ¾, ½, ¼ */

  race_round(&r); /* first evaluation: recursive, from four places at once */
  for (int i = 0; i < 4; i++) CHECK_EQ(r.seen[i], r.at[i]);
  int wrong = 0;
  for (int i = 1; i < r.n; i++) wrong += r.chain[i].runs != 1;
  CHECK_EQ(wrong, 0); /* nobody computed a node another thread was computing */

  SET(&r.chain[0], 100);
  race_round(&r); /* refresh: iterative, again from four places */
  for (int i = 0; i < 4; i++) CHECK_EQ(r.seen[i], 100 + r.at[i]);
  wrong = 0;
  for (int i = 1; i < r.n; i++) wrong += r.chain[i].runs != 2;
  CHECK_EQ(wrong, 0);

  for (int i = r.n - 1; i >= 0; i--) DESTROY(&r.chain[i]);
  free(r.chain);
  GRAPH_FREE(g);
}

/* ------------------------------------------------- a cross-thread cycle */

/* x reads y and y reads x. Their first runs meet at a barrier, so thread A
 * owns x while thread B owns y when each reads the other: a wait-for cycle
 * between two threads. Neither may wait forever. */
typedef struct crossed {
  cell base;
  pthread_barrier_t *meet;
  atomic_int first;
  cell *exit; /* when set, read this instead */
} crossed;

static int formula_crossed(cell *self) {
  crossed *c = (crossed *)self;
  if (atomic_exchange(&c->first, 0)) pthread_barrier_wait(c->meet);
  return (c->exit ? cell_in(self, c->exit) : IN(self, 0)) + 1;
}

typedef struct cycle_side {
  cell *start;
  int rc;
  char text[128];
} cycle_side;

static void *cycle_side_main(void *arg) {
  cycle_side *side = arg;
  side->rc = sg_read(side->start->node);
  snprintf(side->text, sizeof side->text, "%s", sg_last_cycle());
  return NULL;
}

TEST(threads_cross_thread_cycle_no_deadlock) {
  sg_graph *g = sg_graph_new();
  pthread_barrier_t meet;
  pthread_barrier_init(&meet, NULL, 2);
  crossed x = {.meet = &meet}, y = {.meet = &meet};
  cell_computed_at(&x.base, g, "x", formula_crossed, (cell *[]){&y.base, NULL}, "two.c", 1);
  cell_computed_at(&y.base, g, "y", formula_crossed, (cell *[]){&x.base, NULL}, "two.c", 2);
  x.first = y.first = 1;
  cycle_side a = {.start = &x.base}, b = {.start = &y.base};
  pthread_t ta = spawn_thread(cycle_side_main, &a, 0), tb = spawn_thread(cycle_side_main, &b, 0);
  pthread_join(ta, NULL);
  pthread_join(tb, NULL);
  pthread_barrier_destroy(&meet);
  /* one thread finds the cycle across both; the other, after it let go,
   * runs the rest itself and finds it within its own thread */
  CHECK_EQ(a.rc, SG_ECYCLE);
  CHECK_EQ(b.rc, SG_ECYCLE);
  CHECK_STR(a.text, "x (two.c:1) -> y (two.c:2) -> x (two.c:1)");
  CHECK_STR(b.text, "y (two.c:2) -> x (two.c:1) -> y (two.c:2)");
  CHECK_EQ(x.base.runs + y.base.runs, 3); /* 2 meeting runs + 1 retry */

  /* still usable: break the loop and read from both sides */
  cell z;
  STORED(&z, g, "z", 10);
  y.exit = &z;
  CHECK_EQ(READ(&x.base), 12);
  CHECK_EQ(READ(&y.base), 11);
  SET(&z, 20);
  CHECK_EQ(READ(&x.base), 22);
  DESTROY(&x.base);
  DESTROY(&y.base);
  DESTROY(&z);
  GRAPH_FREE(g);
}

/* ------------------------------------------------ signal mask and stacks */

/* A compute that blocks a signal on its thread keeps it blocked after the
 * read returns, also when the core ran it on a stack segment: the thread's
 * signal mask is the thread's, like its locks and thread-locals. The reader
 * reads with less stack left than the core's margin, so the callback runs
 * on a segment (checked by address). */
static _Atomic uintptr_t mask_callback_at;

static int formula_blocks_sigusr2(cell *self) {
  (void)self;
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR2);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  mask_callback_at = (uintptr_t)&set;
  return 1;
}

typedef struct mask_result {
  cell *c;
  int blocked_after, on_segment, value;
} mask_result;

/* Uses up the thread's stack until less than the core's margin (256 KiB)
 * is left, then reads: whatever the thread's stack size (sanitizers want
 * large ones), the callback runs on a segment. */
static int read_low_on_stack(cell *c, uintptr_t low) {
  volatile char pad[16 * 1024];
  pad[0] = 1;
  if ((uintptr_t)&pad[0] - low > 200 * 1024) return read_low_on_stack(c, low) * pad[0];
  return READ(c);
}

static void *mask_reader_main(void *arg) {
  mask_result *r = arg;
  pthread_attr_t attr;
  void *low = NULL;
  size_t size = 0;
  REQUIRE(pthread_getattr_np(pthread_self(), &attr) == 0);
  pthread_attr_getstack(&attr, &low, &size);
  pthread_attr_destroy(&attr);
  r->value = read_low_on_stack(r->c, (uintptr_t)low);
  sigset_t now;
  pthread_sigmask(SIG_SETMASK, NULL, &now);
  r->blocked_after = sigismember(&now, SIGUSR2);
  uintptr_t at = mask_callback_at;
  r->on_segment = at < (uintptr_t)low || at >= (uintptr_t)low + size;
  return NULL;
}

TEST(threads_signal_mask_set_by_a_compute_on_a_stack_segment_stays) {
  sg_graph *g = sg_graph_new();
  cell c;
  COMPUTED(&c, g, "c", formula_blocks_sigusr2, NULL);
  mask_result r = {.c = &c};
  pthread_join(spawn_thread(mask_reader_main, &r, 0), NULL);
  CHECK_EQ(r.value, 1);
  CHECK_EQ(r.on_segment, 1); /* the switch happened: the test tests it */
  CHECK_EQ(r.blocked_after, 1);
  DESTROY(&c);
  GRAPH_FREE(g);
}
