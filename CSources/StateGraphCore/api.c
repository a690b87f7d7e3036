/*
 * api.c — the public entry points: graphs, nodes, reads, writes, batches,
 * untracked sections and the binding calls (introspection, snapshots, DOT
 * and tracing keep theirs in their own files). Each checked one validates its arguments at the door
 * (sg__enter: NULL, stale) and pins the node for the length of the call, so
 * a destroy on another thread cannot free it underneath; then it trusts the
 * internal functions, which assume valid, live handles. The *_unchecked
 * variants skip the door: they are for bindings that own their handles.
 *
 * The calls that start work open a trace root when this thread traces
 * (trace.c): under the lock, where the node's name is safe to copy, and
 * closed after the flush, with no lock held, since closing a root may hand
 * its chain to the user's handler. The hot ones (reads, writes) are written
 * once and instantiated with and without a recording, like propagate.c.
 */
#include "sg_internal.h"

const char *sg_version(void) { return SG_VERSION_STRING; }

const char *sg_strerror(int code) {
  switch (code) {
  case SG_OK: return "success";
#define SG__CASE(name, value, message) \
  case name: return message;
    SG_ERRORS(SG__CASE)
#undef SG__CASE
  default: return "unknown error";
  }
}

/* ---------------------------------------------------------------- graphs */

sg_graph *sg_graph_new(void) { return sg__graph_new(); }

int sg_graph_free(sg_graph *g) {
  if (!g) return SG_EINVAL;
  if (!sg__registry_has_graph(g)) return SG_ESTALE;
  sg__graph_lock(g);
  /* A destroyed node may still sit in some thread's effect queue (a batch
   * not ended yet): freeing now would leave that queue a dangling graph. */
  if (g->live > 0 || g->allocated > 0) {
    sg__graph_unlock(g);
    return SG_EBUSY;
  }
  sg__registry_remove_graph(g); /* from here on the handle is stale */
  sg__graph_unlock(g);          /* frees what the graveyard still holds */
  sg__graph_retire(g);
  return SG_OK;
}

/* ------------------------------------------------------------- creation */

/* A node is reachable through the door only once it is whole: a checked
 * call through a stale handle may find its slot at any moment (the slot of
 * a destroyed node is handed out again), so the first reference is
 * published last, under the graph lock, after the callbacks are set and the
 * node is in the live list (docs/core-protocol.md, "Lifetime"). */
static int create(sg_graph *g, sg_kind kind, const sg_node_info *info, sg_callback cb,
                  void *ctx, sg_destroy destroy, sg_node **out) {
  if (!g || !out || (kind != SG_STORED && !cb)) return SG_EINVAL;
  if (!sg__registry_has_graph(g)) return SG_ESTALE;
  sg_node *n = sg__node_new(g, kind, info);
  if (!n) return SG_ENOMEM;
  n->context = ctx;
  if (kind != SG_STORED) { /* past a stored node's slot */
    n->callback = cb;
    n->destroy = destroy;
  }
  sg_thread *t = sg__thread();
  sg__point("create: before the graph lock");
  sg__graph_lock(g);
  /* An effect made by another effect's run belongs to it: it runs after it
   * when one change reaches both (schedule.c). */
  sg_node *running = t->frame ? t->frame->node : NULL;
  if (kind == SG_EFFECT && running && running->kind == SG_EFFECT && running->graph == g) {
    n->parent = running;
    sg__ref(running);
  }
  g->live++;
  g->allocated++;
  sg__live_insert(n);
  sg__registry_publish_node(n);
  /* An effect's first run takes the lock again (sg_effect_new_owned): a
   * snapshot's handle may destroy it meanwhile, on another thread, so the
   * creating call keeps its memory until then. */
  if (kind == SG_EFFECT) sg__ref(n);
  sg__graph_unlock(g);
  *out = n;
  return SG_OK;
}

int sg_stored_new(sg_graph *g, const sg_node_info *info, sg_node **out) {
  return create(g, SG_STORED, info, NULL, NULL, NULL, out);
}

int sg_computed_new(sg_graph *g, const sg_node_info *info, sg_callback compute,
                    void *ctx, sg_destroy destroy, sg_node **out) {
  return create(g, SG_COMPUTED, info, compute, ctx, destroy, out);
}

int sg_effect_new(sg_graph *g, const sg_node_info *info, sg_callback run, void *ctx,
                  sg_destroy destroy, sg_node **out) {
  return sg_effect_new_owned(g, info, run, ctx, destroy, NULL, out);
}

/* An owner named here replaces the running effect as the parent; its stale
 * owners run first, or the first run waits for an owner's run elsewhere
 * (schedule.c, sg__run_owners_first). */
int sg_effect_new_owned(sg_graph *g, const sg_node_info *info, sg_callback run, void *ctx,
                        sg_destroy destroy, sg_node *owner, sg_node **out) {
  int rc = create(g, SG_EFFECT, info, run, ctx, destroy, out);
  if (rc < 0) return rc;
  sg_node *n = *out;
  sg_thread *t = sg__thread();
  sg_trace *trace = t->trace;
  sg__graph_lock(g);
  bool deferred = false;
  if (owner && !n->destroyed && owner != n->parent && owner->kind == SG_EFFECT &&
      owner->graph == g && !owner->destroyed) {
    if (n->parent) sg__unref(n->parent);
    n->parent = owner;
    sg__ref(owner);
  }
  int span = trace ? sg__trace_open(trace, SG_TRACE_CREATE, n) : -1;
  /* create()'s reference: an owner run first may destroy it too */
  if (owner && n->parent && !n->destroyed) deferred = sg__run_owners_first(t, n);
  rc = deferred || n->destroyed ? SG_OK : sg__refresh(t, n);
  sg__unref(n);
  sg__graph_unlock(g);
  int flushed = sg__flush_if_outermost(t);
  if (trace) sg__trace_close(trace, span);
  return rc < 0 ? SG_ECALLBACK : flushed;
}

int sg_node_destroy(sg_node *n) {
  int rc = sg__enter(n);
  if (rc < 0) return rc;
  sg_graph *g = n->graph;
  sg_thread *t = sg__thread();
  sg_trace *trace = t->trace;
  int span = -1;
  sg__graph_lock(g);
  /* The graveyard is empty whenever the lock is taken (every unlock and
   * every wait frees it first), so the visitor wait below lets go of the
   * lock with nothing of ours left unfreed. */
  rc = G_UNLIKELY(n->visits != NULL) ? sg__wait_for_visitors(t, n) : SG_OK;
  if (rc == SG_OK && n->destroyed) rc = SG_ESTALE; /* lost a race with another destroy */
  if (rc == SG_OK) {
    if (trace) span = sg__trace_open(trace, SG_TRACE_DESTROY, n);
    sg__destroy_locked(n);
  }
  sg__graph_unlock(g);
  sg__flush_if_outermost(t);
  if (span >= 0) sg__trace_close(trace, span);
  sg__unpin(n); /* usually the last reference: the destroy callback runs here */
  return rc;
}

/* -------------------------------------------------------------- reading */

static void arm_locked(sg_node *n);

/* A read after the checks: brings n up to date, then records the read (in
 * a callback) or, with `arm`, arms n's watcher. Outside callbacks, a traced
 * read that finds n stale is a READ root. */
SG_INLINE int read_node(sg_thread *t, sg_node *n, bool arm, sg_trace *trace) {
  sg_graph *g = n->graph;
  sg__graph_lock(g);
  int rc = SG_OK, span = -1;
  if (n->destroyed) {
    rc = SG_ESTALE;
  } else if (!sg__settled(n)) {
    if (trace) span = sg__trace_open(trace, SG_TRACE_READ, n);
    rc = sg__refresh(t, n);
  }
  /* Another thread may have destroyed n while we brought it up to date (or
   * waited for it): a link to it would hold a node that is already on the
   * graveyard, to be freed at the unlock below. */
  if (rc == SG_OK && n->destroyed) rc = SG_ESTALE;
  if (rc == SG_OK && arm) {
    if (!SG_PEEK(n->armed)) arm_locked(n);
    if (n->watcher) rc = SG_READ_WATCHED;
  } else if (rc == SG_OK) {
    rc = sg__track(t, n);
  }
  sg__graph_unlock(g);
  sg__flush_if_outermost(t); /* effects reached by writes inside callbacks */
  if (trace && span >= 0) sg__trace_close(trace, span);
  return rc;
}

/* Out of line, so that the callers' fast paths keep a small frame (an
 * inlined copy costs registers). */
static __attribute__((noinline)) int read_traced(sg_thread *t, sg_node *n, bool arm) {
  return read_node(t, n, arm, t->trace);
}

static __attribute__((noinline)) int read_locked(sg_thread *t, sg_node *n, bool arm) {
  return read_node(t, n, arm, NULL);
}

/* Whether n may be used as is, seen without the lock. The fields are
 * published by release stores, so seeing a computed node clean and unowned
 * means its run is over and its value stored: a version seen afterwards is
 * never newer than the value the binding reads next. (A write may make it
 * stale right after: the read then simply happened before the write.) */
static inline bool fresh_unlocked(const sg_node *n) {
  sg__point("lock-free freshness check");
  if (n->kind != SG_STORED &&
      (SG_PEEK(n->state) != SG_CLEAN || SG_PEEK(n->owner) || !SG_PEEK(n->has_run)))
    return false;
  return !SG_PEEK(n->destroyed);
}

/* A source this run read already, among the first few links: they are
 * the run's reads so far, stamped with its epoch, in the order it made
 * them (a read out of the last run's order moves its link before the
 * cursor). A node with more sources has an index: the locked path uses it. */
static bool read_before_in_this_run(sg_frame *f, sg_node *n) {
  int looked = 0;
  for (sg_link *l = f->node->sources_head; l != f->cursor; l = l->next_source) {
    if (l->epoch != f->epoch || ++looked > SG_INDEX_THRESHOLD) return false;
    if (l->source == n) {
      if (!fresh_unlocked(n)) return false;
      sg__remember(f, n);
      return true;
    }
  }
  return false;
}

/* A callback's read of an up-to-date node that its last run read at the
 * same point, or that this run read already: the common cases of a re-run,
 * and lock-free. While the frame's node runs, only this thread touches its
 * source links (it owns the node: destroy and verification leave them
 * alone). A write that makes the source stale right after marks the running
 * node through its link: it runs again. Always inlined: where the caller
 * tested the cursor already, only the first branch is left. */
SG_INLINE bool read_fast(sg_frame *f, sg_node *n) {
  if (f->untracked) return false;
  sg_link *l = f->cursor;
  if (l && l->source == n) {
    if (!fresh_unlocked(n)) return false;
    l->seen_version = SG_PEEK(n->version);
    l->epoch = f->epoch;
    f->cursor = l->next_source;
    return true;
  }
  /* The same node read again right away (`x * x`, a loop over one source):
   * the link just stamped already says so. */
  sg_link *last = l;
  if (!last && !(last = f->node->sources_head)) return false;
  last = last->prev_source; /* the head's is the tail */
  if (last->source == n && last->epoch == f->epoch) {
    if (!fresh_unlocked(n)) return false;
    sg__remember(f, n);
    return true;
  }
  return read_before_in_this_run(f, n);
}

/* A source this run read already and then found again off its cursor (the
 * read again right away, or out of order), one of the last two such: their
 * links hold them (so n is compared before it is dereferenced) and are
 * stamped already. In an untracked section too: nothing is left to record.
 * Reads at the cursor leave the memo alone, so a re-run that reads in its
 * last order pays nothing for it. */
SG_INLINE bool read_recent(sg_frame *f, sg_node *n) {
  return (f->recent[0] == n || f->recent[1] == n) && fresh_unlocked(n);
}

/* A re-run's read of the source at its cursor (the common case), or of one
 * in its memo: the link that holds n is known, so n is in the frame's graph
 * and is no effect (nobody reads one), and is compared before it is
 * dereferenced. */
SG_INLINE bool read_known_source(sg_frame *f, sg_node *n) {
  return (f->cursor && f->cursor->source == n && read_fast(f, n)) || read_recent(f, n);
}

/* A callback's re-read of the source its last run read at this point, or
 * of one of the last two it found off its cursor, needs no door: the
 * pointer equals one a link of the running node holds, and the link's
 * reference keeps that node's memory (only this thread, which owns the
 * running node, may drop the link; destroying the source drops it from the
 * memo too). Compared before n is dereferenced. */
int sg_read(sg_node *n) {
  sg_thread *t = sg__current;
  sg_frame *f = t ? t->frame : NULL;
  if (f && read_known_source(f, n)) return SG_OK;
  int rc = sg__enter(n);
  if (rc < 0) return rc;
  rc = sg_read_unchecked(n);
  sg__unpin(n);
  return rc;
}

SG_INLINE int read_in(sg_thread *t, sg_frame *f, sg_node *n) {
  if (f && read_known_source(f, n)) return SG_OK; /* the tests below answered already */
  if (n->kind == SG_EFFECT) return SG_EKIND;
  if (!f) {
    if (fresh_unlocked(n)) return SG_OK; /* nothing to bring up to date or record */
    if (G_UNLIKELY(t->trace != NULL)) return read_traced(t, n, false);
  } else if (f->node->graph != n->graph) {
    return SG_EGRAPH;
  } else if (read_fast(f, n)) {
    return SG_OK;
  }
  return read_locked(t, n, false);
}

int sg_read_unchecked(sg_node *n) {
  sg_thread *t = sg__thread();
  return read_in(t, t->frame, n);
}

int sg_read_where_unchecked(sg_node *n) {
  sg_thread *t = sg__thread();
  sg_frame *f = t->frame;
  int rc = read_in(t, f, n);
  return rc < 0 ? rc : f != NULL;
}

/* -------------------------------------------------------------- writing */

int sg_changed(sg_node *n) {
  int rc = sg__enter(n);
  if (rc < 0) return rc;
  rc = n->kind == SG_STORED ? sg_changed_unchecked(n) : SG_EKIND;
  sg__unpin(n);
  return rc;
}

/* A computation that writes a node it depends on, directly or through
 * other nodes, would run again for its own write, without end: refused as
 * a cycle (docs/core-protocol.md, "Effects"). Under the lock; n is written
 * from inside a callback. Searches n's dependents (the links of their last
 * runs, and of running ones so far) for a computed running on this thread;
 * only writes made inside a running compute pay for the search. */
static bool written_by_its_reader(sg_thread *t, sg_node *n) {
  if (!n->dependents_head) return false; /* nobody reads it: nothing to search */
  bool computing = false;
  for (sg_frame *f = t->frame; f && !computing; f = f->parent)
    computing = f->node->kind == SG_COMPUTED && f->node->graph == n->graph;
  if (!computing) return false;
  GHashTable *reached_from = g_hash_table_new(g_direct_hash, g_direct_equal);
  GPtrArray *todo = g_ptr_array_new();
  g_ptr_array_add(todo, n);
  sg_node *reader = NULL;
  for (guint i = 0; i < todo->len && !reader; i++) {
    sg_node *x = todo->pdata[i];
    for (sg_link *l = x->dependents_head; l && !reader; l = l->next_dependent) {
      sg_node *y = l->target;
      if (y == n || g_hash_table_contains(reached_from, y)) continue;
      g_hash_table_insert(reached_from, y, x);
      if (y->kind == SG_COMPUTED && y->running && y->owner == t) reader = y;
      else g_ptr_array_add(todo, y);
    }
  }
  if (reader) { /* "c (f:1) writes s (f:2), which it reads through d (f:3)" */
    GString *cycle = t->last_cycle;
    g_string_truncate(cycle, 0);
    sg__append_node_label(cycle, reader);
    g_string_append(cycle, " writes ");
    sg__append_node_label(cycle, n);
    g_string_append(cycle, ", which it reads");
    const char *joint = " through ";
    for (sg_node *x = g_hash_table_lookup(reached_from, reader); x != n;
         x = g_hash_table_lookup(reached_from, x)) {
      g_string_append(cycle, joint);
      sg__append_node_label(cycle, x);
      joint = ", ";
    }
  }
  g_ptr_array_free(todo, TRUE);
  g_hash_table_destroy(reached_from);
  return reader != NULL;
}

/* The locked part of a write: refuses it, or moves the version and marks
 * dependents, running no callback. Opens the write's trace span in *span.
 * Moves marking: version, state (docs/core-protocol.md, "A node's states"). */
SG_INLINE int mark_written(sg_thread *t, sg_node *n, sg_trace *trace, int *span) {
  sg_graph *g = n->graph;
  sg__graph_lock(g);
  int refused = n->destroyed ? SG_ESTALE
              : G_UNLIKELY(t->frame && written_by_its_reader(t, n)) ? SG_ECYCLE : SG_OK;
  if (refused) {
    sg__graph_unlock(g);
    return refused;
  }
  *span = trace ? sg__trace_open(trace, SG_TRACE_WRITE, n) : -1;
  SG_PUBLISH(n->version, ++n->last_version); /* never one it had before a rollback */
  sg__mark_dependents(n, SG_DIRTY);
  sg__graph_unlock(g);
  return SG_OK;
}

static __attribute__((noinline)) int write_traced(sg_thread *t, sg_node *n) {
  sg_trace *trace = t->trace;
  int span;
  int rc = mark_written(t, n, trace, &span);
  if (rc) return rc;
  rc = sg__flush_if_outermost(t);
  sg__trace_close(trace, span);
  return rc;
}

int sg_changed_unchecked(sg_node *n) {
  sg_thread *t = sg__thread();
  if (G_UNLIKELY(t->trace != NULL)) return write_traced(t, n);
  int span;
  int rc = mark_written(t, n, NULL, &span);
  return rc ? rc : sg__flush_if_outermost(t);
}

/* The first begin that no end has followed yet opens the span that end
 * closes: later ones nest under it, so closing it closes them all. */
static __attribute__((noinline)) int write_begin_traced(sg_thread *t, sg_node *n) {
  int span;
  int rc = mark_written(t, n, t->trace, &span);
  if (rc == SG_OK && t->written_trace == NULL) {
    t->written_trace = t->trace;
    t->written_span = span;
  }
  return rc;
}

int sg_write_begin_unchecked(sg_node *n) {
  sg_thread *t = sg__thread();
  if (G_UNLIKELY(t->trace != NULL)) return write_begin_traced(t, n);
  int span;
  return mark_written(t, n, NULL, &span);
}

int sg_write_end(void) {
  sg_thread *t = sg__thread();
  sg_trace *trace = t->written_trace; /* taken first: the effects may write too */
  int span = t->written_span;
  t->written_trace = NULL;
  int rc = sg__flush_if_outermost(t);
  if (G_UNLIKELY(trace != NULL)) sg__trace_close(trace, span);
  return rc;
}

/* Moves watcher, and armed when it removes the watcher (docs/core-protocol.md,
 * "What is shared, and what guards it"). */
int sg_node_set_watcher(sg_node *n, sg_callback watcher) {
  int rc = sg__enter(n);
  if (rc < 0) return rc;
  if (n->kind == SG_COMPUTED) {
    sg__graph_lock(n->graph);
    SG_PUBLISH(n->watcher, watcher); /* read without the lock: sg_read_arm_unchecked */
    /* Armed says a watcher waits: a read that finds it armed skips the lock. */
    if (!watcher) SG_PUBLISH(n->armed, false);
    sg__graph_unlock(n->graph);
  } else {
    rc = SG_EKIND;
  }
  sg__unpin(n);
  return rc;
}

int sg_node_arm(sg_node *n) {
  int rc = sg__enter(n);
  if (rc < 0) return rc;
  rc = n->kind == SG_COMPUTED ? sg_node_arm_unchecked(n) : SG_EKIND;
  sg__unpin(n);
  return rc;
}

/* Under the lock. A node that is already stale when armed was changed by a
 * write that marking will not repeat: queue its notice now. */
/* Moves armed, armed_version (docs/core-protocol.md, "What is shared, and what guards it"). */
static void arm_locked(sg_node *n) {
  if (n->kind != SG_COMPUTED || !n->watcher || n->destroyed) return;
  n->armed_version = n->version;
  SG_PUBLISH(n->armed, true);
  if (!sg__fresh(n)) sg__enqueue(n);
}

int sg_node_arm_unchecked(sg_node *n) {
  if (SG_PEEK(n->armed)) return SG_OK; /* the common case: no lock */
  sg__graph_lock(n->graph);
  arm_locked(n);
  sg__graph_unlock(n->graph);
  sg__flush_if_outermost(sg__thread());
  return SG_OK;
}

int sg_read_arm_unchecked(sg_node *n) {
  sg_thread *t = sg__thread();
  if (t->frame) {
    int rc = read_in(t, t->frame, n);
    return rc < 0 ? rc : 1;
  }
  if (n->kind != SG_COMPUTED) return read_in(t, NULL, n);
  if (fresh_unlocked(n)) {
    /* Armed: its watcher was set before (published with `armed`). No
     * watcher: nothing to arm. A watcher set meanwhile by another thread
     * is that thread's to arm. */
    if (SG_PEEK(n->armed)) return SG_READ_WATCHED;
    if (!SG_PEEK(n->watcher)) return SG_OK;
  }
  if (G_UNLIKELY(t->trace != NULL)) return read_traced(t, n, true);
  return read_locked(t, n, true);
}

/* ---------------------------------------------------------- transactions */

/* Lock-free: every store of a version is published (docs/core-protocol.md,
 * "What is shared, and what guards it"). A binding reads a stored node's
 * under its own value lock, which every change of that node's value and
 * version holds; a computed node's moves after its run returns. */
uint64_t sg_node_version_unchecked(sg_node *n) {
  sg__point("lock-free version read");
  return SG_PEEK(n->version);
}

int sg_node_version(sg_node *n, uint64_t *version) {
  if (!version) return SG_EINVAL;
  int rc = sg__enter(n);
  if (rc < 0) return rc;
  *version = sg_node_version_unchecked(n);
  sg__unpin(n);
  return SG_OK;
}

/* Moves rollback: version, state (docs/core-protocol.md, "A node's states"). */
static int rollback_locked(sg_node *n, uint64_t version) {
  if (n->destroyed) return SG_ESTALE;
  /* Versions are handed out in order (0 is every node's first), so one
   * above the highest ever given was never this node's. */
  if (version > n->last_version) return SG_EVERSION;
  SG_PUBLISH(n->version, version);
  /* A computed node's sources are those of its last run, made mid-batch: a
   * re-check against them cannot tell whether the restored value is the one
   * they give now (it was stale before the batch, or a placeholder). Run it
   * again; the cutoff keeps dependents quiet when the value is the same. */
  if (n->kind != SG_STORED) {
    SG_PUBLISH(n->state, SG_DIRTY);
    n->must_run = true;
  }
  /* Dependents re-compare versions instead of trusting an earlier DIRTY:
   * a source that ends where it started then changes nothing. A node that
   * never ran, failed, lost a source or was rolled back stays DIRTY: its
   * links cannot tell that it must run. */
  for (sg_link *l = n->dependents_head; l; l = l->next_dependent) {
    sg_node *t = l->target;
    if (t->state == SG_DIRTY && t->has_run && !t->must_run) SG_PUBLISH(t->state, SG_CHECK);
  }
  sg__mark_dependents(n, SG_CHECK);
  return SG_OK;
}

int sg_rollback(sg_node *n, uint64_t version) {
  int rc = sg__enter(n);
  if (rc < 0) return rc;
  if (n->kind == SG_EFFECT) {
    rc = SG_EKIND; /* an effect's version means nothing to anybody */
  } else {
    sg_graph *g = n->graph;
    sg_thread *t = sg__thread();
    sg_trace *trace = t->trace;
    sg__graph_lock(g);
    int span = trace && !n->destroyed ? sg__trace_open(trace, SG_TRACE_ROLLBACK, n) : -1;
    rc = rollback_locked(n, version);
    sg__graph_unlock(g);
    sg__flush_if_outermost(t);
    if (span >= 0) sg__trace_close(trace, span);
  }
  sg__unpin(n);
  return rc;
}

/* A hold is a pin that outlives the call, counted apart so that a release
 * without a hold is told from one with (sg_node_release). */
int sg_node_hold(sg_node *n) {
  int rc = sg__enter(n);
  if (rc == SG_OK) SG_COUNT_ADD(n->holds, 1);
  return rc;
}

void sg_node_hold_unchecked(sg_node *n) {
  SG_COUNT_ADD(n->holds, 1);
  sg__ref(n);
}

int sg_node_release(sg_node *n) {
  if (!n) return SG_EINVAL;
  int rc = sg__registry_unhold(n);
  if (rc == SG_OK) sg__unpin(n);
  return rc;
}

void sg_node_release_unchecked(sg_node *n) {
  SG_COUNT_ADD(n->holds, -1);
  sg__unpin(n);
}

/* --------------------------------------------------------------- batches */

void sg_batch_begin(void) { sg__thread()->batch_depth++; }

int sg_batch_end(void) {
  sg_thread *t = sg__thread();
  if (t->batch_depth == 0) return SG_EBATCH;
  t->batch_depth--;
  sg_trace *trace = t->trace;
  /* Traced, the effects the batch's writes reached run under their own root. */
  bool rooted = trace && t->batch_depth == 0 && !t->frame && !t->flushing && t->queue.len;
  int span = rooted ? sg__trace_open(trace, SG_TRACE_BATCH_END, NULL) : -1;
  int rc = sg__flush_if_outermost(t);
  if (rooted) sg__trace_close(trace, span);
  return rc;
}

int sg_batch_depth(void) { return sg__thread()->batch_depth; }

/* ------------------------------------------------ untracked sections */

void sg_untracked_begin(void) {
  sg_thread *t = sg__thread();
  if (t->frame) t->frame->untracked++;
  else t->untracked_outside++;
}

int sg_untracked_end(void) {
  sg_thread *t = sg__thread();
  int *depth = t->frame ? &t->frame->untracked : &t->untracked_outside;
  if (*depth == 0) return SG_EUNTRACKED;
  (*depth)--;
  return SG_OK;
}

sg_node *sg_current(void) {
  sg_thread *t = sg__current;
  return t && t->frame ? t->frame->node : NULL;
}

const char *sg_last_cycle(void) { return sg__thread()->last_cycle->str; }

/* ------------------------------------------------- for language bindings */

/* The slot and its destructor live with the thread state (tracking.c). */
void **sg_binding_slot(void) { return &sg__thread()->binding_slot; }

void sg_binding_slot_set_destructor(void (*destroy)(void *value)) {
  sg__binding_slot_set_destructor(destroy);
}

/* -------------------------------------------------------- stored contexts */

void sg_stored_set_context_unchecked(sg_node *n, void *context) {
  /* Under the lock: a snapshot on another thread may be reading it. */
  sg__graph_lock(n->graph);
  n->context = context;
  sg__graph_unlock(n->graph);
}

int sg_stored_set_context(sg_node *n, void *context) {
  int rc = sg__enter(n);
  if (rc < 0) return rc;
  if (n->kind == SG_STORED) sg_stored_set_context_unchecked(n, context);
  else rc = SG_EKIND;
  sg__unpin(n);
  return rc;
}
