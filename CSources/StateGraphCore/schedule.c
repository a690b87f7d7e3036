/*
 * schedule.c — running the effect queue: effects, watchers, loops.
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
/* Moves armed (docs/core-protocol.md, "What is shared, and what guards it"). */
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
  sg__graph_unlock(n->graph); /* user code: never under lock */
  watcher(n, n->context);
  sg__graph_lock(n->graph);
}

/* A loop of effects ends after this many laps: an effect met this many
 * times on its own chain of causes (see sg_queued) has re-triggered itself
 * that often, which no cascade that settles does. */
#define SG_EFFECT_LOOP_LIMIT 100

/* How often effect e ran on the chain of causes that ends at entry `from`
 * (each time is one lap of a loop through e). The entries' nodes stay
 * allocated until the flush ends: their queue references are dropped last. */
static uint32_t laps(const sg_thread *t, uint32_t from, const sg_node *e) {
  uint32_t count = 0;
  for (uint32_t j = from; j != SG_NO_CAUSE && count < SG_EFFECT_LOOP_LIMIT;
       j = t->queue.at[j].cause)
    count += t->queue.at[j].node == e;
  return count;
}

/* The loop entry i's effect is caught in, in the order it ran, from the
 * effect's previous run to this one: "a -> b -> a". */
static void describe_loop(sg_thread *t, uint32_t i) {
  sg_node *e = t->queue.at[i].node;
  GPtrArray *members = g_ptr_array_new();
  g_ptr_array_add(members, e);
  for (uint32_t j = t->queue.at[i].cause; j != SG_NO_CAUSE; j = t->queue.at[j].cause) {
    g_ptr_array_add(members, t->queue.at[j].node);
    if (t->queue.at[j].node == e) break;
  }
  GString *out = t->last_cycle;
  g_string_truncate(out, 0);
  for (guint k = members->len; k-- > 0;) {
    if (out->len) g_string_append(out, " -> ");
    sg__append_node_label(out, members->pdata[k]);
  }
  g_string_append(out, " (effects writing what the other reads, again and again)");
  g_ptr_array_free(members, TRUE);
}

/* Refreshes an effect if it is stale and nobody else is on it. False when
 * it is caught in a loop (it stays stale): `from` is the entry whose chain
 * of causes leads to this run. */
static bool update_one(sg_thread *t, sg_node *e, uint32_t from) {
  if (e->destroyed || e->owner || sg__fresh(e)) return true;
  if (laps(t, from, e) >= SG_EFFECT_LOOP_LIMIT) return false;
  (void)sg__refresh(t, e); /* a failed run stays DIRTY; nothing to report to */
  return true;
}

/* An owner of stale effect e runs (or is verified) on another thread: e
 * waits for that run to end, and its owner's thread queues it when it lets
 * go (propagate.c, finish_release), so the owner may still dispose of it.
 * Never a wait: the writer goes on. */
static void defer_until_released(sg_node *e, sg_node *owner) {
  if (e->owner || e->deferred || sg__fresh(e)) return;
  e->deferred = true;
  sg__ref(e);
  e->next_deferred = owner->deferred_children;
  owner->deferred_children = e;
  owner->on_release |= SG_RELEASE_CHILDREN;
}

/* Brings entry i's effect up to date, its owners first: an effect created
 * by another effect's run runs after that one, which may dispose of it or
 * bring it up to date itself (docs/core-protocol.md, "Effects"), also when
 * it runs on another thread. Under the effect's graph lock. An effect owned
 * by another thread (running its
 * handler) is left to that thread: our mark reached it there, so its owner
 * goes round once more. A writer never waits for a handler. */
static bool update_effect(sg_thread *t, uint32_t i) {
  sg_node *e = t->queue.at[i].node;
  for (;;) {
    sg_node *outermost = NULL, *elsewhere = NULL;
    for (sg_node *p = e->parent; p; p = p->parent) {
      if (p->destroyed) continue;
      if (p->owner && p->owner != t) elsewhere = p;
      else if (!p->owner && !sg__fresh(p)) outermost = p;
    }
    if (elsewhere) {
      defer_until_released(e, elsewhere);
      return true;
    }
    if (!outermost) break;
    if (!update_one(t, outermost, i)) return false;
    if (!sg__fresh(outermost)) break; /* its run failed: do not go round */
  }
  return update_one(t, e, t->queue.at[i].cause);
}

/* Drops the references of entries [from, to), a graph lock per run of
 * entries of one graph; the graveyards are freed as each lock is let go. */
static void unref_entries(sg_thread *t, uint32_t from, uint32_t to) {
  sg_graph *locked = NULL;
  for (uint32_t i = from; i < to; i++) {
    sg_node *e = t->queue.at[i].node;
    if (!e) continue; /* moved further back: the reference went along */
    if (e->graph != locked) {
      if (locked) sg__graph_unlock(locked);
      locked = e->graph;
      sg__graph_lock(locked);
    }
    sg__unref(e);
  }
  if (locked) sg__graph_unlock(locked);
}

/* Runs entries from `from` on, including those their runs add; returns
 * where the queue ended. Entries of one graph in a row share one hold of
 * its lock (dropped only around each callback): a write reaching many
 * watchers costs one lock per watcher call, not two. */
static uint32_t run_entries(sg_thread *t, uint32_t from, int *rc) {
  sg_graph *locked = NULL;
  uint32_t i = from;
  for (; i < t->queue.len; i++) { /* grows while we run */
    sg_node *e = t->queue.at[i].node;
    if (!e) continue; /* it moved further back */
    sg_graph *g = e->graph;
    if (g != locked) {
      if (locked) sg__graph_unlock(locked);
      sg__graph_lock(g);
      locked = g;
    }
    t->flush_cause = i; /* writes from here on were caused by this entry */
    if (e->queued_by == t) e->queued_by = NULL;
    if (e->destroyed) {
    } else if (e->kind != SG_EFFECT) {
      notify_watcher(t, e);
    } else if (!update_effect(t, i)) {
      describe_loop(t, i);
      *rc = SG_ECYCLE;
    }
  }
  if (locked) sg__graph_unlock(locked);
  return i;
}

/* Every entry keeps its reference until its round of the queue ran, so the
 * chains of causes name live memory. Letting go of the references may run
 * destroy callbacks, whose writes queue more effects: they run in another
 * round, as effects without a cause. */
int sg__flush(sg_thread *t) {
  int rc = SG_OK;
  t->flushing = true;
  for (uint32_t start = 0; start < t->queue.len;) {
    uint32_t end = run_entries(t, start, &rc);
    t->flush_cause = SG_NO_CAUSE;
    unref_entries(t, start, end);
    start = end;
  }
  t->queue.len = 0;
  t->flushing = false;
  return rc;
}
