/*
 * tracking.c — the per-thread tracking frame and the recording of reads.
 *
 * While a callback runs, its frame's cursor walks the node's source list from
 * the last run. A read of the source under the cursor (the common case: same
 * reads, same order) just stamps the link and advances. Anything else looks
 * the source up (a short list scan, or the node's hash index when it has many
 * sources): a link stamped in this run means a repeated read (ignored), an
 * older link is moved under the cursor, and only a source never seen before
 * costs a link (from the pool). When the run ends, links past the cursor were
 * not read this time and are dropped.
 */
#include "sg_internal.h"

/* `sg__current` is the fast way in; `cleanup` only exists to free the state
 * when the thread exits.
 *
 * Thread exit runs other libraries' destructors too, in an order nobody
 * controls: a Swift object released by one of them may destroy its node
 * after ours ran. So freeing the state also forgets it (sg__current is still
 * addressable while destructors run); a later call makes a fresh state and
 * registers it again, and POSIX runs destructors again for values set
 * during the previous round. */
__thread sg_thread *sg__current;

/* The binding slot: one pointer per thread for a language binding, freed
 * with the thread by the destructor the binding sets. */
static void (*binding_destroy)(void *value); /* SG_PUBLISH / SG_PEEK */


void sg__binding_slot_set_destructor(void (*destroy)(void *value)) {
  SG_PUBLISH(binding_destroy, destroy);
}

static void thread_free(gpointer data) {
  sg_thread *t = data;
  void (*destroy)(void *) = SG_PEEK(binding_destroy);
  void *binding = t->binding_slot;
  t->binding_slot = NULL;
  if (binding && destroy) destroy(binding); /* while t is still this thread's */
  if (sg__current == t) {
    sg__current = NULL;
    sg__here.frame = NULL;
  }
  sg__trace_thread_exit(t);
  sg__label_forget_memo();
  for (uint32_t i = 0; i < t->queue.len; i++) {
    sg_node *e = t->queue.at[i].node;
    if (!e) continue; /* moved further back */
    sg__graph_lock(e->graph);
    if (e->queued_by == t) e->queued_by = NULL;
    sg__unref(e);
    sg__graph_unlock(e->graph);
  }
  for (uint32_t i = 0; i < t->handoff.len; i++) { /* exit inside a callback */
    sg_node *e = t->handoff.at[i];
    sg__graph_lock(e->graph);
    sg__unref(e);
    sg__graph_unlock(e->graph);
  }
  g_free(t->handoff.at);
  g_free(t->queue.at);
  g_free(t->walk.at);
  sg__stacks_free(t);
  sg__waits_forget(t);
  g_string_free(t->last_cycle, TRUE);
  sg__bias_thread_end();
  g_free(t);
}

static GPrivate cleanup = G_PRIVATE_INIT(thread_free);

sg_thread *sg__thread_new(void) {
  sg_thread *t = g_new0(sg_thread, 1);
  t->last_cycle = g_string_new("");
  g_private_set(&cleanup, t);
  sg__current = t;
  sg__here.frame = &t->frame;
  sg__bias_thread_begin();
  return t;
}

static sg_link *find_source(sg_node *target, sg_node *source) {
  if (target->source_index) return g_hash_table_lookup(target->source_index, source);
  for (sg_link *l = target->sources_head; l; l = l->next_source)
    if (l->source == source) return l;
  return NULL;
}

/* Records that the frame's node read `source`. Under source's graph lock. */
int sg__track(sg_thread *t, sg_node *source) {
  sg_frame *f = t->frame;
  if (!f || f->untracked) return SG_OK;
  sg_node *target = f->node;
  if (target->graph != source->graph) return SG_EGRAPH;

  sg_link *l = f->cursor;
  if (l && l->source == source) { /* same read as last time, same place */
    l->seen_version = source->version;
    l->epoch = f->epoch;
    f->cursor = l->next_source;
    return SG_OK;
  }
  sg__remember(f, source);
  l = find_source(target, source);
  if (l && l->epoch == f->epoch) return SG_OK; /* read twice: one edge */
  if (l) {
    sg__source_list_remove(target, l);
  } else {
    l = sg__link_new(target->graph, source, target);
  }
  sg__source_list_insert_before(target, l, f->cursor);
  l->seen_version = source->version;
  l->epoch = f->epoch;
  return SG_OK;
}

/* Drops the links the run did not read: everything from the cursor on. */
void sg__prune_unread(sg_frame *f) {
  sg_link *l = f->cursor;
  while (l) {
    sg_link *next = l->next_source;
    sg__link_free(f->node->graph, l);
    l = next;
  }
  f->cursor = NULL;
}
