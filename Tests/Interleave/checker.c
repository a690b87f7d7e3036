/*
 * checker.c — an interleaving checker for the core's protocol, in the
 * spirit of loom and shuttle (docs/core-protocol.md, "Checking").
 *
 * The core is built with its scheduling points (-DSG_SCHEDULING_POINTS):
 * every lock, condition wait and lock-free step calls our hook. Scenario
 * threads run one at a time, holding a baton; at each point the hook picks
 * (from a seeded random stream) which thread goes on, so one seed is one
 * schedule, replayable. A thread that cannot go on (a lock another thread
 * holds, a wait) always hands the baton on; a run where every thread stays
 * blocked is a deadlock and fails with the point it hung at.
 *
 *   checker [SCHEDULES [FIRST_SEED [NAME]]]   every scenario (or those whose
 *                                             name contains NAME) under
 *                                             SCHEDULES seeds, with the graph
 *                                             lock never biased, then biased
 *                                             eagerly (lock.c)
 *
 * The last line is "N passed, M failed" (schedules). A failure prints the
 * scenario and seed: `checker 1 SEED` replays that schedule first.
 */
#include "../CoreTests/harness.h"
#include "sg_testing.h"

#include <semaphore.h>
#include <stdarg.h>

/* ------------------------------------------------------------- scheduler */

/* A schedule that passes this many points has not ended on its own: the
 * threads retry waits that can never succeed (a deadlock whose waits time
 * out and start again). The scenarios take well under a thousand. */
enum { MAX_THREADS = 3, BLOCKED_LIMIT = 200000, SCHEDULE_POINT_LIMIT = 1000000 };

typedef struct worker {
  pthread_t thread;
  sem_t go;
  _Atomic bool done;
  int id;
  void (*body)(void *);
  void *scenario;
} worker;

static worker workers[MAX_THREADS];
static int worker_count;
static __thread int my_id = -1; /* -1: not a scenario thread (main, exits) */
static uint64_t random_state;
static long blocked_streak, points, schedule_points;
static atomic_int failures;
static const char *scenario_name;
static uint64_t scenario_seed;
static sem_t schedule_over;

static uint64_t next_random(void) { /* xorshift64* */
  random_state ^= random_state >> 12;
  random_state ^= random_state << 25;
  random_state ^= random_state >> 27;
  return random_state * 2685821657736338717ull;
}

/* The thread to run next: another one at random when `self` cannot go on,
 * otherwise `self` or a switch (one time in three). -1: none left. */
static int pick(int self, bool self_blocked) {
  int candidates[MAX_THREADS], n = 0;
  for (int i = 0; i < worker_count; i++)
    if (!workers[i].done && !(i == self && self_blocked)) candidates[n++] = i;
  if (n == 0) return self >= 0 && !workers[self].done ? self : -1;
  if (self >= 0 && !self_blocked && next_random() % 3 != 0) return self;
  return candidates[next_random() % n];
}

/* The bias's steps (lock.c), counted where a scenario thread reaches them:
 * run with the bias given eagerly, the scenarios must reach each. */
static const char *const bias_steps[] = {
  "bias: before saying held",
  "bias: held, before reading the bias",
  "bias: taken back meanwhile",
  "bias: given, before letting go of the word",
  "revoke: bias cleared, before the barrier",
  "revoke: the biased thread is inside",
};
enum { BIAS_STEPS = sizeof bias_steps / sizeof bias_steps[0] };
static long bias_step_count[BIAS_STEPS];

static void count_bias_step(const char *point) {
  for (int i = 0; i < BIAS_STEPS; i++)
    if (strcmp(point, bias_steps[i]) == 0) bias_step_count[i]++;
}

static void hook(const char *point, bool blocked) {
  int self = my_id;
  if (self < 0) return;
  points++;
  count_bias_step(point);
  if (++schedule_points > SCHEDULE_POINT_LIMIT) {
    fprintf(stderr, "%s, seed %llu: no end after %ld scheduling points, the last at \"%s\"\n",
            scenario_name, (unsigned long long)scenario_seed, schedule_points, point);
    abort();
  }
  if (getenv("CHECKER_TRACE")) fprintf(stderr, "  [%d] %s%s\n", self, point, blocked ? " (blocked)" : "");
  if (!blocked) {
    blocked_streak = 0;
  } else if (++blocked_streak > BLOCKED_LIMIT) {
    fprintf(stderr, "deadlock: every thread blocked, last at \"%s\"\n", point);
    abort();
  }
  int next = pick(self, blocked);
  if (next == self) return;
  sem_post(&workers[next].go);
  sem_wait(&workers[self].go);
}

static void *worker_main(void *arg) {
  worker *w = arg;
  my_id = w->id;
  sem_wait(&w->go);
  w->body(w->scenario);
  w->done = true;
  my_id = -1; /* thread exit calls into the core too: not scheduled */
  int next = pick(-1, false);
  if (next >= 0) sem_post(&workers[next].go);
  else sem_post(&schedule_over);
  return NULL;
}

/* ------------------------------------------------------------ harness */


void harness_fail(const char *file, int line, const char *fmt, ...) {
  char message[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof message, fmt, ap);
  va_end(ap);
  fprintf(stderr, "  %s, seed %llu: %s:%d: %s\n", scenario_name,
          (unsigned long long)scenario_seed, file, line, message);
  atomic_fetch_add(&failures, 1);
}

int harness_quick(void) { return 1; }
int harness_known_bug(const char *file, int line, const char *why) { return 0; }

/* ----------------------------------------------------------- scenarios */

typedef struct world {
  sg_graph *g;
  cell s, a, b, c, d;
  atomic_int watcher_calls;
  uint64_t version;
  int read_rc;
  sg_node *handle; /* a handle kept by a thread that does not own it */
  uint64_t handle_id;
  atomic_int handle_gone; /* its destroy has returned */
  atomic_int destroy_started;
  int destroy_rc;
  bool has_child;
  atomic_int child_saw_nonzero;
} world;

/* Binding code has steps of its own between the core's: a value is stored
 * and then announced, read and then used. Scenarios mark them. */
static void binding_step(void) { hook("binding", false); }

/* The binding's own lock for a value that a batch may roll back: held by a
 * writer across "store + sg_changed" (and "restore + sg_rollback"), by a
 * reader across "sg_read + load", so that a version is never seen with
 * another version's value (the contract in stategraph.h, sg_rollback).
 * Taken like the core's locks: a holder may be parked at a point. */
static pthread_mutex_t value_lock = PTHREAD_MUTEX_INITIALIZER;

static void binding_lock(void) {
  hook("binding lock", false);
  while (pthread_mutex_trylock(&value_lock) != 0) hook("binding lock (held elsewhere)", true);
}

static int formula_times_ten(cell *self) {
  cell *s = self->in[0];
  binding_lock();
  int rc = sg_read(s->node);
  if (rc < 0) self->error = rc;
  binding_step(); /* between the read and the use of the value */
  int v = s->value * 10;
  pthread_mutex_unlock(&value_lock);
  return v;
}

typedef struct scenario {
  const char *name;
  void (*setup)(world *);
  void (*threads[MAX_THREADS])(void *);
  void (*check)(world *);
} scenario;

/* A writer and a reader of a computed. */
static void chain_setup(world *w) {
  STORED(&w->s, w->g, "s", 0);
  COMPUTED(&w->a, w->g, "a", formula_double, &w->s);
  COMPUTED(&w->b, w->g, "b", formula_plus1, &w->a);
  (void)READ(&w->b);
}
static void write_twice(void *p) {
  world *w = p;
  SET(&w->s, 1);
  SET(&w->s, 2);
}
static void read_b(void *p) {
  world *w = p;
  int v = READ(&w->b);
  CHECK(v == 1 || v == 3 || v == 5);
}
static void chain_check(world *w) {
  CHECK_EQ(READ(&w->b), 5);
  CHECK(w->a.runs <= 3 && w->b.runs <= 3);
  DESTROY(&w->b);
  DESTROY(&w->a);
  DESTROY(&w->s);
}

/* A write against the destroy of its dependent. */
static void destroy_a(void *p) {
  world *w = p;
  CHECK_EQ(sg_node_destroy(w->a.node), SG_OK);
}
static void read_b_any(void *p) {
  world *w = p;
  w->read_rc = sg_read(w->b.node); /* a may be gone: an error, never a crash */
  CHECK(w->read_rc == SG_OK || w->read_rc == SG_ECALLBACK);
}
static void destroyed_check(world *w) {
  CHECK_EQ(w->a.destroyed, 1);
  CHECK_EQ(DEPENDENT_COUNT(w->s.node), 0);
  DESTROY(&w->b);
  DESTROY(&w->s);
}

/* Destroy, release of a hold and a checked read of one node at once. */
static void held_setup(world *w) {
  chain_setup(w);
  CHECK_EQ(sg_node_hold(w->a.node), SG_OK);
}
static void release_a(void *p) {
  world *w = p;
  CHECK_EQ(sg_node_release(w->a.node), SG_OK);
}
static void read_a_any(void *p) {
  world *w = p;
  int rc = sg_read(w->a.node);
  CHECK(rc == SG_OK || rc == SG_ESTALE);
}

/* A compute that destroys its own node (a hold keeps it) against the
 * release of that hold: exactly one of them buries it. */
static int formula_destroy_self(cell *self) {
  CHECK_EQ(sg_node_destroy(self->node), SG_OK);
  return 1;
}
static void self_destroying_setup(world *w) {
  COMPUTED(&w->a, w->g, "a", formula_destroy_self, NULL);
  CHECK_EQ(sg_node_hold(w->a.node), SG_OK);
}
static void read_a_unchecked(void *p) {
  world *w = p;
  (void)sg_read_unchecked(w->a.node); /* its own node: no pin needed */
}
static void self_destroyed_check(world *w) { CHECK_EQ(w->a.destroyed, 1); }

/* A batch that writes and rolls back, against a reader of a dependent. */
static void rollback_setup(world *w) {
  STORED(&w->s, w->g, "s", 2);
  COMPUTED(&w->a, w->g, "d", formula_times_ten, &w->s);
  (void)READ(&w->a);
  CHECK_EQ(sg_changed(w->s.node), SG_OK); /* d is stale: the reader will run it */
  w->version = NODE_VERSION(w->s.node);
}
static void write_and_roll_back(void *p) {
  world *w = p;
  sg_batch_begin();
  binding_lock();
  w->s.value = 3;
  binding_step(); /* stored, not yet announced */
  CHECK_EQ(sg_changed(w->s.node), SG_OK);
  pthread_mutex_unlock(&value_lock);
  binding_step();
  binding_lock();
  w->s.value = 2;
  binding_step();
  CHECK_EQ(sg_rollback(w->s.node, w->version), SG_OK);
  pthread_mutex_unlock(&value_lock);
  CHECK_EQ(sg_batch_end(), SG_OK);
}
static void read_d(void *p) {
  world *w = p;
  int v = READ(&w->a);
  CHECK(v == 20 || v == 30);
}
static void rollback_check(world *w) {
  CHECK_EQ(READ(&w->a), 20);
  DESTROY(&w->a);
  DESTROY(&w->s);
}

/* The Swift wrapper's write: the value stored and the version moved under
 * the binding lock (sg_write_begin_unchecked), the effects run after it
 * (sg_write_end). Two such writers against a reader and an effect that
 * take the binding lock inside their computes: no deadlock (binding lock,
 * then graph lock, and no compute runs under the graph lock), and every
 * value read is one a version named. */
static void two_step_setup(world *w) {
  STORED(&w->s, w->g, "s", 1);
  COMPUTED(&w->a, w->g, "d", formula_times_ten, &w->s);
  EFFECT(&w->c, w->g, "e", formula_copy, &w->a);
}
static void two_step_write(world *w, int value) {
  binding_lock();
  w->s.value = value;
  binding_step(); /* stored, not yet marked */
  CHECK_EQ(sg_write_begin_unchecked(w->s.node), SG_OK);
  pthread_mutex_unlock(&value_lock);
  binding_step(); /* marked, effects not yet run */
  CHECK_EQ(sg_write_end(), SG_OK);
}
static void two_step_write_2(void *p) { two_step_write(p, 2); }
static void two_step_write_3(void *p) { two_step_write(p, 3); }
static void read_d_any(void *p) {
  world *w = p;
  int v = READ(&w->a);
  CHECK(v == 10 || v == 20 || v == 30);
}
static void two_step_check(world *w) {
  CHECK(w->s.value == 2 || w->s.value == 3);
  CHECK_EQ(READ(&w->a), w->s.value * 10);
  CHECK_EQ(w->c.value, w->s.value * 10); /* the effect saw the last value */
  DESTROY(&w->c);
  DESTROY(&w->a);
  DESTROY(&w->s);
}

/* A compute that reads its sources again (s, t, s, t, s: the third read
 * finds s among the run's links, the fourth t as the link just stamped and
 * the fifth s in the frame's memo of recent reads, all without the graph
 * lock) against the Swift wrapper's writes of s (see two_step_write): a run
 * that saw two values of s is run again, so every value read is 3 * s + 2 * t
 * for one s. */
static int locked_in(cell *self, cell *input) {
  binding_lock();
  int v = cell_in(self, input);
  pthread_mutex_unlock(&value_lock);
  return v;
}
static int formula_s_t_s(cell *self) {
  int sum = locked_in(self, self->in[0]);
  sum += IN(self, 1);
  sum += locked_in(self, self->in[0]);
  sum += IN(self, 1);
  return sum + locked_in(self, self->in[0]);
}
static void reread_setup(world *w) {
  STORED(&w->s, w->g, "s", 1);
  STORED(&w->b, w->g, "t", 10);
  COMPUTED(&w->a, w->g, "d", formula_s_t_s, &w->s, &w->b);
  (void)READ(&w->a);
}
static void write_s_twice(void *p) {
  two_step_write(p, 2);
  two_step_write(p, 3);
}
static void read_d_consistent(void *p) {
  world *w = p;
  int v = READ(&w->a);
  CHECK(v == 23 || v == 26 || v == 29);
}
static void reread_check(world *w) {
  CHECK_EQ(READ(&w->a), 29);
  DESTROY(&w->a);
  DESTROY(&w->b);
  DESTROY(&w->s);
}

/* Two writers and an effect: it ends having seen the last value. */
static void effect_setup(world *w) {
  STORED(&w->s, w->g, "s", 0);
  EFFECT(&w->c, w->g, "e", formula_copy, &w->s);
}
static void write_one(void *p) { SET(&((world *)p)->s, 1); }
static void write_two(void *p) { SET(&((world *)p)->s, 2); }
static void effect_check(world *w) {
  CHECK_EQ(w->c.value, w->s.value);
  CHECK(w->c.runs >= 2 && w->c.runs <= 3);
  DESTROY(&w->c);
  DESTROY(&w->s);
}

/* Two readers of one stale chain and a writer: each node runs once per
 * change it sees, never twice at once (claims). */
static void read_b_twice(void *p) {
  world *w = p;
  (void)READ(&w->b);
  (void)READ(&w->b);
}

/* Checked calls through a kept handle, against the destroy of its node and
 * a new node that takes its slot: each answers for a live node or says
 * SG_ESTALE, and with the id, never for the new node. */
static void reuse_setup(world *w) {
  STORED(&w->a, w->g, "a", 0);
  w->handle = w->a.node;
  sg_node_description d;
  CHECK_EQ(sg_node_describe(w->handle, &d), SG_OK);
  w->handle_id = d.id;
}
static void destroy_and_reuse(void *p) {
  world *w = p;
  DESTROY(&w->a);
  atomic_store(&w->handle_gone, 1);
  STORED(&w->b, w->g, "b", 0); /* takes a's slot (of a stored node's size) when nobody pins it */
}
static void use_kept_handle(void *p) {
  world *w = p;
  int rc = sg_changed(w->handle);
  CHECK(rc == SG_OK || rc == SG_ESTALE);
  rc = sg_read(w->handle);
  CHECK(rc == SG_OK || rc == SG_ESTALE);
  bool gone = atomic_load(&w->handle_gone);
  rc = sg_node_check(w->handle, w->handle_id); /* never b, even in a's slot */
  CHECK(gone ? rc == SG_ESTALE : rc == SG_OK || rc == SG_ESTALE);
}
static void reuse_check(world *w) {
  CHECK_EQ(sg_node_check(w->handle, w->handle_id), SG_ESTALE);
  CHECK_EQ(NODE_COUNT(w->g), 1);
  DESTROY(&w->b);
}

/* A node created in the slot of a destroyed one, against checked calls
 * through the destroyed node's handle: the new node is reachable through
 * the door only once it is whole, so each call answers SG_ESTALE or works
 * on the whole new node, and its destroy callback runs once. */
static void stale_slot_setup(world *w) {
  STORED(&w->s, w->g, "s", 3);
  COMPUTED(&w->a, w->g, "a", formula_copy, &w->s);
  w->handle = w->a.node;
  DESTROY(&w->a); /* the next computed node takes its slot */
}
static void create_in_stale_slot(void *p) {
  world *w = p;
  COMPUTED(&w->b, w->g, "b", formula_copy, &w->s);
  CHECK(w->b.node == w->handle); /* the slot was reused: the race is real */
  int rc = sg_read(w->b.node);
  CHECK(rc == SG_OK || rc == SG_ESTALE);
  rc = sg_node_destroy(w->b.node);
  CHECK(rc == SG_OK || rc == SG_ESTALE);
}
static void destroy_through_stale_handle(void *p) {
  world *w = p;
  int rc = sg_changed(w->handle); /* a stored node's call: a and b are computed */
  CHECK(rc == SG_ESTALE || rc == SG_EKIND);
  rc = sg_node_destroy(w->handle);
  CHECK(rc == SG_OK || rc == SG_ESTALE);
}
static void stale_slot_check(world *w) {
  CHECK_EQ(w->b.destroyed, 1);
  CHECK_EQ(IS_LIVE(w->b.node), 0);
  DESTROY(&w->s);
}

/* Two snapshot visitors of x, each reading b, against the read of b whose
 * run destroys x: the destroy waits for every visitor while the visitors
 * wait for b's run. The loop is seen through whichever visitor closes it,
 * so each visitor's read ends (SG_ECYCLE when it was in the loop) and the
 * destroy completes. */
static world *visited_world; /* for the formula: one schedule at a time */

static int formula_destroy_a(cell *self) {
  world *w = visited_world;
  int v = IN(self, 0);
  if (!atomic_exchange(&w->destroy_started, 1)) w->destroy_rc = sg_node_destroy(w->a.node);
  return v + 1;
}
static void visited_setup(world *w) {
  visited_world = w;
  STORED(&w->s, w->g, "s", 1);
  STORED(&w->a, w->g, "x", 0);
  COMPUTED(&w->b, w->g, "b", formula_destroy_a, &w->s);
}
static void visitor_reads_b(sg_snapshot *s, size_t i, void *context, void *user) {
  world *w = user;
  if (sg_snapshot_entries(s, NULL)[i].node != w->a.node) return;
  int rc = sg_read(w->b.node);
  CHECK(rc == SG_OK || rc == SG_ECYCLE);
}
static void visit_all(void *p) {
  world *w = p;
  sg_snapshot *snap = NULL;
  CHECK_EQ(sg_snapshot_graph(w->g, visitor_reads_b, w, &snap), SG_OK);
  sg_snapshot_free(snap);
}
static void read_b_destroying(void *p) {
  world *w = p;
  int rc = sg_read(w->b.node);
  CHECK(rc == SG_OK || rc == SG_ECYCLE);
}
static void visited_check(world *w) {
  CHECK_EQ(w->destroy_rc, SG_OK);
  CHECK_EQ(IS_LIVE(w->a.node), 0);
  CHECK_EQ(READ(&w->b), 2);
  CHECK_EQ(w->b.runs >= 1 && w->b.runs <= 3, 1);
  DESTROY(&w->b);
  DESTROY(&w->s);
}

/* Owners first, whichever thread runs the owner: parent (reading q and s)
 * keeps a child effect reading s while s == 0 and destroys it when s != 0.
 * One thread writes q (running parent there), the other s: the child never
 * runs with s != 0, and once both writes are done the child is gone. */
static world *owner_world; /* for the formulas: one schedule at a time */

static int formula_child(cell *self) {
  int v = IN(self, 0);
  if (v != 0) owner_world->child_saw_nonzero++;
  return v;
}
static int formula_parent(cell *self) {
  world *w = owner_world;
  (void)IN(self, 0); /* q */
  int s = IN(self, 1);
  if (s == 0 && !w->has_child) {
    EFFECT(&w->c, w->g, "child", formula_child, &w->s);
    w->has_child = true;
  } else if (s != 0 && w->has_child) {
    DESTROY(&w->c);
    w->has_child = false;
  }
  return s;
}
static void owner_setup(world *w) {
  owner_world = w;
  STORED(&w->s, w->g, "s", 0);
  STORED(&w->a, w->g, "q", 0);
  EFFECT(&w->b, w->g, "parent", formula_parent, &w->a, &w->s);
}
static void write_q(void *p) { SET(&((world *)p)->a, 1); }
static void write_s(void *p) { SET(&((world *)p)->s, 1); }
static void owner_check(world *w) {
  CHECK_EQ(w->child_saw_nonzero, 0);
  CHECK(!w->has_child);
  CHECK_EQ(w->c.destroyed, 1);
  DESTROY(&w->b);
  DESTROY(&w->a);
  DESTROY(&w->s);
}

/* Owners first for an effect created outside its owner's run, naming it
 * (sg_effect_new_owned), as a tracking group's restart does, while one
 * thread writes s (the owner then drops the child) and another q (the
 * owner runs there, so the child's first run may be handed over to it).
 * The owner drops the child by a flag and, once the creating thread has
 * published its handle, by destroying it; the creating thread destroys it
 * when it finds the flag after publishing. A child run reads nothing once
 * dropped (a group's first run checks the same). The write of s is marked
 * in a batch before it is announced: a child run that begins after the
 * announcement must find itself dropped, whichever thread runs it. (One
 * that began before may read the new value: no order can prevent that.) */
static atomic_int owned_dropped, s_announced;
static _Atomic(sg_node *) owned_child;

static void count_destroy(void *context) { ((cell *)context)->destroyed++; }

static int formula_owned_child(cell *self) {
  bool after = atomic_load(&s_announced);
  if (atomic_load(&owned_dropped)) return 0;
  if (after) owner_world->child_saw_nonzero++; /* ran before its owner saw s */
  return IN(self, 0);
}
static int formula_dropping_owner(cell *self) {
  (void)IN(self, 0); /* q */
  int s = IN(self, 1);
  if (s != 0) {
    atomic_store(&owned_dropped, 1);
    sg_node *child = atomic_exchange(&owned_child, NULL);
    if (child) CHECK_EQ(sg_node_destroy(child), SG_OK);
  }
  return s;
}
static void owned_setup(world *w) {
  owner_world = w;
  atomic_store(&owned_dropped, 0);
  atomic_store(&s_announced, 0);
  atomic_store(&owned_child, NULL);
  STORED(&w->s, w->g, "s", 0);
  STORED(&w->a, w->g, "q", 0);
  EFFECT(&w->b, w->g, "owner", formula_dropping_owner, &w->a, &w->s);
  w->c = (cell){.formula = formula_owned_child, .in = {&w->s}};
}
static void create_owned_child(void *p) {
  world *w = p;
  sg_node *child = NULL;
  sg_node_info info = {"child", __FILE__, __LINE__};
  CHECK_EQ(sg_effect_new_owned(w->g, &info, cell_effect, &w->c, count_destroy, w->b.node,
                               &child),
           SG_OK);
  atomic_store(&owned_child, child);
  if (atomic_load(&owned_dropped) && (child = atomic_exchange(&owned_child, NULL)))
    CHECK_EQ(sg_node_destroy(child), SG_OK);
}
static void write_s_announced(void *p) {
  world *w = p;
  sg_batch_begin();
  SET(&w->s, 1); /* marked now, run at the batch's end */
  atomic_store(&s_announced, 1);
  CHECK_EQ(sg_batch_end(), SG_OK);
}
static void owned_check(world *w) {
  CHECK_EQ(w->child_saw_nonzero, 0);
  CHECK_EQ(atomic_load(&owned_dropped), 1);
  CHECK(atomic_load(&owned_child) == NULL);
  CHECK_EQ(w->c.destroyed, 1);
  CHECK(w->c.runs <= 2); /* its first run, and one for the write of s */
  DESTROY(&w->b);
  DESTROY(&w->a);
  DESTROY(&w->s);
}

/* The same guarantee when the child is brought up to date through a
 * computed it reads: one thread writes t (the child, reading k = t, is
 * verified there and k runs, the lock let go), the other s, which the
 * owner and the child both read, meanwhile. */
static int formula_child_via_k(cell *self) {
  bool after = atomic_load(&s_announced);
  if (atomic_load(&owned_dropped)) return 0;
  if (after) owner_world->child_saw_nonzero++; /* ran before its owner saw s */
  return IN(self, 0) + IN(self, 1);
}
static void via_k_setup(world *w) {
  owner_world = w;
  atomic_store(&owned_dropped, 0);
  atomic_store(&s_announced, 0);
  atomic_store(&owned_child, NULL);
  STORED(&w->s, w->g, "s", 0);
  STORED(&w->a, w->g, "t", 0);
  COMPUTED(&w->c, w->g, "k", formula_copy, &w->a);
  EFFECT(&w->b, w->g, "owner", formula_dropping_owner, &w->a, &w->s); /* reads t too: harmless */
  w->d = (cell){.formula = formula_child_via_k, .in = {&w->c, &w->s}};
  sg_node *child = NULL;
  sg_node_info info = {"child", __FILE__, __LINE__};
  CHECK_EQ(sg_effect_new_owned(w->g, &info, cell_effect, &w->d, count_destroy, w->b.node, &child),
           SG_OK);
  atomic_store(&owned_child, child);
}
static void write_t(void *p) { SET(&((world *)p)->a, 1); }
static void via_k_check(world *w) {
  CHECK_EQ(w->child_saw_nonzero, 0);
  CHECK_EQ(atomic_load(&owned_dropped), 1);
  CHECK(atomic_load(&owned_child) == NULL);
  CHECK_EQ(w->d.destroyed, 1);
  DESTROY(&w->b);
  DESTROY(&w->c);
  DESTROY(&w->a);
  DESTROY(&w->s);
}

/* A watcher set and armed by one thread (a binding's first observed read)
 * while another reads the node outside callbacks, without the lock while it
 * finds the node fresh and unwatched, and a third writes its source. The arm
 * is never lost: if the write came before it, the next one calls the
 * watcher; either way exactly once. */
static world *watched_world; /* a watcher gets the node's context: its cell */
static int count_watcher_call(sg_node *n, void *cell) {
  (void)n, (void)cell;
  atomic_fetch_add(&watched_world->watcher_calls, 1);
  return 0;
}
static void watched_setup(world *w) {
  watched_world = w;
  STORED(&w->s, w->g, "s", 0);
  COMPUTED(&w->a, w->g, "a", formula_double, &w->s);
  (void)READ(&w->a);
}
static void set_watcher_and_arm(void *p) {
  world *w = p;
  CHECK_EQ(sg_node_set_watcher(w->a.node, count_watcher_call), SG_OK);
  CHECK_EQ(sg_read_arm_unchecked(w->a.node), SG_READ_WATCHED);
}
static void read_a_arming(void *p) {
  world *w = p;
  int rc = sg_read_arm_unchecked(w->a.node);
  CHECK(rc == 0 || rc == SG_READ_WATCHED);
}
static void write_s_once(void *p) {
  world *w = p;
  SET(&w->s, 1);
}
static void watched_check(world *w) {
  int calls = atomic_load(&w->watcher_calls);
  CHECK(calls <= 1);
  if (calls == 0) SET(&w->s, 2); /* the write came before the arm */
  CHECK_EQ(atomic_load(&w->watcher_calls), 1);
  DESTROY(&w->a);
  DESTROY(&w->s);
}

static const scenario scenarios[] = {
  {"write vs read", chain_setup, {write_twice, read_b}, chain_check},
  {"write vs destroy vs read", chain_setup, {write_twice, destroy_a, read_b_any},
   destroyed_check},
  {"destroy vs release vs read", held_setup, {destroy_a, release_a, read_a_any},
   destroyed_check},
  {"destroying compute vs release", self_destroying_setup, {read_a_unchecked, release_a},
   self_destroyed_check},
  {"batch rollback vs read", rollback_setup, {write_and_roll_back, read_d}, rollback_check},
  {"two-step writes vs read vs effect", two_step_setup,
   {two_step_write_2, two_step_write_3, read_d_any}, two_step_check},
  {"two writers vs an effect", effect_setup, {write_one, write_two}, effect_check},
  {"a source read again vs its writes", reread_setup, {write_s_twice, read_d_consistent},
   reread_check},
  {"two readers vs a writer", chain_setup, {read_b_twice, read_b, write_twice}, chain_check},
  {"checked calls vs slot reuse", reuse_setup, {destroy_and_reuse, use_kept_handle}, reuse_check},
  {"creation vs a stale handle", stale_slot_setup, {create_in_stale_slot, destroy_through_stale_handle},
   stale_slot_check},
  {"two visitors vs destroy", visited_setup, {read_b_destroying, visit_all, visit_all}, visited_check},
  {"owner elsewhere vs its child", owner_setup, {write_q, write_s}, owner_check},
  {"owned creation vs its owner", owned_setup, {create_owned_child, write_s_announced, write_q},
   owned_check},
  {"verified child vs its owner", via_k_setup, {write_t, write_s_announced}, via_k_check},
  {"watcher set vs a read without the lock", watched_setup,
   {set_watcher_and_arm, read_a_arming, write_s_once}, watched_check},
};
enum { SCENARIOS = sizeof scenarios / sizeof scenarios[0] };

/* ----------------------------------------------------------------- main */

static void run_schedule(const scenario *sc, uint64_t seed) {
  world w = {.g = sg_graph_new()};
  scenario_name = sc->name;
  scenario_seed = seed;
  random_state = seed * 0x9E3779B97F4A7C15ull + 1;
  blocked_streak = 0;
  schedule_points = 0;
  sc->setup(&w);
  worker_count = 0;
  for (int i = 0; i < MAX_THREADS && sc->threads[i]; i++) {
    worker *k = &workers[worker_count];
    *k = (worker){.id = worker_count, .body = sc->threads[i], .scenario = &w};
    sem_init(&k->go, 0, 0);
    worker_count++;
  }
  sem_init(&schedule_over, 0, 0);
  for (int i = 0; i < worker_count; i++) workers[i].thread = spawn_thread(worker_main, &workers[i], 0);
  sem_post(&workers[pick(-1, false)].go);
  sem_wait(&schedule_over);
  for (int i = 0; i < worker_count; i++) {
    pthread_join(workers[i].thread, NULL);
    sem_destroy(&workers[i].go);
  }
  sem_destroy(&schedule_over);
  sc->check(&w);
  CHECK_EQ(NODE_COUNT(w.g), 0);
  GRAPH_FREE(w.g);
}

int main(int argc, char **argv) {
  long schedules = argc > 1 ? atol(argv[1]) : 200;
  uint64_t first = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
  const char *only = argc > 3 ? argv[3] : NULL;
  setvbuf(stdout, NULL, _IOLBF, 0);
  REQUIRE(sg__set_scheduling_hook(hook));
  int passed = 0, failed = 0, ran = 0;
  /* Every scenario twice: with the graph lock never biased, and biased to
   * a thread at its second take in a row, so that biases are given and
   * taken back all through the scenario. */
  static const struct { int mode; const char *name; } modes[] = {
    {SG_BIAS_NEVER, "unbiased"}, {SG_BIAS_EAGER, "biased"}};
  for (int m = 0; m < 2; m++) {
    sg__set_bias_mode(modes[m].mode);
    for (int i = 0; i < SCENARIOS; i++) {
      if (only && !strstr(scenarios[i].name, only)) continue;
      ran++;
      long before = points;
      int bad = 0;
      for (long k = 0; k < schedules; k++) {
        int had = atomic_load(&failures);
        run_schedule(&scenarios[i], first + (uint64_t)k);
        if (atomic_load(&failures) != had) bad++;
      }
      printf("%-28s %-8s %6ld schedules, %8ld scheduling points, %d failed\n",
             scenarios[i].name, modes[m].name, schedules, points - before, bad);
      passed += schedules - bad;
      failed += bad;
    }
  }
  sg__set_scheduling_hook(NULL);
  sg__set_bias_mode(SG_BIAS_USUAL);
  for (int i = 0; i < BIAS_STEPS; i++) {
    printf("reached %8ld times: %s\n", bias_step_count[i], bias_steps[i]);
    if (!only && schedules >= 100 && bias_step_count[i] == 0) {
      printf("  never reached: the biased runs did not exercise this step\n");
      failed++;
    }
  }
  printf("%d scenario runs\n", ran);
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
