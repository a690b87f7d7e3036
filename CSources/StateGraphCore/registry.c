/*
 * registry.c — which handles are live, so that the public entry points can
 * answer a NULL, stale or foreign handle with an error code instead of
 * touching freed memory.
 *
 * Two process-wide GLib hash sets (live nodes, live graphs) under one mutex.
 * It is a leaf lock: taken alone or inside a graph lock, never the other way
 * round, and no user code runs under it. A check is one uncontended lock and
 * one pointer hash lookup; the unchecked entry points skip it.
 *
 * A node is registered from creation until sg_node_destroy. Its memory may
 * outlive that (graph.c) but its handle is stale from then on. When malloc
 * later hands the same address to a new node, the old handle names the new
 * node: a pointer cannot tell. Ids can: every node gets the next value of a
 * 64-bit counter that is never reset, so an id names one node for the life
 * of the process, and sg_node_check(handle, id) rejects the reused address.
 */
#include "sg_internal.h"

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static GHashTable *live_nodes, *live_graphs; /* created on first use */
static uint64_t last_id;                     /* under registry_lock */

static GHashTable *set_new(void) { return g_hash_table_new(g_direct_hash, g_direct_equal); }

bool sg__registry_add_node(sg_node *n) {
  pthread_mutex_lock(&registry_lock);
  bool graph_live = live_graphs && g_hash_table_contains(live_graphs, n->graph);
  if (graph_live) {
    if (!live_nodes) live_nodes = set_new();
    n->id = ++last_id;
    g_hash_table_add(live_nodes, n);
  }
  pthread_mutex_unlock(&registry_lock);
  return graph_live;
}

void sg__registry_remove_node(sg_node *n) {
  pthread_mutex_lock(&registry_lock);
  g_hash_table_remove(live_nodes, n);
  pthread_mutex_unlock(&registry_lock);
}

/* Under registry_lock. n->id is only read once n is known to be registered:
 * while it is, its memory cannot be freed (destroy unregisters first). */
static bool registered(const sg_node *n, uint64_t id) {
  return live_nodes && g_hash_table_contains(live_nodes, n) && (id == 0 || n->id == id);
}

/* Registered also means not destroyed, so the node still holds its "live"
 * reference: taking one more here cannot revive a node already on its way to
 * the graveyard. */
bool sg__registry_pin(sg_node *n, uint64_t id) {
  pthread_mutex_lock(&registry_lock);
  bool found = registered(n, id);
  if (found) sg__ref(n);
  pthread_mutex_unlock(&registry_lock);
  return found;
}

bool sg__registry_has_node(const sg_node *n, uint64_t id) {
  pthread_mutex_lock(&registry_lock);
  bool found = registered(n, id);
  pthread_mutex_unlock(&registry_lock);
  return found;
}

void sg__registry_add_graph(sg_graph *g) {
  pthread_mutex_lock(&registry_lock);
  if (!live_graphs) live_graphs = set_new();
  g_hash_table_add(live_graphs, g);
  pthread_mutex_unlock(&registry_lock);
}

bool sg__registry_has_graph(const sg_graph *g) {
  pthread_mutex_lock(&registry_lock);
  bool found = live_graphs && g_hash_table_contains(live_graphs, g);
  pthread_mutex_unlock(&registry_lock);
  return found;
}

void sg__registry_remove_graph(sg_graph *g) {
  pthread_mutex_lock(&registry_lock);
  g_hash_table_remove(live_graphs, g);
  pthread_mutex_unlock(&registry_lock);
}
