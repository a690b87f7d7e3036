/*
 * second-thread.c — preloaded into a benchmark runner (compare.py
 * --second-thread) to start one idle thread before main: the process then has
 * two threads from the first sample on, as every application has, and the
 * locks that skip their atomic operations while a process has one thread
 * (glibc's mutexes, the graph lock, the value locks) take their atomic paths.
 * A preload, so that a runner built from an earlier commit runs the same way.
 *
 *   cc -O2 -shared -fPIC second-thread.c -o second-thread.so -lpthread
 */
#include <pthread.h>
#include <unistd.h>

static void *sleep_forever(void *unused) {
  (void)unused;
  for (;;) pause();
  return NULL;
}

__attribute__((constructor)) static void start_second_thread(void) {
  pthread_t thread;
  if (pthread_create(&thread, NULL, sleep_forever, NULL) == 0) pthread_detach(thread);
}
