/*
 * schedule.c — effects and batches.
 *
 * Marking queues the effects it reaches on the writing thread (each queued
 * effect holds a reference, so destroying it meanwhile is safe). The queue
 * is drained when the thread's outermost operation ends: not inside a batch,
 * not inside a callback, not while already draining. Effects that writes
 * inside effects reach are appended and run in the same loop, so a chain of
 * effects never recurses. Each effect re-verifies its sources first, so one
 * whose inputs were cut off by equality does not run at all. An effect that
 * another thread is running is left to that thread, which runs it again:
 * a writer never waits for a handler.
 */
#include "sg_internal.h"

/* A watched computed reached by a write. It is not recomputed here (that
 * would make every watched node eager); the watcher hears "may have
 * changed", unless a read already brought the node up to date unchanged. */
static void notify_watcher(sg_thread *t, sg_node *n) {
  if (!SG_PEEK(n->armed)) return;
  /* Unchanged: stay armed. Disarming without a call would leave the watcher
   * waiting for a call that never comes (it re-arms only when called). */
  if (sg__fresh(n) && !n->owner && n->version == n->armed_version) return;
  /* Read under the lock: sg_node_set_watcher may change or remove it. */
  sg_callback watcher = n->watcher;
  if (!watcher) { /* removed while armed: nobody to tell */
    SG_PUBLISH(n->armed, false);
    return;
  }
  if (G_UNLIKELY(t->trace != NULL)) sg__trace_event(t->trace, SG_TRACE_WATCHER, n, -1);
  SG_PUBLISH(n->armed, false); /* under the lock, as arming is */
  /* The queue entry's reference keeps the context valid while it runs. */
  pthread_mutex_unlock(&n->graph->lock); /* user code: never under lock */
  watcher(n, n->context);
  sg__lock(&n->graph->lock);
}

/* Effects that re-trigger each other stop after this many runs each in one
 * flush, with SG_ECYCLE: a loop of writes, not a hang. */
#define SG_EFFECT_RUN_LIMIT 100

/* The effects run between the previous run of queue entry i's effect and
 * now: the members of the loop it is caught in, "a -> b -> a". */
static void describe_loop(sg_thread *t, uint32_t i) {
  GString *out = t->last_cycle;
  sg_node *e = t->queue.at[i];
  uint32_t from = i;
  while (from > 0 && t->queue.at[from - 1] != e) from--;
  g_string_truncate(out, 0);
  for (uint32_t j = from > 0 ? from - 1 : i; j <= i; j++) {
    sg_node *n = t->queue.at[j];
    if (n->kind != SG_EFFECT) continue;
    if (out->len) g_string_append(out, " -> ");
    g_string_append(out, SG_PEEK(n->name)[0] ? SG_PEEK(n->name) : "(unnamed)");
    if (n->file[0]) g_string_append_printf(out, " (%s:%d)", n->file, n->line);
  }
  g_string_append(out, " (effects writing what the other reads, again and again)");
}

/* Refreshes an effect if it is stale and nobody else is on it; counts its
 * runs in this flush. False when it ran too often (a loop). */
static bool update_one(sg_thread *t, sg_node *e) {
  if (e->destroyed || e->owner || sg__fresh(e)) return true;
  if (e->flush_id != t->flush_id) {
    e->flush_id = t->flush_id;
    e->flush_runs = 0;
  }
  if (e->flush_runs >= SG_EFFECT_RUN_LIMIT) return false;
  uint64_t runs = e->run_count;
  (void)sg__refresh(t, e); /* a failed run stays DIRTY; nothing to report to */
  e->flush_runs += e->run_count != runs;
  return true;
}

/* Brings effect e up to date, its owners first: an effect created by
 * another effect's run runs after that one, which may dispose of it or
 * bring it up to date itself (docs/core-protocol.md, "Effects"). Under e's
 * graph lock. An effect owned by another thread (running its handler) is
 * left to that thread: our mark reached it there, so its owner goes round
 * once more. A writer never waits for a handler. */
static bool update_effect(sg_thread *t, sg_node *e) {
  for (;;) {
    sg_node *outermost = NULL;
    for (sg_node *p = e->parent; p; p = p->parent)
      if (!p->destroyed && !p->owner && !sg__fresh(p)) outermost = p;
    if (!outermost) break;
    if (!update_one(t, outermost)) return false;
    if (!sg__fresh(outermost)) break; /* its run failed: do not go round */
  }
  return update_one(t, e);
}

/* Flush ids are process-wide: an effect counts its runs per flush by id,
 * and two threads' flushes must never share one. */
static uint32_t next_flush_id;

/* Entries of one graph in a row share one hold of its lock (dropped only
 * around each callback): a write reaching many watchers costs one lock per
 * watcher call, not two. */
int sg__flush(sg_thread *t) {
  int rc = SG_OK;
  t->flushing = true;
  t->flush_id = (uint32_t)g_atomic_int_add((gint *)&next_flush_id, 1) + 1;
  sg_graph *locked = NULL;
  for (uint32_t i = 0; i < t->queue.len; i++) { /* grows while we run */
    sg_node *e = t->queue.at[i];
    sg_graph *g = e->graph;
    if (g != locked) {
      if (locked) sg__unlock(locked);
      sg__lock(&g->lock);
      locked = g;
    }
    if (e->queued_by == t) e->queued_by = NULL;
    if (e->destroyed) {
    } else if (e->kind != SG_EFFECT) {
      notify_watcher(t, e);
    } else if (!update_effect(t, e)) {
      describe_loop(t, i);
      rc = SG_ECYCLE;
    }
    sg__unref(e);
  }
  if (locked) sg__unlock(locked);
  t->queue.len = 0;
  t->flushing = false;
  return rc;
}

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

void **sg_binding_slot(void) { return &sg__thread()->binding_slot; }
