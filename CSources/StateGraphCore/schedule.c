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

/* Queues n on the writing thread. An effect already queued by another
 * thread (pending in that thread's batch, say) is queued here too, so this
 * write does not wait for that batch; whichever thread comes second finds it
 * up to date and skips it. */
void sg__enqueue(sg_node *n) {
  sg_thread *t = sg__thread();
  if (n->queued_by == t || n->destroyed) return;
  n->queued_by = t;
  sg__ref(n);
  SG_VEC_PUSH(t->queue, n);
}

/* A watched computed reached by a write. It is not recomputed here (that
 * would make every watched node eager); the watcher hears "may have
 * changed", unless a read already brought the node up to date unchanged. */
static void notify_watcher(sg_thread *t, sg_node *n) {
  if (!g_atomic_int_get(&n->armed)) return;
  /* Unchanged: stay armed. Disarming without a call would leave the watcher
   * waiting for a call that never comes (it re-arms only when called). */
  if (sg__fresh(n) && !n->owner && n->version == n->armed_version) return;
  /* Read under the lock: sg_node_set_watcher may change or remove it. */
  sg_callback watcher = n->watcher;
  if (!watcher) { /* removed while armed: nobody to tell */
    g_atomic_int_set(&n->armed, 0);
    return;
  }
  if (G_UNLIKELY(t->trace != NULL)) sg__trace_event(t->trace, SG_TRACE_WATCHER, n, -1);
  g_atomic_int_set(&n->armed, 0); /* under the lock, as arming is */
  sg__ref(n); /* the context stays valid while the watcher runs */
  pthread_mutex_unlock(&n->graph->lock); /* user code: never under lock */
  watcher(n, n->context);
  sg__lock(&n->graph->lock);
  sg__unref(n);
}

void sg__flush(sg_thread *t) {
  t->flushing = true;
  for (uint32_t i = 0; i < t->queue.len; i++) { /* grows while we run */
    sg_node *e = t->queue.at[i];
    sg_graph *g = e->graph;
    sg__lock(&g->lock);
    if (e->queued_by == t) e->queued_by = NULL;
    if (e->destroyed) {
    } else if (e->kind != SG_EFFECT) {
      notify_watcher(t, e);
    } else if (e->owner) {
      /* Running (or being verified) on another thread: never wait for user
       * code. Our mark reached it there, so its owner goes round once more
       * and runs it again itself (docs/core-protocol.md, "Effects"). */
    } else if (!sg__fresh(e)) {
      (void)sg__refresh(t, e); /* a failed run stays DIRTY; nothing to report to */
    }
    sg__unref(e);
    sg__unlock(g);
  }
  t->queue.len = 0;
  t->flushing = false;
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
  sg__flush_if_outermost(t);
  if (rooted) sg__trace_close(trace, span);
  return SG_OK;
}

int sg_batch_depth(void) { return sg__thread()->batch_depth; }

void **sg_binding_slot(void) { return &sg__thread()->binding_slot; }
