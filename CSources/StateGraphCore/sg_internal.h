/*
 * sg_internal.h — the core's data structures, shared by its .c files.
 *
 * Memory layout in brief:
 *
 *   graph ── lock, cond, link pool, scratch stack, graveyard, and an
 *            intrusive doubly linked list of its live nodes in creation
 *            order (snapshots enumerate it; O(1) insert and remove)
 *   node  ── a slot of one of three sizes: what every node has (a stored
 *            node's slot ends there), then what computing needs (a
 *            computed node's ends there), then what only effects use.
 *            kind, state, version; two intrusive doubly linked lists of links:
 *            `sources` (what it read in its last run, in read order) and
 *            `dependents` (who read it). Nodes with many sources also keep a
 *            GHashTable source -> link so a repeated read is found in O(1).
 *   link  ── one edge; it sits in its target's source list and in its
 *            source's dependent list at once, so unlinking is O(1) on both
 *            sides. Freed links go to a per-graph pool and are reused, so
 *            re-tracking allocates nothing in the steady state.
 *
 * Who guards which field, and every rule of the concurrency protocol, is in
 * docs/core-protocol.md. In brief: a graph's lock guards its nodes and links,
 * except `refs`/`holds` (atomic) and the immutable id/kind/graph;
 * fields that lock-free readers look at (state, owner, has_run, version,
 * destroyed, label) are written with SG_PUBLISH.
 *
 * Layers: each file calls only its own line and the ones above it in this
 * list, except that every layer may record into trace.c, and the last line
 * reads the graph from the side. `make test` checks it on the object files
 * (Tests/CoreTests/check-layers.sh reads this list):
 *
 *   registry.c names.c stack.c waits.c testing.c lock.c   leaves: handles,
 *                                          names, stacks, waits, hooks, the
 *                                          graph lock
 *   graph.c       nodes, links, memory, burial
 *   tracking.c    per-thread state, frames, recording reads, binding slot
 *   propagate.c   marking (which queues effects), claims, refresh, destroy
 *   schedule.c    effects (order, loops), watchers, flushing the queue
 *   api.c         the public entry points: graphs, nodes, reads, writes,
 *                 batches, untracked sections, the binding calls
 *   introspect.c snapshot.c dot.c trace.c            seeing the graph (with
 *                                                   their public entries)
 *
 * Public sg_* functions are defined in api.c and the last line's files
 * only; everything else is internal (sg__*, or static).
 */
#ifndef SG_INTERNAL_H
#define SG_INTERNAL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pthread_getattr_np, clock_gettime under -std=c11 */
#endif

#include "stategraph.h"

#include <glib.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

/* Built with AddressSanitizer (gcc says so one way, clang the other): the
 * core then tells it about stack switches (stack.c) and free node slots
 * (registry.c). */
#if defined(__SANITIZE_ADDRESS__)
#define SG_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SG_ASAN 1
#endif
#endif

/* For a body written once and instantiated twice (with a recording and with
 * a constant NULL one, see trace.c): inlining is what folds the trace code
 * out of the untraced copy, so it is not left to the compiler's taste. */
#define SG_INLINE static inline __attribute__((always_inline))

/* Atomics: one style, GCC's __atomic builtins (which clang has too), through
 * these macros only.
 *
 * SG_PUBLISH and SG_PEEK store and load the fields that lock-free readers
 * look at (read_fast, the door). Release and acquire cost nothing on x86
 * and order them right on ARM: a reader that sees a version also sees the
 * value the binding stored before it.
 *
 * The counters (refs, holds, ids) are read-modify-write, sequentially
 * consistent: a decrement that reaches zero decides a burial, and an
 * increment unless zero must see it. SG_RELAXED_* are for counters whose
 * value orders nothing (how many threads trace). */
#define SG_PUBLISH(field, value) __atomic_store_n(&(field), (value), __ATOMIC_RELEASE)
#define SG_PEEK(field) __atomic_load_n(&(field), __ATOMIC_ACQUIRE)
#define SG_ATOMIC_GET(field) __atomic_load_n(&(field), __ATOMIC_SEQ_CST)
#define SG_ATOMIC_SET(field, value) __atomic_store_n(&(field), (value), __ATOMIC_SEQ_CST)
#define SG_ATOMIC_ADD(field, delta) __atomic_add_fetch(&(field), (delta), __ATOMIC_SEQ_CST)
/* Replaces *expected's value with desired and answers true, or loads the
 * current value into *expected and answers false. */
#define SG_ATOMIC_CAS(field, expected, desired) \
  __atomic_compare_exchange_n(&(field), (expected), (desired), false, __ATOMIC_SEQ_CST, \
                              __ATOMIC_SEQ_CST)
#define SG_RELAXED_GET(field) __atomic_load_n(&(field), __ATOMIC_RELAXED)
/* SG_ATOMIC_ADD for the counts a node's life and a label's uses are kept
 * in, which change on every queued effect, hold and creation: while the
 * process has one thread (sg_process_is_single_threaded) nobody else can
 * look at them, so a plain load and store do, as for the graph lock (lock.c
 * section below). The flag never comes back once a second thread was made,
 * and making one orders these stores before anything that thread does. */
#define SG_COUNT_ADD(field, delta)                                                  \
  (sg_process_is_single_threaded()                                                  \
       ? __extension__({                                                            \
           __typeof__(field) sg_count_ = SG_RELAXED_GET(field) + (delta);           \
           __atomic_store_n(&(field), sg_count_, __ATOMIC_RELAXED);                 \
           sg_count_;                                                               \
         })                                                                         \
       : SG_ATOMIC_ADD(field, delta))
#define SG_RELAXED_ADD(field, delta) __atomic_add_fetch(&(field), (delta), __ATOMIC_RELAXED)

typedef struct sg_link sg_link;
typedef struct sg_thread sg_thread;
typedef struct sg_frame sg_frame;
typedef struct sg_visit sg_visit;
typedef struct sg_label sg_label;

/* One snapshot visitor running for a node: on the visiting thread's stack,
 * in the node's set of visits (two threads, or one thread's nested
 * snapshots, may visit one node at once). */
struct sg_visit {
  sg_thread *thread;
  sg_visit *next;
};

/* A growable array for the hot stacks: a GArray call per push and pop cost
 * more than the work around it. Zero-initialised is empty; free `at`. */
#define SG_VEC(T) struct { T *at; uint32_t len, cap; }
void sg__vec_grow(void **at, uint32_t *cap, size_t item_size); /* graph.c */
#define SG_VEC_PUSH(v, item)                                                 \
  do {                                                                       \
    if ((v).len == (v).cap) sg__vec_grow((void **)&(v).at, &(v).cap, sizeof *(v).at); \
    (v).at[(v).len++] = (item);                                              \
  } while (0)

typedef SG_VEC(sg_node *) sg_node_vec;
typedef SG_VEC(sg_link *) sg_link_vec;

/* One entry of a thread's effect queue. `cause` is the entry whose run
 * made the write that queued it (SG_NO_CAUSE: a write outside the flush),
 * so the causes form chains, and a loop of effects is an effect met again
 * on its own chain (schedule.c). `node` is NULL once the effect moved
 * further back in the queue. */
typedef struct sg_queued {
  sg_node *node;
  uint32_t cause;
  /* Set when the entry is run (schedule.c): this node's entry run before it
   * in this flush, plus one (0: none), and how often the node ran before on
   * its chain of causes. Zero as queued: a first run stores neither. Entries
   * run in queue order, but for `ahead` ones, run while their child's entry
   * (`child`) was: see run_order. */
  uint32_t child, prev1;
  uint16_t laps_before;
  bool ahead;  /* an owner run for a child's entry: already run */
  bool failed; /* its run failed (the node stays stale) */
} sg_queued;
#define SG_NO_CAUSE UINT32_MAX

struct sg_link {
  sg_node *source;
  sg_node *target;
  sg_link *prev_source, *next_source;       /* in target's source list (the
                                               head's prev_source: the tail) */
  sg_link *prev_dependent, *next_dependent; /* in source's dependent list (the
                                               head's prev_dependent: the tail) */
  uint64_t seen_version; /* source->version when the target last read it */
  uint64_t epoch;        /* the target's run that last read it */
};

/* What a node's owner must do when it releases its claim (on_release). */
enum {
  SG_RELEASE_BURY = 1,     /* its last reference went while it was claimed:
                              the owner buries it (sg__bury) */
  SG_RELEASE_CHILDREN = 2, /* child effects wait for its run to end: the
                              owner queues them (schedule.c) */
  SG_RELEASE_UNLINK = 4    /* destroyed while claimed: the owner, the only
                              one walking its sources, unlinks them */
};

/* Nodes with more sources than this get a hash index of their sources. */
#define SG_INDEX_THRESHOLD 8

/* Node memory comes in three slot sizes (registry.c). Every node starts
 * with the fields a stored node uses, and a stored node's slot ends there
 * (SG_STORED_SLOT): it is never claimed, verified, run, queued or watched,
 * so the rest is never looked at in it. Code that may meet a stored node
 * reads only the first part, or tests `kind` first (sg__fresh does). A
 * computed node's slot ends before the effect-only fields
 * (SG_COMPUTED_SLOT): it has no parent and defers no children, and code
 * that may meet one tests `kind` before looking at them.
 * The first cache line holds what a read and a change touch in every node;
 * a computed node's claim, marks, sources and callback follow in the next.
 * Computed and effect nodes (registry.c) and links (graph.c) are 64-byte
 * aligned, stored nodes 16-byte. */
struct sg_node {
  /* ---- every node's: hot, one cache line */
  sg_graph *graph;
  uint8_t kind;   /* sg_kind */
  uint8_t state;  /* sg_state: CLEAN, CHECK or DIRTY (a stored node: CLEAN) */
  bool has_run;   /* computed/effect: callback completed at least once */
  bool must_run;  /* DIRTY for a reason its links cannot show (a source was
                     destroyed, or it was rolled back): a rollback of a
                     source must not turn it into CHECK. Cleared by a run. */
  bool destroyed; /* sg_node_destroy was called */
  bool running;  /* its callback is running (on owner's thread) */
  bool armed;    /* its watcher wants the next change (published: read
                    without the lock) */
  uint8_t on_release; /* work for its owner at release: SG_RELEASE_* */
  uint64_t version;
  /* Its dependents, in link order; the head's prev_dependent is the tail
   * (appending is O(1) without a tail field). */
  sg_link *dependents_head;
  /* ---- the door's: read without a pin by checked calls (registry.c) */
  gint refs; /* atomic: 1 while live + 1 per dependent link + pins, holds
                and queue entries (not claims: see sg__bury) */
  gint holds; /* atomic: sg_node_hold calls not yet released */
  uint64_t id; /* atomic: unique in the process, never reused; 0 in a free slot */
  void *context;

  /* ---- every node's: per change at most */
  /* The highest version ever given: a change takes the next one, so after a
   * rollback (version goes back) no version is ever handed out twice, and a
   * link whose seen_version matches really saw the value the node has. */
  uint64_t last_version;
  const sg_label *label; /* name, file and line: shared, see names.c */
  sg_visit *visits; /* snapshot visitors running for it, a set: destroy waits
                       for them (waits.c) */
  /* The graph's live list, while not destroyed; then, once buried, the
   * graveyard list (a node leaves the first before it joins the second). */
  union {
    sg_node *live_prev;
    sg_node *next_dead;
  };
  union {
    sg_node *live_next;
    /* Once destroyed (out of the live list): the flush and entry whose run
     * destroyed it, which its destroy callback's writes are charged to
     * (graph.c); flush 0 is none. */
    struct {
      uint32_t dead_flush, dead_entry;
    };
  };

  /* ---- computed and effect nodes only (past a stored node's slot) */
  uint32_t marks;       /* bumped whenever marking reaches the node */
  uint32_t claim_index; /* position in its owner's walk (its claims) */
  /* What it read in its last run, in read order; the head's prev_source is
   * the tail (appending is O(1) without a tail field). */
  sg_link *sources_head;
  sg_thread *owner; /* thread verifying or running this node, or NULL */
  sg_callback callback;
  sg_destroy destroy; /* a stored node has none */
  uint64_t run_count;
  sg_thread *queued_by; /* the thread whose pending queue holds it, or NULL */
  uint32_t source_count;
  uint32_t queue_index; /* its entry in queued_by's queue */
  GHashTable *source_index; /* source node -> link, when many sources */
  sg_callback watcher;
  uint64_t armed_version; /* version when armed */
  /* The flush (a process-wide id) that last ran a queue entry of it (a
   * watched computed node's too), and that entry: where counting its laps
   * stops (schedule.c). */
  uint32_t run_flush, run_entry;

  /* ---- effect nodes only (past a computed node's slot) */
  /* The effect whose run created this one (same graph; holds a reference),
   * which runs first when a change reaches both. */
  sg_node *parent;
  /* Child effects a flush found stale while this one ran on another thread:
   * its owner queues them when it lets go (each holds a reference). */
  sg_node *deferred_children, *next_deferred;
  bool deferred; /* in an owner's deferred_children */
};

/* A stored node's slot: the fields every node has. */
#define SG_STORED_SLOT offsetof(sg_node, marks)
/* A computed node's slot: no effect-only fields. */
#define SG_COMPUTED_SLOT offsetof(sg_node, parent)

/* ---- lock.c: the graph lock (and the wait for a claimed node's release)
 *
 * Taken and let go with sg__graph_lock and sg__graph_unlock (below), which
 * pass the scheduling points in test builds; these are the lock itself. */
#ifdef __linux__
/* While the process has one thread, nobody else can look at the word:
 * glibc says so, and the lock skips its atomic operations, as glibc's own
 * does. The flag never goes back to true once a second thread was made,
 * and only this thread can make that one while it is the only one: a lock
 * taken plainly and let go after that reads the flag again, takes the
 * atomic path and wakes whoever came to wait. */
#define SG_SINGLE_THREADED() (sg_process_is_single_threaded() != 0)
typedef struct sg_glock {
  uint32_t word;     /* 0 free, 1 held, 2 held and maybe waited for */
  uint32_t released; /* bumped by every broadcast: the waiters' futex */
  /* The bias (lock.c): the sg_bias of the thread that takes the lock
   * without the word, or NULL. Written only by a holder of the word. */
  struct sg_bias *bias;
  /* Under the word: the thread that took it last, how many times in a row,
   * and how many biases were revoked (each makes the next one wait longer). */
  const void *streak_owner;
  uint32_t streak_left, revokes;
#ifdef SG_SCHEDULING_POINTS
  int inside; /* threads inside: the test builds check it never exceeds one */
#endif
} sg_glock;
static inline bool sg__glock_try(sg_glock *l) {
  uint32_t free = 0;
  if (SG_SINGLE_THREADED()) {
    if (__atomic_load_n(&l->word, __ATOMIC_RELAXED) != free) return false;
    __atomic_store_n(&l->word, 1, __ATOMIC_RELAXED);
    return true;
  }
  return __atomic_compare_exchange_n(&l->word, &free, 1, false, __ATOMIC_ACQUIRE,
                                     __ATOMIC_RELAXED);
}
void sg__glock_contended(sg_glock *l);
void sg__glock_wake_one(sg_glock *l);
#else
typedef struct sg_glock {
  pthread_mutex_t mutex;
  pthread_cond_t released;
#ifdef SG_SCHEDULING_POINTS
  int inside; /* as above */
#endif
} sg_glock;
static inline bool sg__glock_try(sg_glock *l) { return pthread_mutex_trylock(&l->mutex) == 0; }
#endif
void sg__glock_init(sg_glock *l);
void sg__glock_destroy(sg_glock *l);
/* Under the lock: lets go of it, sleeps until a broadcast, the absolute
 * CLOCK_REALTIME time `until` (NULL: no limit) or a spurious wake-up, and
 * takes it again. */
void sg__glock_wait_unhooked(sg_glock *l, const struct timespec *until);
void sg__glock_broadcast(sg_glock *l); /* under the lock */

/* How many freed graphs keep their memory, so that their handles stay stale
 * (graph.c): the public header promises this many. */
#define SG_KEPT_GRAPHS 1024

struct sg_graph {
  /* Thread sanitizers see it (lock.c); its wait is broadcast when a
   * claimed node is released. */
  sg_glock lock;
  size_t live;
  size_t allocated;   /* nodes not yet on the graveyard: live, or destroyed
                         but still held (a queue, a claim, a link) */
  uint64_t epoch;    /* run counter, stamps links read in a run */
  sg_node *graveyard; /* nodes whose memory waits to be freed unlocked (next
                         to epoch: a run touches both) */
  sg_link *link_pool; /* free links, singly linked through next_source */
  /* What links are carved from: 64-byte aligned blocks, doubling up to 256
   * links (one aligned allocation per link cost as much again in padding).
   * Freed only with the graph. */
  sg_link_vec link_blocks;
  sg_node_vec scratch; /* marking stack, reused */
  int waiters;
  sg_node *live_head, *live_tail; /* live nodes, oldest first */
};

/* A callback running on this thread. Lives on the C stack of run_callback. */
struct sg_frame {
  sg_node *node;
  sg_link *cursor; /* next expected source: reads in the same order as last
                      time just advance it, without lookups or allocation */
  uint64_t epoch;
  int untracked;
  sg_frame *parent;
  /* The last two sources this run found off its cursor, most recent
   * first: a read of either again (`x * x`, a loop over two sources) is
   * answered from here. Their links carry this run's epoch, so they stay
   * until the run ends, unless the source is destroyed meanwhile: then the
   * link goes and the memo forgets it (sg__destroy_locked). */
  sg_node *recent[2];
};

/* A read that f's run tracked off its cursor: n goes to the front of
 * f->recent. */
static inline void sg__remember(sg_frame *f, sg_node *n) {
  if (f->recent[0] != n) {
    f->recent[1] = f->recent[0];
    f->recent[0] = n;
  }
}

/* Per OS thread: made on first use, freed at thread exit (tracking.c). */
struct sg_thread {
  sg_frame *frame;
  int batch_depth;
  bool flushing;
  uint32_t flush_cause; /* the queue entry being run, while flushing */
  uint32_t flush_id; /* this flush's id (process-wide), or the last one run */
  uint32_t flush_ids_left; /* ids after flush_id this thread may still take */
  uint32_t flush_dropped; /* entries below it have let go of their node */
#ifdef SG_SCHEDULING_POINTS
  uint64_t cause_steps; /* steps taken along chains of causes (tests) */
#endif
  int untracked_outside; /* untracked sections opened with no frame */
  SG_VEC(sg_queued) queue; /* pending effects (each holds a ref) */
  /* Refresh stack, reused; also the nodes this thread owns (claims), in
   * claim order: every claim is pushed on it at once and popped when let go. */
  SG_VEC(struct sg_walk_entry) walk;
  /* waits.c, under its lock: the node whose owner this thread waits for
   * (a claim wait) or whose snapshot visitor it waits for (destroy), and
   * whether another thread broke the wait. */
  sg_node *waiting_for;
  sg_node *waiting_visited;
  bool wait_broken;
  void *stacks; /* stack.c: spare stack segments of this thread */
  GString *last_cycle;
  void *binding_slot;
  sg_trace *trace;   /* the recording while this thread traces, else NULL */
  /* A traced sg_write_begin's recording and span, closed by sg_write_end. */
  sg_trace *written_trace;
  int written_span;
  /* Child effects deferred by another thread's flush and released here
   * while this thread's batch is open: they run as its current operation
   * ends, not at the batch's end (schedule.c). Each holds a reference. */
  sg_node_vec handoff;
};

struct sg_walk_entry {
  sg_node *node;
  sg_link *cursor; /* where verification of node's sources resumes */
  uint32_t marks;  /* node->marks when verification began */
  int trace;       /* traced refresh: its UPDATE event, or -1 (in padding) */
};
typedef struct sg_walk_entry sg_walk_entry;

/* ---- registry.c: node memory, and which handles are live (the door) */
sg_node *sg__node_alloc(sg_kind kind); /* a zeroed slot; NULL when out of memory */
void sg__node_free(sg_node *n); /* a buried node's slot, or one never registered */
/* A node is registered from creation until its slot is freed (not until
 * destroy: a held, destroyed node must still be told apart from garbage).
 * Publishing gives it its id and first reference: from then on a checked
 * call may pin it, so it is called last, once the node is whole. */
void sg__registry_publish_node(sg_node *n);
/* A reference on the node in slot n: false when n is no slot, or its node
 * has no references left (freed, or on its way to the graveyard). */
bool sg__registry_ref_slot(sg_node *n);
/* SG_OK and one hold fewer, SG_ENOTHELD, or SG_ESTALE (no such memory). */
int sg__registry_unhold(sg_node *n);
void sg__registry_add_graph(sg_graph *g);
void sg__registry_memory(size_t *in_use, size_t *reserved); /* bytes */
bool sg__registry_has_graph(const sg_graph *g);
void sg__registry_remove_graph(sg_graph *g);


/* ---- names.c: labels, the names and places of nodes
 *
 * A label is a node's name, file and line. Nodes made at one place with one
 * name (every instance of a model's property) share one label, counted, so
 * a node's slot holds one pointer and no allocation of its own. A label
 * stays valid until the last node naming it is freed, so a name handed out
 * (sg_node_describe) lives as long as its node. */
struct sg_label {
  const char *name; /* "" for none: points at `text` */
  const char *file; /* interned: lives as long as the process */
  int line;
  /* Atomic: nodes naming it (a shared label), and the memo of each thread
   * that made or found it last (names.c). Taken under the labels lock, or
   * without it through a memo, whose own use keeps the count above zero;
   * let go without it but for the last use, which removes the label. */
  uint32_t uses;
  /* A rename's label, private to its node: the label it replaced, kept
   * until the node is freed (its name may still be in use). */
  sg_label *previous;
  bool shared;
  char text[];
};
/* The shared label for (name, file, line), with one use more; NULL when out
 * of memory. NULL name or file: none. */
sg_label *sg__label_get(const char *name, const char *file, int line);
/* Renaming in two steps, so that nothing is allocated under the lock: a
 * private label with the new name (NULL when out of memory), then, under
 * n's graph lock, the label put in place (the old one is kept). */
sg_label *sg__label_new_name(const char *name);
void sg__rename_locked(sg_node *n, sg_label *renamed);
void sg__label_release(const sg_label *label); /* a freed node's, and all it replaced */
/* Lets go of the label this thread's last sg__label_get kept (thread exit). */
void sg__label_forget_memo(void);
/* A node's name as reports show it: "(unnamed)" when it has none. */
const char *sg__display_name(const char *name);
/* Appends "name (file:line)": how cycle reports and traces name nodes. */
void sg__append_label(GString *out, const char *name, const char *file, int line);
/* The same for a live node; under its graph lock (the name may change). */
static inline void sg__append_node_label(GString *out, const sg_node *n) {
  const sg_label *l = SG_PEEK(n->label);
  sg__append_label(out, l->name, l->file, l->line);
}

/* ---- graph.c: graphs, nodes, links, memory */
sg_graph *sg__graph_new(void); /* registered; NULL when out of memory */
void sg__graph_retire(sg_graph *g); /* unregistered, graveyard freed */
sg_node *sg__node_new(sg_graph *g, sg_kind kind, const sg_node_info *info);
void sg__live_insert(sg_node *n); /* under the lock, at creation */
void sg__live_remove(sg_node *n); /* under the lock, at destroy */
void sg__ref(sg_node *n);
void sg__unref(sg_node *n); /* under lock; a dead node goes to the graveyard */
void sg__bury(sg_node *n);  /* under lock, with no references left */
void sg__unpin(sg_node *n); /* sg__unref without the lock held */
/* Live node (and, when id != 0, the one with this id): pins it with a
 * reference, so it stays allocated until sg__unpin, and returns true. */
bool sg__pin(sg_node *n, uint64_t id);

/* The door every checked entry point goes through: SG_EINVAL for NULL,
 * SG_ESTALE for a handle that names no live node; on SG_OK the node is
 * pinned and the caller must sg__unpin it (with no graph lock held). */
static inline int sg__enter(sg_node *n) {
  if (!n) return SG_EINVAL;
  return sg__pin(n, 0) ? SG_OK : SG_ESTALE;
}

sg_link *sg__link_new(sg_graph *g, sg_node *source, sg_node *target);
void sg__link_free(sg_graph *g, sg_link *l); /* unlinks both sides */
void sg__source_list_remove(sg_node *target, sg_link *l);
void sg__source_list_insert_before(sg_node *target, sg_link *l, sg_link *before);
void sg__unlink_sources(sg_node *n);

/* ---- introspect.c: describing nodes (also for whole-graph snapshots) */
void sg__describe_locked(sg_node *n, sg_node_description *out);

/* ---- tracking.c: thread state, frames, recording reads */
/* The state of the running thread, made on first use. Initial-exec: a
 * shared library's thread-local costs a call to look up otherwise, and this
 * one is looked up by every read and write. */
extern __thread sg_thread *sg__current __attribute__((tls_model("initial-exec")));
sg_thread *sg__thread_new(void);
static inline sg_thread *sg__thread(void) {
  sg_thread *t = sg__current;
  return G_LIKELY(t) ? t : sg__thread_new();
}
int sg__track(sg_thread *t, sg_node *source);
void sg__binding_slot_set_destructor(void (*destroy)(void *value));
void sg__prune_unread(sg_frame *f);

/* A node whose value may be used as is (stored nodes always are). */
static inline bool sg__fresh(const sg_node *n) {
  return n->kind == SG_STORED || (n->state == SG_CLEAN && n->has_run);
}

/* A node's first source, for code that may meet a stored node (which has
 * no source list in its slot). */
static inline const sg_link *sg__first_source(const sg_node *n) {
  return n->kind == SG_STORED ? NULL : n->sources_head;
}

/* How often its callback ran (a stored node has none). */
static inline uint64_t sg__run_count(const sg_node *n) {
  return n->kind == SG_STORED ? 0 : n->run_count;
}

/* Fresh and owned by no thread: its value may be used without a claim. */
static inline bool sg__settled(const sg_node *n) {
  return n->kind == SG_STORED || (n->state == SG_CLEAN && n->has_run && !n->owner);
}

/* ---- propagate.c: push marking, pull refresh, destroy under the lock */
void sg__destroy_locked(sg_node *n);
void sg__mark_dependents(sg_node *source, sg_state direct_state);
int sg__refresh(sg_thread *t, sg_node *target);

/* ---- propagate.c: queuing what a mark reached (an effect, a watched node) */
void sg__enqueue(sg_node *effect_or_watched);

/* ---- schedule.c: effects and batches */
/* Runs the queue; see sg__flush_if_outermost. SG_ECYCLE when effects kept
 * re-triggering each other (sg_last_cycle names them), else SG_OK. */
int sg__flush(sg_thread *t);

/* Brings a new owned effect's stale owners up to date before its first run;
 * true when an owner runs on another thread, which runs the effect later. */
bool sg__run_owners_first(sg_thread *t, sg_node *e);

/* Runs this thread's pending effects when its outermost operation ends. The
 * test is inline: almost every call (each read inside a callback) stops
 * here, and the call would cost more than the test. */
void sg__run_handoff(sg_thread *t);
static inline int sg__flush_if_outermost(sg_thread *t) {
  if (G_UNLIKELY(t->handoff.len != 0)) sg__run_handoff(t);
  if (t->batch_depth || t->frame || t->flushing || t->queue.len == 0) return SG_OK;
  return sg__flush(t);
}

/* ---- trace.c: recording what writes cause (see stategraph.h, tracing)
 *
 * Free when off: sites that have the thread at hand test `t->trace`; the
 * marking loop, which has not, tests sg__tracing_threads (a relaxed load of
 * a global counter) once per call. Per-node loops are compiled twice (an
 * always-inline body with the trace as a parameter, called with NULL), so
 * the untraced copy has no trace code at all. Everything below is called
 * only when tracing. Events naming a node are recorded under its graph lock
 * (the name may change under the lock); sg__trace_close never runs under a
 * lock: it may hand a chain to the user's handler. */
extern int sg__tracing_threads;

static inline bool sg__tracing_anywhere(void) {
  return G_UNLIKELY(SG_RELAXED_GET(sg__tracing_threads) != 0);
}

/* Opens a span (a root, or nested under the open one) and returns its index. */
int sg__trace_open(sg_trace *tr, sg_trace_kind kind, sg_node *n);
void sg__trace_close(sg_trace *tr, int span);
/* A leaf or a span's child; parent -1 means "under the open span". */
int sg__trace_event(sg_trace *tr, sg_trace_kind kind, sg_node *n, int parent);
void sg__trace_set_result(sg_trace *tr, int event, sg_trace_result result);
/* The span that events nest under while a callback runs. */
int sg__trace_enter(sg_trace *tr, int span); /* returns the previous one */
void sg__trace_leave(sg_trace *tr, int previous);
void sg__trace_mark(sg_trace *tr, sg_node *n, sg_state state, int parent);
/* The MARK event n's last sg__trace_mark recorded: the parent of the events
 * of the nodes it marks. Kept in the trace, not the node: only tracing
 * needs it. */
int sg__trace_mark_of(sg_trace *tr, const sg_node *n);
void sg__trace_thread_exit(sg_thread *t);

/* ---- testing.c: scheduling points for the interleaving checker
 *
 * Built with -DSG_SCHEDULING_POINTS (the test builds), every lock, wait and
 * lock-free step of the protocol passes a named point where a test's hook
 * may run, or switch to another thread (Tests/Interleave). A lock taken
 * while another thread holds it, and every condition wait, is a point that
 * says "blocked": the hook must let another thread run. Built without, the
 * points and the checks beside them vanish. */
bool sg__set_scheduling_hook(void (*hook)(const char *point, bool blocked));
/* Every other mutex (the leaves' own) is taken with sg__lock and let go
 * with sg__unlock. */
static inline void sg__unlock(pthread_mutex_t *m) { pthread_mutex_unlock(m); }
#ifdef SG_SCHEDULING_POINTS
void sg__point(const char *where);
void sg__lock(pthread_mutex_t *m);
void sg__glock_lock(sg_glock *l);
void sg__glock_wait(sg_glock *l, const struct timespec *until);
/* A point where this thread waits for another to move (spinning). */
void sg__blocked_point(const char *where);
/* A thread comes inside a graph lock, or goes: stops the program when two
 * are inside at once, when one thread says it is inside two, or when a
 * biased take looks at the bias before it said `held`. */
void sg__glock_entered(sg_glock *l);
void sg__glock_leaving(sg_glock *l);
void sg__glock_held_free(const struct sg_bias *b);
/* A biased take's load of the bias, after its `held` (checked). */
struct sg_bias *sg__glock_bias_after_held(sg_glock *l, const struct sg_bias *b);
#else
#define sg__point(where) ((void)0)
#define sg__blocked_point(where) ((void)0)
#define sg__glock_entered(l) ((void)0)
#define sg__glock_leaving(l) ((void)0)
#define sg__glock_held_free(b) ((void)0)
#define sg__glock_bias_after_held(l, b) __atomic_load_n(&(l)->bias, __ATOMIC_ACQUIRE)
static inline void sg__lock(pthread_mutex_t *m) { pthread_mutex_lock(m); }
SG_INLINE void sg__glock_lock(sg_glock *l);
static inline void sg__glock_wait(sg_glock *l, const struct timespec *until) {
  sg__glock_wait_unhooked(l, until);
}
#endif

/* ---- lock.c: the graph lock's bias (docs/core-protocol.md, "The biased
 * graph lock")
 *
 * A lock taken many times in a row by one thread, with a second thread in
 * the process, is biased to it: that thread then takes and lets go of it
 * with plain stores to its own `held` word. Another thread takes the word,
 * clears the bias, makes every thread pass a full barrier (membarrier) and
 * waits until `held` does not name the lock: a store then a load on each
 * side, with the barrier standing in for the biased thread's fence, so at
 * least one of the two sees the other. */
typedef struct sg_bias {
  sg_glock *held; /* the biased lock its thread holds; written by that thread only */
  gint refs;      /* the thread's, and one per lock biased to it */
} sg_bias;
/* This thread's: made at its first bias, freed when neither the thread nor
 * a lock names it. Initial-exec, as sg__current. */
extern __thread sg_bias *sg__my_bias __attribute__((tls_model("initial-exec")));
/* A thread may be given biases between these (its state's life, tracking.c):
 * the end lets go of its own. */
void sg__bias_thread_begin(void);
void sg__bias_thread_end(void);
#ifdef __linux__
/* How many takes of the word in a row bias the lock: more after each
 * revoke, so that threads taking turns stop paying for revokes. Tests
 * choose (sg__set_bias_mode). */
#define SG_BIAS_USUAL_STREAK(l) (8u << MIN((l)->revokes, 9u))
#ifdef SG_SCHEDULING_POINTS
uint32_t sg__bias_streak(const sg_glock *l);
#define SG_BIAS_STREAK(l) sg__bias_streak(l)
#else
#define SG_BIAS_STREAK(l) SG_BIAS_USUAL_STREAK(l)
#endif
/* Under the word, after taking it: takes back another thread's bias,
 * counts the streak, biases the lock to this thread after a long one. */
void sg__glock_taken_slow(sg_glock *l);
SG_INLINE void sg__glock_taken(sg_glock *l) {
  if (G_UNLIKELY(l->bias != NULL && l->bias != sg__my_bias) ||
      l->streak_owner != &sg__my_bias || G_UNLIKELY(--l->streak_left == 0))
    sg__glock_taken_slow(l);
}
/* The biased thread's take: its `held`, then the bias. */
/* Moves bias: held (docs/core-protocol.md, "The biased graph lock"). */
SG_INLINE bool sg__glock_take_biased(sg_glock *l) {
  sg_bias *b = sg__my_bias;
  if (G_LIKELY(b == NULL)) return false;
  /* Said before the bias is looked at: a lock biased to another thread
   * finds it gone at the load below, as one just taken back would. `held`
   * is free: no two graph locks are held at once. */
  sg__point("bias: before saying held");
  sg__glock_held_free(b);
  __atomic_store_n(&b->held, l, __ATOMIC_RELAXED);
  __atomic_signal_fence(__ATOMIC_SEQ_CST); /* the store stays before the load */
  sg__point("bias: held, before reading the bias");
  if (G_LIKELY(sg__glock_bias_after_held(l, b) == b)) return true;
  __atomic_store_n(&b->held, NULL, __ATOMIC_RELEASE);
  sg__point("bias: taken back meanwhile");
  return false;
}
SG_INLINE bool sg__glock_release_biased(sg_glock *l) {
  sg_bias *b = sg__my_bias;
  if (G_LIKELY(b == NULL) || __atomic_load_n(&b->held, __ATOMIC_RELAXED) != l) return false;
  __atomic_store_n(&b->held, NULL, __ATOMIC_RELEASE);
  return true;
}
/* While the process has one thread the word takes plain stores, and no lock
 * is biased (a bias needs a second thread, and the process never has one
 * again). Otherwise the bias, or the word and its atomics. */
SG_INLINE void sg__glock_acquire(sg_glock *l) {
  if (SG_SINGLE_THREADED()) {
    if (G_LIKELY(__atomic_load_n(&l->word, __ATOMIC_RELAXED) == 0))
      __atomic_store_n(&l->word, 1, __ATOMIC_RELAXED);
    else
      sg__glock_contended(l);
  } else if (!sg__glock_take_biased(l)) {
    uint32_t free = 0;
    if (G_UNLIKELY(!__atomic_compare_exchange_n(&l->word, &free, 1, false, __ATOMIC_ACQUIRE,
                                                __ATOMIC_RELAXED)))
      sg__glock_contended(l);
    sg__glock_taken(l);
  }
  sg__glock_entered(l);
}
SG_INLINE void sg__glock_release(sg_glock *l) {
  sg__glock_leaving(l);
  if (SG_SINGLE_THREADED())
    __atomic_store_n(&l->word, 0, __ATOMIC_RELAXED);
  else if (!sg__glock_release_biased(l) &&
           G_UNLIKELY(__atomic_exchange_n(&l->word, 0, __ATOMIC_RELEASE) == 2))
    sg__glock_wake_one(l);
}
#else
#define SG_SINGLE_THREADED() false /* nobody says: the lock never skips a step */
static inline void sg__glock_taken(sg_glock *l) { (void)l; }
static inline bool sg__glock_take_biased(sg_glock *l) { return (void)l, false; }
SG_INLINE void sg__glock_acquire(sg_glock *l) {
  pthread_mutex_lock(&l->mutex);
  sg__glock_entered(l);
}
SG_INLINE void sg__glock_release(sg_glock *l) {
  sg__glock_leaving(l);
  pthread_mutex_unlock(&l->mutex);
}
#endif
#ifndef SG_SCHEDULING_POINTS
SG_INLINE void sg__glock_lock(sg_glock *l) { sg__glock_acquire(l); }
#endif

/* ---- graph.c: the graph lock */
/* A graph's lock is taken with sg__graph_lock and let go with
 * sg__graph_unlock, everywhere: letting go always frees the nodes buried
 * while it was held (their destroy callbacks run then, with no lock held),
 * so no way out of the lock leaves the graveyard behind. */
/* What graph.c, which cannot see the thread, needs of it to run destroy
 * callbacks: the flush running here, if any (schedule.c sets it), so that a
 * callback's writes are charged to the entry whose run destroyed the node
 * (its run_entry, when its run_flush is this flush) and a loop through
 * destroy callbacks is counted; and the thread's frame (tracking.c sets it),
 * made untracked while a callback runs: a callback's reads are nobody's
 * dependencies, whichever computation happens to run on the thread. */
typedef struct sg_here {
  uint32_t flush_id;
  uint32_t *cause; /* the thread's flush_cause; NULL when not flushing */
  sg_frame **frame; /* the thread's frame slot; NULL before it has one */
} sg_here;
extern __thread sg_here sg__here __attribute__((tls_model("initial-exec")));
void sg__graph_unlock_freeing(sg_graph *g); /* the graveyard is not empty */
SG_INLINE void sg__graph_lock(sg_graph *g) { sg__glock_lock(&g->lock); }
static inline void sg__graph_unlock(sg_graph *g) {
  if (G_UNLIKELY(g->graveyard != NULL)) sg__graph_unlock_freeing(g);
  else sg__glock_release(&g->lock);
}
/* Under the lock, with the graveyard empty: waits for a release (or until
 * `until`), as a condition wait does. */
static inline void sg__graph_wait(sg_graph *g, const struct timespec *until) {
  sg__glock_wait(&g->lock, until);
}
static inline void sg__graph_broadcast(sg_graph *g) { sg__glock_broadcast(&g->lock); }

/* ---- waits.c: the wait-for graph between threads (see there) */
/* Before a claim wait for n (owned by another thread): SG_OK, and t is
 * waiting until sg__wait_end; or SG_ECYCLE (sg_last_cycle says why). */
int sg__wait_claim_begin(sg_thread *t, sg_node *n);
/* A snapshot visit of n by t begins or ends; under n's graph lock. */
void sg__visit_begin(sg_thread *t, sg_node *n, sg_visit *v);
void sg__visit_end(sg_node *n, sg_visit *v);
/* Under n's graph lock, before destroying n: waits while snapshot visitors
 * of other threads look at it (their context must stay valid). SG_OK, or
 * SG_EBUSY when visitors destroy each other's nodes. */
int sg__wait_for_visitors(sg_thread *t, sg_node *n);
bool sg__wait_end(sg_thread *t); /* returns whether the wait was broken */
void sg__waits_forget(sg_thread *t); /* at thread exit, before freeing t */
void sg__describe_self_cycle(sg_thread *t, sg_node *n); /* into last_cycle */

/* ---- stack.c: deep evaluations on a larger stack, same thread */
#define SG_STACK_MARGIN (256u * 1024u) /* switch when less is left */
/* The low end of the stack this thread runs on now: 0 not looked up yet, 1
 * unknown (then no switching). Initial-exec, as sg__current. */
extern __thread uintptr_t sg__stack_low __attribute__((tls_model("initial-exec")));
/* The callback on a fresh segment when the stack runs low (or on first use,
 * to look the stack up). */
int sg__call_deep(sg_thread *t, sg_callback cb, sg_node *n, void *ctx, uintptr_t here);
/* Whether a callback called from the frame at `here` has room enough on
 * this thread's stack as it is known now (false: not looked up yet, or low:
 * then call it through sg__call_deep). Inline: the walk tests it before its
 * first callback. */
static inline bool sg__stack_roomy(uintptr_t here) {
  return sg__stack_low > 1 && here - sg__stack_low > SG_STACK_MARGIN;
}
void sg__stacks_free(sg_thread *t); /* at thread exit */

#endif
