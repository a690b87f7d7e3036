/*
 * test-bias.c — the graph lock biased to one thread (lock.c), at the steps
 * docs/core-protocol.md names: given after a streak, taken back by another
 * thread while the biased one runs a callback (lock let go) or marks (lock
 * held), not given while a thread sleeps on the word, and taken back from
 * a thread that exited. Each test stops threads at the core's scheduling
 * points or in callbacks, with semaphores, so every order is the one named.
 *
 * The names start with "threads_": they run under ThreadSanitizer too.
 */
#include "harness.h"
#include "sg_internal.h"
#include "sg_testing.h"

#ifdef __linux__

#include <semaphore.h>

static bool biased_to_this_thread(sg_graph *g) {
  return sg__my_bias && __atomic_load_n(&g->lock.bias, __ATOMIC_RELAXED) == sg__my_bias;
}

static bool biased(sg_graph *g) { return __atomic_load_n(&g->lock.bias, __ATOMIC_RELAXED); }

/* A thread that stays alive while a test runs: the lock is biased only in
 * a process with a second thread. */
static sem_t idle_until;
static void *idle_main(void *arg) {
  (void)arg;
  sem_wait(&idle_until);
  return NULL;
}
static pthread_t idle_begin(void) {
  sem_init(&idle_until, 0, 0);
  return spawn_thread(idle_main, NULL, 0);
}
static void idle_end(pthread_t idle) {
  sem_post(&idle_until);
  pthread_join(idle, NULL);
  sem_destroy(&idle_until);
}

/* ------------------------------------------------ given after a streak */

typedef struct streak {
  sg_graph *g;
  cell s, c;
  bool biased_after;
} streak;

static void *write_and_read_twenty_times(void *arg) {
  streak *w = arg;
  for (int i = 1; i <= 20; i++) {
    SET(&w->s, i);
    CHECK_EQ(READ(&w->c), 2 * i);
  }
  w->biased_after = biased_to_this_thread(w->g);
  return NULL;
}

TEST(threads_bias_given_after_a_streak_and_taken_back_by_another_thread) {
  sg__set_bias_mode(SG_BIAS_USUAL);
  pthread_t idle = idle_begin();
  streak w = {.g = sg_graph_new()};
  STORED(&w.s, w.g, "s", 0);
  COMPUTED(&w.c, w.g, "c", formula_double, &w.s);
  pthread_join(spawn_thread(write_and_read_twenty_times, &w, 0), NULL);
  CHECK(w.biased_after);
  CHECK_EQ(w.g->lock.revokes, 0);
  /* This thread takes the lock: the bias goes back, and what the biased
   * thread did under it is all here. */
  SET(&w.s, 21);
  CHECK(!biased(w.g));
  CHECK_EQ(w.g->lock.revokes, 1);
  CHECK_EQ(READ(&w.c), 42);
  CHECK_EQ(w.c.runs, 21);
  /* A revoke makes the next bias wait for a longer streak: 16 takes (a
   * write nobody reads takes the lock once). */
  cell t;
  STORED(&t, w.g, "t", 0);
  for (int i = 1; i <= 8; i++) SET(&t, i);
  CHECK(!biased(w.g));
  for (int i = 9; i <= 16; i++) SET(&t, i);
  CHECK(biased_to_this_thread(w.g));
  DESTROY(&t);
  DESTROY(&w.c);
  DESTROY(&w.s);
  GRAPH_FREE(w.g);
  idle_end(idle);
}

/* -------------------------------- taken back while its thread computes */

typedef struct in_callback {
  cell base; /* in[0] * 2, pausing in its second run */
  sg_graph *g;
  sem_t running, resume;
  bool bias_gone_in_run;
} in_callback;

static int formula_double_pausing(cell *self) {
  in_callback *w = (in_callback *)self;
  int v = IN(self, 0) * 2;
  if (self->runs == 2) { /* the run the test pauses: the lock is let go */
    bool mine = biased_to_this_thread(w->g);
    sem_post(&w->running);
    sem_wait(&w->resume);
    w->bias_gone_in_run = mine && !biased_to_this_thread(w->g);
  }
  return v;
}

typedef struct callback_world {
  in_callback c;
  cell s;
} callback_world;

static void *write_then_read_pausing(void *arg) {
  callback_world *w = arg;
  (void)READ(&w->c.base); /* the lock twice in a row: biased here (eager) */
  SET(&w->s, 1);
  CHECK_EQ(READ(&w->c.base), 10); /* ran with 1, then again for the write of 5 */
  return NULL;
}

TEST(threads_bias_taken_back_while_its_thread_runs_a_callback) {
  sg__set_bias_mode(SG_BIAS_EAGER);
  callback_world w = {.c.g = sg_graph_new()};
  sg_graph *g = w.c.g;
  sem_init(&w.c.running, 0, 0);
  sem_init(&w.c.resume, 0, 0);
  STORED(&w.s, g, "s", 0);
  COMPUTED(&w.c.base, g, "c", formula_double_pausing, &w.s);
  pthread_t computing = spawn_thread(write_then_read_pausing, &w, 0);
  sem_wait(&w.c.running); /* c's second run, biased to its thread, lock let go */
  SET(&w.s, 5); /* takes the bias back without waiting, and marks c */
  sem_post(&w.c.resume);
  pthread_join(computing, NULL);
  CHECK(w.c.bias_gone_in_run);
  CHECK_EQ(w.c.base.runs, 3);
  CHECK_EQ(READ(&w.c.base), 10);
  DESTROY(&w.c.base);
  DESTROY(&w.s);
  GRAPH_FREE(g);
  sem_destroy(&w.c.running);
  sem_destroy(&w.c.resume);
  sg__set_bias_mode(SG_BIAS_USUAL);
}

/* ------------------------------------ taken back while its thread marks */

static struct marking {
  pthread_t marker, taker;
  sem_t marking, taker_waits, resume;
  bool cancel_the_taker; /* before the marker goes on */
  bool paused, announced;
} marking;

/* The marker, biased and inside the lock, stops at its first mark until
 * the taker waits for it to let go (and was cancelled, when asked). */
static void hook_pause_marking(const char *point, bool blocked) {
  (void)blocked;
  if (pthread_equal(pthread_self(), marking.marker) && !marking.paused &&
      strcmp(point, "marking, the lock held") == 0) {
    marking.paused = true;
    sem_post(&marking.marking);
    CHECK(wait_10s(&marking.resume));
    if (marking.cancel_the_taker) g_usleep(50 * 1000); /* its wait reaches a sleep */
  } else if (pthread_equal(pthread_self(), marking.taker) && !marking.announced &&
             strcmp(point, "revoke: the biased thread is inside") == 0) {
    marking.announced = true;
    sem_post(&marking.taker_waits);
  }
}

/* Lets the marker go on once the taker waits for it. */
static void *resume_the_marker(void *arg) {
  (void)arg;
  if (wait_10s(&marking.taker_waits) && marking.cancel_the_taker) pthread_cancel(marking.taker);
  sem_post(&marking.resume);
  return NULL;
}

typedef struct marking_world {
  sg_graph *g;
  cell s, a, b, t;
  bool biased_before_write;
  int read_by_taker;
} marking_world;

/* A graph of s and t with a = 2s read once, biased eagerly, and `taker`
 * started: it waits until the marker stops inside the lock. */
static void marking_begin(marking_world *w, bool cancel_the_taker, void *(*taker)(void *)) {
  sg__set_bias_mode(SG_BIAS_EAGER);
  w->g = sg_graph_new();
  marking = (struct marking){.marker = pthread_self(), .cancel_the_taker = cancel_the_taker};
  sem_init(&marking.marking, 0, 0);
  sem_init(&marking.taker_waits, 0, 0);
  sem_init(&marking.resume, 0, 0);
  marking.taker = spawn_thread(taker, w, 0);
  STORED(&w->s, w->g, "s", 1);
  STORED(&w->t, w->g, "t", 0);
  COMPUTED(&w->a, w->g, "a", formula_double, &w->s);
  CHECK_EQ(READ(&w->a), 2);
}

/* Writes s = 3, marking under the biased lock, paused at its first mark
 * until the taker waits for it; answers what the taker's thread returned. */
static void *marking_write(marking_world *w) {
  REQUIRE(sg__set_scheduling_hook(hook_pause_marking));
  pthread_t resumer = spawn_thread(resume_the_marker, NULL, 0);
  SET(&w->s, 3);
  pthread_join(resumer, NULL);
  void *result = NULL;
  pthread_join(marking.taker, &result);
  sg__set_scheduling_hook(NULL);
  CHECK(marking.announced);
  return result;
}

static void marking_end(marking_world *w) {
  DESTROY(&w->a);
  DESTROY(&w->s);
  DESTROY(&w->t);
  GRAPH_FREE(w->g);
  sem_destroy(&marking.marking);
  sem_destroy(&marking.taker_waits);
  sem_destroy(&marking.resume);
  sg__set_bias_mode(SG_BIAS_USUAL);
}

static void *write_t_after_the_mark_began(void *arg) {
  marking_world *w = arg;
  sem_wait(&marking.marking);
  SET(&w->t, 1); /* waits for the marker to let go */
  w->read_by_taker = READ(&w->a);
  return NULL;
}

TEST(threads_bias_taken_back_while_its_thread_marks) {
  marking_world w = {0};
  marking_begin(&w, false, write_t_after_the_mark_began);
  COMPUTED(&w.b, w.g, "b", formula_plus1, &w.s);
  CHECK_EQ(READ(&w.b), 2);
  w.biased_before_write = biased_to_this_thread(w.g);
  marking_write(&w); /* marks a and b under the biased lock, the taker waiting meanwhile */
  CHECK(w.biased_before_write);
  CHECK(marking.paused);
  CHECK_EQ(w.read_by_taker, 6); /* the whole write, never half of it */
  CHECK_EQ(READ(&w.b), 4);
  CHECK_EQ(w.a.runs, 2);
  CHECK_EQ(w.b.runs, 2);
  DESTROY(&w.b);
  marking_end(&w);
}

/* ------------------------- taken back before its thread said held */

/* The biased thread is about to say it is inside; the other thread takes
 * the bias back then (finding nobody inside) and marks. The biased thread,
 * reading the bias after saying held, must find it gone and wait for the
 * word: never mark beside the other. */
static struct dekker {
  pthread_t biased_thread, taker;
  sem_t about_to_say, resume, blocked;
  bool paused, taker_inside, overlapped, announced;
} dekker;

static void hook_take_back_between(const char *point, bool blocked) {
  (void)blocked;
  bool biased_thread = pthread_equal(pthread_self(), dekker.biased_thread);
  if (biased_thread && !dekker.paused && strcmp(point, "bias: before saying held") == 0) {
    dekker.paused = true;
    sem_post(&dekker.about_to_say);
    CHECK(wait_10s(&dekker.resume));
  } else if (biased_thread && strcmp(point, "marking, the lock held") == 0) {
    if (dekker.taker_inside) dekker.overlapped = true;
  } else if (biased_thread && !dekker.announced && strcmp(point, "lock (held elsewhere)") == 0) {
    dekker.announced = true;
    sem_post(&dekker.blocked);
  } else if (pthread_equal(pthread_self(), dekker.taker) && !dekker.taker_inside &&
             strcmp(point, "marking, the lock held") == 0) {
    dekker.taker_inside = true;
    sem_post(&dekker.resume);
    CHECK(wait_10s(&dekker.blocked)); /* the biased thread waits for the word meanwhile */
    dekker.taker_inside = false;
  }
}

typedef struct dekker_world {
  sg_graph *g;
  cell s, a, u, b;
  bool biased_before;
} dekker_world;

static void *bias_then_write_s(void *arg) {
  dekker_world *w = arg;
  SET(&w->s, 1);
  SET(&w->s, 2); /* the lock twice in a row: biased (eager) */
  w->biased_before = biased_to_this_thread(w->g);
  dekker.biased_thread = pthread_self(); /* before the hook: it reads this */
  REQUIRE(sg__set_scheduling_hook(hook_take_back_between));
  SET(&w->s, 3);
  return NULL;
}

TEST(threads_bias_taken_back_before_its_thread_said_held) {
  sg__set_bias_mode(SG_BIAS_EAGER);
  dekker_world w = {.g = sg_graph_new()};
  dekker = (struct dekker){.taker = pthread_self()};
  sem_init(&dekker.about_to_say, 0, 0);
  sem_init(&dekker.resume, 0, 0);
  sem_init(&dekker.blocked, 0, 0);
  STORED(&w.s, w.g, "s", 0);
  STORED(&w.u, w.g, "u", 0);
  COMPUTED(&w.a, w.g, "a", formula_double, &w.s);
  COMPUTED(&w.b, w.g, "b", formula_double, &w.u);
  CHECK_EQ(READ(&w.a), 0);
  CHECK_EQ(READ(&w.b), 0);
  pthread_t biased_thread = spawn_thread(bias_then_write_s, &w, 0);
  if (wait_10s(&dekker.about_to_say)) SET(&w.u, 1); /* takes the bias back, marks b */
  pthread_join(biased_thread, NULL);
  sg__set_scheduling_hook(NULL);
  CHECK(w.biased_before);
  CHECK(dekker.paused);
  CHECK(dekker.announced);
  CHECK(!dekker.overlapped);
  CHECK_EQ(READ(&w.a), 6);
  CHECK_EQ(READ(&w.b), 2);
  DESTROY(&w.a);
  DESTROY(&w.b);
  DESTROY(&w.s);
  DESTROY(&w.u);
  GRAPH_FREE(w.g);
  sem_destroy(&dekker.about_to_say);
  sem_destroy(&dekker.resume);
  sem_destroy(&dekker.blocked);
  sg__set_bias_mode(SG_BIAS_USUAL);
}

/* -------------------------- not given while a thread sleeps on the word */

static struct sleeper {
  pthread_t giver;
  sg_graph *g;
  sem_t start;
  bool gave_up;
} sleeper;

static void *take_the_word(void *arg) {
  (void)arg;
  sem_wait(&sleeper.start);
  sg__glock_acquire(&sleeper.g->lock); /* sleeps on the futex word: no hook here */
  sg__glock_release(&sleeper.g->lock);
  return NULL;
}

/* The giver has biased the lock and is about to let go of the word: the
 * other thread goes to sleep on the word first. */
static void hook_sleep_on_the_word(const char *point, bool blocked) {
  (void)blocked;
  if (!pthread_equal(pthread_self(), sleeper.giver) ||
      strcmp(point, "bias: given, before letting go of the word") != 0)
    return;
  sem_post(&sleeper.start);
  for (int i = 0; i < 100000 && __atomic_load_n(&sleeper.g->lock.word, __ATOMIC_RELAXED) != 2; i++)
    g_usleep(100);
  sleeper.gave_up = __atomic_load_n(&sleeper.g->lock.word, __ATOMIC_RELAXED) == 2;
}

TEST(threads_bias_not_given_while_a_thread_sleeps_on_the_word) {
  sg__set_bias_mode(SG_BIAS_NEVER); /* until the hook is there */
  sleeper = (struct sleeper){.giver = pthread_self(), .g = sg_graph_new()};
  sem_init(&sleeper.start, 0, 0);
  cell s, a;
  STORED(&s, sleeper.g, "s", 1);
  COMPUTED(&a, sleeper.g, "a", formula_double, &s);
  pthread_t other = spawn_thread(take_the_word, NULL, 0);
  REQUIRE(sg__set_scheduling_hook(hook_sleep_on_the_word));
  sg__set_bias_mode(SG_BIAS_EAGER);
  sleeper.g->lock.streak_left = 1; /* this thread's streak is long enough now */
  for (int i = 0; i < 4 && !sleeper.gave_up; i++) SET(&s, 2 + i);
  sg__set_scheduling_hook(NULL);
  pthread_join(other, NULL); /* woken by the giver's release of the word */
  CHECK(sleeper.gave_up);
  CHECK(!biased(sleeper.g));
  CHECK_EQ(READ(&a), 2 * s.value);
  DESTROY(&a);
  DESTROY(&s);
  GRAPH_FREE(sleeper.g);
  sem_destroy(&sleeper.start);
  sg__set_bias_mode(SG_BIAS_USUAL);
}

/* ----------------------- a taker cancelled while it waits for the bias */

/* The taker holds the word while it waits for the biased thread to leave:
 * a cancellation there must not end it with the word held. */
static void *write_t_then_exit_cancelled(void *arg) {
  marking_world *w = arg;
  sem_wait(&marking.marking);
  SET(&w->t, 1);
  pthread_testcancel();
  return NULL;
}

static void *write_t_once_more(void *arg) {
  marking_world *w = arg;
  SET(&w->t, 2);
  return NULL;
}

TEST(threads_bias_taker_cancelled_while_it_waits_lets_go_of_the_lock) {
  marking_world w = {0};
  marking_begin(&w, true, write_t_then_exit_cancelled);
  /* the taker waits, and is cancelled at its next cancellation point, after its write */
  CHECK(marking_write(&w) == PTHREAD_CANCELED);
  CHECK_EQ(w.t.value, 1);
  pthread_t writer = spawn_thread(write_t_once_more, &w, 0);
  pthread_join(writer, NULL); /* the lock is free: the write goes through */
  CHECK_EQ(w.t.value, 2);
  CHECK_EQ(READ(&w.a), 6);
  marking_end(&w);
}

/* --------------------------------------------- of a thread that exited */

static void *write_twice(void *arg) {
  streak *w = arg;
  SET(&w->s, 1);
  SET(&w->s, 2);
  w->biased_after = biased_to_this_thread(w->g);
  return NULL;
}

TEST(threads_bias_of_a_thread_that_exited_is_taken_back) {
  sg__set_bias_mode(SG_BIAS_EAGER);
  streak w = {.g = sg_graph_new()};
  STORED(&w.s, w.g, "s", 0);
  COMPUTED(&w.c, w.g, "c", formula_double, &w.s);
  pthread_join(spawn_thread(write_twice, &w, 0), NULL);
  CHECK(w.biased_after);
  CHECK(biased(w.g)); /* to the record the thread left: freed with the bias */
  CHECK_EQ(READ(&w.c), 4);
  CHECK(!biased(w.g) || biased_to_this_thread(w.g));
  DESTROY(&w.c);
  DESTROY(&w.s);
  GRAPH_FREE(w.g);
  sg__set_bias_mode(SG_BIAS_USUAL);
}

#endif
