/*
 * stack.c — deep first-time evaluations without stack overflow, on the
 * reading thread itself.
 *
 * Refreshing a graph that has run before is iterative (propagate.c). The
 * first evaluation of a long chain cannot be: nobody knows a node's sources
 * before its callback has run, so each callback reads the next node from
 * inside itself. When such a nested call finds this thread's stack nearly
 * used up, it switches the thread to a fresh, larger stack segment, runs the
 * callback there and switches back when it returns (as Rust's `stacker`
 * does). The thread stays the same: its thread-local variables, the locks it
 * holds (a model's recursive lock across sg_read), its signal mask and "am I
 * the main thread" checks all see what they would see without the switch.
 *
 * Segments are reserved with mmap (touched lazily, a guard page below) and
 * one spare per thread is kept for the next deep evaluation.
 */
#ifdef __APPLE__
#define _XOPEN_SOURCE 700 /* ucontext on Apple platforms */
#endif
#include "sg_internal.h"

#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

/* Valgrind must be told that a mapping is a stack, or every access below
 * the stack pointer it last knew looks invalid. */
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define SG_VALGRIND 1
#endif
#endif

#define SG_SEGMENT_SIZE (64u * 1024u * 1024u)  /* reserved, touched lazily */

/* AddressSanitizer must be told about stack switches (it checks accesses
 * against the current stack's bounds). ThreadSanitizer is not told: to it
 * the thread simply goes on, which is the truth; its fiber support would
 * copy the whole (deep) call stack at every switch. (SG_ASAN: sg_internal.h) */
#ifdef SG_ASAN
void __sanitizer_start_switch_fiber(void **fake_stack_save, const void *bottom, size_t size);
void __sanitizer_finish_switch_fiber(void *fake_stack_save, const void **bottom_old,
                                     size_t *size_old);
#endif

__thread uintptr_t sg__stack_low; /* see sg_internal.h */

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

/* ------------------------------------------------------------- segments */

typedef struct segment {
  void *map;   /* the whole mapping, guard page first */
  size_t size; /* of the mapping */
  unsigned valgrind_id;
} segment;

static size_t page_size(void) { return (size_t)sysconf(_SC_PAGESIZE); }

static segment *segment_take(sg_thread *t) {
  segment *s = t->stacks;
  if (s) {
    t->stacks = NULL;
    return s;
  }
  s = g_try_new0(segment, 1);
  if (!s) return NULL;
  s->size = SG_SEGMENT_SIZE + page_size();
  s->map = mmap(NULL, s->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS
#ifdef MAP_NORESERVE
                | MAP_NORESERVE
#endif
                , -1, 0);
  if (s->map == MAP_FAILED) {
    g_free(s);
    return NULL;
  }
  mprotect(s->map, page_size(), PROT_NONE); /* an overflow faults, not corrupts */
#ifdef SG_VALGRIND
  s->valgrind_id = VALGRIND_STACK_REGISTER((char *)s->map + page_size(), (char *)s->map + s->size);
#endif
  return s;
}

static void segment_free(segment *s) {
#ifdef SG_VALGRIND
  VALGRIND_STACK_DEREGISTER(s->valgrind_id);
#endif
  munmap(s->map, s->size);
  g_free(s);
}

static void segment_give_back(sg_thread *t, segment *s) {
  if (t->stacks) segment_free(s);
  else t->stacks = s;
}

void sg__stacks_free(sg_thread *t) {
  if (t->stacks) segment_free(t->stacks);
  t->stacks = NULL;
}

/* ----------------------------------------------------------------- hops */

typedef struct hop {
  sg_callback callback;
  sg_node *node;
  void *context;
  int result;
  void *bottom; /* of the segment's usable stack */
  ucontext_t caller, callee;
#ifdef SG_ASAN
  void *fake_stack;
  const void *caller_bottom;
  size_t caller_size;
#endif
} hop;

/* makecontext passes only ints: the hop being started travels here. */
static __thread hop *starting;

static void hop_main(void) {
  hop *h = starting;
#ifdef SG_ASAN
  __sanitizer_finish_switch_fiber(NULL, &h->caller_bottom, &h->caller_size);
#endif
  h->result = h->callback(h->node, h->context);
  /* Returning resumes h->caller (uc_link), and resuming a context restores
   * the signal mask saved with it: the one from before the callback. The
   * mask is the thread's, and the callback may have changed it: carry it
   * back as it is now. */
  pthread_sigmask(SIG_SETMASK, NULL, &h->caller.uc_sigmask);
#ifdef SG_ASAN
  __sanitizer_start_switch_fiber(NULL, h->caller_bottom, h->caller_size); /* this one ends */
#endif
}

/* getcontext and swapcontext "return twice" as far as the compiler knows,
 * so they live in a function with no locals for that to clobber: all the
 * state is in the hop. */
static __attribute__((noinline)) void run_on(hop *h) {
  if (getcontext(&h->callee) != 0) {
    h->result = h->callback(h->node, h->context);
    return;
  }
  h->callee.uc_stack.ss_sp = h->bottom;
  h->callee.uc_stack.ss_size = SG_SEGMENT_SIZE;
  h->callee.uc_link = &h->caller;
  makecontext(&h->callee, hop_main, 0);
  starting = h;
#ifdef SG_ASAN
  __sanitizer_start_switch_fiber(&h->fake_stack, h->bottom, SG_SEGMENT_SIZE);
#endif
  swapcontext(&h->caller, &h->callee);
#ifdef SG_ASAN
  __sanitizer_finish_switch_fiber(h->fake_stack, NULL, NULL);
#endif
}

/* Runs the callback on a fresh segment; on any failure to get one, right
 * here (best effort, as deep as the thread's own stack allows). */
static int call_on_segment(sg_thread *t, sg_callback cb, sg_node *n, void *ctx) {
  segment *s = segment_take(t);
  if (!s) return cb(n, ctx);
  hop h = {.callback = cb, .node = n, .context = ctx, .bottom = (char *)s->map + page_size()};
  uintptr_t outer_low = sg__stack_low;
  sg__stack_low = (uintptr_t)h.bottom;
  run_on(&h);
  sg__stack_low = outer_low;
  segment_give_back(t, s);
  return h.result;
}

/* Looks the stack up on first use; switches when it is low. */
int sg__call_deep(sg_thread *t, sg_callback cb, sg_node *n, void *ctx, uintptr_t here) {
  if (!sg__stack_low) sg__stack_low = find_stack_low();
  if (sg__stack_low == 1 || here - sg__stack_low > SG_STACK_MARGIN) return cb(n, ctx);
  return call_on_segment(t, cb, n, ctx);
}
