/*
 * snapshot.c — copies of many nodes and their edges, taken at one moment.
 *
 * Taking a snapshot has two phases.
 *
 * 1. Under the graph lock: choose the nodes (the graph's live list, or a
 *    walk up and/or down from one node), sort them by id, and copy
 *    everything a reader needs — strings included, since a node's strings
 *    die with it — into memory the snapshot owns. No user code runs here.
 *
 * 2. Without the lock, when there is a visitor: call it once per node with
 *    the node's context, so the program can describe the value it stands
 *    for. Each node is pinned (a reference) from phase 1 until its visit is
 *    over, so its memory and its destroy callback wait for us; and the visit
 *    is in the node's set of visits while the visitor runs (waits.c), so
 *    that sg_node_destroy on another thread waits too. That second guard is what makes a context
 *    that no destroy callback owns safe to use: the Swift wrapper's stored
 *    nodes point at the Swift object itself, which their deinit frees right
 *    after sg_node_destroy returns.
 */
#include "sg_internal.h"

#include <string.h>

struct sg_snapshot {
  sg_snapshot_entry *entries;
  size_t count;
  size_t *sources;       /* every entry's source indices, one block */
  GStringChunk *strings; /* names, files and values */
};

/* ------------------------------------------------------------ choosing */

static gint by_id(gconstpointer a, gconstpointer b) {
  const sg_node *x = *(sg_node *const *)a, *y = *(sg_node *const *)b;
  return x->id < y->id ? -1 : x->id > y->id;
}

/* Adds everything reachable from `root` in one direction (root excluded:
 * the caller adds it) to `chosen`. An explicit stack: graphs may be deep. */
static void walk_from(sg_node *root, sg_direction direction, GHashTable *seen,
                      GPtrArray *chosen) {
  GPtrArray *stack = g_ptr_array_new();
  g_ptr_array_add(stack, root);
  while (stack->len > 0) {
    sg_node *n = g_ptr_array_steal_index_fast(stack, stack->len - 1);
    const sg_link *l = direction == SG_UPSTREAM ? sg__first_source(n) : n->dependents_head;
    for (; l; l = direction == SG_UPSTREAM ? l->next_source : l->next_dependent) {
      sg_node *other = direction == SG_UPSTREAM ? l->source : l->target;
      if (other->destroyed || !g_hash_table_add(seen, other)) continue;
      g_ptr_array_add(chosen, other);
      g_ptr_array_add(stack, other);
    }
  }
  g_ptr_array_free(stack, TRUE);
}

/* Under the lock. root NULL: the whole graph. */
static GPtrArray *choose(sg_graph *g, sg_node *root, sg_direction direction) {
  GPtrArray *chosen = g_ptr_array_new();
  if (!root) {
    for (sg_node *n = g->live_head; n; n = n->live_next) g_ptr_array_add(chosen, n);
    return chosen; /* the live list is in creation order: sorted already */
  }
  GHashTable *seen = g_hash_table_new(g_direct_hash, g_direct_equal);
  g_hash_table_add(seen, root);
  g_ptr_array_add(chosen, root);
  /* In an acyclic graph nothing is both upstream and downstream of root,
   * so one `seen` set serves both walks. */
  if (direction & SG_UPSTREAM) walk_from(root, SG_UPSTREAM, seen, chosen);
  if (direction & SG_DOWNSTREAM) walk_from(root, SG_DOWNSTREAM, seen, chosen);
  g_hash_table_destroy(seen);
  g_ptr_array_sort(chosen, by_id);
  return chosen;
}

/* ------------------------------------------------------------- copying */

/* Under the lock: entries and edges for the chosen nodes. Edges count only
 * between chosen nodes; `index` maps a node to its position + 1. */
static sg_snapshot *copy_locked(GPtrArray *chosen) {
  sg_snapshot *s = g_try_new0(sg_snapshot, 1);
  if (!s) return NULL;
  s->count = chosen->len;
  s->strings = g_string_chunk_new(256);
  s->entries = g_try_new0(sg_snapshot_entry, s->count ? s->count : 1);
  GHashTable *index = g_hash_table_new(g_direct_hash, g_direct_equal);
  for (guint i = 0; i < chosen->len; i++)
    g_hash_table_insert(index, chosen->pdata[i], GSIZE_TO_POINTER(i + 1));

  size_t edges = 0;
  for (guint i = 0; i < chosen->len; i++) {
    const sg_node *n = chosen->pdata[i];
    for (const sg_link *l = sg__first_source(n); l; l = l->next_source)
      edges += !l->source->destroyed && g_hash_table_contains(index, l->source);
  }
  s->sources = g_try_new(size_t, edges ? edges : 1);
  if (!s->entries || !s->sources) {
    g_hash_table_destroy(index);
    sg_snapshot_free(s);
    return NULL;
  }

  size_t *next_source = s->sources;
  for (guint i = 0; i < chosen->len; i++) {
    sg_node *n = chosen->pdata[i];
    sg_snapshot_entry *e = &s->entries[i];
    *e = (sg_snapshot_entry){
      .node = n,
      .id = n->id,
      .kind = n->kind,
      .state = n->state,
      .name = g_string_chunk_insert_const(s->strings, n->label->name),
      .file = g_string_chunk_insert_const(s->strings, n->label->file),
      .line = n->label->line,
      .version = n->version,
      .run_count = sg__run_count(n),
      .sources = next_source,
    };
    for (const sg_link *l = sg__first_source(n); l; l = l->next_source) {
      size_t at = GPOINTER_TO_SIZE(g_hash_table_lookup(index, l->source));
      if (at == 0 || l->source->destroyed) continue;
      *next_source++ = at - 1;
      e->source_count++;
    }
  }
  g_hash_table_destroy(index);
  return s;
}

/* ------------------------------------------------------------ visiting */

/* Visits entry i, whose node this thread pinned in phase 1, then unpins it
 * (which may run its destroy callback: no lock is held here). */
/* Moves visits, the visitor wait (docs/core-protocol.md, "Waiting"). */
static void visit_one(sg_snapshot *s, size_t i, sg_snapshot_visitor visit, void *user,
                      sg_thread *t) {
  sg_node *n = s->entries[i].node;
  sg_graph *g = n->graph;
  sg_visit record; /* in n's set of visits while the visitor runs */
  sg__graph_lock(g);
  bool live = !n->destroyed;
  void *context = n->context;
  if (live) sg__visit_begin(t, n, &record);
  sg__graph_unlock(g);

  if (live) {
    visit(s, i, context, user); /* user code: never under the lock */
    sg__graph_lock(g);
    sg__visit_end(n, &record);
    if (g->waiters) sg__graph_broadcast(g);
    sg__graph_unlock(g);
  }
  sg__unpin(n);
}

/* --------------------------------------------------------------- public */

static int take(sg_graph *g, sg_node *root, sg_direction direction, sg_snapshot_visitor visit,
                void *user, sg_snapshot **out) {
  sg__graph_lock(g);
  if (root && root->destroyed) { /* pinned, but destroyed since the door */
    sg__graph_unlock(g);
    return SG_ESTALE;
  }
  GPtrArray *chosen = choose(g, root, direction);
  sg_snapshot *s = copy_locked(chosen);
  if (s && visit)
    for (size_t i = 0; i < s->count; i++) sg__ref(s->entries[i].node);
  sg__graph_unlock(g);
  g_ptr_array_free(chosen, TRUE);
  if (!s) return SG_ENOMEM;

  if (visit) {
    sg_thread *t = sg__thread();
    for (size_t i = 0; i < s->count; i++) visit_one(s, i, visit, user, t);
  }
  *out = s;
  return SG_OK;
}

int sg_snapshot_graph(sg_graph *g, sg_snapshot_visitor visit, void *user, sg_snapshot **out) {
  if (!g || !out) return SG_EINVAL;
  if (!sg__registry_has_graph(g)) return SG_ESTALE;
  return take(g, NULL, 0, visit, user, out);
}

int sg_snapshot_around(sg_node *n, sg_direction direction, sg_snapshot_visitor visit, void *user,
                       sg_snapshot **out) {
  if (!out || direction < SG_UPSTREAM || direction > SG_BOTH) return SG_EINVAL;
  int rc = sg__enter(n);
  if (rc < 0) return rc;
  rc = take(n->graph, n, direction, visit, user, out);
  sg__unpin(n);
  return rc;
}

const sg_snapshot_entry *sg_snapshot_entries(const sg_snapshot *s, size_t *count) {
  static const sg_snapshot_entry none[1];
  if (count) *count = s ? s->count : 0;
  return s ? s->entries : none;
}

int sg_snapshot_set_value(sg_snapshot *s, size_t index, const char *value) {
  if (!s || index >= s->count) return SG_EINVAL;
  /* The old text stays in the chunk: freed with the snapshot. */
  s->entries[index].value = value ? g_string_chunk_insert(s->strings, value) : NULL;
  return SG_OK;
}

void sg_snapshot_free(sg_snapshot *s) {
  if (!s) return;
  if (s->strings) g_string_chunk_free(s->strings);
  g_free(s->entries);
  g_free(s->sources);
  g_free(s);
}
