/*
 * sg_testing.h — what tests may reach inside the core (not installed).
 *
 * sg__set_scheduling_hook: in a core built with -DSG_SCHEDULING_POINTS, the
 * hook runs at every scheduling point (see sg_internal.h) on the thread
 * that reaches it; `blocked` says that thread cannot go on until another
 * one does. NULL removes the hook. Answers false (and does nothing) in a
 * core built without the points.
 */
#ifndef SG_TESTING_H
#define SG_TESTING_H

#include <stdbool.h>

typedef void (*sg__scheduling_hook)(const char *point, bool blocked);
bool sg__set_scheduling_hook(sg__scheduling_hook hook);

/* In a core built with -DSG_SCHEDULING_POINTS: how many steps this thread
 * took along chains of causes while counting an effect's laps (the work
 * loop detection costs). */
#include <stdint.h>
uint64_t sg__cause_steps(void);

/* In a core built with -DSG_SCHEDULING_POINTS: when a graph lock is biased
 * to the thread that takes it (lock.c). */
enum { SG_BIAS_USUAL = 0, SG_BIAS_NEVER = 1, SG_BIAS_EAGER = 2 };
void sg__set_bias_mode(int mode);

/* In a core built with -DSG_SCHEDULING_POINTS: how many freed graphs keep
 * their memory (graph.c). */
#include <stddef.h>
size_t sg__kept_graphs(void);

#endif
