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

/* Under a hook, every wait is a wake-up that came at once (which the
 * callers must tolerate anyway: spurious wake-ups and time-outs). */
void sg__cond_wait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *until) {
  if (!SG_PEEK(hook)) {
    if (until) pthread_cond_timedwait(c, m, until);
    else pthread_cond_wait(c, m);
    return;
  }
  pthread_mutex_unlock(m);
  call("wait", true);
  sg__lock(m);
}

#else

bool sg__set_scheduling_hook(sg__scheduling_hook h) {
  (void)h;
  return false;
}

#endif
