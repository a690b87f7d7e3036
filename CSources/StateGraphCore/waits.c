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
 * whose owner or visitors o is) under one leaf mutex, `waits_lock`
 * (taken inside a graph lock, never the other way round; no user code runs
 * under it). A claim wait is one edge (a node has one owner); a visitor
 * wait is one edge per visit running for the node, since two threads, or
 * one thread's nested snapshots, may visit one node at once: a node's
 * visits are a set (`visits`, changed under its graph lock and waits_lock
 * both). Before blocking, a thread searches the edges from the threads it
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
  if (out->len) g_string_append(out, " -> ");
  sg__append_node_label(out, n);
}

/* The nodes thread t claimed from `from` on, in claim order (its walk, see
 * propagate.c): what it is in the middle of computing. t is this thread, or
 * one blocked in a wait (so its claims cannot change under us: waits_lock
 * orders the reads). */
static void describe_claims(GString *out, sg_thread *t, sg_node *from) {
  for (size_t i = from->claim_index; i < t->walk.len; i++) describe(out, t->walk.at[i].node);
}

void sg__describe_self_cycle(sg_thread *t, sg_node *n) {
  GString *cycle = t->last_cycle;
  g_string_truncate(cycle, 0);
  describe_claims(cycle, t, n);
  describe(cycle, n);
}

/* ----------------------------------------------------------------- edges */

/* Appends the threads o waits on now: its claim's owner, or every thread
 * visiting the node whose destroy it waits for. Edges name nodes, not
 * threads: a node's owner (or visitors) is read when the edge is followed,
 * under waits_lock, so an edge never points at a thread that has let go and
 * exited since (thread exit passes through waits_lock: sg__waits_forget).
 * The nodes themselves stay allocated: a waiter holds a reference to what
 * it waits for. */
static void waits_on(const sg_thread *o, GPtrArray *out) {
  if (o->waiting_for) {
    sg_thread *owner = SG_PEEK(o->waiting_for->owner);
    if (owner) g_ptr_array_add(out, owner);
  } else if (o->waiting_visited) {
    for (sg_visit *v = o->waiting_visited->visits; v; v = v->next)
      if (v->thread != o) g_ptr_array_add(out, v->thread);
  }
}

/* A chain of waits that starts at one of `starts` and ends at a thread
 * waiting on t: the threads on it in order, or NULL when none reaches t.
 * Breadth first over the wait-for graph, which (the invariant) holds no
 * loop, so the search ends. Under waits_lock. */
static GPtrArray *chain_back_to(sg_thread *t, GPtrArray *starts) {
  GHashTable *came_from = g_hash_table_new(g_direct_hash, g_direct_equal);
  GPtrArray *todo = g_ptr_array_new(), *next = g_ptr_array_new(), *chain = NULL;
  sg_thread *last = NULL;
  for (guint i = 0; i < starts->len; i++)
    if (g_hash_table_insert(came_from, starts->pdata[i], NULL)) g_ptr_array_add(todo, starts->pdata[i]);
  for (guint i = 0; i < todo->len && !last; i++) {
    sg_thread *o = todo->pdata[i];
    g_ptr_array_set_size(next, 0);
    waits_on(o, next);
    for (guint j = 0; j < next->len && !last; j++) {
      if (next->pdata[j] == t) last = o;
      else if (!g_hash_table_contains(came_from, next->pdata[j])) {
        g_hash_table_insert(came_from, next->pdata[j], o);
        g_ptr_array_add(todo, next->pdata[j]);
      }
    }
  }
  if (last) {
    chain = g_ptr_array_new();
    for (sg_thread *o = last; o; o = g_hash_table_lookup(came_from, o)) g_ptr_array_add(chain, o);
    for (guint i = 0, j = chain->len - 1; i < j; i++, j--) { /* start first */
      gpointer x = chain->pdata[i];
      chain->pdata[i] = chain->pdata[j];
      chain->pdata[j] = x;
    }
  }
  g_ptr_array_free(next, TRUE);
  g_ptr_array_free(todo, TRUE);
  g_hash_table_destroy(came_from);
  return chain;
}

void sg__waits_forget(sg_thread *t) {
  /* A walk that could still reach t (it read t as an owner or visitor
   * before t let go) holds waits_lock until it is done with t. */
  sg__lock(&waits_lock);
  sg__unlock(&waits_lock);
}

/* ---------------------------------------------------------------- claims */

int sg__wait_claim_begin(sg_thread *t, sg_node *n) {
  sg__lock(&waits_lock);
  sg_thread *owner = SG_PEEK(n->owner);
  GPtrArray *starts = g_ptr_array_new();
  g_ptr_array_add(starts, owner);
  GPtrArray *chain = chain_back_to(t, starts);
  g_ptr_array_free(starts, TRUE);
  if (chain) {
    sg_thread *last = chain->pdata[chain->len - 1];
    g_ptr_array_free(chain, TRUE);
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
    sg__unlock(&waits_lock);
    return SG_ECYCLE;
  }
  t->waiting_for = n;
  t->wait_broken = false;
  sg__unlock(&waits_lock);
  return SG_OK;
}

bool sg__wait_end(sg_thread *t) {
  sg__lock(&waits_lock);
  bool broken = t->wait_broken;
  t->waiting_for = NULL;
  t->waiting_visited = NULL;
  t->wait_broken = false;
  sg__unlock(&waits_lock);
  return broken;
}

/* -------------------------------------------------------------- visitors */

void sg__visit_begin(sg_thread *t, sg_node *n, sg_visit *v) {
  sg__lock(&waits_lock);
  v->thread = t;
  v->next = n->visits;
  n->visits = v;
  sg__unlock(&waits_lock);
}

void sg__visit_end(sg_node *n, sg_visit *v) {
  sg__lock(&waits_lock);
  sg_visit **at = &n->visits;
  while (*at != v) at = &(*at)->next;
  *at = v->next;
  sg__unlock(&waits_lock);
}

/* Whether a thread other than t visits n. Under n's graph lock. */
static bool visited_by_others(const sg_thread *t, const sg_node *n) {
  for (const sg_visit *v = n->visits; v; v = v->next)
    if (v->thread != t) return true;
  return false;
}

/* Before a visitor wait: SG_OK (t waits until sg__wait_end), or SG_EBUSY
 * when only a loop of visitor waits could end it. */
static int wait_visitors_begin(sg_thread *t, sg_node *n) {
  sg__lock(&waits_lock);
  int rc = SG_OK;
  GPtrArray *visitors = g_ptr_array_new();
  for (sg_visit *v = n->visits; v; v = v->next)
    if (v->thread != t) g_ptr_array_add(visitors, v->thread);
  GPtrArray *chain = chain_back_to(t, visitors);
  g_ptr_array_free(visitors, TRUE);
  if (chain) {
    /* Break the first claim wait on the loop: its reader gets SG_ECYCLE,
     * which ends its visitor (whose context stays valid until then). */
    sg_thread *reader = NULL;
    for (guint i = 0; i < chain->len && !reader; i++)
      if (((sg_thread *)chain->pdata[i])->waiting_for) reader = chain->pdata[i];
    g_ptr_array_free(chain, TRUE);
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
  sg__unlock(&waits_lock);
  return rc;
}

/* Under n's graph lock, before destroying n: waits while snapshot visitors
 * of other threads look at it (their context must stay valid). A visitor of
 * this very thread destroying its node is a misuse the header forbids;
 * waiting for ourselves would hang, so we do not. A visitor that (through
 * other waits) waits for this thread would never return: the loop is broken
 * at a claim wait on it, or the destroy is refused with SG_EBUSY. */
int sg__wait_for_visitors(sg_thread *t, sg_node *n) {
  while (visited_by_others(t, n)) {
    int rc = wait_visitors_begin(t, n);
    if (rc < 0) return rc;
    n->graph->waiters++;
    sg__graph_wait(n->graph, NULL);
    n->graph->waiters--;
    sg__wait_end(t);
  }
  return SG_OK;
}
