/*
 * test-lock.c — the graph lock across the process's first thread.
 *
 * While glibc says the process has one thread, the lock is taken and let
 * go with plain stores (lock.c). A callback (run with the lock let go) may
 * make the second thread, which then writes into the graph while the first
 * still runs the callback: the first takes the lock back with atomics, and
 * the write that reached the running effect makes it go round once more.
 * The test needs a process that still has one thread, so it runs itself in
 * a fresh copy of the test program (this one has made threads already);
 * run under ThreadSanitizer, it also says whether the plain stores of the
 * first part are seen as racing with the second thread's atomics.
 */
#include "harness.h"

#ifdef __linux__ /* the fresh process is /proc/self/exe */

#include <pthread.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
#include <sys/single_threaded.h>
#define SINGLE_THREADED() (__libc_single_threaded != 0)
#define KNOWS_SINGLE_THREADED 1
#else
#define SINGLE_THREADED() false
#define KNOWS_SINGLE_THREADED 0
#endif

extern char **environ;

typedef struct first_thread {
  sg_node *s;
  _Atomic int value; /* s's value */
  int runs, seen[4];
  bool single_before_spawn;
} first_thread;

static void *write_two(void *arg) {
  first_thread *w = arg;
  w->value = 2;
  CHECK_EQ(sg_changed(w->s), SG_OK); /* reaches the effect running on the first thread */
  return NULL;
}

static int effect_spawning(sg_node *n, void *ctx) {
  first_thread *w = ctx;
  CHECK_EQ(sg_read(w->s), SG_OK);
  if (w->runs < 4) w->seen[w->runs] = w->value;
  w->runs++;
  if (w->runs == 2) { /* the lock was let go with a plain store: make the second thread */
    w->single_before_spawn = SINGLE_THREADED();
    pthread_join(spawn_thread(write_two, w, 0), NULL);
  }
  return SG_OK;
}

/* In the fresh process: one thread until the effect's second run. */
static void run_first_thread_part(void) {
  bool single_at_start = SINGLE_THREADED();
  first_thread w = {.value = 0};
  sg_graph *g = sg_graph_new();
  sg_node *e = NULL;
  sg_node_info s_info = {"s", __FILE__, __LINE__}, e_info = {"e", __FILE__, __LINE__};
  CHECK_EQ(sg_stored_new(g, &s_info, &w.s), SG_OK);
  CHECK_EQ(sg_effect_new(g, &e_info, effect_spawning, &w, NULL, &e), SG_OK);
  w.value = 1;
  CHECK_EQ(sg_changed(w.s), SG_OK);
  CHECK_EQ(w.runs, 3); /* first run, the write of 1, and once more for the write of 2 */
  CHECK_EQ(w.seen[0], 0);
  CHECK_EQ(w.seen[1], 1);
  CHECK_EQ(w.seen[2], 2);
  CHECK(!SINGLE_THREADED());
  CHECK_EQ(sg_node_destroy(e), SG_OK);
  CHECK_EQ(sg_node_destroy(w.s), SG_OK);
  GRAPH_FREE(g);
  /* The plain-store path was taken up to the spawn (where glibc cannot
   * say, it never is: the test is then only a thread test). */
  if (KNOWS_SINGLE_THREADED) {
    CHECK(single_at_start);
    CHECK(w.single_before_spawn);
  }
}

TEST(threads_lock_first_thread_made_by_a_callback) {
  if (getenv("SG_TEST_FRESH_PROCESS")) {
    run_first_thread_part();
    return;
  }
  char self[4096] = {0}; /* the program's path (under valgrind: the client's, not the tool's) */
  REQUIRE(readlink("/proc/self/exe", self, sizeof self - 1) > 0);
  char *const argv[] = {self, "threads_lock_first_thread_made_by_a_callback", NULL};
  posix_spawn_file_actions_t quiet;
  posix_spawn_file_actions_init(&quiet);
  posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
  setenv("SG_TEST_FRESH_PROCESS", "1", 1);
  pid_t child = 0;
  int rc = posix_spawn(&child, self, &quiet, NULL, argv, environ);
  unsetenv("SG_TEST_FRESH_PROCESS");
  posix_spawn_file_actions_destroy(&quiet);
  REQUIRE(rc == 0);
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK_EQ(WEXITSTATUS(status), 0);
}

#endif
