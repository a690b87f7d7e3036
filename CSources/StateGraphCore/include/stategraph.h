/*
 * stategraph.h — the StateGraph core: a reactive dependency graph in C.
 *
 * THE MODEL
 *
 *   A graph holds three kinds of node:
 *
 *   - a STORED node stands for a value that the program sets. The core never
 *     sees the value: after changing it, the program calls sg_changed().
 *   - a COMPUTED node stands for a value derived from other nodes. Its compute
 *     callback recomputes the value (kept by the program, e.g. in the callback's
 *     context) and returns SG_CHANGED or SG_UNCHANGED. Every node the callback
 *     reads with sg_read() becomes a dependency. Computation is lazy: it runs
 *     when somebody reads the node and something it depends on has changed.
 *   - an EFFECT node is an observer. Its callback runs once when created and
 *     again after each write (or batch of writes) that changed something it
 *     read during its last run.
 *
 *   Algorithm: a write marks direct dependents DIRTY and their dependents
 *   CHECK ("maybe dirty"). Reading a computed node walks up only through
 *   CHECK/DIRTY nodes and recomputes exactly where a source's value really
 *   changed; a callback returning SG_UNCHANGED stops propagation there
 *   (equality cutoff). Each computed runs at most once per change and never
 *   sees a half-updated graph. The walk is iterative, so a chain of any depth
 *   can be refreshed; first-time evaluation recurses through the callbacks, and
 *   when that recursion runs low on stack the core continues it on a helper
 *   thread with a large stack while the reading thread waits.
 *
 * THREADS
 *
 *   Every function may be called from any thread. Each graph has one internal
 *   lock; it is never held while a callback runs, so callbacks may call any
 *   function here (read, write, create, destroy) without deadlock. The
 *   "tracking frame" (which computed is running now), batch depth and pending
 *   effects are per thread. Two threads that need the same stale node at once
 *   do not compute it twice: the second waits for the first.
 *
 * LIFETIME AND OWNERSHIP
 *
 *   The graph never owns your values or keeps them alive: it holds only node
 *   handles and the context pointers you pass. A node lives until you call
 *   sg_node_destroy(); destroying unlinks it from its sources and dependents
 *   (dependents become DIRTY: an input of theirs is gone). A context's destroy
 *   callback runs exactly once, after the node is destroyed and no thread is
 *   running its callback any more (usually inside sg_node_destroy itself).
 *
 * ERRORS
 *
 *   Functions return an int: 0 (SG_OK) or a positive status on success, a
 *   negative SG_E* code on failure (see SG_ERRORS). sg_strerror() names it.
 *   Functions that return a value through an out-parameter never also hide an
 *   error in that value.
 *
 * CHECKED AND UNCHECKED CALLS
 *
 *   The public sg_* functions check their arguments at the door: a NULL handle
 *   gives SG_EINVAL, a handle of a destroyed node gives SG_ESTALE (handles are
 *   looked up in the graph's registry, a GLib hash set: one hash lookup per
 *   call, ~10 ns). A stale handle is recognised until its memory is reused by a
 *   new node. Bindings that own their handles and never pass stale ones (the
 *   Swift wrapper) may use the *_unchecked variants, which skip the lookup.
 */
#ifndef STATEGRAPH_H
#define STATEGRAPH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- version */

#define SG_VERSION_MAJOR 0
#define SG_VERSION_MINOR 1
#define SG_VERSION_PATCH 0
#define SG_VERSION_STRING "0.1.0"

/* The library's version as "MAJOR.MINOR.PATCH" (static storage). */
const char *sg_version(void);

/* ----------------------------------------------------------------- errors */

/* X(name, value, message). Every error code is negative. */
#define SG_ERRORS(X)                                                          \
  X(SG_EINVAL, -1, "invalid argument (a NULL handle or pointer)")             \
  X(SG_ESTALE, -2, "stale handle: the node was destroyed")                    \
  X(SG_EKIND, -3, "wrong node kind for this call")                            \
  X(SG_ECYCLE, -4, "dependency cycle")                                        \
  X(SG_EBATCH, -5, "batch or untracked section ended without a begin")        \
  X(SG_ENOMEM, -6, "out of memory")                                           \
  X(SG_EGRAPH, -7, "the nodes belong to different graphs")                    \
  X(SG_ECALLBACK, -8, "a compute or effect callback failed")                  \
  X(SG_EBUSY, -9, "the graph still has nodes")

enum sg_error {
#define SG__ENUM(name, value, message) name = value,
  SG_ERRORS(SG__ENUM)
#undef SG__ENUM
};

enum {
  SG_OK = 0,
  SG_UNCHANGED = 0, /* compute callback: the value is equal to the old one */
  SG_CHANGED = 1    /* compute callback: the value changed */
};

/* A static, human-readable description of an SG_* code ("success" for 0,
 * "unknown error" for anything else). */
const char *sg_strerror(int code);

/* ------------------------------------------------------------------ types */

typedef struct sg_graph sg_graph;
typedef struct sg_node sg_node;

typedef enum sg_kind { SG_STORED = 0, SG_COMPUTED = 1, SG_EFFECT = 2 } sg_kind;

/* CLEAN: up to date. CHECK: a source further up changed, maybe this did too.
 * DIRTY: a direct source changed, recompute on next read. */
typedef enum sg_state { SG_CLEAN = 0, SG_CHECK = 1, SG_DIRTY = 2 } sg_state;

/* Compute or effect callback. Runs with no lock held, on the thread that
 * needed the value (a computed) or that completed the write (an effect).
 * A compute callback returns SG_CHANGED, SG_UNCHANGED, or a negative code to
 * report failure (the node stays DIRTY and the reader gets SG_ECALLBACK).
 * An effect callback returns SG_OK or a negative code. */
typedef int (*sg_callback)(sg_node *node, void *context);

/* Frees a context. Runs once, with no lock held; see LIFETIME above. */
typedef void (*sg_destroy)(void *context);

/* How a node introduces itself in cycle reports, snapshots and traces. All
 * fields may be NULL/0. The strings are copied. */
typedef struct sg_node_info {
  const char *name; /* e.g. "total" or "Cart.total" */
  const char *file; /* source file that created the node */
  int line;         /* line in that file */
} sg_node_info;

/* ------------------------------------------------------------------ graph */

/* Creates an empty graph; NULL when out of memory. */
sg_graph *sg_graph_new(void);

/* Frees a graph that has no live nodes. Returns SG_EBUSY (and frees nothing)
 * while nodes remain: destroy them first. SG_EINVAL for NULL. */
int sg_graph_free(sg_graph *graph);

/* Number of live (created and not yet destroyed) nodes; 0 for NULL. */
size_t sg_graph_node_count(const sg_graph *graph);

/* ------------------------------------------------------------------ nodes */

/* Creates a stored node in `graph` and stores its handle in *out.
 * Errors: SG_EINVAL (graph or out NULL), SG_ENOMEM. */
int sg_stored_new(sg_graph *graph, const sg_node_info *info, sg_node **out);

/* Creates a computed node. `compute` runs on first read and whenever a read
 * finds a source changed. `context` is passed to it and, when the node is
 * gone, to `destroy` (may be NULL).
 * Errors: SG_EINVAL (graph, compute or out NULL), SG_ENOMEM; on error
 * `destroy` is not called. */
int sg_computed_new(sg_graph *graph, const sg_node_info *info,
                    sg_callback compute, void *context, sg_destroy destroy,
                    sg_node **out);

/* Creates an effect node and runs `run` once, right away, to learn what it
 * reads (also inside a batch). Afterwards it runs after every outermost write
 * or batch that changed one of those nodes, once per write or batch, on the
 * writing thread, in the order the effects were reached.
 * Errors: as sg_computed_new; SG_ECALLBACK when the first run failed (the
 * effect exists all the same and *out is set). */
int sg_effect_new(sg_graph *graph, const sg_node_info *info, sg_callback run,
                  void *context, sg_destroy destroy, sg_node **out);

/* Destroys a node: unlinks it from its sources and dependents (dependents
 * become DIRTY) and schedules its context's destroy callback (see LIFETIME).
 * The handle is invalid afterwards. Safe inside callbacks, including a node's
 * own. Errors: SG_EINVAL, SG_ESTALE. */
int sg_node_destroy(sg_node *node);

/* ------------------------------------------------------------ reading */

/* Call whenever the program reads the value a node stands for.
 * For a computed node, first brings it up to date (running compute callbacks
 * as needed). Then, when called from inside a compute or effect callback,
 * records `node` as a dependency of the running node (reading the same node
 * twice records one edge).
 * Returns SG_OK; SG_ECYCLE when the node is (transitively) computing itself
 * (sg_last_cycle() describes the cycle); SG_ECALLBACK when a compute callback
 * failed; SG_EINVAL, SG_ESTALE for bad handles; SG_EGRAPH when the running
 * node belongs to another graph (nothing is recorded). */
int sg_read(sg_node *node);
int sg_read_unchecked(sg_node *node);

/* ------------------------------------------------------------ writing */

/* Call after changing the value a STORED node stands for (only when the new
 * value differs: this is where a binding applies equality). Marks dependents,
 * and, when this is the thread's outermost write (not inside a batch or a
 * callback), runs the effects it reached before returning.
 * Errors: SG_EINVAL, SG_ESTALE, SG_EKIND (not a stored node). */
int sg_changed(sg_node *stored);
int sg_changed_unchecked(sg_node *stored);

/* ------------------------------------------------------------ batches */

/* Groups writes on this thread: effects reached by writes inside a batch run
 * once, when the outermost sg_batch_end() returns. Batches nest. */
void sg_batch_begin(void);

/* Ends a batch. Returns SG_OK, or SG_EBATCH when no batch was begun on this
 * thread (nothing happens then). */
int sg_batch_end(void);

/* Depth of this thread's batches (0 outside any batch). */
int sg_batch_depth(void);

/* Transaction support. sg_node_version() is a counter that grows every time
 * the node's value changes. sg_rollback() gives a node back a version it had
 * before (the binding restores the matching value first) and makes dependents
 * re-check, so a node that ends where it started notifies nobody.
 * Errors: SG_EINVAL, SG_ESTALE. */
uint64_t sg_node_version(const sg_node *node);
int sg_rollback(sg_node *node, uint64_t version);

/* ---------------------------------------------------------- untracked */

/* Between these calls, reads inside the running callback are not recorded as
 * dependencies (outside callbacks they change nothing). Sections nest.
 * sg_untracked_end returns SG_EBATCH without a matching begin. */
void sg_untracked_begin(void);
int sg_untracked_end(void);

/* The node whose callback is running on this thread, or NULL. */
sg_node *sg_current(void);

/* ------------------------------------------------------------ watchers */

/* Watchers bridge the graph to another observation system (the Swift wrapper
 * feeds Apple's Observation with them). sg_node_set_watcher() gives a
 * computed node a watcher callback, called with the node's context.
 * sg_node_arm() arms it once: after the next outermost write or batch that
 * reaches the node, the watcher runs on the writing thread (no lock held) to
 * say the value may have changed. The node is not recomputed for it, so
 * computed nodes stay lazy; a node that a read meanwhile found unchanged is
 * not reported. Then the watcher is disarmed until armed again. Arming an
 * armed node is a cheap no-op (an atomic load); arming a node that is
 * already stale reports it at the end of this thread's outermost operation
 * (at once, outside any).
 * Errors: SG_EINVAL, SG_ESTALE, SG_EKIND (not a computed node). */
int sg_node_set_watcher(sg_node *node, sg_callback watcher);
int sg_node_arm(sg_node *node);
int sg_node_arm_unchecked(sg_node *node);

/* Outside callbacks: sg_read() and sg_node_arm() under one lock, so no write
 * can slip between reading the value and arming the watcher. Inside a
 * callback it is just sg_read(). No handle checks (see CHECKED AND
 * UNCHECKED CALLS). */
int sg_read_arm_unchecked(sg_node *node);

/* One pointer per thread that a language binding may use for its own
 * per-thread state (the Swift wrapper keeps its transaction log there). */
void **sg_binding_slot(void);

/* -------------------------------------------------------------- cycles */

/* After sg_read() returned SG_ECYCLE on this thread: a description of the
 * cycle, one node per step in read order, ending where it started, e.g.
 * "a (model.c:10) -> b (model.c:11) -> a (model.c:10)". Per thread, valid
 * until the next cycle on this thread; "" when none happened. */
const char *sg_last_cycle(void);

/* ------------------------------------------------------- introspection */

sg_kind sg_node_kind(const sg_node *node);
sg_state sg_node_state(const sg_node *node);
/* The strings given at creation ("" when none). Valid while the node lives. */
const char *sg_node_name(const sg_node *node);
const char *sg_node_file(const sg_node *node);
int sg_node_line(const sg_node *node);
sg_graph *sg_node_graph(const sg_node *node);
/* How many times the compute or effect callback ran. */
uint64_t sg_node_run_count(const sg_node *node);
/* Number of sources this node read in its last run / of nodes reading it. */
size_t sg_node_source_count(const sg_node *node);
size_t sg_node_dependent_count(const sg_node *node);
/* Copies up to `max` handles into `out`; returns how many there are in all. */
size_t sg_node_sources(const sg_node *node, sg_node **out, size_t max);
size_t sg_node_dependents(const sg_node *node, sg_node **out, size_t max);
/* 1 when the handle names a live node of a live graph, else 0. */
int sg_node_is_live(const sg_node *node);

#ifdef __cplusplus
}
#endif

#endif /* STATEGRAPH_H */
