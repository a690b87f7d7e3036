/*
 * propagate.c — push dirty, pull recompute.
 *
 * Push (sg__mark_dependents): a change makes direct dependents DIRTY and
 * everything below them CHECK, with an explicit stack. Marking stops at nodes
 * that are already marked, since everything below them is marked too. Effects
 * reached by the marking are queued on the writing thread.
 *
 * Pull (sg__refresh): brings one node up to date with an explicit stack of
 * (node, cursor into its sources). A CHECK node's sources are refreshed in
 * read order; the first whose version differs from what the node saw makes
 * it DIRTY, and a DIRTY node runs its callback. A callback that reports
 * SG_UNCHANGED keeps its version, so dependents find nothing changed: that is
 * the equality cutoff, and why each node runs at most once per change.
 *
 * Threads: a node being verified or run is "claimed" by one thread (owner).
 * Others that need it wait on the graph's condition variable. A write that
 * reaches a claimed node meanwhile is noticed by the owner, which goes round
 * once more: a running node is tentatively CLEAN, so the write marks it again;
 * a node being verified counts the marks that reach it. (An effect whose
 * owners such a write made stale runs after them, from the queue.) A thread that would
 * wait for a node it (transitively) waits on has found a cycle.
 *
 * Tracing (trace.c) records marks, updates and their outcomes. Marking and
 * refreshing are each written once, as an always-inline body taking the
 * recording as a parameter, and instantiated twice: with a constant NULL
 * (every `if (trace)` folds away: the untraced copy is the code as it would
 * be without tracing) and with the thread's recording. The entry points
 * choose with one test per call.
 */
#include "sg_internal.h"

/* ---------------------------------------------------------------- push */

/* A node marking must visit: clean, or left stale by a failed run (which no
 * later write would otherwise reach again). */
static inline bool unmarked(const sg_node *t) {
  return t->state == SG_CLEAN || !t->has_run;
}

/* Raises t, reached by marking, to `state` at least (DIRTY for a direct
 * dependent of the change, CHECK below it) and counts the mark; answers
 * whether marking goes on below t (it was unmarked). A traced mark records
 * the nodes it visits or whose state it raises, under `parent`. */
/* Moves marking: state, marks, must_run (docs/core-protocol.md, "A node's states"). */
SG_INLINE bool raise_mark(sg_node *t, sg_state state, sg_trace *trace, int parent) {
  bool visit = unmarked(t);
  sg_state before = t->state;
  t->marks++;
  if (before < state) SG_PUBLISH(t->state, state);
  /* Its run may have read the new value under the old version (values
   * and versions are not stored in one step): no rollback may turn this
   * DIRTY into a CHECK that the old version would pass. */
  if (state == SG_DIRTY && t->running) t->must_run = true;
  if (trace && (visit || t->state != before)) sg__trace_mark(trace, t, t->state, parent);
  return visit;
}

/* Marks n's dependents: `direct` when n is the changed node itself. Nodes
 * to go on from are pushed on a stack whose top is *top, kept out of
 * memory: in a chain it is the only entry, and nothing is pushed at all.
 * Effects are leaves (nobody reads an effect): queued, never gone below. */
SG_INLINE void mark_dependents_of(sg_node *n, sg_state state, bool direct, sg_node **top,
                                  sg_node_vec *stack, sg_thread *self, sg_trace *trace) {
  int parent = trace && !direct ? sg__trace_mark_of(trace, n) : -1;
  for (sg_link *l = n->dependents_head; l; l = l->next_dependent) {
    sg_node *t = l->target;
    sg__point("marking, the lock held");
    if (G_UNLIKELY(t->kind == SG_EFFECT)) {
      if (t->running && t->owner == self) { /* a handler's own write */
        if (direct) l->seen_version = n->version; /* its run made this change: seen */
        continue;
      }
      raise_mark(t, state, trace, parent);
      sg__enqueue(t);
      continue;
    }
    if (!raise_mark(t, state, trace, parent)) continue; /* marked already, and all below it */
    if (G_UNLIKELY(SG_PEEK(t->armed))) sg__enqueue(t);
    if (*top) SG_VEC_PUSH(*stack, *top);
    *top = t;
  }
}

/* Depth first, in the order of each node's dependent list, so effects are
 * queued in the order the write reaches them. */
SG_INLINE void mark(sg_node *source, sg_state direct_state, sg_trace *trace) {
  sg_node_vec *stack = &source->graph->scratch;
  sg_thread *self = sg__current;
  sg_node *top = NULL;
  mark_dependents_of(source, direct_state, true, &top, stack, self, trace);
  while (top) {
    sg_node *n = top;
    top = NULL;
    mark_dependents_of(n, SG_CHECK, false, &top, stack, self, trace);
    if (!top && stack->len > 0) top = stack->at[--stack->len];
  }
}

void sg__mark_dependents(sg_node *source, sg_state direct_state) {
  sg_trace *trace = sg__tracing_anywhere() ? sg__thread()->trace : NULL;
  if (G_UNLIKELY(trace)) mark(source, direct_state, trace);
  else mark(source, direct_state, NULL);
}

/* Queues n on the writing thread. An effect already queued by another
 * thread (pending in that thread's batch, say) is queued here too, so this
 * write does not wait for that batch; whichever thread comes second finds it
 * up to date and skips it. An effect reached again while it waits in this
 * thread's flush moves to the back, behind the effects that reached it:
 * in a cascade it then runs once, after the last write that reaches it
 * (docs/core-protocol.md, "Effects"). */
void sg__enqueue(sg_node *n) {
  sg_thread *t = sg__thread();
  if (n->destroyed) return;
  if (n->queued_by == t) {
    if (!t->flushing) return;
    t->queue.at[n->queue_index].node = NULL; /* its reference moves along */
  } else {
    n->queued_by = t;
    sg__ref(n);
  }
  n->queue_index = t->queue.len;
  sg_queued entry = {.node = n, .cause = t->flushing ? t->flush_cause : SG_NO_CAUSE};
  SG_VEC_PUSH(t->queue, entry);
}

/* -------------------------------------------------------------- destroy */

/* A link read in the current run of a callback running on this thread: that
 * run has used the source's value already, so losing the source later in the
 * run changes nothing it computed (a temporary node made, read and dropped
 * inside a computation). */
static bool read_in_running_frame(sg_thread *t, sg_link *l) {
  if (l->target->owner != t) return false;
  for (sg_frame *f = t->frame; f; f = f->parent)
    if (f->node == l->target) return l->epoch == f->epoch;
  return false;
}

/* n is being destroyed: the frames of this thread's running callbacks
 * forget it, as the link that kept it for their memo of recent reads may go
 * now (read_in_running_frame), and its slot be given to a new node. */
static void forget_recent(sg_thread *t, sg_node *n) {
  for (sg_frame *f = t->frame; f; f = f->parent) {
    if (f->recent[1] == n) f->recent[1] = NULL;
    if (f->recent[0] == n) {
      f->recent[0] = f->recent[1];
      f->recent[1] = NULL;
    }
  }
}

/* Destroy under the lock. Dependents lose this source: they are marked DIRTY
 * and, unless another thread is walking their source lists right now, the
 * links go at once; otherwise that thread drops them at its next run. */
/* Moves destroyed, links, the live reference (docs/core-protocol.md, "Lifetime: who frees a node"). */
void sg__destroy_locked(sg_node *n) {
  sg_graph *g = n->graph;
  SG_PUBLISH(n->destroyed, true);
  g->live--;
  sg__live_remove(n);
  sg_thread *self = sg__thread();
  /* Its destroy callback's writes are caused by the run that destroyed it
   * (a loop through destroy callbacks counts its laps, schedule.c). Never
   * run again, it has no use for these fields otherwise; outside a flush
   * they name its own last run, if anything. */
  bool computes = n->kind != SG_STORED;
  if (self->flushing && computes) {
    n->run_flush = self->flush_id;
    n->run_entry = self->flush_cause;
  }
  /* Out of the live list now: kept where its link was (graph.c reads it). */
  n->dead_flush = self->flushing ? self->flush_id : computes ? n->run_flush : 0;
  n->dead_entry = self->flushing ? self->flush_cause : computes ? n->run_entry : 0;
  forget_recent(self, n);
  for (sg_link *l = n->dependents_head, *next; l; l = next) {
    next = l->next_dependent;
    if (read_in_running_frame(self, l)) sg__link_free(g, l); /* only this thread walks it */
  }
  sg__mark_dependents(n, SG_DIRTY);
  for (sg_link *l = n->dependents_head, *next; l; l = next) {
    next = l->next_dependent;
    l->target->must_run = true; /* its link to n goes: no version shows this */
    if (!l->target->owner) sg__link_free(g, l);
  }
  if (!computes || !n->owner) sg__unlink_sources(n);
  else n->on_release |= SG_RELEASE_UNLINK;
  sg__unref(n);
}

/* --------------------------------------------------------------- claims */

enum { CLAIMED = 0, RETRY = 1 };

/* A claim wait wakes at least this often, to notice a wait that another
 * thread broke (waits.c): that thread cannot signal our graph's condition
 * under our graph's lock without breaking the lock order. */
#define SG_WAIT_SLICE_NS (20 * 1000 * 1000)

static void wait_a_slice(sg_graph *g) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_nsec += SG_WAIT_SLICE_NS;
  if (until.tv_nsec >= 1000000000) {
    until.tv_sec++;
    until.tv_nsec -= 1000000000;
  }
  /* A wait lets go of the lock like an unlock: what this thread buried is
   * freed first, here, not by whichever thread unlocks next (inside its
   * own computation). The caller tries again, as after any wake-up. */
  if (G_UNLIKELY(g->graveyard != NULL)) {
    sg__graph_unlock(g);
    sg__graph_lock(g);
    return;
  }
  g->waiters++;
  sg__graph_wait(g, &until);
  g->waiters--;
}

/* Claims `n` for thread t, or waits until its owner releases it (RETRY), or
 * reports a cycle: n is owned by t itself, or by a thread that (through
 * other waits) waits for t. See docs/core-protocol.md, "Waiting". */
SG_INLINE int claim(sg_thread *t, sg_node *n) {
  if (!n->owner) {
    SG_PUBLISH(n->owner, t); /* push() records where in t's walk */
    return CLAIMED;
  }
  if (n->owner == t) {
    sg__describe_self_cycle(t, n);
    return SG_ECYCLE;
  }
  if (sg__wait_claim_begin(t, n) < 0) return SG_ECYCLE;
  sg__ref(n);
  wait_a_slice(n->graph);
  bool broken = sg__wait_end(t);
  sg__unref(n);
  return broken ? SG_ECYCLE : RETRY;
}

/* What waited for the owner to let go: the sources of a node destroyed
 * while we walked them, child effects a flush on another thread deferred
 * until this run ended (they run on this thread now, after it: "owners
 * first"), and the burial of a node whose last reference went while we
 * owned it. */
static __attribute__((noinline)) void finish_release(sg_node *n) {
  uint8_t work = n->on_release;
  n->on_release = 0;
  if (work & SG_RELEASE_UNLINK) sg__unlink_sources(n);
  if (work & SG_RELEASE_CHILDREN) {
    sg_thread *self = sg__thread();
    /* In an open batch the queue waits for the batch's end, which is no
     * business of the write that reached the children: hand them over to
     * run when this operation ends (their references go along). */
    bool batched = self->batch_depth && !self->flushing;
    sg_node *child = n->deferred_children;
    n->deferred_children = NULL;
    while (child) {
      sg_node *next = child->next_deferred;
      child->next_deferred = NULL;
      child->deferred = false;
      if (batched) {
        SG_VEC_PUSH(self->handoff, child);
      } else {
        sg__enqueue(child); /* skips a destroyed one */
        sg__unref(child);
      }
      child = next;
    }
  }
  if (work & SG_RELEASE_BURY) sg__bury(n);
}

/* Lets go of n, claimed by this thread in graph g; the caller pops its walk
 * entry. */
/* Moves claims: owner; burial handed over (docs/core-protocol.md, "A node's states"). */
SG_INLINE void release(sg_graph *g, sg_node *n) {
  SG_PUBLISH(n->owner, NULL);
  if (g->waiters) sg__graph_broadcast(g);
  if (G_UNLIKELY(n->on_release)) finish_release(n);
}

/* --------------------------------------------------------------- run */

static sg_trace_result outcome(const sg_node *n, int rc) {
  if (rc < 0) return SG_TRACE_FAILED;
  if (n->kind == SG_EFFECT) return SG_TRACE_RAN;
  if (!n->has_run) return SG_TRACE_FIRST_RUN;
  return rc == SG_CHANGED ? SG_TRACE_CHANGED : SG_TRACE_UNCHANGED;
}

/* Calls n's callback. Every callback of one walk is called from the same
 * frame (the walk's), so the stack has as much room for each as for the
 * first: once `roomy` is found true the depth is not looked at again. A
 * callback that switched to a larger segment is back on ours when it
 * returns. */
SG_INLINE int call(sg_thread *t, sg_node *n, bool *roomy) {
  uintptr_t here = (uintptr_t)__builtin_frame_address(0);
  if (G_LIKELY(*roomy) || (*roomy = sg__stack_roomy(here))) return n->callback(n, n->context);
  return sg__call_deep(t, n->callback, n, n->context, here);
}

/* Runs n's callback with the lock dropped. n is claimed by t. Traced, the
 * callback's own work (reads that refresh, writes) nests under n's UPDATE
 * event. */
/* Moves run: state, running, version, has_run (docs/core-protocol.md, "A node's states"). */
SG_INLINE int run(sg_thread *t, sg_graph *g, sg_node *n, bool *roomy, sg_trace *trace,
                  int event) {
  sg_frame frame = {
    .node = n, .cursor = n->sources_head, .epoch = ++g->epoch, .parent = t->frame};
  SG_PUBLISH(n->state, SG_CLEAN); /* tentative: a write during the run marks it again */
  n->must_run = false;
  n->running = true;
  /* The callback is user code: never under the lock. The unlock may run
   * destroy callbacks of nodes buried meanwhile: before the frame is n's. */
  sg__graph_unlock(g);
  t->frame = &frame;
  int outer = trace ? sg__trace_enter(trace, event) : -1;
  int rc = call(t, n, roomy);
  sg__graph_lock(g);
  n->running = false;
  if (trace) {
    sg__trace_leave(trace, outer);
    sg__trace_set_result(trace, event, outcome(n, rc));
  }
  t->frame = frame.parent;
  if (frame.cursor) sg__prune_unread(&frame); /* sources it read last time but not now */
  n->run_count++;
  if (G_UNLIKELY(rc < 0)) {
    /* Not has_run either: a failed node must run again, never be passed as
     * CLEAN by a re-check that finds its sources' versions unchanged (after
     * sg_rollback turned its DIRTY into CHECK, say). */
    SG_PUBLISH(n->state, SG_DIRTY);
    SG_PUBLISH(n->has_run, false);
    return rc == SG_ECYCLE ? SG_ECYCLE : SG_ECALLBACK;
  }
  if (rc == SG_CHANGED || !n->has_run) SG_PUBLISH(n->version, ++n->last_version);
  SG_PUBLISH(n->has_run, true);
  return SG_OK;
}

/* --------------------------------------------------------------- pull */

/* Verifies a CHECK node from its cursor on. Returns the source to refresh
 * (or to wait for, when another thread owns it) first, or NULL when done: n
 * is then DIRTY, or still CHECK when nothing upstream changed. */
/* Moves verify: state (docs/core-protocol.md, "A node's states"). */
SG_INLINE sg_node *verify(sg_node *n, sg_walk_entry *e) {
  for (sg_link *l = e->cursor ? e->cursor : n->sources_head; l; l = l->next_source) {
    sg_node *s = l->source;
    if (s->destroyed) {
      SG_PUBLISH(n->state, SG_DIRTY);
      return NULL;
    }
    if (!sg__settled(s)) { /* stale, or being updated: see to it first */
      e->cursor = l;
      return s;
    }
    if (s->version != l->seen_version) {
      SG_PUBLISH(n->state, SG_DIRTY);
      return NULL;
    }
  }
  return NULL;
}

/* Pushes n, just claimed by t, on t's walk and answers its entry. The walk
 * is also the list of t's claims, in claim order (a cycle report names them
 * from claim_index on). The entry's marks are the ones verification starts
 * from. */
SG_INLINE sg_walk_entry *push(sg_thread *t, sg_node *n, sg_trace *trace) {
  if (G_UNLIKELY(t->walk.len == t->walk.cap))
    sg__vec_grow((void **)&t->walk.at, &t->walk.cap, sizeof *t->walk.at);
  n->claim_index = t->walk.len;
  sg_walk_entry *e = &t->walk.at[t->walk.len++];
  e->node = n; /* field by field: the untraced copy leaves .trace alone */
  e->cursor = NULL;
  e->marks = n->marks;
  if (trace) e->trace = -1;
  return e;
}

/* Releases e's node n, pops e, t's top entry, and answers the entry below,
 * or NULL when e was the walk's first (base). */
SG_INLINE sg_walk_entry *pop(sg_thread *t, sg_graph *g, sg_walk_entry *e, sg_node *n,
                             uint32_t base) {
  release(g, n);
  return --t->walk.len == base ? NULL : e - 1;
}

static void abandon(sg_thread *t, sg_graph *g, uint32_t base) {
  while (t->walk.len > base) release(g, t->walk.at[--t->walk.len].node);
}

/* Whether effect n's owners are all up to date and free, or run by this
 * thread (the effect was made in that run, which is up to date): only then
 * may it run at once when a write reached it during its refresh. */
static bool owners_settled(sg_thread *t, const sg_node *n) {
  for (const sg_node *p = n->parent; p; p = p->parent) {
    if (p->destroyed) continue;
    if (p->owner == t) return true;
    if (p->owner || !sg__fresh(p)) return false;
  }
  return true;
}

/* n, e's node and claimed, was marked by a write on another thread while
 * the lock was let go (its run, a source's run, a wait). An effect made
 * by another effect (n->parent, a field computed slots do not have: it is
 * then the walk's target, e its only entry) whose owners that write made
 * stale, or that one claimed
 * elsewhere, must not run here and now: it would see the new value before
 * the owner that may drop it has. It is let go of and queued on this
 * thread, whose flush runs its owners first (schedule.c), as a root of its
 * own (the write was not this thread's). Answers whether it was. */
static __attribute__((noinline)) bool requeued_for_owners(sg_thread *t, sg_graph *g,
                                                          sg_walk_entry *e, sg_node *n,
                                                          uint32_t base) {
  if (n->kind != SG_EFFECT || !n->parent || n->destroyed || owners_settled(t, n)) return false;
  pop(t, g, e, n, base);
  sg__enqueue(n); /* skips it if its owner's release buried it */
  if (n->queued_by == t && t->queue.at[n->queue_index].node == n)
    t->queue.at[n->queue_index].cause = SG_NO_CAUSE;
  return true;
}

/* The walk, after alien-signals' checkDirty: one pass per node on the way
 * down (claim, push, verify up to the first stale source) and one on the
 * way up, where the entry below resumes verification in place at its
 * cursor, whose source has just been brought up to date: a version compare
 * decides whether it runs, without looking at that source again. Each label
 * states what holds there; every test of freshness or destruction is made
 * once, right after the graph lock may have been let go (a run, a wait),
 * and trusted while it is held.
 *
 * Traced, every node it finds stale gets an UPDATE event, under the node
 * that needed it (the walk entry below) or, for the target, under the open
 * span; the outcome is filled in when it is known. */
/* Moves claims, verify, run (docs/core-protocol.md, "A node's states"). */
SG_INLINE int refresh(sg_thread *t, sg_node *target, sg_trace *trace) {
  sg_graph *g = target->graph; /* every node of the walk's: sources are in their readers' graph */
  uint32_t base = t->walk.len;
  bool roomy = false; /* see call() */
  sg_node *n = target, *s;
  sg_walk_entry *e, *at;
  int rc;

  for (;;) { /* claim the target, or wait for its owner and try again */
    rc = claim(t, target);
    if (rc == CLAIMED) break;
    if (rc == SG_ECYCLE) return SG_ECYCLE;
    /* Its last reference may have gone with our wait (it is on the
     * graveyard): claiming a destroyed target would revive it. */
    if (target->destroyed) return SG_ESTALE;
  }
  e = push(t, target, trace);

examine: /* n, e's node, is claimed; the lock may have been let go since it was looked at */
  if (n->destroyed || sg__fresh(n)) {
    e = pop(t, g, e, n, base);
    if (!e) return SG_OK;
    n = e->node;
    goto examine; /* it re-verifies from its cursor, looking at that source again */
  }

stale: /* n is claimed, not destroyed and not fresh */
  if (trace && e->trace < 0) {
    int parent = t->walk.len - 1 > base ? (e - 1)->trace : -1;
    e->trace = sg__trace_event(trace, SG_TRACE_UPDATE, n, parent);
  }
  if (n->state == SG_CHECK && n->has_run) {
    s = verify(n, e);
    if (s) goto descend;
    if (n->state == SG_CHECK) goto verified;
  }

dirty: /* n is claimed, not destroyed, and must run: DIRTY, or never ran */
  e->cursor = NULL;
  at = t->walk.at;
  rc = run(t, g, n, &roomy, trace, trace ? e->trace : -1);
  if (rc < 0) {
    abandon(t, g, base);
    return rc;
  }
  if (G_UNLIKELY(t->walk.at != at)) e = &t->walk.at[t->walk.len - 1]; /* the callback's reads grew it */
  if (G_LIKELY(n->state == SG_CLEAN) && !n->destroyed) goto fresh;
  if (requeued_for_owners(t, g, e, n, base)) return SG_OK;
  goto examine; /* destroyed, or a write marked it during the run: round again */

verified: /* n is CHECK and every source's version is the one its last run saw */
  e->cursor = NULL;
  if (n->marks != e->marks) { /* a write arrived while we looked */
    e->marks = n->marks;
    if (requeued_for_owners(t, g, e, n, base)) return SG_OK;
    goto stale;
  }
  SG_PUBLISH(n->state, SG_CLEAN); /* nothing changed upstream */
  if (trace) sg__trace_set_result(trace, e->trace, SG_TRACE_VERIFIED);

fresh: /* n is claimed, fresh and not destroyed, and the lock held since it was found so */
  s = n;
  e = pop(t, g, e, n, base);
  if (!e) return SG_OK;
  n = e->node;
  /* The lock was let go while s ran: n may have been destroyed or marked.
   * It has run (it was being verified), and only its own run, ours, could
   * undo that. */
  if (n->destroyed) goto examine;
  if (n->state != SG_CHECK) {
    if (requeued_for_owners(t, g, e, n, base)) return SG_OK;
    goto dirty;
  }
  /* Resume n's verification in place: its cursor's source is s, fresh and
   * released, so only its version is left to compare. */
  if (s->version != e->cursor->seen_version)
    goto dirty; /* no DIRTY to publish: the run publishes CLEAN under this same hold of the lock */
  e->cursor = e->cursor->next_source;
  if (!e->cursor) goto verified;
  goto stale; /* verification goes on from the next source */

descend: /* s, a source of n at e's cursor, is being updated or stale */
  rc = claim(t, s);
  if (rc == SG_ECYCLE) {
    abandon(t, g, base);
    return SG_ECYCLE;
  }
  if (rc == RETRY) { /* we waited: look at n again */
    if (n->marks != e->marks && requeued_for_owners(t, g, e, n, base)) return SG_OK;
    goto examine;
  }
  /* Claimed at once: the lock was held since verify found s stale and not
   * destroyed. */
  e = push(t, s, trace);
  n = s;
  goto stale;
}

static __attribute__((noinline)) int refresh_traced(sg_thread *t, sg_node *target) {
  return refresh(t, target, t->trace);
}

int sg__refresh(sg_thread *t, sg_node *target) {
  if (G_UNLIKELY(t->trace != NULL)) return refresh_traced(t, target);
  return refresh(t, target, NULL);
}
