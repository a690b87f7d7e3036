/*
 * lock.c — the graph lock, and the wait for a claimed node's release.
 *
 * Every refresh lets go of its graph's lock and takes it again around each
 * callback, so the lock's uncontended path is paid per node run. On Linux
 * it is a futex word (Drepper's "Futexes are tricky", mutex 3): taking a
 * free lock is one compare-and-swap, letting go one exchange, and the
 * kernel is asked only when a thread waits; glibc's mutex does the same
 * atomic work with five times the instructions around it. The release
 * wait is a futex on a sequence word that every broadcast bumps: a waiter
 * reads it under the lock, so a broadcast after that (under the lock too)
 * cannot be missed. Elsewhere the lock is a pthread mutex and condition.
 *
 * Thread sanitizers see the lock through its atomics: taking it is an
 * acquire, letting go a release.
 */
#include "sg_internal.h"

#include <errno.h>
#include <limits.h>

#ifdef __linux__

#include <linux/futex.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { FREE = 0, HELD = 1, CONTENDED = 2 };

static void futex_wait(uint32_t *word, uint32_t expected, const struct timespec *until) {
  /* An absolute CLOCK_REALTIME limit, as pthread_cond_timedwait's. */
  syscall(SYS_futex, word, FUTEX_WAIT_BITSET_PRIVATE | FUTEX_CLOCK_REALTIME, expected, until,
          NULL, FUTEX_BITSET_MATCH_ANY);
}

static void futex_wake(uint32_t *word, int count) {
  syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, count, NULL, NULL, 0);
}

void sg__glock_init(sg_glock *l) { *l = (sg_glock){.word = FREE}; }

static void bias_unref(sg_bias *b) {
  if (g_atomic_int_dec_and_test(&b->refs)) g_free(b);
}

void sg__glock_destroy(sg_glock *l) {
  if (l->bias) bias_unref(l->bias);
}

/* Taken by another thread: spin a little (it may be between an unlock and a
 * lock around a short callback), then sleep, marking the lock CONTENDED so
 * that its holder wakes a sleeper when it lets go. */
void sg__glock_contended(sg_glock *l) {
  for (int spin = 0; spin < 64; spin++) {
    if (__atomic_load_n(&l->word, __ATOMIC_RELAXED) == FREE && sg__glock_try(l)) return;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
  }
  uint32_t was = __atomic_exchange_n(&l->word, CONTENDED, __ATOMIC_ACQUIRE);
  while (was != FREE) {
    futex_wait(&l->word, CONTENDED, NULL);
    was = __atomic_exchange_n(&l->word, CONTENDED, __ATOMIC_ACQUIRE);
  }
}

void sg__glock_wake_one(sg_glock *l) { futex_wake(&l->word, 1); }

void sg__glock_wait_unhooked(sg_glock *l, const struct timespec *until) {
  uint32_t seen = __atomic_load_n(&l->released, __ATOMIC_RELAXED); /* under the lock */
  sg__glock_release(l);
  futex_wait(&l->released, seen, until);
  sg__glock_acquire(l);
}

void sg__glock_broadcast(sg_glock *l) {
  __atomic_add_fetch(&l->released, 1, __ATOMIC_RELAXED); /* under the lock */
  futex_wake(&l->released, INT_MAX);
}

/* ---- the bias (docs/core-protocol.md, "The biased graph lock")
 *
 * The biased thread's take is a plain store to its `held` and a load of the
 * lock's bias; a revoke is a store to the bias, a barrier on every thread
 * of the process (membarrier's private expedited command) and a load of
 * `held`. Wherever the barrier falls in the biased thread's take, either
 * its store is visible to the revoke's load, or the revoke's store to its
 * load: never neither, so the two are never inside at once. */

__thread sg_bias *sg__my_bias;
static __thread bool may_bias; /* sg__bias_thread_begin */

static int barrier_state; /* 0: not asked yet; 1: membarrier is ready; -1: it is not */

static bool barrier_ready(void) {
  int state = __atomic_load_n(&barrier_state, __ATOMIC_RELAXED);
  if (G_LIKELY(state != 0)) return state > 0;
  long commands = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
  bool ready = commands > 0 && (commands & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
               syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
  __atomic_store_n(&barrier_state, ready ? 1 : -1, __ATOMIC_RELAXED);
  return ready;
}

/* Every thread of the process passes a full barrier before this returns.
 * Only called once barrier_ready() said yes; a child of fork that finds
 * its process not registered registers it again. */
static void barrier_everywhere(void) {
  if (G_LIKELY(syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0)) return;
  if (syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) != 0 ||
      syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0)
    g_error("StateGraph: membarrier failed after it was registered");
}

/* Takes the bias back from its thread: l's word is held by this thread.
 * Waits while the biased thread is inside, as for a lock it holds (a
 * biased thread inside never waits for the word: it holds the lock). */
/* Moves bias: cleared (docs/core-protocol.md, "The biased graph lock"). */
static __attribute__((noinline)) void take_bias_back(sg_glock *l) {
  sg_bias *b = l->bias;
  __atomic_store_n(&l->bias, NULL, __ATOMIC_RELAXED);
  sg__point("revoke: bias cleared, before the barrier");
  barrier_everywhere();
  /* The word is held: no cancellation point may end the thread here (the
   * sleep below is one), or the lock would stay taken. */
  int cancel_state;
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
  for (unsigned spin = 0; __atomic_load_n(&b->held, __ATOMIC_ACQUIRE) == l; spin++) {
    sg__blocked_point("revoke: the biased thread is inside");
    if (spin < 64) {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#elif defined(__aarch64__)
      __asm__ volatile("yield");
#endif
    } else if (spin < 1024) {
      sched_yield();
    } else {
      g_usleep(50); /* a long marking: about 100 µs with the timer's slack */
      spin = 1024;
    }
  }
  pthread_setcancelstate(cancel_state, NULL);
  l->revokes++;
  bias_unref(b);
}

/* Biases l, whose word this thread holds, to it, and lets go of the word:
 * the thread is inside through its `held` now. Not when somebody sleeps on
 * the word (it would take the bias back at once), nor while the thread is
 * inside another biased lock (`held` names one at a time). */
/* Moves bias: given (docs/core-protocol.md, "The biased graph lock"). */
static __attribute__((noinline)) void bias_to(sg_glock *l) {
  sg_bias *b = sg__my_bias;
  if (!b) {
    b = sg__my_bias = g_new0(sg_bias, 1);
    b->refs = 1;
  }
  if (__atomic_load_n(&b->held, __ATOMIC_RELAXED)) return;
  g_atomic_int_inc(&b->refs);
  __atomic_store_n(&b->held, l, __ATOMIC_RELAXED);
  __atomic_store_n(&l->bias, b, __ATOMIC_RELAXED);
  sg__point("bias: given, before letting go of the word");
  uint32_t held = HELD;
  if (__atomic_compare_exchange_n(&l->word, &held, FREE, false, __ATOMIC_RELEASE,
                                  __ATOMIC_RELAXED))
    return;
  __atomic_store_n(&l->bias, NULL, __ATOMIC_RELAXED);
  __atomic_store_n(&b->held, NULL, __ATOMIC_RELAXED);
  bias_unref(b);
}

void sg__glock_taken_slow(sg_glock *l) {
  if (l->bias && l->bias != sg__my_bias) take_bias_back(l);
  if (l->streak_owner != &sg__my_bias) { /* a new streak, this take its first */
    l->streak_owner = &sg__my_bias;
    l->streak_left = SG_BIAS_STREAK(l) - 1;
    if (l->streak_left) return;
  } else if (l->streak_left) {
    return; /* here for the revoke only */
  }
  l->streak_left = SG_BIAS_STREAK(l);
  if (may_bias && !l->bias && barrier_ready()) bias_to(l);
}

/* Registering for membarrier takes milliseconds once a process has several
 * threads: done here, where a thread starts using the core, outside its
 * locks (usually the first thread, alone, where it takes microseconds). */
void sg__bias_thread_begin(void) {
  may_bias = true;
  (void)barrier_ready();
}

void sg__bias_thread_end(void) {
  may_bias = false;
  if (!sg__my_bias) return;
  bias_unref(sg__my_bias);
  sg__my_bias = NULL;
}

#else

void sg__glock_init(sg_glock *l) {
  pthread_mutex_init(&l->mutex, NULL);
  pthread_cond_init(&l->released, NULL);
}

void sg__glock_destroy(sg_glock *l) {
  pthread_cond_destroy(&l->released);
  pthread_mutex_destroy(&l->mutex);
}

__thread sg_bias *sg__my_bias; /* never made here: no bias without membarrier */

void sg__bias_thread_begin(void) {}
void sg__bias_thread_end(void) {}

void sg__glock_wait_unhooked(sg_glock *l, const struct timespec *until) {
  sg__glock_leaving(l);
  if (until) pthread_cond_timedwait(&l->released, &l->mutex, until);
  else pthread_cond_wait(&l->released, &l->mutex);
  sg__glock_entered(l);
}

void sg__glock_broadcast(sg_glock *l) { pthread_cond_broadcast(&l->released); }

#endif
