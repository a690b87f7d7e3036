/*
 * MallocCounter.h — counts heap allocations while counting is switched on.
 *
 * MallocCounter.c defines malloc, calloc, realloc, free, posix_memalign,
 * aligned_alloc and memalign in the benchmark executable. The dynamic linker
 * resolves every library's calls (the Swift runtime, GLib, the C core) to
 * these definitions first; they forward to glibc's __libc_* entry points and,
 * while counting is on, add to the counters below. Counting costs one relaxed
 * atomic add per call; when it is off, one load.
 *
 * Heap usage (live bytes) is read from glibc's mallinfo2(), which needs no
 * bookkeeping here.
 */
#ifndef MALLOC_COUNTER_H
#define MALLOC_COUNTER_H

#include <stddef.h>
#include <stdint.h>

typedef struct mc_counts {
  uint64_t allocations;   /* malloc + calloc + realloc(NULL or growing) + aligned */
  uint64_t reallocations; /* realloc of an existing block */
  uint64_t frees;         /* free of a non-NULL pointer */
  uint64_t bytes;         /* bytes requested by the calls above */
} mc_counts;

/* Zeroes the counters and switches counting on. */
void mc_start(void);
/* Switches counting off and returns what was counted since mc_start. */
mc_counts mc_stop(void);
/* While counting is on, also writes the requested size and the address of
 * each allocation (malloc, calloc, aligned; not realloc) into sizes and
 * pointers[0..capacity); an address freed meanwhile becomes NULL. NULL sizes
 * stops recording. mc_recorded() is how many were written. For probes run on
 * one thread with nothing else allocating. */
void mc_record(size_t *sizes, void **pointers, size_t capacity);
size_t mc_recorded(void);
/* 1 when the interposer is the malloc the process really uses (a call to
 * malloc from C went through it), 0 otherwise. */
int mc_is_active(void);
/* Bytes in use on the heap (mallinfo2: arena chunks in use + mmapped). */
size_t mc_heap_in_use(void);
/* Gives free memory at the top of the heap back to the system. */
void mc_trim(void);

#endif
