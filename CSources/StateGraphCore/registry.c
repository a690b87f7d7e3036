/*
 * registry.c — node memory, and which handles are live: the door that lets
 * the checked entry points answer a NULL, stale or foreign handle with an
 * error code instead of touching freed memory.
 *
 * Nodes live in slots cut from chunks that are never given back: memory
 * that once held a node holds a node (or a free slot) of the same size for
 * the life of the process. Three sizes: a stored node's slot holds the
 * fields every node has (SG_STORED_SLOT), a computed node's also what
 * computing needs (SG_COMPUTED_SLOT), and an effect gets the whole sg_node.
 * A chunk holds one size. So the door
 * may look at any address it can place in a chunk without a lock — a
 * binary search over an immutable, sorted array of chunks, a division by
 * the chunk's slot size, and then the slot's own atomics:
 *
 *   id     non-zero from registration until the slot is freed;
 *   refs   pinned with "increment unless zero" (a node whose count reached
 *          zero is on its way to the graveyard and is never revived).
 *
 * A check is a few loads and one atomic increment (plus the decrement that
 * unpins), and no two threads share anything but the node they both use.
 * Registration says only "this slot holds a node", so a release of a held,
 * destroyed node can be told from a release of garbage. When a freed slot
 * is given to a new node the old handle names the new node: a pointer
 * cannot tell. Ids can: every node gets the next value of a 64-bit counter
 * that is never reset, so an id names one node for the life of the process,
 * and sg_node_check(handle, id) rejects the reused slot.
 *
 * A slot's door fields (refs, holds, id: together in sg_node) are the only
 * ones read without a pin, so creating a node initialises everything else
 * with plain stores and these with atomic ones. Under AddressSanitizer a
 * free slot is poisoned but for those fields, so a use after free is still
 * caught.
 *
 * Graphs are few and checked only where a call names one: a GLib hash set
 * under a mutex, behind a per-thread memo of the graph found last. A freed
 * graph's memory is kept for the next SG_KEPT_GRAPHS frees (graph.c), so
 * its address is not given to a new graph and its handle stays stale that
 * long.
 */
#include "sg_internal.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#ifdef SG_ASAN
#include <sanitizer/asan_interface.h>
#else
#define ASAN_POISON_MEMORY_REGION(at, size) ((void)(at), (void)(size))
#define ASAN_UNPOISON_MEMORY_REGION(at, size) ((void)(at), (void)(size))
#endif

#define SLOTS_PER_CHUNK 4096
/* Slot sizes: multiples of 16 (the allocator's alignment), a computed
 * node's and an effect's of 64 (a cache line). */
#define STORED_SLOT ((SG_STORED_SLOT + 15) / 16 * 16)
#define COMPUTED_SLOT ((SG_COMPUTED_SLOT + 63) / 64 * 64)
#define EFFECT_SLOT ((sizeof(sg_node) + 63) / 64 * 64)
_Static_assert(STORED_SLOT <= 96, "a stored node's slot stays small");
_Static_assert(COMPUTED_SLOT <= 192, "a computed node's slot stays within three lines");
_Static_assert(EFFECT_SLOT <= 256, "an effect's slot stays within four lines");
_Static_assert(offsetof(sg_node, holds) == offsetof(sg_node, refs) + sizeof(gint) &&
                 offsetof(sg_node, id) == offsetof(sg_node, holds) + sizeof(gint) &&
                 offsetof(sg_node, id) + sizeof(uint64_t) <= SG_STORED_SLOT,
               "the door fields are adjacent, in every slot");

/* The door fields, as one region of a slot. */
#define DOOR_START offsetof(sg_node, refs)
#define DOOR_END (offsetof(sg_node, id) + sizeof(uint64_t))

/* ---------------------------------------------------------------- chunks */

/* A chunk, and the distance between its slots. */
typedef struct chunk {
  char *start;
  size_t stride;
} chunk;

/* The chunks in address order. Replaced whole when one is added (the old
 * array stays readable: readers may still search it, and it is small). */
typedef struct chunk_list {
  size_t count;
  struct chunk_list *previous; /* kept, so leak checkers see it reachable */
  chunk at[];
} chunk_list;

/* The slots of one size: free ones, and the newest chunk's untouched ones.
 * `slot` is what a node may use; `stride` the distance between slots,
 * larger only under AddressSanitizer, where a stored or computed node's
 * slot is followed by poison as long as the rest of an effect: a read of a
 * computed node's field in a stored node, or of an effect's in a computed
 * node, is caught, whatever lies beyond. */
typedef struct slot_class {
  size_t slot, stride;
  sg_node *free_slots; /* through live_next */
  char *fresh, *fresh_end;
  size_t in_use;
} slot_class;

static chunk_list *chunks; /* published with SG_PUBLISH, read with SG_PEEK */
static pthread_mutex_t slab_lock = PTHREAD_MUTEX_INITIALIZER;
/* Under slab_lock. */
#ifdef SG_ASAN
static slot_class stored_slots = {.slot = STORED_SLOT, .stride = EFFECT_SLOT};
static slot_class computed_slots = {.slot = COMPUTED_SLOT, .stride = EFFECT_SLOT};
#else
static slot_class stored_slots = {.slot = STORED_SLOT, .stride = STORED_SLOT};
static slot_class computed_slots = {.slot = COMPUTED_SLOT, .stride = COMPUTED_SLOT};
#endif
static slot_class effect_slots = {.slot = EFFECT_SLOT, .stride = EFFECT_SLOT};
static uint64_t last_id;        /* atomic */

static slot_class *class_of(sg_kind kind) {
  return kind == SG_STORED ? &stored_slots : kind == SG_COMPUTED ? &computed_slots : &effect_slots;
}

/* A free slot under AddressSanitizer: poisoned but for its door fields. */
static void poison_free_slot(char *slot, size_t size) {
  ASAN_POISON_MEMORY_REGION(slot, DOOR_START);
  ASAN_POISON_MEMORY_REGION(slot + DOOR_END, size - DOOR_END);
}

/* Under slab_lock. Zeroed: the door may read any slot of it from now on.
 * Aligned by the allocator, so the chunk's address is the block's (leak
 * checkers see it reachable through `chunks`). */
/* Moves the door: chunks (docs/core-protocol.md, "Lifetime: who frees a node"). */
static bool add_chunk(slot_class *c) {
  chunk_list *old = chunks;
  size_t count = old ? old->count : 0;
  const size_t size = c->stride * SLOTS_PER_CHUNK;
  char *start = NULL;
  chunk_list *list = malloc(sizeof *list + (count + 1) * sizeof(chunk));
  if (!list || posix_memalign((void **)&start, 64, size) != 0) {
    free(list);
    return false;
  }
  memset(start, 0, size);
  for (size_t offset = 0; offset < size; offset += c->stride)
    poison_free_slot(start + offset, c->stride);
  size_t at = 0;
  while (at < count && (uintptr_t)old->at[at].start < (uintptr_t)start) at++;
  if (count) memcpy(list->at, old->at, at * sizeof(chunk));
  list->at[at] = (chunk){.start = start, .stride = c->stride};
  if (count > at) memcpy(list->at + at + 1, old->at + at, (count - at) * sizeof(chunk));
  list->count = count + 1;
  list->previous = old;
  c->fresh = start;
  c->fresh_end = start + size;
  SG_PUBLISH(chunks, list);
  return true;
}

/* Whether p is the start of a slot: lock-free, reads no slot. */
static bool is_slot(const void *p) {
  const chunk_list *list = SG_PEEK(chunks);
  if (!list) return false;
  uintptr_t at = (uintptr_t)p;
  size_t low = 0, high = list->count;
  while (low < high) { /* the last chunk starting at or before p */
    size_t mid = (low + high) / 2;
    if ((uintptr_t)list->at[mid].start <= at) low = mid + 1;
    else high = mid;
  }
  if (low == 0) return false;
  const chunk *c = &list->at[low - 1];
  size_t offset = at - (uintptr_t)c->start;
  return offset < c->stride * SLOTS_PER_CHUNK && offset % c->stride == 0;
}

sg_node *sg__node_alloc(sg_kind kind) {
  slot_class *c = class_of(kind);
  sg__lock(&slab_lock);
  sg_node *n = c->free_slots;
  if (n) {
    ASAN_UNPOISON_MEMORY_REGION(&n->live_next, sizeof n->live_next);
    c->free_slots = n->live_next;
  } else if (c->fresh < c->fresh_end || add_chunk(c)) {
    n = (sg_node *)c->fresh;
    c->fresh += c->stride;
  }
  if (n) c->in_use++;
  sg__unlock(&slab_lock);
  if (!n) return NULL;
  ASAN_UNPOISON_MEMORY_REGION(n, c->slot);
  /* Not the door fields: a stale handle's check may read them right now.
   * They are zero in a free slot (refs 0 is what made it free). */
  memset(n, 0, DOOR_START);
  memset((char *)n + DOOR_END, 0, c->slot - DOOR_END);
  return n;
}

/* The slot of a buried node, whose references and holds are gone. Poisoned
 * before the lock is dropped: from then on another thread may take it. */
/* Moves the door: id cleared after the last reference (docs/core-protocol.md, "Lifetime: who frees a node"). */
void sg__node_free(sg_node *n) {
  slot_class *c = class_of(n->kind);
  SG_PUBLISH(n->id, 0); /* no longer a handle */
  sg__lock(&slab_lock);
  n->live_next = c->free_slots;
  c->free_slots = n;
  c->in_use--;
  poison_free_slot((char *)n, c->stride);
  sg__unlock(&slab_lock);
}

void sg__registry_memory(size_t *in_use, size_t *reserved) {
  sg__lock(&slab_lock);
  *in_use = stored_slots.in_use * stored_slots.slot + computed_slots.in_use * computed_slots.slot +
            effect_slots.in_use * effect_slots.slot;
  size_t all = 0;
  for (size_t i = 0; chunks && i < chunks->count; i++) all += chunks->at[i].stride * SLOTS_PER_CHUNK;
  sg__unlock(&slab_lock);
  *reserved = all;
}

/* ------------------------------------------------------------------ door */

static pthread_mutex_t graphs_lock = PTHREAD_MUTEX_INITIALIZER;
static GHashTable *live_graphs; /* created on first use */
/* Bumped by every graph freed, under graphs_lock; read without it. */
static uint64_t graphs_removed;

/* The graph this thread found registered last, and graphs_removed then:
 * while no graph was freed since, it is still registered, so the next check
 * of it (every creation names its graph) costs no lock and no hashing. */
static __thread const sg_graph *checked_graph;
static __thread uint64_t checked_at_removal;

/* Moves the door: id, the first reference (docs/core-protocol.md, "Lifetime: who frees a node"). */
void sg__registry_publish_node(sg_node *n) {
  SG_PUBLISH(n->id, SG_COUNT_ADD(last_id, 1));
  if (sg_process_is_single_threaded()) /* nobody to publish to: see SG_COUNT_ADD */
    __atomic_store_n(&n->refs, 1, __ATOMIC_RELAXED);
  else
    SG_ATOMIC_SET(n->refs, 1); /* the "live" reference: from here on, pinnable */
}

/* A reference taken only while another one exists: a node whose count is
 * already zero is on its way to the graveyard and must not be revived. */
static bool ref_unless_zero(sg_node *n) {
  gint refs = SG_ATOMIC_GET(n->refs);
  if (refs > 0 && sg_process_is_single_threaded()) { /* nobody else can look: SG_COUNT_ADD */
    __atomic_store_n(&n->refs, refs + 1, __ATOMIC_RELAXED);
    return true;
  }
  while (refs > 0)
    if (SG_ATOMIC_CAS(n->refs, &refs, refs + 1)) return true;
  return false;
}


/* The slot may have been freed and given to another node between the
 * lookup and the increment: then the reference is that node's (graph.c,
 * sg__pin, tells the two apart by id where the caller has one). */
bool sg__registry_ref_slot(sg_node *n) {
  if (!is_slot(n)) return false;
  sg__point("door: a slot, before the pin");
  return ref_unless_zero(n);
}

int sg__registry_unhold(sg_node *n) {
  if (!is_slot(n) || SG_PEEK(n->id) == 0) return SG_ESTALE; /* no node there */
  gint holds = SG_ATOMIC_GET(n->holds);
  if (holds > 0 && sg_process_is_single_threaded()) { /* nobody else can look: SG_COUNT_ADD */
    __atomic_store_n(&n->holds, holds - 1, __ATOMIC_RELAXED);
    return SG_OK;
  }
  while (holds > 0)
    if (SG_ATOMIC_CAS(n->holds, &holds, holds - 1)) return SG_OK;
  return SG_ENOTHELD;
}

void sg__registry_add_graph(sg_graph *g) {
  sg__lock(&graphs_lock);
  if (!live_graphs) live_graphs = g_hash_table_new(g_direct_hash, g_direct_equal);
  g_hash_table_add(live_graphs, g);
  sg__unlock(&graphs_lock);
}

bool sg__registry_has_graph(const sg_graph *g) {
  if (g == checked_graph && SG_PEEK(graphs_removed) == checked_at_removal) return true;
  sg__lock(&graphs_lock);
  bool found = live_graphs && g_hash_table_contains(live_graphs, g);
  if (found) {
    checked_graph = g;
    checked_at_removal = graphs_removed;
  }
  sg__unlock(&graphs_lock);
  return found;
}

void sg__registry_remove_graph(sg_graph *g) {
  sg__lock(&graphs_lock);
  g_hash_table_remove(live_graphs, g);
  SG_PUBLISH(graphs_removed, graphs_removed + 1);
  sg__unlock(&graphs_lock);
}
