/*
 * harness.h — a tiny test harness for the StateGraph C core, plus the "cell"
 * value model the tests share.
 *
 * Include it first in every test file: it asks libc for POSIX (pthreads,
 * alarm) before any system header is read.
 *
 *   TEST(name) { ... }        defines and registers a test (main.c runs it)
 *   CHECK(cond)               records a failure with file:line, goes on
 *   CHECK_EQ(a, b)            integers; prints both values on failure
 *   CHECK_STR(a, b)           strings
 *   REQUIRE(cond)             a precondition: stops the whole run at once
 *   KNOWN_BUG("why")          skips the rest of the test unless
 *                             SG_TEST_KNOWN_BUGS=1: a reproduction kept
 *                             until the core is fixed, not a weakened test
 *
 * Checks only record and continue (like gtest's EXPECT), so one wrong count
 * shows every other wrong count too; they are safe from any thread.
 */
#ifndef HARNESS_H
#define HARNESS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "stategraph.h"

#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- harness */

typedef void (*test_fn)(void);
void harness_register(const char *name, const char *file, int line, test_fn fn);
void harness_fail(const char *file, int line, const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));
/* Marks the running test skipped; returns 1 when it should stop here. */
int harness_known_bug(const char *file, int line, const char *why);
/* SG_TEST_QUICK=1 (set by `make test-c-valgrind`): use small sizes. */
int harness_quick(void);

/* Registration runs before main (a GCC/Clang constructor), so adding a test
 * file needs no list to be kept in sync. */
#define TEST(name)                                                          \
  static void test_##name(void);                                            \
  __attribute__((constructor)) static void register_##name(void) {         \
    harness_register(#name, __FILE__, __LINE__, test_##name);               \
  }                                                                         \
  static void test_##name(void)

#define CHECK(cond)                                                         \
  do {                                                                      \
    if (!(cond)) harness_fail(__FILE__, __LINE__, "CHECK(%s)", #cond);      \
  } while (0)

#define CHECK_EQ(a, b)                                                      \
  do {                                                                      \
    long long check_a_ = (long long)(a), check_b_ = (long long)(b);         \
    if (check_a_ != check_b_)                                               \
      harness_fail(__FILE__, __LINE__, "CHECK_EQ(%s, %s): %lld != %lld",    \
                   #a, #b, check_a_, check_b_);                             \
  } while (0)

#define CHECK_STR(a, b)                                                     \
  do {                                                                      \
    const char *check_a_ = (a), *check_b_ = (b);                            \
    if (!check_a_ || !check_b_ || strcmp(check_a_, check_b_) != 0)          \
      harness_fail(__FILE__, __LINE__, "CHECK_STR(%s, %s): \"%s\" != \"%s\"", \
                   #a, #b, check_a_ ? check_a_ : "(null)",                  \
                   check_b_ ? check_b_ : "(null)");                         \
  } while (0)

#define KNOWN_BUG(why)                                                      \
  do {                                                                      \
    if (harness_known_bug(__FILE__, __LINE__, why)) return;                 \
  } while (0)

#define REQUIRE(cond)                                                       \
  do {                                                                      \
    if (!(cond)) {                                                          \
      fprintf(stderr, "%s:%d: REQUIRE(%s) failed, stopping\n", __FILE__,    \
              __LINE__, #cond);                                             \
      exit(3);                                                              \
    }                                                                       \
  } while (0)

/* ------------------------------------------------------------- the model */

/*
 * A cell models a node the way a binding uses one: the program owns the
 * value (an int here), the graph only knows when it changes.
 *
 * - stored cell: cell_set() stores the int, then calls sg_changed().
 * - computed cell: its formula reads inputs with cell_in() (sg_read, then the
 *   value), returns the new value; the callback stores it and answers
 *   SG_CHANGED or SG_UNCHANGED by comparing with the old one (the cutoff).
 * - effect cell: its formula runs for its side effects; the value is kept.
 *
 * `runs` counts callback runs, `destroyed` destroy callbacks, so tests assert
 * exact counts. Cells live in the test's own storage (usually its stack) and
 * outlive their nodes, so the destroy callback can count into them. Fields
 * are atomic because the thread tests share cells between threads.
 */
typedef struct cell cell;
typedef int (*cell_formula)(cell *self);

struct cell {
  sg_node *node;
  _Atomic int value;
  _Atomic int runs;
  _Atomic int destroyed;
  _Atomic int error;   /* first failing sg_read of the current run */
  cell_formula formula;
  cell *in[4];         /* inputs the formula reads, by position */
};
/* A test that needs more state embeds a cell as the first member of its own
 * struct and casts `self` back in its formula. */

void cell_stored_at(cell *c, sg_graph *g, const char *name, int value, const char *file,
                    int line);
/* `in` is a NULL-terminated list of up to 4 inputs. */
void cell_computed_at(cell *c, sg_graph *g, const char *name, cell_formula f, cell **in,
                      const char *file, int line);
void cell_effect_at(cell *c, sg_graph *g, const char *name, cell_formula f, cell **in,
                    const char *file, int line);
/* The callbacks behind COMPUTED and EFFECT, for tests that call
 * sg_computed_new / sg_effect_new themselves (context: the cell). */
int cell_compute(sg_node *node, void *context);
int cell_effect(sg_node *node, void *context);
/* Reads `input` from inside self's formula: sg_read, then the value. */
int cell_in(cell *self, cell *input);
int cell_read_at(cell *c, const char *file, int line);
void cell_set_at(cell *c, int value, const char *file, int line);
void cell_destroy_at(cell *c, const char *file, int line);
void graph_free_at(sg_graph *g, const char *file, int line);

/* The *_at functions report failures at the caller's line. */
#define STORED(c, g, name, v) cell_stored_at(c, g, name, v, __FILE__, __LINE__)
/* COMPUTED(&c, g, "c", formula, &input0, &input1) — NULL for no inputs. */
#define COMPUTED(c, g, name, f, ...) \
  cell_computed_at(c, g, name, f, (cell *[]){__VA_ARGS__, NULL}, __FILE__, __LINE__)
#define EFFECT(c, g, name, f, ...) \
  cell_effect_at(c, g, name, f, (cell *[]){__VA_ARGS__, NULL}, __FILE__, __LINE__)
#define READ(c) cell_read_at(c, __FILE__, __LINE__)     /* value, up to date */
#define SET(c, v) cell_set_at(c, v, __FILE__, __LINE__) /* write + sg_changed */
#define DESTROY(c) cell_destroy_at(c, __FILE__, __LINE__)
#define GRAPH_FREE(g) graph_free_at(g, __FILE__, __LINE__) /* expects SG_OK */
#define IN(self, i) cell_in(self, (self)->in[i])

/* Introspection in one expression. Each wraps the checked int-returning
 * call, fails the test (at the caller's line) when it does not return
 * SG_OK, and then yields an impossible value (all bits set) so the
 * enclosing CHECK fails too. */
sg_node_description describe_at(sg_node *n, const char *file, int line);
size_t node_count_at(sg_graph *g, const char *file, int line);
size_t edges_at(sg_node *n, int dependents, sg_node **out, size_t max, const char *file,
                int line);

#define DESCRIBE(n) describe_at(n, __FILE__, __LINE__)
#define STATE(n) (DESCRIBE(n).state)
#define KIND(n) (DESCRIBE(n).kind)
#define RUN_COUNT(n) (DESCRIBE(n).run_count)
#define NODE_VERSION(n) (DESCRIBE(n).version)
#define SOURCE_COUNT(n) (DESCRIBE(n).source_count)
#define DEPENDENT_COUNT(n) (DESCRIBE(n).dependent_count)
#define NODE_COUNT(g) node_count_at(g, __FILE__, __LINE__)
/* How many sources/dependents in all; copies up to max into out. */
#define SOURCES(n, out, max) edges_at(n, 0, out, max, __FILE__, __LINE__)
#define DEPENDENTS(n, out, max) edges_at(n, 1, out, max, __FILE__, __LINE__)
#define IS_LIVE(n) (sg_node_check(n, 0) == SG_OK)

/* A cell whose formula copies in[0] but fails (SG_EINVAL) while `fail` is
 * set: for tests of failing callbacks. */
typedef struct flaky {
  cell base;
  int fail;
} flaky;
int formula_flaky(cell *self);

/* Starts a thread (stack bytes, 0 for the default) or stops the run. */
pthread_t spawn_thread(void *(*fn)(void *), void *arg, size_t stack);

/* sem_wait for at most 10 seconds: false when it timed out, so a test
 * fails instead of hanging. */
bool wait_10s(sem_t *sem);

/* Common formulas. */
int formula_copy(cell *self);   /* in[0] */
int formula_plus1(cell *self);  /* in[0] + 1 */
int formula_double(cell *self); /* in[0] * 2 */
int formula_sum(cell *self);    /* in[0] + in[1] (+ in[2] + in[3] when set) */
int formula_sign(cell *self);   /* in[0] > 0 ? 1 : in[0] < 0 ? -1 : 0 */

#endif /* HARNESS_H */
