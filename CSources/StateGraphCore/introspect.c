/*
 * introspect.c — looking at nodes from outside: one consistent description
 * of a node, its edges, and whether a handle still names a live node.
 *
 * Everything here is read under the node's graph lock, so a description is
 * a snapshot of one moment, never a mix of before and after a write.
 * sg__describe_locked is the one place that turns a node into a
 * description, for sg_node_describe here and for whole-graph snapshots.
 *
 * Edges to destroyed nodes are skipped everywhere: a destroyed source can
 * linger in the source list of a node another thread is verifying (it goes
 * at that node's next run), and handing its handle out would give the
 * caller a stale handle it never destroyed.
 */
#include "sg_internal.h"

static size_t live_sources(const sg_node *n) {
  size_t count = 0;
  for (const sg_link *l = sg__first_source(n); l; l = l->next_source)
    count += !l->source->destroyed;
  return count;
}

static size_t live_dependents(const sg_node *n) {
  size_t count = 0;
  for (const sg_link *l = n->dependents_head; l; l = l->next_dependent)
    count += !l->target->destroyed;
  return count;
}

/* Under n's graph lock. O(edges of n): the counts skip destroyed nodes. */
void sg__describe_locked(sg_node *n, sg_node_description *out) {
  *out = (sg_node_description){
    .id = n->id,
    .graph = n->graph,
    .kind = n->kind,
    .state = n->state,
    .name = n->label->name,
    .file = n->label->file,
    .line = n->label->line,
    .version = n->version,
    .run_count = sg__run_count(n),
    .source_count = live_sources(n),
    .dependent_count = live_dependents(n),
  };
}

int sg_node_describe(sg_node *n, sg_node_description *out) {
  if (!out) return SG_EINVAL;
  int rc = sg__enter(n);
  if (rc < 0) return rc;
  sg__graph_lock(n->graph);
  sg__describe_locked(n, out);
  sg__graph_unlock(n->graph);
  sg__unpin(n);
  return SG_OK;
}

/* The two edge lists differ only in which end of the link they hand out. */
enum direction { SOURCES, DEPENDENTS };

static int list_edges(sg_node *n, enum direction dir, sg_node **out, size_t max,
                      size_t *count) {
  if (!count || (max > 0 && !out)) return SG_EINVAL;
  int rc = sg__enter(n);
  if (rc < 0) return rc;
  sg__graph_lock(n->graph);
  size_t i = 0;
  const sg_link *l = dir == SOURCES ? sg__first_source(n) : n->dependents_head;
  for (; l; l = dir == SOURCES ? l->next_source : l->next_dependent) {
    sg_node *other = dir == SOURCES ? l->source : l->target;
    if (other->destroyed) continue;
    if (i < max) out[i] = other;
    i++;
  }
  sg__graph_unlock(n->graph);
  sg__unpin(n);
  *count = i;
  return SG_OK;
}

int sg_node_sources(sg_node *n, sg_node **out, size_t max, size_t *count) {
  return list_edges(n, SOURCES, out, max, count);
}

int sg_node_dependents(sg_node *n, sg_node **out, size_t max, size_t *count) {
  return list_edges(n, DEPENDENTS, out, max, count);
}

int sg_node_check(sg_node *n, uint64_t id) {
  if (!n) return SG_EINVAL;
  if (!sg__pin(n, id)) return SG_ESTALE;
  sg__unpin(n);
  return SG_OK;
}

void sg_node_memory(size_t *in_use, size_t *reserved) {
  size_t used, all;
  sg__registry_memory(&used, &all);
  if (in_use) *in_use = used;
  if (reserved) *reserved = all;
}

int sg_graph_node_count(sg_graph *g, size_t *count) {
  if (!g || !count) return SG_EINVAL;
  if (!sg__registry_has_graph(g)) return SG_ESTALE;
  sg__graph_lock(g);
  *count = g->live;
  sg__graph_unlock(g);
  return SG_OK;
}

int sg_node_set_name(sg_node *n, const char *name) {
  int rc = sg__enter(n);
  if (rc < 0) return rc;
  sg_label *copy = sg__label_new_name(name);
  if (copy) {
    sg__graph_lock(n->graph);
    sg__rename_locked(n, copy);
    sg__graph_unlock(n->graph);
  } else {
    rc = SG_ENOMEM;
  }
  sg__unpin(n);
  return rc;
}
