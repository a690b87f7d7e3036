/*
 * graph.c — graphs, nodes, links and their memory.
 *
 * A node's memory outlives sg_node_destroy while something still points at it
 * (a link from a dependent that another thread is verifying, a pending-effect
 * queue, a thread's claim). `refs` counts those holders but claims, which
 * are checked at burial instead (sg__bury); the last unref puts the node on
 * its graph's graveyard, and sg__graph_unlock() frees the graveyard after dropping
 * the lock, so destroy callbacks never run under the lock.
 */
#include "sg_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- graph */

sg_graph *sg__graph_new(void) {
  sg_graph *g = g_try_new0(sg_graph, 1);
  if (!g) return NULL;
  sg__glock_init(&g->lock);
  sg__registry_add_graph(g);
  return g;
}

/* A freed graph's memory is kept for a while: were its address given to a
 * new graph at once, every handle of the old one would pass as the new
 * one's. The last SG_KEPT_GRAPHS freed graphs are kept, in a ring that
 * leak checkers see; the oldest goes back to the allocator as another
 * comes, so a program that makes and frees graphs without end holds no
 * more than that many. */
static sg_graph *kept[SG_KEPT_GRAPHS];
static size_t kept_count, kept_next;
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;

static void retire(sg_graph *g) {
  memset(g, 0, sizeof *g);
  sg__lock(&kept_lock);
  sg_graph *oldest = kept[kept_next];
  kept[kept_next] = g;
  kept_next = (kept_next + 1) % SG_KEPT_GRAPHS;
  if (kept_count < SG_KEPT_GRAPHS) kept_count++;
  sg__unlock(&kept_lock);
  g_free(oldest);
}

#ifdef SG_SCHEDULING_POINTS
size_t sg__kept_graphs(void) {
  sg__lock(&kept_lock);
  size_t count = kept_count;
  sg__unlock(&kept_lock);
  return count;
}
#endif

/* A graph no handle reaches any more (no longer registered, its graveyard
 * freed): its memory goes, but for the struct itself, which is kept. */
void sg__graph_retire(sg_graph *g) {
  for (uint32_t i = 0; i < g->link_blocks.len; i++) free(g->link_blocks.at[i]);
  g_free(g->link_blocks.at);
  g_free(g->scratch.at);
  sg__glock_destroy(&g->lock);
  retire(g);
}

void sg__vec_grow(void **at, uint32_t *cap, size_t item_size) {
  *cap = *cap ? *cap * 2 : 16;
  *at = g_realloc(*at, *cap * item_size);
}

/* ----------------------------------------------------------------- nodes */

sg_node *sg__node_new(sg_graph *g, sg_kind kind, const sg_node_info *info) {
  sg_label *label = info ? sg__label_get(info->name, info->file, info->line)
                         : sg__label_get(NULL, NULL, 0);
  if (!label) return NULL;
  sg_node *n = sg__node_alloc(kind);
  if (!n) {
    sg__label_release(label);
    return NULL;
  }
  n->graph = g;
  n->kind = kind;
  n->state = kind == SG_STORED ? SG_CLEAN : SG_DIRTY;
  n->label = label;
  return n;
}

/* Under the lock: the live list keeps creation order, so snapshots of the
 * whole graph come out in the same order every time. */
void sg__live_insert(sg_node *n) {
  sg_graph *g = n->graph;
  n->live_prev = g->live_tail;
  if (g->live_tail) g->live_tail->live_next = n;
  else g->live_head = n;
  g->live_tail = n;
}

void sg__live_remove(sg_node *n) {
  sg_graph *g = n->graph;
  if (n->live_prev) n->live_prev->live_next = n->live_next;
  else g->live_head = n->live_next;
  if (n->live_next) n->live_next->live_prev = n->live_prev;
  else g->live_tail = n->live_prev;
  n->live_prev = n->live_next = NULL;
}

void sg__ref(sg_node *n) { SG_COUNT_ADD(n->refs, 1); }

/* Under the lock, by whoever dropped the last reference: the node's memory
 * is freed by the next sg__graph_unlock. A claimed node is still in use by its
 * owner (claims hold no reference: two atomic operations per node of every
 * refresh); it is marked SG_RELEASE_BURY and its owner buries it on release. The
 * decision is made once, by the one thread whose decrement reached zero,
 * and handed over under the lock: nobody else buries a node. */
/* Moves the last-reference decision (docs/core-protocol.md, "Lifetime: who frees a node"). */
void sg__bury(sg_node *n) {
  if (n->kind == SG_STORED) goto buried; /* never claimed, never an effect's child */
  if (n->owner) {
    n->on_release |= SG_RELEASE_BURY;
    return;
  }
  if (n->kind == SG_EFFECT && n->parent) { /* its creator: same graph, same lock */
    sg_node *parent = n->parent;
    n->parent = NULL;
    sg__unref(parent);
  }
buried:
  n->graph->allocated--;
  n->next_dead = n->graph->graveyard;
  n->graph->graveyard = n;
}

void sg__unref(sg_node *n) {
  if (SG_COUNT_ADD(n->refs, -1) == 0) sg__bury(n);
}

/* Only with a reference are `destroyed` and the id looked at: without, the
 * slot may be freed (and poisoned, under ASan) between two reads. */
/* Moves the door: the pin (docs/core-protocol.md, "Lifetime: who frees a node"). */
bool sg__pin(sg_node *n, uint64_t id) {
  if (!sg__registry_ref_slot(n)) return false;
  if ((id == 0 || SG_PEEK(n->id) == id) && !SG_PEEK(n->destroyed)) return true;
  sg__unpin(n);
  return false;
}

/* The reference that reaches zero is the only one left, so deciding with the
 * atomic alone is safe; the lock is needed only to bury. */
/* Moves the last-reference decision (docs/core-protocol.md, "Lifetime: who frees a node"). */
void sg__unpin(sg_node *n) {
  sg__point("unpin");
  if (SG_COUNT_ADD(n->refs, -1) != 0) return;
  sg__point("unpin: last reference, before the lock");
  sg_graph *g = n->graph;
  sg__graph_lock(g);
  sg__bury(n);
  sg__graph_unlock(g);
}

__thread sg_here sg__here;

/* sg__graph_unlock when nodes were buried under the lock: they are freed,
 * and their destroy callbacks run, once it is let go. */
void sg__graph_unlock_freeing(sg_graph *g) {
  sg_node *dead = g->graveyard;
  g->graveyard = NULL;
  sg__glock_release(&g->lock);
  while (dead) {
    sg_node *next = dead->next_dead;
    if (dead->kind != SG_STORED && dead->destroy) { /* a stored node has none */
      sg_frame *f = sg__here.frame ? *sg__here.frame : NULL;
      if (f) f->untracked++;
      uint32_t *cause = sg__here.cause;
      if (cause && dead->dead_flush == sg__here.flush_id) {
        uint32_t was = *cause;
        *cause = dead->dead_entry;
        dead->destroy(dead->context);
        *cause = was;
      } else {
        dead->destroy(dead->context);
      }
      if (f) f->untracked--;
    }
    sg__label_release(dead->label);
    sg__node_free(dead); /* the handle is stale from here on */
    dead = next;
  }
}

/* ----------------------------------------------------------------- links */

/* A new block of links (a cache line each, see sg_internal.h) in the pool:
 * twice the last one, from 8 up to 256. */
static void add_link_block(sg_graph *g) {
  uint32_t n = g->link_blocks.len < 5 ? 8u << g->link_blocks.len : 256;
  sg_link *block;
  if (posix_memalign((void **)&block, 64, n * sizeof *block) != 0)
    g_error("stategraph: out of memory"); /* as GLib's own allocations */
  SG_VEC_PUSH(g->link_blocks, block);
  for (uint32_t i = n; i-- > 0;) {
    block[i].next_source = g->link_pool;
    g->link_pool = &block[i];
  }
}

sg_link *sg__link_new(sg_graph *g, sg_node *source, sg_node *target) {
  if (!g->link_pool) add_link_block(g);
  sg_link *l = g->link_pool;
  g->link_pool = l->next_source;
  memset(l, 0, sizeof *l);
  l->source = source;
  l->target = target;
  sg__ref(source);
  /* Appended to the source's dependents: effects then run in creation
   * order. The head's prev_dependent is the tail (see sg_node). */
  sg_link *head = source->dependents_head;
  if (head) {
    l->prev_dependent = head->prev_dependent;
    head->prev_dependent->next_dependent = l;
    head->prev_dependent = l;
  } else {
    l->prev_dependent = l;
    source->dependents_head = l;
  }
  return l;
}

/* The head's prev_source is the tail: the links as sg__link_new and
 * sg__link_free keep a source's dependents. */
void sg__source_list_remove(sg_node *t, sg_link *l) {
  sg_link *head = t->sources_head, *prev = l->prev_source, *next = l->next_source;
  if (l == head) t->sources_head = next; /* prev is the tail: it stays the tail */
  else prev->next_source = next;
  if (next) next->prev_source = prev;
  else if (l != head) head->prev_source = prev; /* l was the tail */
  l->prev_source = l->next_source = NULL;
  t->source_count--;
  if (t->source_index) g_hash_table_remove(t->source_index, l->source);
}

/* Inserts before `before`, or at the tail when `before` is NULL. */
void sg__source_list_insert_before(sg_node *t, sg_link *l, sg_link *before) {
  sg_link *head = t->sources_head;
  l->next_source = before;
  if (!head) { /* the only link: its own tail */
    l->prev_source = l;
    t->sources_head = l;
  } else if (before == head) { /* the new head takes the tail along */
    l->prev_source = head->prev_source;
    head->prev_source = l;
    t->sources_head = l;
  } else {
    sg_link *prev = before ? before->prev_source : head->prev_source;
    l->prev_source = prev;
    prev->next_source = l;
    if (before) before->prev_source = l;
    else head->prev_source = l;
  }
  t->source_count++;
  if (!t->source_index && t->source_count > SG_INDEX_THRESHOLD) {
    t->source_index = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (sg_link *it = t->sources_head; it; it = it->next_source)
      g_hash_table_insert(t->source_index, it->source, it);
  } else if (t->source_index) {
    g_hash_table_insert(t->source_index, l->source, l);
  }
}

/* Removes a link from both lists and returns it to the pool. */
void sg__link_free(sg_graph *g, sg_link *l) {
  sg_node *s = l->source;
  sg__source_list_remove(l->target, l);
  sg_link *head = s->dependents_head, *prev = l->prev_dependent, *next = l->next_dependent;
  if (l == head) s->dependents_head = next; /* prev is the tail: it stays the tail */
  else prev->next_dependent = next;
  if (next) next->prev_dependent = prev;
  else if (l != head) head->prev_dependent = prev; /* l was the tail */
  l->next_source = g->link_pool;
  g->link_pool = l;
  sg__unref(s);
}

void sg__unlink_sources(sg_node *n) {
  if (n->kind == SG_STORED) return; /* it reads nothing */
  while (n->sources_head) sg__link_free(n->graph, n->sources_head);
  if (n->source_index) {
    g_hash_table_destroy(n->source_index);
    n->source_index = NULL;
  }
}
