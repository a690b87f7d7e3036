/*
 * api.c — the public entry points. Each checks its arguments at the door and
 * then trusts the internal functions, which assume valid, live handles.
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

#define CHECK_NODE(n)                               \
  do {                                              \
    if (!(n)) return SG_EINVAL;                     \
    if (!sg__registry_contains(n)) return SG_ESTALE; \
  } while (0)

/* ------------------------------------------------------------- creation */

static int create(sg_graph *g, sg_kind kind, const sg_node_info *info, sg_callback cb,
                  void *ctx, sg_destroy destroy, sg_node **out) {
  if (!g || !out || (kind != SG_STORED && !cb)) return SG_EINVAL;
  sg_node *n = sg__node_new(g, kind, info);
  if (!n) return SG_ENOMEM;
  n->callback = cb;
  n->context = ctx;
  n->destroy = destroy;
  g_mutex_lock(&g->lock);
  g->live++;
  g->allocated++;
  sg__registry_add(n);
  g_mutex_unlock(&g->lock);
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
  g_mutex_lock(&g->lock);
  rc = sg__refresh(t, *out);
  sg__unlock(g);
  sg__flush_if_outermost(t);
  return rc < 0 ? SG_ECALLBACK : SG_OK;
}

int sg_node_destroy(sg_node *n) {
  CHECK_NODE(n);
  sg_graph *g = n->graph;
  g_mutex_lock(&g->lock);
  int rc = SG_ESTALE;
  if (!n->destroyed) { /* lost a race with another destroy otherwise */
    sg__destroy_locked(n);
    rc = SG_OK;
  }
  sg__unlock(g);
  sg__flush_if_outermost(sg__thread());
  return rc;
}

/* -------------------------------------------------------------- reading */

int sg_read(sg_node *n) {
  CHECK_NODE(n);
  return sg_read_unchecked(n);
}

int sg_read_unchecked(sg_node *n) {
  sg_thread *t = sg__thread();
  if (n->kind == SG_EFFECT) return SG_EKIND;
  if (!t->frame && n->kind == SG_STORED) return SG_OK; /* nothing to record */
  sg_graph *g = n->graph;
  if (t->frame && t->frame->node->graph != g) return SG_EGRAPH;

  g_mutex_lock(&g->lock);
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
  CHECK_NODE(n);
  if (n->kind != SG_STORED) return SG_EKIND;
  return sg_changed_unchecked(n);
}

int sg_changed_unchecked(sg_node *n) {
  sg_graph *g = n->graph;
  g_mutex_lock(&g->lock);
  if (n->destroyed) {
    g_mutex_unlock(&g->lock);
    return SG_ESTALE;
  }
  n->version++;
  sg__mark_dependents(n, SG_DIRTY);
  sg__unlock(g);
  sg__flush_if_outermost(sg__thread());
  return SG_OK;
}

int sg_node_set_watcher(sg_node *n, sg_callback watcher) {
  CHECK_NODE(n);
  if (n->kind != SG_COMPUTED) return SG_EKIND;
  g_mutex_lock(&n->graph->lock);
  n->watcher = watcher;
  g_mutex_unlock(&n->graph->lock);
  return SG_OK;
}

int sg_node_arm(sg_node *n) {
  CHECK_NODE(n);
  if (n->kind != SG_COMPUTED) return SG_EKIND;
  return sg_node_arm_unchecked(n);
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
  g_mutex_lock(&n->graph->lock);
  arm_locked(n);
  sg__unlock(n->graph);
  sg__flush_if_outermost(sg__thread());
  return SG_OK;
}

int sg_read_arm_unchecked(sg_node *n) {
  sg_thread *t = sg__thread();
  if (t->frame || n->kind != SG_COMPUTED) return sg_read_unchecked(n);
  sg_graph *g = n->graph;
  g_mutex_lock(&g->lock);
  int rc = SG_OK;
  if (n->destroyed) rc = SG_ESTALE;
  else if (n->owner || !sg__fresh(n)) rc = sg__refresh(t, n);
  if (rc == SG_OK && n->destroyed) rc = SG_ESTALE;
  if (rc == SG_OK && !g_atomic_int_get(&n->armed)) arm_locked(n);
  sg__unlock(g);
  sg__flush_if_outermost(t);
  return rc;
}

uint64_t sg_node_version(const sg_node *n) {
  if (!n) return 0;
  g_mutex_lock(&n->graph->lock);
  uint64_t v = n->version;
  g_mutex_unlock(&n->graph->lock);
  return v;
}

int sg_rollback(sg_node *n, uint64_t version) {
  CHECK_NODE(n);
  sg_graph *g = n->graph;
  g_mutex_lock(&g->lock);
  n->version = version;
  if (n->kind != SG_STORED) n->state = SG_CHECK;
  /* Dependents re-compare versions instead of trusting an earlier DIRTY:
   * a source that ends where it started then changes nothing. */
  for (sg_link *l = n->dependents_head; l; l = l->next_dependent)
    if (l->target->state == SG_DIRTY) l->target->state = SG_CHECK;
  sg__mark_dependents(n, SG_CHECK);
  sg__unlock(g);
  sg__flush_if_outermost(sg__thread());
  return SG_OK;
}

/* -------------------------------------------------------- introspection */

#define LOCKED_GET(type, n, expr)            \
  do {                                       \
    g_mutex_lock(&(n)->graph->lock);         \
    type value = (expr);                     \
    g_mutex_unlock(&(n)->graph->lock);       \
    return value;                            \
  } while (0)

sg_kind sg_node_kind(const sg_node *n) { return n->kind; }
sg_state sg_node_state(const sg_node *n) { LOCKED_GET(sg_state, n, n->state); }
const char *sg_node_name(const sg_node *n) { return n->name; }
const char *sg_node_file(const sg_node *n) { return n->file; }
int sg_node_line(const sg_node *n) { return n->line; }
sg_graph *sg_node_graph(const sg_node *n) { return n->graph; }
uint64_t sg_node_run_count(const sg_node *n) { LOCKED_GET(uint64_t, n, n->run_count); }
size_t sg_node_source_count(const sg_node *n) { LOCKED_GET(size_t, n, n->source_count); }
size_t sg_node_dependent_count(const sg_node *n) {
  LOCKED_GET(size_t, n, n->dependent_count);
}

size_t sg_node_sources(const sg_node *n, sg_node **out, size_t max) {
  g_mutex_lock(&n->graph->lock);
  size_t i = 0;
  for (sg_link *l = n->sources_head; l; l = l->next_source, i++)
    if (i < max) out[i] = l->source;
  g_mutex_unlock(&n->graph->lock);
  return i;
}

size_t sg_node_dependents(const sg_node *n, sg_node **out, size_t max) {
  g_mutex_lock(&n->graph->lock);
  size_t i = 0;
  for (sg_link *l = n->dependents_head; l; l = l->next_dependent, i++)
    if (i < max) out[i] = l->target;
  g_mutex_unlock(&n->graph->lock);
  return i;
}

int sg_node_is_live(const sg_node *n) { return n && sg__registry_contains(n); }
