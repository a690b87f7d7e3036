/*
 * waits.c — which thread waits for which, so that no wait can close a loop.
 *
 * A thread blocks in two places only (docs/core-protocol.md, "Waiting"):
 *
 *   claim wait    it needs a computed node that another thread owns (is
 *                 verifying or computing) and waits for the owner to let go;
 *   visitor wait  it destroys a node whose snapshot visitor runs on another
 *                 thread and waits for the visitor to return.
 *
 * Each wait is an edge "t waits on o" in a process-wide wait-for graph kept
 * in the threads themselves (`waiting_for`, `waiting_visited`: the node
 * whose owner or visitor o is) under one leaf mutex, `waits_lock`
 * (taken inside a graph lock, never the other way round; no user code runs
 * under it). Before blocking, a thread follows the edges from the thread it
 * would wait on; reaching itself means the wait would never end:
 *
 *   - a claim wait that would close a loop is refused: the reader gets
 *     SG_ECYCLE (two computations need each other);
 *   - a visitor wait that would close a loop breaks the claim wait in the
 *     loop instead (that reader gets SG_ECYCLE, its visitor returns, the
 *     destroy goes on); a loop of visitor waits alone is refused (SG_EBUSY).
 *
 * Because every edge is added under waits_lock after this check, and a
 * thread that waits holds its claims until it stops waiting, the graph
 * never holds a loop: no set of threads waits on each other forever.
 */
#include "sg_internal.h"

static pthread_mutex_t waits_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---------------------------------------------------------- descriptions */

static void describe(GString *out, sg_node *n) {
  const char *name = SG_PEEK(n->name);
  if (out->len) g_string_append(out, " -> ");
  g_string_append(out, name[0] ? name : "(unnamed)");
  if (n->file[0]) g_string_append_printf(out, " (%s:%d)", n->file, n->line);
}

/* The nodes thread t claimed from `from` on, in claim order: what it is in
 * the middle of computing. t is this thread, or one blocked in a wait (so
 * its claims cannot change under us: waits_lock orders the reads). */
static void describe_claims(GString *out, sg_thread *t, sg_node *from) {
  for (size_t i = from->claim_index; i < t->claims.len; i++) describe(out, t->claims.at[i]);
}

void sg__describe_self_cycle(sg_thread *t, sg_node *n) {
  GString *cycle = t->last_cycle;
  g_string_truncate(cycle, 0);
  describe_claims(cycle, t, n);
  describe(cycle, n);
}

/* ----------------------------------------------------------------- edges */

/* Whom o waits on now. Edges name nodes, not threads: a node's owner (or
 * visitor) is read when the edge is followed, under waits_lock, so an edge
 * never points at a thread that has let go and exited since (thread exit
 * passes through waits_lock: sg__waits_forget). The nodes themselves stay
 * allocated: a waiter holds a reference to what it waits for. */
static sg_thread *waits_on(const sg_thread *o) {
  if (o->waiting_for) return SG_PEEK(o->waiting_for->owner);
  if (o->waiting_visited) return SG_PEEK(o->waiting_visited->visited_by);
  return NULL;
}

/* The last thread on the chain of waits that starts at `from` and comes
 * back to t, or NULL when the chain does not reach t. Under waits_lock. */
static sg_thread *loop_back_to(sg_thread *t, sg_thread *from) {
  sg_thread *o = from;
  for (int steps = 0; o && steps < 1 << 20; steps++) {
    sg_thread *next = waits_on(o);
    if (next == t) return o;
    o = next;
  }
  return NULL;
}

void sg__waits_forget(sg_thread *t) {
  /* A walk that could still reach t (it read t as an owner or visitor
   * before t let go) holds waits_lock until it is done with t. */
  sg__lock(&waits_lock);
  pthread_mutex_unlock(&waits_lock);
}

/* ---------------------------------------------------------------- claims */

int sg__wait_claim_begin(sg_thread *t, sg_node *n) {
  sg__lock(&waits_lock);
  sg_thread *owner = SG_PEEK(n->owner);
  sg_thread *last = loop_back_to(t, owner);
  if (last) {
    GString *cycle = t->last_cycle;
    g_string_truncate(cycle, 0);
    if (last->waiting_for) {
      /* last waits for a node t owns, t would wait for n: name both halves. */
      describe_claims(cycle, t, last->waiting_for);
      describe_claims(cycle, owner, n);
      describe(cycle, last->waiting_for);
    } else {
      describe(cycle, n); /* the loop runs through a destroy's visitor wait */
    }
    pthread_mutex_unlock(&waits_lock);
    return SG_ECYCLE;
  }
  t->waiting_for = n;
  t->wait_broken = false;
  pthread_mutex_unlock(&waits_lock);
  return SG_OK;
}

bool sg__wait_end(sg_thread *t) {
  sg__lock(&waits_lock);
  bool broken = t->wait_broken;
  t->waiting_for = NULL;
  t->waiting_visited = NULL;
  t->wait_broken = false;
  pthread_mutex_unlock(&waits_lock);
  return broken;
}

/* -------------------------------------------------------------- visitors */

int sg__wait_visitor_begin(sg_thread *t, sg_node *n) {
  sg__lock(&waits_lock);
  int rc = SG_OK;
  sg_thread *visitor = SG_PEEK(n->visited_by);
  if (loop_back_to(t, visitor)) {
    /* Break the first claim wait on the loop: its reader gets SG_ECYCLE,
     * which ends its visitor (whose context stays valid until then). */
    sg_thread *reader = NULL;
    for (sg_thread *o = visitor; o != t && !reader; o = waits_on(o))
      if (o->waiting_for) reader = o;
    if (reader) {
      reader->wait_broken = true;
      g_string_truncate(reader->last_cycle, 0);
      describe(reader->last_cycle, reader->waiting_for);
      g_string_append(reader->last_cycle,
                      " (read by a snapshot visitor while its node was destroyed by the"
                      " thread computing it)");
    } else {
      rc = SG_EBUSY; /* visitors destroying each other's nodes */
    }
  }
  if (rc == SG_OK) t->waiting_visited = n;
  pthread_mutex_unlock(&waits_lock);
  return rc;
}
