/*
 * stategraph.h — StateGraph, a reactive dependency graph in C.
 *
 * This header is the manual. Every type and function below says what it
 * does, who owns what, which thread may call it and which error codes it
 * returns. Build with `cc prog.c $(pkg-config --cflags --libs stategraph)`.
 *
 * THE MODEL
 *
 *   A graph holds three kinds of node. The graph never sees your values:
 *   you keep them (in your own structs, usually reached through a node's
 *   context pointer) and tell the graph when they are read and changed.
 *
 *   - A STORED node stands for a value the program sets. After changing the
 *     value, the program calls sg_changed().
 *   - A COMPUTED node stands for a value derived from other nodes. Its
 *     compute callback recomputes the value and answers SG_CHANGED or
 *     SG_UNCHANGED. Every node the callback reads with sg_read() becomes a
 *     dependency ("source"); the sources are exactly what the last run read.
 *     Computation is lazy: it runs when somebody reads the node and a source
 *     has changed since the last run.
 *   - An EFFECT node is an observer. Its callback runs once when created and
 *     again after each write (or batch of writes) that changed something it
 *     read during its last run.
 *
 *   A write marks direct dependents DIRTY and their dependents CHECK ("maybe
 *   dirty"). Reading a computed node walks up only through CHECK/DIRTY nodes
 *   and recomputes exactly where a source's value really changed; a callback
 *   answering SG_UNCHANGED stops propagation there (equality cutoff). Each
 *   computed runs at most once per change and never sees a half-updated
 *   graph. Refreshing is iterative, so a chain of any depth can be refreshed.
 *   A first evaluation recurses through the callbacks (nobody knows a node's
 *   sources before it ran); when that recursion runs low on stack, the core
 *   switches the reading thread to a fresh 64 MiB stack segment for it, so a
 *   chain of any depth evaluates, on the reading thread itself.
 *
 * A MINIMAL PROGRAM
 *
 *   static int price = 3, quantity = 2, total;
 *
 *   static int compute_total(sg_node *self, void *context) {
 *     sg_node **inputs = context;               // {price_node, quantity_node}
 *     int rc;
 *     if ((rc = sg_read(inputs[0])) < 0 || (rc = sg_read(inputs[1])) < 0)
 *       return rc;                              // fail: t stays DIRTY
 *     int next = price * quantity;
 *     if (next == total) return SG_UNCHANGED;   // cutoff: dependents stay clean
 *     total = next;
 *     return SG_CHANGED;
 *   }
 *
 *   sg_graph *g = sg_graph_new();
 *   sg_node *p, *q, *t;
 *   sg_stored_new(g, &(sg_node_info){"price"}, &p);
 *   sg_stored_new(g, &(sg_node_info){"quantity"}, &q);
 *   sg_computed_new(g, &(sg_node_info){"total"}, compute_total,
 *                   (sg_node *[]){p, q}, NULL, &t);   // context must outlive t
 *   sg_read(t);                                       // total == 6
 *   quantity = 5; sg_changed(q);                      // t is DIRTY now
 *   sg_read(t);                                       // recomputed: total == 15
 *   sg_node_destroy(t); sg_node_destroy(q); sg_node_destroy(p);
 *   sg_graph_free(g);
 *
 * THREADS
 *
 *   Every function may be called from any thread, on any graph. Each graph
 *   has one internal lock; it is never held while your code runs (compute,
 *   effect, watcher, destroy, snapshot visitor and trace handler callbacks),
 *   so callbacks may call any function here — read, write, create, destroy
 *   — without deadlock. The tracking frame (which callback is running now),
 *   batch depth, pending effects, tracing and sg_last_cycle() are per
 *   thread. The protocol behind this is docs/core-protocol.md.
 *
 *   Callbacks run on the thread that reads the node (compute) or on the
 *   thread whose write or batch reached them (effects, watchers), always
 *   that thread itself: its thread-local variables, the locks it holds and
 *   its signal mask are yours, also during very deep first evaluations (a
 *   mask a callback sets stays set when it returns, as on any call).
 *
 *   Waiting. Two threads that need the same stale computed node at once do
 *   not compute it twice: the second waits for the first. An effect is
 *   never waited for: a write that reaches an effect another thread is
 *   running returns at once, and that thread runs the effect again. If
 *   waiting would close a loop — two threads each computing a node the
 *   other needs, in one graph or across graphs — the read that would wait
 *   fails with SG_ECYCLE instead. The core cannot see waits in your own
 *   code: a compute callback that blocks until another thread reads the
 *   same node waits forever, as it would with any lock.
 *
 *   Values. The core synchronises its own state, not your values: guard
 *   them yourself (a binding keeps a lock per node, say) and see
 *   sg_rollback() for the one rule a binding must keep.
 *
 *   Two rules: do not free a graph (sg_graph_free) while another thread
 *   still uses it; and while one thread destroys a node, others may use its
 *   handle only through the checked calls (which then answer SG_ESTALE or
 *   work on the node as it was, never on freed memory).
 *
 * LIFETIME AND OWNERSHIP
 *
 *   You own graphs and nodes: a node lives until sg_node_destroy(), a graph
 *   until sg_graph_free(). The graph never owns or frees your values; it
 *   holds node handles and the context pointers you pass, nothing else.
 *   Destroying a node unlinks it from its sources and dependents
 *   (dependents become DIRTY: an input of theirs is gone).
 *
 *   A context's destroy callback runs exactly once, after the node was
 *   destroyed and when no thread uses the node any more: usually inside
 *   sg_node_destroy() itself, on the destroying thread; otherwise on
 *   whichever thread lets go of the node last — one that was running or
 *   verifying it at that moment, holding it in a pending effect queue (a
 *   batch not yet ended; at the latest when that thread exits), in the
 *   middle of a checked call on it, or taking a snapshot that includes it.
 *   It runs with no lock held and may call any function here. Its reads
 *   are nobody's dependencies, even when it runs in the middle of a
 *   computation on that thread. It is not called when creation fails.
 *
 * ERRORS
 *
 *   Functions that can fail return an int: SG_OK (0) on success, a
 *   negative SG_E* code on failure (see SG_ERRORS; sg_strerror() turns a
 *   code into text). Results come back through out-parameters, which are
 *   written only on success — with one exception, stated there:
 *   sg_effect_new() sets *out also when it answers SG_ECALLBACK or
 *   SG_ECYCLE, since the effect exists then and the caller must destroy it.
 *   No function returns a value that could also mean "error". Memory: SG_ENOMEM is returned
 *   where listed (creating graphs, nodes, snapshots, names); anywhere else
 *   an allocation failure inside the library aborts the process, as GLib
 *   does.
 *
 * CHECKED AND UNCHECKED CALLS
 *
 *   Every function whose name does not end in _unchecked checks its handles
 *   at the door: a NULL handle or out-pointer gives SG_EINVAL; a handle of a
 *   destroyed node (or freed graph), or an address that never held a node,
 *   gives SG_ESTALE. Nodes live in slots of memory the library never gives
 *   back, so the check needs no lock: it finds the slot the handle points
 *   at and pins the node with an atomic reference for the length of the
 *   call, so a destroy on another thread cannot free it underneath. Threads
 *   share nothing in it but the node itself. Inside a compute callback, a
 *   checked sg_read() of the source its last run read at the same point
 *   costs what sg_read_unchecked() does: the edge already keeps it alive.
 *
 *   Limit: a handle is a pointer. After a node is destroyed, its slot may be
 *   given to a new node, and the old handle then names the new node; no
 *   pointer check can tell. Node ids close that gap: every node has a
 *   64-bit id (sg_node_describe) that is never reused in the process, and
 *   sg_node_check(handle, id) answers SG_ESTALE for a reused address. Keep
 *   (handle, id) pairs where you hold handles you do not own. A freed
 *   graph's memory is kept until 1024 more graphs have been freed, so its
 *   handle answers SG_ESTALE at least that long; then the allocator may give
 *   the address to a new graph, whose handle the old one becomes. A node is
 *   reachable through a handle only once it is whole: while a new node is
 *   being created in a reused slot, a checked call through the old handle
 *   answers SG_ESTALE, never acts on a half-made node.
 *
 *   The *_unchecked variants skip the door entirely: no NULL check, no
 *   slot check, no pin. They are for bindings that own their handles and never
 *   pass a stale one: passing NULL, a destroyed node or
 *   a node of a freed graph to them is undefined behaviour.
 */
#ifndef STATEGRAPH_H
#define STATEGRAPH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h> /* FILE, for the DOT and trace writers */

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- version */

/* The version of this header. SG_VERSION_NUMBER is MAJOR*10000 + MINOR*100 +
 * PATCH, for `#if SG_VERSION_NUMBER >= 100` tests. The shared library's
 * soname carries the major version (libstategraph.so.0); any change to a
 * type or function below bumps it. */
#define SG_VERSION_MAJOR 0
#define SG_VERSION_MINOR 1
#define SG_VERSION_PATCH 0
#define SG_VERSION_STRING "0.1.0"
#define SG_VERSION_NUMBER (SG_VERSION_MAJOR * 10000 + SG_VERSION_MINOR * 100 + SG_VERSION_PATCH)

/* The version of the library actually linked, as "MAJOR.MINOR.PATCH"
 * (static storage). Compare with SG_VERSION_STRING to catch a program built
 * against one version and run against another. Any thread. */
const char *sg_version(void);

/* ----------------------------------------------------------------- errors */

/* X(name, value, message): every error code, once. Codes are negative and
 * stable within a major version. */
#define SG_ERRORS(X)                                                          \
  X(SG_EINVAL, -1, "invalid argument (a NULL handle or pointer)")             \
  X(SG_ESTALE, -2, "stale handle: the node was destroyed or its graph freed")  \
  X(SG_EKIND, -3, "wrong node kind for this call")                            \
  X(SG_ECYCLE, -4, "dependency cycle")                                        \
  X(SG_EBATCH, -5, "batch ended without a begin")                             \
  X(SG_ENOMEM, -6, "out of memory")                                           \
  X(SG_EGRAPH, -7, "the nodes belong to different graphs")                    \
  X(SG_ECALLBACK, -8, "a compute or effect callback failed")                  \
  X(SG_EBUSY, -9, "busy: the graph still has nodes, or a trace is running")   \
  X(SG_ENOTRACE, -10, "this thread is not tracing")                           \
  X(SG_ENOTHELD, -11, "the node is not held: release without a hold")        \
  X(SG_EVERSION, -12, "the node never had this version")                     \
  X(SG_EUNTRACKED, -13, "untracked section ended without a begin")

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

/* A static, human-readable text for an SG_* code: "success" for SG_OK,
 * "unknown error" for a value that is no code. Never NULL. Any thread. */
const char *sg_strerror(int code);

/* ------------------------------------------------------------------ types */

/* Opaque handles. Only pointers to them leave the library. */
typedef struct sg_graph sg_graph;
typedef struct sg_node sg_node;

typedef enum sg_kind { SG_STORED = 0, SG_COMPUTED = 1, SG_EFFECT = 2 } sg_kind;

/* CLEAN: up to date. CHECK: a source further up changed; maybe this did
 * too. DIRTY: a direct source changed (or the node never ran, or its last
 * run failed); it recomputes on the next read. Stored nodes are always
 * CLEAN. */
typedef enum sg_state { SG_CLEAN = 0, SG_CHECK = 1, SG_DIRTY = 2 } sg_state;

/* A compute, effect or watcher callback; `context` is the pointer given at
 * creation. It runs with no lock held (see THREADS for which thread).
 *
 * A compute callback reads its inputs with sg_read(), updates the value it
 * stands for and returns SG_CHANGED, SG_UNCHANGED (the cutoff), or any
 * negative code to report failure: the node then stays DIRTY, keeps the
 * sources it read before failing, and the reader gets SG_ECALLBACK — or
 * SG_ECYCLE when the callback returned SG_ECYCLE, which it gets from
 * sg_read() on a cycle. An effect callback returns SG_OK or a negative code
 * (nobody hears of it; the failed effect runs again at the next write that
 * reaches a source it read before failing). A watcher's return value is
 * ignored. */
typedef int (*sg_callback)(sg_node *node, void *context);

/* Frees a context. See LIFETIME AND OWNERSHIP for when it runs. */
typedef void (*sg_destroy)(void *context);

/* How a node introduces itself in cycle reports and descriptions. Any field
 * may be NULL/0; the strings are copied at creation, so they may be
 * temporaries. File names are few, so the library keeps one copy of each
 * for the life of the process. Designated initialisers read well:
 * `&(sg_node_info){.name = "total", .file = __FILE__, .line = __LINE__}`. */
typedef struct sg_node_info {
  const char *name; /* e.g. "total" or "Cart.total" */
  const char *file; /* source file that created the node */
  int line;         /* line in that file */
} sg_node_info;

/* ------------------------------------------------------------------ graph */

/* Creates an empty graph. Returns NULL only when out of memory. The caller
 * owns it and frees it with sg_graph_free(). Any thread. */
sg_graph *sg_graph_new(void);

/* Frees a graph that has no nodes left. Destroy the nodes first: while
 * any is live, or a destroyed one is still held by a batch that has not
 * ended on some thread, it returns SG_EBUSY and frees nothing.
 * Any thread, but no other thread may use the graph meanwhile.
 * Errors: SG_EINVAL (NULL), SG_ESTALE (already freed), SG_EBUSY. */
int sg_graph_free(sg_graph *graph);

/* Stores the number of live (created, not yet destroyed) nodes in *count.
 * Any thread. Errors: SG_EINVAL (a NULL argument), SG_ESTALE (freed graph). */
int sg_graph_node_count(sg_graph *graph, size_t *count);

/* ------------------------------------------------------------------ nodes */

/* Creates a stored node in `graph` and stores its handle in *out. `info`
 * may be NULL. Any thread, also inside callbacks.
 * Errors (*out untouched): SG_EINVAL (graph or out NULL), SG_ESTALE (freed
 * graph), SG_ENOMEM. */
int sg_stored_new(sg_graph *graph, const sg_node_info *info, sg_node **out);

/* Creates a computed node. `compute` runs on the first read and on every
 * read that finds a source changed; never before the first read. `context`
 * is passed to it and, once the node is gone, to `destroy` (may be NULL);
 * the context must stay valid until then. Any thread, also inside callbacks.
 * Errors (*out untouched, `destroy` not called): SG_EINVAL (graph, compute
 * or out NULL), SG_ESTALE (freed graph), SG_ENOMEM. */
int sg_computed_new(sg_graph *graph, const sg_node_info *info,
                    sg_callback compute, void *context, sg_destroy destroy,
                    sg_node **out);

/* Creates an effect node and runs `run` once, right away on this thread, to
 * learn what it reads (also inside a batch). Afterwards it runs after every
 * outermost write or batch that changed one of those nodes, once per write
 * or batch, on the writing thread, in the order the write reached the
 * effects. It is not run when the nodes it read were recomputed but found
 * unchanged. Context and destroy as for sg_computed_new.
 *
 * Order and re-entry:
 * - An effect created while another effect of the same graph runs (on this
 *   thread) belongs to it: when one change reaches both, the owner runs
 *   first, so it can destroy the effects it made before they see a value
 *   that makes it drop them; those it keeps run after it, once.
 *   This holds whichever thread runs the owner: while the owner's callback
 *   runs on another thread, a write here does not run its child effects at
 *   once (nor waits); the owner's thread runs them after that run ends,
 *   as the operation it is in returns, even inside a batch of its own.
 * - A write made by an effect's own run (on its thread) does not run it
 *   again; every other observer sees the write.
 * - A cascade settles: when effects write what other effects read without
 *   a loop (a chain of any length, with observers reading many stages),
 *   each effect runs after the last write of the cascade that reaches it,
 *   so its last run sees the final values, and the write returns SG_OK.
 * - Effects that keep re-triggering each other (a writes what b reads, b
 *   what a reads) are stopped after 100 laps of their loop; that write or
 *   sg_batch_end() then returns SG_ECYCLE and sg_last_cycle() names the
 *   effects of the loop in the order they ran ("a (f.c:1) -> b (f.c:2) ->
 *   a (f.c:1) ..."). They stay stale until the next change reaches them.
 *   Every run counts: owners run ahead of a child effect, and effects
 *   re-run by the writes of destroy callbacks (caused by the run that
 *   destroyed the node), are laps like any other.
 * Errors: as sg_computed_new (*out untouched); and, the exception to
 * "out-parameters are written only on success", two with *out set, since
 * the effect exists all the same and must be destroyed: SG_ECALLBACK when
 * the first run failed, SG_ECYCLE when the effects its first run set off
 * looped. */
int sg_effect_new(sg_graph *graph, const sg_node_info *info, sg_callback run,
                  void *context, sg_destroy destroy, sg_node **out);

/* sg_effect_new() for an effect that belongs to `owner`, an effect of the
 * same graph, although it is not created inside owner's run (a binding that
 * re-creates a child effect later, elsewhere): `owner` takes the place of
 * the running effect in the rules above, for every later change. Its first
 * run, too, comes after its owners: a stale owner (a change reached it and
 * no thread has run it yet) runs first, on this thread, outermost first,
 * and may drop the new effect before it reads anything; if an owner is
 * running on another thread, the first run is that thread's: it runs the
 * effect once that run ends, and this call returns SG_OK without waiting
 * (the run callback tells the two apart by the thread it runs on). Owners
 * this thread is running are up to date already, and theirs are left to
 * this thread's flush (never run inside a callback). NULL, or a destroyed
 * owner, is sg_effect_new(). Keep `owner` held (sg_node_hold) while passing
 * it. Errors: as sg_effect_new(). */
int sg_effect_new_owned(sg_graph *graph, const sg_node_info *info, sg_callback run,
                        void *context, sg_destroy destroy, sg_node *owner,
                        sg_node **out);

/* Destroys a node: unlinks it from its sources and dependents (dependents
 * become DIRTY), cancels a pending run of an effect, and arranges for its
 * destroy callback (see LIFETIME AND OWNERSHIP). The handle is stale
 * afterwards. Any thread; safe inside callbacks, including the node's own
 * (that callback finishes its run first). While a snapshot visitor runs for
 * the node on another thread, it waits for the visitor to return (see
 * sg_snapshot_visitor); a visitor that itself waits for this thread (it
 * reads a node this thread is computing) has that read fail with SG_ECYCLE
 * instead, so neither waits forever.
 * Errors: SG_EINVAL (NULL), SG_ESTALE (already destroyed), SG_EBUSY (only
 * visitors on two threads destroying each other's nodes: nothing changed). */
int sg_node_destroy(sg_node *node);

/* ---------------------------------------------------------------- reading */

/* Call whenever the program reads the value a node stands for. For a
 * computed node it first brings the node up to date (running compute
 * callbacks as needed, on this thread). Then, inside a compute or effect
 * callback, it records `node` as a source of the running node (reading the
 * same node twice records one edge). Outside callbacks, reading a stored
 * node does nothing but the check.
 * Errors: SG_EINVAL, SG_ESTALE; SG_EKIND (an effect has no value to read);
 * SG_ECYCLE when the node is (transitively) computing itself — see
 * sg_last_cycle(); SG_ECALLBACK when a compute callback failed; SG_EGRAPH
 * when the running callback's node belongs to another graph (nothing is
 * recorded, nothing computed). On any error no edge is recorded. */
int sg_read(sg_node *node);

/* sg_read() without the door (see CHECKED AND UNCHECKED CALLS). Same
 * results for a live handle; SG_ESTALE only for a node destroyed by another
 * thread during the call. */
int sg_read_unchecked(sg_node *node);

/* ---------------------------------------------------------------- writing */

/* Call after changing the value a STORED node stands for — only when the
 * new value differs from the old one: that comparison is the binding's
 * equality. A compute callback may write nodes it does not depend on;
 * writing one it depends on, directly or through other nodes, is refused
 * with SG_ECYCLE (it would run again for its own write, without end):
 * nothing is marked, and sg_last_cycle() says "c (file:line) writes s
 * (file:line), which it reads" (adding " through d (file:line)" for the
 * nodes in between) — put your old value back. Marks dependents and, when
 * this is the thread's outermost operation (not inside a batch or a
 * callback), runs the effects it reached before returning. Any thread, also inside callbacks (the effects then run
 * when the outermost operation ends).
 * Errors: SG_EINVAL, SG_ESTALE, SG_EKIND (a computed or effect node: their
 * values come from their callbacks), SG_ECYCLE (see above, and effect loops
 * at sg_effect_new: the write itself was made). */
int sg_changed(sg_node *stored);

/* sg_changed() without the door. Also without the kind check: calling it
 * on a computed or effect node is a mistake that is not caught. */
int sg_changed_unchecked(sg_node *stored);

/* ---------------------------------------------------------------- batches */

/* Groups this thread's writes: effects reached by writes inside a batch run
 * once each, when the outermost sg_batch_end() on this thread returns.
 * Batches nest. Per thread: another thread's writes are not batched. */
void sg_batch_begin(void);

/* Ends the innermost batch of this thread; the outermost end runs the
 * pending effects before returning.
 * Errors: SG_EBATCH when no batch is open on this thread (nothing
 * happens then); SG_ECYCLE when its effects looped (see sg_effect_new). */
int sg_batch_end(void);

/* Depth of this thread's open batches: 0 outside any batch. Any thread. */
int sg_batch_depth(void);

/* ----------------------------------------------------------- transactions */

/* A node gets a new version every time its value changes: each
 * sg_changed(), a computed's first successful run, and each run that
 * answered SG_CHANGED. The new version is one more than the highest the
 * node ever had, so after sg_rollback() no version is handed out twice: a
 * version names one value. Stores it in *version. Any thread.
 * Errors: SG_EINVAL (a NULL argument), SG_ESTALE. */
int sg_node_version(sg_node *node, uint64_t *version);

/* Gives a stored or computed node back a version it had before; the
 * binding restores the matching value first. Dependents re-check instead of
 * recomputing blindly, so a node that ends a batch where it began notifies
 * nobody. A computed node runs again at its next read (the sources it last
 * read may not give the restored value any more); when it finds that value
 * it keeps the restored version and its dependents stay quiet. Inside a
 * batch, as a transaction's undo.
 * A dependent whose run was in progress when a write reached it runs again
 * whatever the rollback restores: its run may have read the written value.
 * What the core cannot see is a read that fell between your store of a
 * value and its sg_changed(), and finished before it: that run saw the new
 * value under the old version, and once the version is restored nothing
 * says it is stale. So for a node that a batch may roll back, make "store +
 * sg_changed()" and "restore + sg_rollback()" one step for readers: hold a
 * lock of your own across each, and across "sg_read() + load" in readers
 * (sg_read of a stored node runs no callback, and inside a batch neither
 * call runs one, so holding a lock across them cannot deadlock).
 * Errors: SG_EINVAL, SG_ESTALE, SG_EKIND (an effect node), SG_EVERSION (a
 * version this node was never given; nothing changes). */
int sg_rollback(sg_node *node, uint64_t version);

/* Keeps the handle's memory valid until the matching sg_node_release, even
 * past sg_node_destroy: checked calls on a held, destroyed node return
 * SG_ESTALE, and no node created meanwhile can take its address. For logs
 * that keep handles longer than their owners may live (a binding's undo log
 * calls sg_rollback later). Holds nest. Any thread.
 * Errors: SG_EINVAL (NULL), SG_ESTALE (already destroyed: not held). */
int sg_node_hold(sg_node *node);
/* The hold without the door, for a binding that knows the node is live. */
void sg_node_hold_unchecked(sg_node *node);
/* Ends one hold. A destroyed node's memory and context go with the last.
 * Errors (nothing released): SG_EINVAL (NULL), SG_ENOTHELD (no hold is
 * open on the node: a live node is never freed by a stray release),
 * SG_ESTALE (no node's memory is at that address any more). */
int sg_node_release(sg_node *node);
/* sg_node_release() without the door, for a binding that pairs every hold
 * with one release. A release without a hold is undefined behaviour. */
void sg_node_release_unchecked(sg_node *node);

/* -------------------------------------------------------------- untracked */

/* Between these calls, reads inside the running callback are not recorded
 * as sources (outside callbacks they change nothing). Sections nest. A
 * section belongs to the callback that opened it (or to the thread outside
 * any callback): end it in the same place. */
void sg_untracked_begin(void);

/* Errors: SG_EUNTRACKED when no section is open in the same place
 * (nothing happens then). */
int sg_untracked_end(void);

/* The node whose callback is running on this thread, or NULL outside
 * callbacks. Not an error when NULL. */
sg_node *sg_current(void);

/* --------------------------------------------------------------- watchers */

/* Watchers bridge the graph to another observation system (a binding's
 * own change notifications). sg_node_set_watcher() gives
 * a computed node a watcher callback (NULL removes it), called with the
 * node's context. sg_node_arm() arms it once: after the next outermost write
 * or batch that reaches the node, the watcher runs on the writing thread
 * (no lock held) to say the value may have changed. The node is not
 * recomputed for it, so computed nodes stay lazy; a node that a read
 * meanwhile found unchanged is not reported. Then the watcher is disarmed
 * until armed again. Arming an armed node is a cheap no-op (an atomic load);
 * arming a node that is already stale reports it when this thread's
 * outermost operation ends (at once, outside any).
 * Errors: SG_EINVAL, SG_ESTALE, SG_EKIND (not a computed node). */
int sg_node_set_watcher(sg_node *node, sg_callback watcher);
int sg_node_arm(sg_node *node);

/* sg_node_arm() without the door (and without the kind check: arming a
 * node that has no watcher does nothing). */
int sg_node_arm_unchecked(sg_node *node);

/* ------------------------------------------------- for language bindings */

/* The calls below exist for a language binding (the Swift wrapper is one):
 * a layer that owns every handle it passes and keeps per-thread state of
 * its own. A C program that uses the graph directly does not need them. */

/* The version without the door, for a binding's transaction log. Takes no
 * lock: an acquire load of the version every change publishes. Read under
 * the lock that guards a stored node's value, it names that value; a
 * computed node's version moves once its run has returned, so read during
 * the run it names the value the run replaces. */
uint64_t sg_node_version_unchecked(sg_node *node);

/* Outside callbacks: sg_read() and sg_node_arm() under one lock, so no
 * write can slip between reading the value and arming the watcher; returns
 * SG_READ_WATCHED when the node has a watcher (armed now), else 0 (for a
 * node that is not computed: sg_read_unchecked()); an up-to-date node that
 * is armed already, or has no watcher, is read without the lock. SG_READ_WATCHED also
 * says that whatever the binding stored before sg_node_set_watcher() is
 * visible to this thread. Inside a callback it is sg_read_unchecked() and
 * returns 1, as sg_read_where_unchecked() does: one call for a binding
 * that arms only outside callbacks. No door (see CHECKED AND UNCHECKED
 * CALLS). Errors: as sg_read(). */
enum { SG_READ_WATCHED = 2 };
int sg_read_arm_unchecked(sg_node *node);

/* sg_read_unchecked() that also says where it ran: 1 inside a callback (as
 * sg_current() would say: the read is the running node's dependency unless
 * made in an untracked section), 0 outside one, or an error as sg_read().
 * One call for a binding that treats reads outside callbacks differently
 * (registers them with an observation system of its own). No door. */
int sg_read_where_unchecked(sg_node *node);

/* sg_changed() in two steps, for a binding that keeps each value under a
 * lock of its own and wants the version to move in the same step as the
 * value, so that a version it logs always names the value beside it:
 *
 *   lock(v); v->value = x; sg_write_begin_unchecked(s); unlock(v);
 *   sg_write_end();
 *
 * sg_write_begin_unchecked() refuses the write or moves the version and
 * marks dependents, like sg_changed(), but runs no callback: the binding
 * may hold its lock across it (taking the graph lock inside its own, as in
 * a batch). sg_write_end() then runs the effects the write reached, when
 * this is the thread's outermost operation; call it on the same thread,
 * once the lock is let go, after every begin (also a refused one). Begins
 * may come before their ends (a binding holding two locks): the first end
 * runs what all of them reached, and closes their traced writes.
 * No door, no kind check. Errors: as sg_changed(). */
int sg_write_begin_unchecked(sg_node *stored);
int sg_write_end(void);

/* One pointer per thread that a language binding may use for its own
 * per-thread state (a transaction log, say). The library never reads it.
 * Never NULL. */
void **sg_binding_slot(void);

/* Sets, for all threads, what frees a binding slot's value when its thread
 * exits (called on the exiting thread with the value, when it is not NULL,
 * before the library's own state of that thread goes; it may call any
 * function here). NULL: the value is left alone, as by default. Call it
 * once, before threads exit. */
void sg_binding_slot_set_destructor(void (*destroy)(void *value));

/* Nonzero while the process has one thread, so that nothing else can look
 * at a lock word: a binding's own locks may then take and let go with plain
 * stores, as the graph lock does. Read where the lock is taken or let go,
 * never cached: it turns 0 when this thread makes a second one and never
 * comes back, so a lock taken plainly and let go after that uses the atomic
 * path (and wakes a thread that came to wait meanwhile). glibc keeps the
 * flag; elsewhere this is always 0. Inline, so a lock pays a load. */
#if defined(__GLIBC__) && \
    (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
#include <sys/single_threaded.h>
static inline int sg_process_is_single_threaded(void) {
  return __libc_single_threaded != 0;
}
#else
static inline int sg_process_is_single_threaded(void) { return 0; }
#endif

/* Copies `size` bytes with relaxed atomic loads and stores, a word at a time
 * where both ends are aligned to one, for a binding's versioned reads: a
 * reader copies a plain value (no references in it) without taking the
 * value's lock and keeps the copy only if a version it reads before and
 * after says no writer held the lock meanwhile; writers store the value
 * this way too, so the copy a reader throws away was no data race. The word
 * forms are the same for a value of one aligned 8-byte word. */
static inline void sg_copy_relaxed(void *to, const void *from, size_t size) {
  unsigned char *d = (unsigned char *)to;
  const unsigned char *s = (const unsigned char *)from;
  if ((((uintptr_t)d | (uintptr_t)s) & (sizeof(uint64_t) - 1)) == 0) {
    for (; size >= sizeof(uint64_t); size -= sizeof(uint64_t)) {
      __atomic_store_n((uint64_t *)d, __atomic_load_n((const uint64_t *)s, __ATOMIC_RELAXED),
                       __ATOMIC_RELAXED);
      d += sizeof(uint64_t);
      s += sizeof(uint64_t);
    }
  }
  for (; size > 0; size--)
    __atomic_store_n(d++, __atomic_load_n(s++, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
}

static inline uint64_t sg_load_word_relaxed(const void *from) {
  return __atomic_load_n((const uint64_t *)from, __ATOMIC_RELAXED);
}

static inline void sg_store_word_relaxed(void *to, uint64_t word) {
  __atomic_store_n((uint64_t *)to, word, __ATOMIC_RELAXED);
}

/* ----------------------------------------------------------------- cycles */

/* After a call on this thread returned SG_ECYCLE: a description of the
 * cycle, one node per step in read order, ending where it started, e.g.
 * "a (model.c:10) -> b (model.c:11) -> a (model.c:10)" (unnamed nodes show
 * as "(unnamed)", the place only when a file was given). Per thread; valid
 * until the next cycle found on this thread; "" when none was. Never NULL. */
const char *sg_last_cycle(void);

/* ---------------------------------------------------------- introspection */

/* A node as it was at one moment (sg_node_describe). */
typedef struct sg_node_description {
  uint64_t id;     /* unique in the process, never reused; see sg_node_check */
  sg_graph *graph; /* the graph it belongs to */
  sg_kind kind;
  sg_state state;
  const char *name; /* from sg_node_info or sg_node_set_name ("" when none); */
  const char *file; /* valid for the life of the process */
  int line;
  uint64_t version;       /* see sg_node_version */
  uint64_t run_count;     /* compute/effect callback runs, failed ones too */
  size_t source_count;    /* nodes its last run read */
  size_t dependent_count; /* nodes whose last run read it */
} sg_node_description;

/* Fills *out with a consistent snapshot of the node (taken under the graph
 * lock, so never half before and half after a write). Cost: the door, the
 * graph lock, and a walk over the node's edges. Any thread, also inside
 * callbacks. Errors (*out untouched): SG_EINVAL (a NULL argument),
 * SG_ESTALE. */
int sg_node_describe(sg_node *node, sg_node_description *out);

/* Copies up to `max` handles of the node's sources (in the order its last
 * run read them) or dependents (in the order their edges were made) into
 * `out`, and stores in *count how many there are in all (which may exceed
 * `max`: call with max 0 and out NULL to size a buffer). Destroyed nodes
 * are never listed. The handles may go stale as soon as this returns if
 * other threads destroy nodes. Any thread, also inside callbacks.
 * Errors (nothing written): SG_EINVAL (node or count NULL, or out NULL with
 * max > 0), SG_ESTALE. */
int sg_node_sources(sg_node *node, sg_node **out, size_t max, size_t *count);
int sg_node_dependents(sg_node *node, sg_node **out, size_t max, size_t *count);

/* Whether `node` names a live node: SG_OK, or SG_ESTALE once it was
 * destroyed. With a non-zero `id` (from sg_node_describe), SG_OK only when
 * it is still that very node — the check that is safe against a
 * destroyed node's slot being given to a new one. id 0 accepts any live
 * node. Any thread. Errors: SG_EINVAL (NULL), SG_ESTALE. */
int sg_node_check(sg_node *node, uint64_t id);

/* The memory the library holds for nodes, in bytes: `in_use` by nodes not
 * yet freed (a destroyed node is freed once nothing holds it), `reserved`
 * in all. Node memory is kept for new nodes, never returned to the system
 * (see CHECKED AND UNCHECKED CALLS), so a heap measure alone misses what
 * nodes cost once slots are reused. Either pointer may be NULL. Any thread. */
void sg_node_memory(size_t *in_use, size_t *reserved);

/* Gives the node a new debug name (copied; NULL means none), shown from now
 * on in descriptions, snapshots, DOT, traces and cycle reports. A binding
 * uses it to qualify names it learns after creation ("Cart.total" for the
 * `total` property of a `Cart`). Names handed out before stay valid until
 * the node is destroyed: renaming keeps them. Any thread.
 * Errors: SG_EINVAL (NULL node), SG_ESTALE, SG_ENOMEM. */
int sg_node_set_name(sg_node *node, const char *name);

/* Stored nodes are created without a context. This gives one a context
 * pointer for your own use: snapshot visitors receive it (see
 * sg_snapshot_graph), so a program can describe the value it stands for.
 * The graph never frees it (stored nodes have no destroy callback); it must
 * stay valid until the node is destroyed. Any thread.
 * Errors: SG_EINVAL (NULL node), SG_ESTALE, SG_EKIND (not a stored node). */
int sg_stored_set_context(sg_node *stored, void *context);

/* sg_stored_set_context() without the door and without the kind check. */
void sg_stored_set_context_unchecked(sg_node *stored, void *context);

/* -------------------------------------------------------------- snapshots */

/* A snapshot is a copy of many nodes and the edges between them, all taken
 * at one moment under the graph lock, so it never mixes before and after a
 * write. It owns all its memory and holds no node: read it at leisure, on
 * any thread, and free it with sg_snapshot_free(). */
typedef struct sg_snapshot sg_snapshot;

/* One node of a snapshot. */
typedef struct sg_snapshot_entry {
  sg_node *node; /* its handle: stale once the node is destroyed; the id
                    tells (sg_node_check(node, id)) */
  uint64_t id;
  sg_kind kind;
  sg_state state;
  const char *name; /* copies owned by the snapshot ("" when none) */
  const char *file;
  int line;
  const char *value;  /* NULL unless a visitor set one (sg_snapshot_set_value) */
  uint64_t version;   /* see sg_node_version */
  uint64_t run_count; /* compute/effect callback runs, failed ones too */
  size_t source_count;   /* sources that are in the snapshot too, */
  const size_t *sources; /* as indices into the entries, in read order */
} sg_snapshot_entry;

/* Called once per node while a snapshot is taken, after the graph lock was
 * released, with the node's index in the snapshot and the context it was
 * created with (or given: sg_stored_set_context; NULL when none). Its job is
 * to describe the value the node stands for, with sg_snapshot_set_value(),
 * or to copy what it needs to describe it later.
 *
 * While it runs, the node is not destroyed: sg_node_destroy() of it on
 * another thread waits until every visitor running for it returns (two
 * threads' snapshots, or a visitor's own nested snapshot, may visit one
 * node at once). So a context is valid
 * here even when no destroy callback owns it. Keep the visitor short, do
 * not wait for other threads in it, and do not destroy the node (that would
 * free the context under it). Other calls are allowed: no lock is held. Not
 * called for nodes destroyed between the copy and the visit. */
typedef void (*sg_snapshot_visitor)(sg_snapshot *snapshot, size_t index, void *context,
                                    void *user);

/* Which part of the graph sg_snapshot_around() takes, besides the node
 * itself: what it reads, transitively; what reads it, transitively; or both
 * (the union of the two, not the whole connected component). */
typedef enum sg_direction {
  SG_UPSTREAM = 1,
  SG_DOWNSTREAM = 2,
  SG_BOTH = SG_UPSTREAM | SG_DOWNSTREAM
} sg_direction;

/* Snapshots every live node of `graph`, ordered by id (that is, creation
 * order), each with its sources in read order. `visit` (may be NULL) runs
 * once per node, see sg_snapshot_visitor, with `user` passed through.
 * Cost: O(nodes + edges) under the graph lock, plus one short lock per node
 * when visiting. Any thread, also inside callbacks.
 * Errors (*out untouched): SG_EINVAL (graph or out NULL), SG_ESTALE (freed
 * graph), SG_ENOMEM. */
int sg_snapshot_graph(sg_graph *graph, sg_snapshot_visitor visit, void *user,
                      sg_snapshot **out);

/* Like sg_snapshot_graph() for the part of the node's graph that
 * `direction` names, the node included. Edges to nodes outside that part
 * are left out (a downstream node's other sources, say).
 * Errors: as sg_snapshot_graph; SG_EINVAL also for a direction that is none
 * of SG_UPSTREAM, SG_DOWNSTREAM, SG_BOTH. */
int sg_snapshot_around(sg_node *node, sg_direction direction, sg_snapshot_visitor visit,
                       void *user, sg_snapshot **out);

/* The entries, ordered by id; stores their number in *count. Never NULL
 * (an empty snapshot answers a pointer to no entries and count 0). The
 * pointers inside stay valid until sg_snapshot_free. */
const sg_snapshot_entry *sg_snapshot_entries(const sg_snapshot *snapshot, size_t *count);

/* Sets (copies) the description of entry `index`'s value; NULL clears it.
 * Not thread-safe: call it from the visitor or from the one thread that
 * owns the snapshot. Errors: SG_EINVAL (NULL snapshot, index out of
 * range). */
int sg_snapshot_set_value(sg_snapshot *snapshot, size_t index, const char *value);

/* Frees a snapshot. NULL is allowed. */
void sg_snapshot_free(sg_snapshot *snapshot);

/* -------------------------------------------------------------------- DOT */

/* Writes the snapshot as a Graphviz DOT digraph to `out`: one vertex per
 * entry (n0, n1, ... in entry order) labelled with its name, value (when
 * set; cut at 40 characters), kind, state, run count and source place; one
 * edge per source, from the source to the node that read it, in entry and
 * read order (data flows top down). Same snapshot, same bytes. Stored nodes
 * are light blue boxes, computed ones white rounded boxes, effects light
 * purple ellipses; a CHECK node is filled yellow, a DIRTY one red. Render
 * with `dot -Tpng graph.dot -o graph.png`.
 * Errors: SG_EINVAL (a NULL argument). Write errors are the stream's to
 * report: check ferror(out) (and fclose's result). */
int sg_snapshot_write_dot(const sg_snapshot *snapshot, FILE *out);

/* sg_snapshot_graph() without visitor, sg_snapshot_write_dot(), and
 * sg_snapshot_free(): the whole graph as DOT in one call.
 * Errors: as those calls. */
int sg_graph_write_dot(sg_graph *graph, FILE *out);

/* ---------------------------------------------------------------- tracing */

/* Tracing records, for every write, the chain of work it caused: which
 * nodes became DIRTY or CHECK, which were recomputed and whether their
 * value changed, which were cut off by equality, which effects ran and
 * which watchers were told. It is per thread (it sees this thread's work,
 * including effects run for its writes, not other threads'), off by
 * default, and costs nothing measurable when off: the core tests one flag
 * per call that starts or refreshes work (not per node), and the per-node
 * loops are compiled twice, so the untraced copy has no trace code at all.
 *
 * A CHAIN is a tree of events in depth-first order; `depth` 0 is its root.
 * For a → b = sign(a), a → c = a / 10, d = b + c and an effect e reading d,
 * the write a = 15 (from 1) gives:
 *
 *   write a (model.c:1)          SG_TRACE_WRITE: sg_changed(a)
 *     b: dirty                   SG_TRACE_MARK: b reads a
 *     c: dirty                     (c reads a too)
 *       d: check                   d reads c (and b: marked once)
 *         e: check                 effect e reads d
 *     e: ran                     SG_TRACE_UPDATE: e ran after the write,
 *       d: recomputed, changed     which needed d up to date, which
 *         b: recomputed, unchanged (cut off)   needed b (equal value)
 *         c: recomputed, changed               and c
 *
 * Roots are the calls that start work: sg_changed (write), sg_rollback,
 * sg_node_destroy (dependents become DIRTY), a read outside callbacks that
 * finds its node stale (read), sg_effect_new (create) and the outermost
 * sg_batch_end (end of batch: the batch's effects). Work done inside a
 * callback nests under the node whose callback it is. */
typedef struct sg_trace sg_trace;

typedef enum sg_trace_kind {
  SG_TRACE_WRITE = 0,     /* root: sg_changed() */
  SG_TRACE_ROLLBACK = 1,  /* root: sg_rollback() */
  SG_TRACE_DESTROY = 2,   /* root: sg_node_destroy() */
  SG_TRACE_READ = 3,      /* root: a read outside callbacks found the node stale */
  SG_TRACE_CREATE = 4,    /* root: sg_effect_new() and its first run */
  SG_TRACE_BATCH_END = 5, /* root: the outermost sg_batch_end() (no node) */
  SG_TRACE_MARK = 6,      /* the node became `state` (DIRTY or CHECK) */
  SG_TRACE_UPDATE = 7,    /* a stale node was brought up to date: `result` */
  SG_TRACE_WATCHER = 8    /* the node's watcher was told it may have changed */
} sg_trace_kind;

/* How an SG_TRACE_UPDATE ended. */
typedef enum sg_trace_result {
  SG_TRACE_ABANDONED = 0, /* not finished: a source failed or formed a cycle */
  SG_TRACE_FIRST_RUN = 1, /* a computed ran for the first time */
  SG_TRACE_CHANGED = 2,   /* a computed ran and answered SG_CHANGED */
  SG_TRACE_UNCHANGED = 3, /* ...answered SG_UNCHANGED: cut off, its dependents
                             are not recomputed for it */
  SG_TRACE_VERIFIED = 4,  /* CHECK, and no source had changed: not run */
  SG_TRACE_RAN = 5,       /* an effect ran */
  SG_TRACE_FAILED = 6     /* the callback failed */
} sg_trace_result;

/* One event. Strings are copies owned by the trace. */
typedef struct sg_trace_event {
  sg_trace_kind kind;
  int depth;        /* 0 for a root; an event's children follow it */
  uint64_t node_id; /* 0 for SG_TRACE_BATCH_END */
  sg_kind node_kind;
  const char *name; /* "" when the node has none */
  const char *file;
  int line;
  sg_state state;         /* SG_TRACE_MARK: the state given */
  sg_trace_result result; /* SG_TRACE_UPDATE */
} sg_trace_event;

/* Receives each chain when its root's call returns, on the traced thread,
 * with no lock held. The events are valid during the call only (they stay
 * in the trace too). It may call any function here. */
typedef void (*sg_trace_handler)(const sg_trace_event *chain, size_t count, void *user);

/* Starts tracing this thread. `handler` (may be NULL) receives each chain as
 * it completes; the trace keeps every event either way. Call it outside
 * callbacks. Errors: SG_EBUSY (this thread is already tracing, or a callback
 * is running on it), SG_ENOMEM. */
int sg_trace_begin(sg_trace_handler handler, void *user);

/* Stops tracing this thread and hands over the recording in *out (free it
 * with sg_trace_free). Call it outside callbacks, at the level of the
 * sg_trace_begin. Errors (nothing stops): SG_EINVAL (out NULL), SG_ENOTRACE
 * (this thread is not tracing), SG_EBUSY (inside a callback). */
int sg_trace_end(sg_trace **out);

/* The recorded events, chains one after another; stores their number in
 * *count. Never NULL. Valid until sg_trace_free. */
const sg_trace_event *sg_trace_events(const sg_trace *trace, size_t *count);

/* Writes events as an indented tree, one line each, two spaces per depth
 * (the form shown above; unnamed nodes show as "(unnamed)", roots show
 * their source place when they have one). Works on a whole trace or on a
 * chain a handler received. Errors: SG_EINVAL (out NULL, or events NULL
 * with count > 0). Write errors: check ferror(out), as for DOT. */
int sg_trace_write(const sg_trace_event *events, size_t count, FILE *out);

/* Frees a trace. NULL is allowed. */
void sg_trace_free(sg_trace *trace);

#ifdef __cplusplus
}
#endif

#endif /* STATEGRAPH_H */
