/*
 * testing.c — the hook behind the scheduling points (see sg_internal.h).
 *
 * Tests set a hook with sg__set_scheduling_hook (declared in
 * Tests/Support/sg_testing.h, not in the public header). In a build without
 * -DSG_SCHEDULING_POINTS the setter answers false and nothing else exists.
 */
#include "sg_internal.h"

typedef void (*sg__scheduling_hook)(const char *point, bool blocked);

#ifdef SG_SCHEDULING_POINTS

static sg__scheduling_hook hook; /* SG_PUBLISH / SG_PEEK */

bool sg__set_scheduling_hook(sg__scheduling_hook h) {
  SG_PUBLISH(hook, h);
  return true;
}

static inline void call(const char *where, bool blocked) {
  sg__scheduling_hook h = SG_PEEK(hook);
  if (h) h(where, blocked);
}

void sg__point(const char *where) { call(where, false); }

/* A lock another thread holds is a point that cannot go on by itself: the
 * holder may be parked by the hook, so spinning here would never end. */
void sg__lock(pthread_mutex_t *m) {
  if (!SG_PEEK(hook)) {
    pthread_mutex_lock(m);
    return;
  }
  call("lock", false);
  while (pthread_mutex_trylock(m) != 0) call("lock (held elsewhere)", true);
}

void sg__blocked_point(const char *where) { call(where, true); }

void sg__glock_entered(sg_glock *l) {
  if (__atomic_fetch_add(&l->inside, 1, __ATOMIC_RELAXED) != 0)
    g_error("StateGraph: two threads inside one graph lock");
}

void sg__glock_leaving(sg_glock *l) { __atomic_fetch_sub(&l->inside, 1, __ATOMIC_RELAXED); }

void sg__glock_held_free(const sg_bias *b) {
  if (__atomic_load_n(&b->held, __ATOMIC_RELAXED) != NULL)
    g_error("StateGraph: one thread inside two graph locks");
}

sg_bias *sg__glock_bias_after_held(sg_glock *l, const sg_bias *b) {
  if (__atomic_load_n(&b->held, __ATOMIC_RELAXED) != l)
    g_error("StateGraph: a biased take reads the bias before it says held");
  return __atomic_load_n(&l->bias, __ATOMIC_ACQUIRE);
}

/* The graph lock, the same way: through its bias, or its word. */
void sg__glock_lock(sg_glock *l) {
  if (!SG_PEEK(hook)) {
    sg__glock_acquire(l);
    return;
  }
  call("lock", false);
  if (SG_SINGLE_THREADED() || !sg__glock_take_biased(l)) {
    while (!sg__glock_try(l)) call("lock (held elsewhere)", true);
    if (!SG_SINGLE_THREADED()) sg__glock_taken(l);
  }
  sg__glock_entered(l);
}

static int bias_mode; /* sg_testing.h: SG_BIAS_* */

void sg__set_bias_mode(int mode) { SG_PUBLISH(bias_mode, mode); }

#ifdef __linux__
uint32_t sg__bias_streak(const sg_glock *l) {
  switch (SG_PEEK(bias_mode)) {
  case 1: return UINT32_MAX; /* never */
  case 2: return 2;          /* at the second take in a row */
  default: return SG_BIAS_USUAL_STREAK(l);
  }
}
#endif

/* Under a hook, every wait is a wake-up that came at once (which the
 * callers must tolerate anyway: spurious wake-ups and time-outs). */
void sg__glock_wait(sg_glock *l, const struct timespec *until) {
  if (!SG_PEEK(hook)) {
    sg__glock_wait_unhooked(l, until);
    return;
  }
  sg__glock_release(l);
  call("wait", true);
  sg__glock_lock(l);
}

#else

bool sg__set_scheduling_hook(sg__scheduling_hook h) {
  (void)h;
  return false;
}

void sg__set_bias_mode(int mode) { (void)mode; }

#endif
