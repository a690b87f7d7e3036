/*
 * stack.c — deep first-time evaluations without stack overflow.
 *
 * Refreshing a graph that has run before is iterative (propagate.c). The
 * first evaluation of a long chain cannot be: nobody knows a node's sources
 * before its callback has run, so each callback reads the next node from
 * inside itself. When such a nested call finds this OS thread's stack nearly
 * used up, it continues on a new thread with a large stack, which borrows the
 * waiting thread's tracking state, so to the graph it is the same thread.
 */
#define _GNU_SOURCE
#include "sg_internal.h"

#include <pthread.h>

#define SG_STACK_MARGIN (256u * 1024u)       /* hop when less is left */
#define SG_HELPER_STACK (64u * 1024u * 1024u) /* reserved, touched lazily */

/* 0: not looked up yet; 1: unknown. Initial-exec: see sg__current. */
static __thread uintptr_t stack_low __attribute__((tls_model("initial-exec")));

static uintptr_t find_stack_low(void) {
#if defined(__APPLE__)
  pthread_t self = pthread_self();
  return (uintptr_t)pthread_get_stackaddr_np(self) - pthread_get_stacksize_np(self);
#else
  pthread_attr_t attr;
  void *addr = NULL;
  size_t size = 0;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return 1;
  pthread_attr_getstack(&attr, &addr, &size);
  pthread_attr_destroy(&attr);
  return addr ? (uintptr_t)addr : 1;
#endif
}

typedef struct hop {
  sg_thread *thread;
  sg_callback callback;
  sg_node *node;
  void *context;
  int result;
} hop;

static void *hop_main(void *arg) {
  hop *h = arg;
  sg__thread_borrow(h->thread);
  h->result = h->callback(h->node, h->context);
  sg__thread_borrow(NULL);
  return NULL;
}

/* Looks the stack up on first use; hops to a helper thread when it is low. */
static __attribute__((noinline)) int call_slow(sg_thread *t, sg_callback cb, sg_node *n,
                                               void *ctx, uintptr_t here) {
  if (!stack_low) stack_low = find_stack_low();
  if (stack_low == 1 || here - stack_low > SG_STACK_MARGIN) return cb(n, ctx);

  hop h = {t, cb, n, ctx, 0};
  pthread_attr_t attr;
  pthread_t helper;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, SG_HELPER_STACK);
  int failed = pthread_create(&helper, &attr, hop_main, &h);
  pthread_attr_destroy(&attr);
  if (failed) return cb(n, ctx); /* no thread to be had: best effort */
  pthread_join(helper, NULL);
  return h.result;
}

int sg__call_with_stack(sg_thread *t, sg_callback cb, sg_node *n, void *ctx) {
  uintptr_t here = (uintptr_t)__builtin_frame_address(0);
  if (G_LIKELY(stack_low > 1 && here - stack_low > SG_STACK_MARGIN)) return cb(n, ctx);
  return call_slow(t, cb, n, ctx, here);
}
