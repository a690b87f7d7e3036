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
 * A node is registered from creation until its memory is freed, which may
 * be long after sg_node_destroy (a hold, a queue or a claim keeps it); its
 * handle is stale from the destroy on (`destroyed`). Registration says only
 * "this address is a node's memory", so a release of a held, destroyed node
 * can be told from a release of garbage. When malloc later hands the same
 * address to a new node, the old handle names the new node: a pointer
 * cannot tell. Ids can: every node gets the next value of a 64-bit counter
 * that is never reset, so an id names one node for the life of the process,
 * and sg_node_check(handle, id) rejects the reused address.
 *
 * Graphs are never unregistered: a freed graph's memory is kept (graph.c),
 * so its address is never reused and its handle stays stale for good.
 */
#include "sg_internal.h"

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static GHashTable *live_nodes, *live_graphs; /* created on first use */
static uint64_t last_id;                     /* under registry_lock */

static GHashTable *set_new(void) { return g_hash_table_new(g_direct_hash, g_direct_equal); }

bool sg__registry_add_node(sg_node *n) {
  sg__lock(&registry_lock);
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
  sg__lock(&registry_lock);
  g_hash_table_remove(live_nodes, n);
  pthread_mutex_unlock(&registry_lock);
}

/* Under registry_lock: a live node (registered and not destroyed). Its
 * fields are read only once it is known to be registered: while it is, its
 * memory cannot be freed (freeing unregisters first, under this lock). */
static bool registered(const sg_node *n, uint64_t id) {
  return live_nodes && g_hash_table_contains(live_nodes, n) && !SG_PEEK(n->destroyed) &&
         (id == 0 || n->id == id);
}

/* A reference taken only while another one exists: a node whose count is
 * already zero is on its way to the graveyard and must not be revived. */
static bool ref_unless_zero(sg_node *n) {
  gint refs = g_atomic_int_get(&n->refs);
  while (refs > 0)
    if (g_atomic_int_compare_and_exchange_full(&n->refs, refs, refs + 1, &refs)) return true;
  return false;
}

bool sg__registry_pin(sg_node *n, uint64_t id) {
  sg__lock(&registry_lock);
  bool found = registered(n, id) && ref_unless_zero(n);
  pthread_mutex_unlock(&registry_lock);
  return found;
}

int sg__registry_unhold(sg_node *n) {
  sg__lock(&registry_lock);
  int rc = SG_ESTALE;
  if (live_nodes && g_hash_table_contains(live_nodes, n)) {
    rc = SG_ENOTHELD;
    gint holds = g_atomic_int_get(&n->holds);
    while (holds > 0) {
      if (g_atomic_int_compare_and_exchange_full(&n->holds, holds, holds - 1, &holds)) {
        rc = SG_OK;
        break;
      }
    }
  }
  pthread_mutex_unlock(&registry_lock);
  return rc;
}

bool sg__registry_has_node(const sg_node *n, uint64_t id) {
  sg__lock(&registry_lock);
  bool found = registered(n, id);
  pthread_mutex_unlock(&registry_lock);
  return found;
}

void sg__registry_add_graph(sg_graph *g) {
  sg__lock(&registry_lock);
  if (!live_graphs) live_graphs = set_new();
  g_hash_table_add(live_graphs, g);
  pthread_mutex_unlock(&registry_lock);
}

bool sg__registry_has_graph(const sg_graph *g) {
  sg__lock(&registry_lock);
  bool found = live_graphs && g_hash_table_contains(live_graphs, g);
  pthread_mutex_unlock(&registry_lock);
  return found;
}

void sg__registry_remove_graph(sg_graph *g) {
  sg__lock(&registry_lock);
  g_hash_table_remove(live_graphs, g);
  pthread_mutex_unlock(&registry_lock);
}
