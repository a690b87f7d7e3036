/*
 * MallocCounter.c — the allocation-counting interposer (see MallocCounter.h).
 *
 * Only glibc is supported: the __libc_* entry points are glibc's. Elsewhere
 * the file compiles to stubs and mc_is_active() says 0, so the runner prints
 * "n/a" instead of a made-up zero.
 */
#define _GNU_SOURCE
#include "MallocCounter.h"

#include <stdatomic.h>

#if defined(__linux__) && defined(__GLIBC__)
#include <errno.h>
#include <malloc.h>
#include <string.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void __libc_free(void *pointer);
extern void *__libc_memalign(size_t alignment, size_t size);

static atomic_int counting;
static atomic_int seen_call;
static _Atomic uint64_t allocations, reallocations, frees, bytes;
/* mc_record: where each allocation's size and address go while counting
 * (probes run on one thread); a freed one's address is cleared. */
static size_t *record_sizes, record_capacity;
static void **record_pointers;
static _Atomic size_t recorded;

static inline void count_allocation(size_t size) {
  if (__builtin_expect(atomic_load_explicit(&counting, memory_order_relaxed), 0)) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&bytes, size, memory_order_relaxed);
  }
}

/* After an allocation that count_allocation counted. */
static inline void *note(void *pointer, size_t size) {
  if (__builtin_expect(record_sizes != NULL, 0) &&
      atomic_load_explicit(&counting, memory_order_relaxed)) {
    size_t at = atomic_fetch_add_explicit(&recorded, 1, memory_order_relaxed);
    if (at < record_capacity) record_sizes[at] = size, record_pointers[at] = pointer;
  }
  return pointer;
}

static inline void note_free(void *pointer) {
  if (__builtin_expect(record_sizes != NULL, 0)) {
    size_t n = atomic_load_explicit(&recorded, memory_order_relaxed);
    for (size_t i = 0; i < n && i < record_capacity; i++)
      if (record_pointers[i] == pointer) record_pointers[i] = NULL;
  }
}

void mc_record(size_t *sizes, void **pointers, size_t capacity) {
  record_sizes = NULL;
  record_pointers = pointers;
  record_capacity = capacity;
  atomic_store(&recorded, 0);
  record_sizes = sizes;
}

size_t mc_recorded(void) {
  size_t n = atomic_load(&recorded);
  return n < record_capacity ? n : record_capacity;
}

void *malloc(size_t size) {
  count_allocation(size);
  return note(__libc_malloc(size), size);
}

void *calloc(size_t count, size_t size) {
  count_allocation(count * size);
  return note(__libc_calloc(count, size), count * size);
}

void *realloc(void *pointer, size_t size) {
  if (!pointer) {
    count_allocation(size);
  } else if (atomic_load_explicit(&counting, memory_order_relaxed)) {
    atomic_fetch_add_explicit(&reallocations, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&bytes, size, memory_order_relaxed);
  }
  return __libc_realloc(pointer, size);
}

void free(void *pointer) {
  if (pointer && atomic_load_explicit(&counting, memory_order_relaxed))
    atomic_fetch_add_explicit(&frees, 1, memory_order_relaxed);
  if (pointer) note_free(pointer);
  __libc_free(pointer);
}

int posix_memalign(void **out, size_t alignment, size_t size) {
  if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
  count_allocation(size);
  void *p = note(__libc_memalign(alignment, size), size);
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}

void *aligned_alloc(size_t alignment, size_t size) {
  count_allocation(size);
  return note(__libc_memalign(alignment, size), size);
}

void *memalign(size_t alignment, size_t size) {
  count_allocation(size);
  return note(__libc_memalign(alignment, size), size);
}

void mc_start(void) {
  atomic_store(&allocations, 0);
  atomic_store(&reallocations, 0);
  atomic_store(&frees, 0);
  atomic_store(&bytes, 0);
  atomic_store(&counting, 1);
}

mc_counts mc_stop(void) {
  atomic_store(&counting, 0);
  mc_counts c = {atomic_load(&allocations), atomic_load(&reallocations), atomic_load(&frees),
                 atomic_load(&bytes)};
  return c;
}

int mc_is_active(void) {
  /* strdup allocates inside glibc, through the malloc the dynamic linker
   * chose: ours counts it, glibc's own would not. */
  mc_start();
  char *volatile p = strdup("interposed?");
  mc_counts c = mc_stop();
  free(p);
  return c.allocations == 1;
}

size_t mc_heap_in_use(void) {
  struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}

void mc_trim(void) { malloc_trim(0); }

#else /* not glibc: no counting */

void mc_start(void) {}
void mc_record(size_t *sizes, void **pointers, size_t capacity) {}
size_t mc_recorded(void) { return 0; }
mc_counts mc_stop(void) {
  mc_counts c = {0, 0, 0, 0};
  return c;
}
int mc_is_active(void) { return 0; }
size_t mc_heap_in_use(void) { return 0; }
void mc_trim(void) {}

#endif
