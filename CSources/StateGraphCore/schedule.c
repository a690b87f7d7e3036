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

/* Process-wide, so that a node's run_flush names one flush of one thread.
 * Each thread takes the ids in blocks, so that a flush pays no atomic
 * operation: one in SG_FLUSH_ID_BLOCK does. 0 is never handed out. */
#define SG_FLUSH_ID_BLOCK 256u
static uint32_t last_flush_id;

static uint32_t next_flush_id(sg_thread *t) {
  if (G_UNLIKELY(t->flush_ids_left == 0)) {
    uint32_t base = __atomic_fetch_add(&last_flush_id, SG_FLUSH_ID_BLOCK, __ATOMIC_RELAXED);
    t->flush_id = base;
    t->flush_ids_left = SG_FLUSH_ID_BLOCK;
  }
  t->flush_ids_left--;
  uint32_t id = ++t->flush_id; /* after the block's base */
  return id ? id : next_flush_id(t); /* the block that wraps skips 0 */
}

/* Walks back from entry i's cause to node n's previous run p (see
 * count_laps); out of line: only an effect's second run in a flush gets
 * here. Chains and earlier entries are compared in the order they ran, as
 * a child's owner runs get entries at the back of the queue. */
/* When entry x ran, as a key that orders entries: queue order, but an owner
 * run ahead of a child's entry ran with it, after it and before the next
 * one (its index orders it among the child's other owner runs). A cause
 * always ran before what it queued. */
static inline uint64_t run_order(const sg_queued *q, uint32_t x) {
  return q[x].ahead ? ((uint64_t)q[x].child << 32 | x) : (uint64_t)x << 32;
}

static __attribute__((noinline)) void count_laps_walk(sg_thread *t, uint32_t i, uint32_t p) {
  sg_queued *q = t->queue.at;
  for (uint32_t j = q[i].cause; j != SG_NO_CAUSE;) {
#ifdef SG_SCHEDULING_POINTS
    t->cause_steps++;
#endif
    if (j == p) {
      q[i].laps_before = q[p].laps_before == UINT16_MAX ? UINT16_MAX : q[p].laps_before + 1;
      return;
    }
    if (run_order(q, j) > run_order(q, p)) j = q[j].cause;
    else if (q[p].prev1) p = q[p].prev1 - 1;
    else return;
  }
}

/* Records that entry i (node n) runs now, and counts n's laps: how often n
 * ran before on the chain of causes ending here. The walk stops at n's
 * previous entry in this flush (its count is inherited), stepping back
 * along n's earlier entries when that one is not on the chain: a cascade
 * that reaches each effect once costs no walk at all. */
static inline void count_laps(sg_thread *t, uint32_t i, sg_node *n) {
  sg_queued *q = t->queue.at;
  uint32_t p = n->run_entry;
  bool again = n->run_flush == t->flush_id && p < t->queue.len && q[p].node == n;
  n->run_flush = t->flush_id;
  n->run_entry = i;
  if (G_UNLIKELY(again)) {
    q[i].prev1 = p + 1;
    count_laps_walk(t, i, p);
  }
}

/* The loop entry i's effect is caught in, in the order it ran, from the
 * effect's previous run to this one: "a -> b -> a". */
static void describe_loop(sg_thread *t, uint32_t i) {
  sg_node *e = t->queue.at[i].node;
  uint32_t stop = t->queue.at[i].prev1 - 1; /* n's earlier runs, latest first */
  GPtrArray *members = g_ptr_array_new();
  g_ptr_array_add(members, e);
  for (uint32_t j = t->queue.at[i].cause; j != SG_NO_CAUSE; j = t->queue.at[j].cause) {
    while (stop != SG_NO_CAUSE && run_order(t->queue.at, stop) > run_order(t->queue.at, j))
      stop = t->queue.at[stop].prev1 - 1;
    /* an entry let go of may name freed memory: not labelled */
    g_ptr_array_add(members, j < t->flush_dropped ? NULL : t->queue.at[j].node);
    if (j == stop) break;
  }
  GString *out = t->last_cycle;
  g_string_truncate(out, 0);
  for (guint k = members->len; k-- > 0;) {
    if (out->len) g_string_append(out, " -> ");
    if (members->pdata[k]) sg__append_node_label(out, members->pdata[k]);
    else g_string_append(out, "(a destroyed node)");
  }
  g_string_append(out, " (effects writing what the other reads, again and again)");
  g_ptr_array_free(members, TRUE);
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

/* Runs stale owner p ahead of a child's entry, as an entry of its own
 * (caused by `cause`, holding a reference, never run again from the
 * queue), so that its laps count: owners that re-trigger each other loop
 * through these entries. Its writes are charged to that entry. Answers the
 * entry. */
static uint32_t run_owner_ahead(sg_thread *t, sg_node *p, uint32_t cause, uint32_t child) {
  sg_queued entry = {.node = p, .cause = cause, .child = child, .ahead = true};
  sg__ref(p);
  SG_VEC_PUSH(t->queue, entry);
  uint32_t k = t->queue.len - 1;
  count_laps(t, k, p);
  if (t->queue.at[k].laps_before >= SG_EFFECT_LOOP_LIMIT) return k;
  t->flush_cause = k;
  /* a failed run stays DIRTY; nothing to report to */
  if (sg__refresh(t, p) < 0) t->queue.at[k].failed = true;
  t->flush_cause = child;
  return k;
}

/* Whether owner p's last run in this flush failed: it is not run again
 * ahead of its other children (each would try it once more), which run as
 * after a failed run. A write that reaches it queues a run of its own. */
static bool failed_in_this_flush(const sg_thread *t, const sg_node *p) {
  uint32_t k = p->run_entry;
  return p->run_flush == t->flush_id && k < t->queue.len && t->queue.at[k].node == p &&
         t->queue.at[k].failed;
}

/* Brings entry i's effect up to date, its owners first: an effect created
 * by another effect's run runs after that one, which may dispose of it or
 * bring it up to date itself (docs/core-protocol.md, "Effects"), also when
 * it runs on another thread. Under the effect's graph lock. An effect owned
 * by another thread (running its handler) is left to that thread: our mark
 * reached it there, so its owner goes round once more. A writer never waits
 * for a handler. Answers the entry caught in a loop, or SG_NO_CAUSE. */
static uint32_t update_effect(sg_thread *t, uint32_t i) {
  sg_node *e = t->queue.at[i].node;
  uint32_t cause = i; /* what made the next owner stale: the last owner run */
  for (;;) {
    sg_node *outermost = NULL, *elsewhere = NULL;
    for (sg_node *p = e->parent; p; p = p->parent) {
      if (p->destroyed) continue;
      if (p->owner == t) break; /* created by a run here: that run is up to date */
      if (p->owner) elsewhere = p;
      else if (!sg__fresh(p)) outermost = p;
    }
    if (elsewhere) {
      defer_until_released(e, elsewhere);
      return SG_NO_CAUSE;
    }
    if (!outermost || failed_in_this_flush(t, outermost)) break;
    cause = run_owner_ahead(t, outermost, cause, i);
    if (t->queue.at[cause].laps_before >= SG_EFFECT_LOOP_LIMIT) return cause;
    if (!sg__fresh(outermost)) break; /* its run failed: do not go round */
  }
  if (e->destroyed || e->owner || sg__fresh(e)) return SG_NO_CAUSE;
  if (t->queue.at[i].laps_before >= SG_EFFECT_LOOP_LIMIT) return i;
  /* a failed run stays DIRTY; nothing to report to */
  if (G_UNLIKELY(sg__refresh(t, e) < 0)) t->queue.at[i].failed = true;
  return SG_NO_CAUSE;
}

/* Before the first run of effect e, made outside its owner's run for an
 * owner named at creation (sg_effect_new_owned): brings e's stale owners up
 * to date on this thread, outermost first, as a flush does before running a
 * child, so that one that drops e does so before e reads anything. An
 * owner running on another thread is never waited for: e is left to that
 * thread, which runs it once that run ends; answers true then. Under e's
 * graph lock; a bounded number of owner runs (owners re-triggering each
 * other end their loop in a flush, not here). */
bool sg__run_owners_first(sg_thread *t, sg_node *e) {
  for (int runs = 0; runs < SG_EFFECT_LOOP_LIMIT; runs++) {
    sg_node *outermost = NULL, *elsewhere = NULL;
    for (sg_node *p = e->parent; p; p = p->parent) {
      if (p->destroyed) continue;
      /* Running here, e made by its run: it and its owners are this
       * thread's flush's business, never run inside its callback. */
      if (p->owner == t) break;
      if (p->owner) elsewhere = p;
      else if (!sg__fresh(p)) outermost = p;
    }
    if (elsewhere) {
      defer_until_released(e, elsewhere);
      return e->deferred;
    }
    if (!outermost) return false;
    /* a failed run stays DIRTY: e runs after it as after any failed owner */
    if (sg__refresh(t, outermost) < 0 || !sg__fresh(outermost)) return false;
  }
  return false;
}

/* Runs entries from `from` on, including those their runs add; returns
 * where the queue ended. Entries of one graph in a row share one hold of
 * its lock (dropped only around each callback): a write reaching many
 * watchers costs one lock per watcher call, not two. The last hold is
 * handed on in *locked, for drop_entries, unless a run buried a node: its
 * destroy callback runs as the lock goes, charged to the last entry run. */
static uint32_t run_entries(sg_thread *t, uint32_t from, int *rc, sg_graph **held) {
  sg_graph *locked = NULL;
  uint32_t i = from;
  for (; i < t->queue.len; i++) { /* grows while we run */
    sg_node *e = t->queue.at[i].node;
    if (!e || t->queue.at[i].ahead) continue; /* moved further back, or ran */
    sg_graph *g = e->graph;
    if (g != locked) {
      if (locked) sg__graph_unlock(locked);
      sg__graph_lock(g);
      locked = g;
    }
    t->flush_cause = i; /* writes from here on were caused by this entry */
    if (e->queued_by == t) e->queued_by = NULL;
    if (e->destroyed) continue; /* never runs; its fields name the run that destroyed it */
    count_laps(t, i, e);
    if (e->kind != SG_EFFECT) {
      notify_watcher(t, e);
    } else {
      uint32_t loop = update_effect(t, i);
      if (loop != SG_NO_CAUSE) {
        describe_loop(t, loop);
        *rc = SG_ECYCLE;
      }
    }
  }
  if (locked && locked->graveyard != NULL) {
    sg__graph_unlock(locked);
    locked = NULL;
  }
  *held = locked;
  return i;
}

/* Drops the references of entries [from, to), a graph lock per run of
 * entries of one graph (the first taken over from run_entries, if it kept
 * one). A node buried by it is freed (its destroy callback run) before the
 * next entry, with that entry as the cause: the callback's writes continue
 * its chain. */
static void drop_entries(sg_thread *t, uint32_t from, uint32_t to, sg_graph *locked) {
  for (uint32_t i = from; i < to; i++) {
    sg_node *e = t->queue.at[i].node;
    if (!e) continue; /* moved further back: the reference went along */
    if (e->graph != locked) {
      if (locked) sg__graph_unlock(locked);
      locked = e->graph;
      sg__graph_lock(locked);
    }
    sg__unref(e);
    if (G_UNLIKELY(locked->graveyard != NULL)) { /* free it now, charged to this entry */
      t->flush_cause = i;
      t->flush_dropped = i + 1;
      sg__graph_unlock(locked);
      sg__graph_lock(locked);
    }
  }
  if (locked) sg__graph_unlock(locked);
}

/* Every entry keeps its reference until the whole queue ran, so the chains
 * of causes name live memory. Letting go of the references may run destroy
 * callbacks, whose writes queue more effects: they run in the same flush,
 * caused by the entry whose reference went, so a loop through destroy
 * callbacks is counted like any other. */
int sg__flush(sg_thread *t) {
  int rc = SG_OK;
  t->flushing = true;
  t->flush_id = next_flush_id(t);
  t->flush_dropped = 0;
  sg__here.flush_id = t->flush_id;
  sg__here.cause = &t->flush_cause;
  for (uint32_t ran = 0, dropped = 0;;) {
    sg_graph *held;
    ran = run_entries(t, ran, &rc, &held);
    if (dropped == ran) {
      if (held) sg__graph_unlock(held);
      break;
    }
    drop_entries(t, dropped, ran, held);
    dropped = t->flush_dropped = ran;
  }
  t->flush_cause = SG_NO_CAUSE;
  sg__here.cause = NULL;
  t->queue.len = 0;
  t->flushing = false;
  return rc;
}

/* Runs the child effects handed over to this thread in an open batch (see
 * sg_thread.handoff) once no callback runs here: each at once, if its
 * owners are up to date and free, as a write deferred it to them and not
 * to the batch; otherwise it joins the batch's queue, where the flush runs
 * its owners first. Writes they make wait for the batch, as any here. */
void sg__run_handoff(sg_thread *t) {
  if (t->frame || t->flushing) return;
  while (t->handoff.len) {
    sg_node *e = t->handoff.at[--t->handoff.len];
    sg_graph *g = e->graph;
    sg__graph_lock(g);
    bool owners_ready = true;
    for (sg_node *p = e->parent; p; p = p->parent)
      if (!p->destroyed && (p->owner || !sg__fresh(p))) owners_ready = false;
    if (!owners_ready) sg__enqueue(e); /* skips a destroyed one */
    else if (!e->destroyed && !e->owner && !sg__fresh(e)) (void)sg__refresh(t, e);
    sg__unref(e);
    sg__graph_unlock(g);
  }
}

#ifdef SG_SCHEDULING_POINTS
/* Tests: steps this thread took along chains of causes (Tests/Support). */
uint64_t sg__cause_steps(void) { return sg__thread()->cause_steps; }
#endif
