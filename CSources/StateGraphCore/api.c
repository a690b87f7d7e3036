/*
 * api.c — the public entry points for creating, reading, writing and
 * destroying nodes. Each checked one validates its arguments at the door
 * (sg__enter: NULL, stale) and pins the node for the length of the call, so
 * a destroy on another thread cannot free it underneath; then it trusts the
 * internal functions, which assume valid, live handles. The *_unchecked
 * variants skip the door: they are for bindings that own their handles.
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

/* ------------------------------------------------------------- creation */

static int create(sg_graph *g, sg_kind kind, const sg_node_info *info, sg_callback cb,
                  void *ctx, sg_destroy destroy, sg_node **out) {
  if (!g || !out || (kind != SG_STORED && !cb)) return SG_EINVAL;
  sg_node *n = sg__node_new(g, kind, info);
  if (!n) return SG_ENOMEM;
  if (!sg__registry_add_node(n)) { /* a freed graph */
    g_free(n->name);
    g_free(n->file);
    g_free(n);
    return SG_ESTALE;
  }
  n->callback = cb;
  n->context = ctx;
  n->destroy = destroy;
  pthread_mutex_lock(&g->lock);
  g->live++;
  g->allocated++;
  pthread_mutex_unlock(&g->lock);
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
  int rc = create(g, SG_EFFECT, info, run, ctx, destroy, out);
  if (rc < 0) return rc;
  sg_thread *t = sg__thread();
  pthread_mutex_lock(&g->lock);
  rc = sg__refresh(t, *out);
  sg__unlock(g);
  sg__flush_if_outermost(t);
  return rc < 0 ? SG_ECALLBACK : SG_OK;
}

int sg_node_destroy(sg_node *n) {
  int rc = sg__enter(n);
  if (rc < 0) return rc;
  sg_graph *g = n->graph;
  pthread_mutex_lock(&g->lock);
  rc = SG_ESTALE;
  if (!n->destroyed) { /* lost a race with another destroy otherwise */
    sg__destroy_locked(n);
    rc = SG_OK;
  }
  sg__unlock(g);
  sg__flush_if_outermost(sg__thread());
  sg__unpin(n); /* usually the last reference: the destroy callback runs here */
  return rc;
}

/* -------------------------------------------------------------- reading */

int sg_read(sg_node *n) {
  int rc = sg__enter(n);
  if (rc < 0) return rc;
  rc = sg_read_unchecked(n);
  sg__unpin(n);
  return rc;
}

int sg_read_unchecked(sg_node *n) {
  sg_thread *t = sg__thread();
  if (n->kind == SG_EFFECT) return SG_EKIND;
  if (!t->frame && n->kind == SG_STORED) return SG_OK; /* nothing to record */
  sg_graph *g = n->graph;
  if (t->frame && t->frame->node->graph != g) return SG_EGRAPH;

  pthread_mutex_lock(&g->lock);
  int rc = SG_OK;
  if (n->destroyed) rc = SG_ESTALE;
  else if (n->owner || !sg__fresh(n)) rc = sg__refresh(t, n);
  /* Another thread may have destroyed n while we brought it up to date (or
   * waited for it): a link to it would hold a node that is already on the
   * graveyard, to be freed at the unlock below. */
  if (rc == SG_OK && n->destroyed) rc = SG_ESTALE;
  if (rc == SG_OK) rc = sg__track(t, n);
  sg__unlock(g);
  sg__flush_if_outermost(t); /* effects reached by writes inside callbacks */
  return rc;
}

/* -------------------------------------------------------------- writing */

int sg_changed(sg_node *n) {
  int rc = sg__enter(n);
  if (rc < 0) return rc;
  rc = n->kind == SG_STORED ? sg_changed_unchecked(n) : SG_EKIND;
  sg__unpin(n);
  return rc;
}

int sg_changed_unchecked(sg_node *n) {
  sg_graph *g = n->graph;
  pthread_mutex_lock(&g->lock);
  if (n->destroyed) {
    pthread_mutex_unlock(&g->lock);
    return SG_ESTALE;
  }
  n->version++;
  sg__mark_dependents(n, SG_DIRTY);
  sg__unlock(g);
  sg__flush_if_outermost(sg__thread());
  return SG_OK;
}

int sg_node_set_watcher(sg_node *n, sg_callback watcher) {
  int rc = sg__enter(n);
  if (rc < 0) return rc;
  if (n->kind == SG_COMPUTED) {
    pthread_mutex_lock(&n->graph->lock);
    n->watcher = watcher;
    pthread_mutex_unlock(&n->graph->lock);
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
static void arm_locked(sg_node *n) {
  if (!n->watcher || n->destroyed) return;
  n->armed_version = n->version;
  g_atomic_int_set(&n->armed, 1);
  if (!sg__fresh(n)) sg__enqueue(n);
}

int sg_node_arm_unchecked(sg_node *n) {
  if (g_atomic_int_get(&n->armed)) return SG_OK; /* the common case: no lock */
  pthread_mutex_lock(&n->graph->lock);
  arm_locked(n);
  sg__unlock(n->graph);
  sg__flush_if_outermost(sg__thread());
  return SG_OK;
}

int sg_read_arm_unchecked(sg_node *n) {
  sg_thread *t = sg__thread();
  if (t->frame || n->kind != SG_COMPUTED) return sg_read_unchecked(n);
  sg_graph *g = n->graph;
  pthread_mutex_lock(&g->lock);
  int rc = SG_OK;
  if (n->destroyed) rc = SG_ESTALE;
  else if (n->owner || !sg__fresh(n)) rc = sg__refresh(t, n);
  if (rc == SG_OK && n->destroyed) rc = SG_ESTALE;
  if (rc == SG_OK && !g_atomic_int_get(&n->armed)) arm_locked(n);
  sg__unlock(g);
  sg__flush_if_outermost(t);
  return rc;
}

/* ---------------------------------------------------------- transactions */

uint64_t sg_node_version_unchecked(sg_node *n) {
  pthread_mutex_lock(&n->graph->lock);
  uint64_t v = n->version;
  pthread_mutex_unlock(&n->graph->lock);
  return v;
}

int sg_node_version(sg_node *n, uint64_t *version) {
  if (!version) return SG_EINVAL;
  int rc = sg__enter(n);
  if (rc < 0) return rc;
  *version = sg_node_version_unchecked(n);
  sg__unpin(n);
  return SG_OK;
}

static int rollback_locked(sg_node *n, uint64_t version) {
  if (n->destroyed) return SG_ESTALE;
  n->version = version;
  if (n->kind != SG_STORED) n->state = SG_CHECK;
  /* Dependents re-compare versions instead of trusting an earlier DIRTY:
   * a source that ends where it started then changes nothing. */
  for (sg_link *l = n->dependents_head; l; l = l->next_dependent)
    if (l->target->state == SG_DIRTY) l->target->state = SG_CHECK;
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
    pthread_mutex_lock(&g->lock);
    rc = rollback_locked(n, version);
    sg__unlock(g);
    sg__flush_if_outermost(sg__thread());
  }
  sg__unpin(n);
  return rc;
}
