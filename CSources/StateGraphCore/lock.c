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

void sg__glock_init(sg_glock *l) {
  l->word = FREE;
  l->released = 0;
}

void sg__glock_destroy(sg_glock *l) { (void)l; }

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

#else

void sg__glock_init(sg_glock *l) {
  pthread_mutex_init(&l->mutex, NULL);
  pthread_cond_init(&l->released, NULL);
}

void sg__glock_destroy(sg_glock *l) {
  pthread_cond_destroy(&l->released);
  pthread_mutex_destroy(&l->mutex);
}

void sg__glock_wait_unhooked(sg_glock *l, const struct timespec *until) {
  if (until) pthread_cond_timedwait(&l->released, &l->mutex, until);
  else pthread_cond_wait(&l->released, &l->mutex);
}

void sg__glock_broadcast(sg_glock *l) { pthread_cond_broadcast(&l->released); }

#endif
