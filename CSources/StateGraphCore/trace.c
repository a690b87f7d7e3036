/*
 * trace.c — recording the chain of work each write causes.
 *
 * A recording belongs to one thread (sg_thread.trace), so recording takes
 * no lock of its own: only its thread ever touches it.
 *
 * Events are appended in the order things happen, each with its parent:
 * the open span (a root such as a write, or the node whose callback is
 * running), the node whose marking reached it, or the node that needed it
 * refreshed. That order is not a tree's order — marking is depth-first
 * from a stack, so a node's children can come after a sibling's subtree —
 * so when a root closes, its chain is rearranged into depth-first order,
 * children in the order they happened. Until then the indices are stable,
 * which is what open spans, walk entries and the marks table hold.
 */
#include "sg_internal.h"

struct sg_trace {
  GArray *events;        /* sg_trace_event */
  GArray *parents;       /* int per event: its parent's index, -1 for a root */
  GStringChunk *strings; /* names and files, deduplicated */
  GHashTable *marks;     /* node -> its last MARK event + 1 (sg__trace_mark_of) */
  int open;              /* innermost open span, -1 when none */
  guint delivered;       /* events before this are in tree order and were
                            handed to the handler */
  sg_trace_handler handler;
  void *user;
};

/* Threads tracing now. The marking loop tests it (relaxed: a thread sees
 * its own sg_trace_begin, and other threads' traces are not its business). */
int sg__tracing_threads; /* SG_RELAXED_ADD / SG_RELAXED_GET */

/* ------------------------------------------------------------ recording */

#define EVENT(tr, i) g_array_index((tr)->events, sg_trace_event, (i))
#define PARENT(tr, i) g_array_index((tr)->parents, int, (i))

static int record(sg_trace *tr, sg_trace_kind kind, sg_node *n, int parent) {
  sg_trace_event e = {
    .kind = kind,
    .depth = parent >= 0 ? EVENT(tr, parent).depth + 1 : 0,
    .name = "",
    .file = "",
    .result = SG_TRACE_ABANDONED, /* until the update says how it ended */
  };
  if (n) {
    e.node_id = n->id;
    e.node_kind = n->kind;
    e.name = g_string_chunk_insert_const(tr->strings, n->label->name);
    e.file = g_string_chunk_insert_const(tr->strings, n->label->file);
    e.line = n->label->line;
    e.state = n->state;
  }
  g_array_append_val(tr->events, e);
  g_array_append_val(tr->parents, parent);
  return (int)tr->events->len - 1;
}

int sg__trace_event(sg_trace *tr, sg_trace_kind kind, sg_node *n, int parent) {
  return record(tr, kind, n, parent >= 0 ? parent : tr->open);
}

void sg__trace_mark(sg_trace *tr, sg_node *n, sg_state state, int parent) {
  int event = record(tr, SG_TRACE_MARK, n, parent >= 0 ? parent : tr->open);
  EVENT(tr, event).state = state;
  /* its own marks nest under this one */
  g_hash_table_insert(tr->marks, n, GINT_TO_POINTER(event + 1));
}

/* Marking asks only for a node it raised in this very pass (the node it
 * goes on from), so the entry is always this pass's, even when the node's
 * slot held another node earlier in the trace. */
int sg__trace_mark_of(sg_trace *tr, const sg_node *n) {
  return GPOINTER_TO_INT(g_hash_table_lookup(tr->marks, n)) - 1;
}

void sg__trace_set_result(sg_trace *tr, int event, sg_trace_result result) {
  EVENT(tr, event).result = result;
}

int sg__trace_open(sg_trace *tr, sg_trace_kind kind, sg_node *n) {
  tr->open = record(tr, kind, n, tr->open);
  return tr->open;
}

int sg__trace_enter(sg_trace *tr, int span) {
  int previous = tr->open;
  tr->open = span;
  return previous;
}

void sg__trace_leave(sg_trace *tr, int previous) { tr->open = previous; }

/* ------------------------------------------------------------- delivery */

/* Rearranges the undelivered events into depth-first order. Parents always
 * come before their children, so one pass builds first-child and
 * next-sibling links (in record order), and a walk along them — down to
 * the first child, else on to the next sibling, else back up — writes the
 * order out without recursion or stack. */
static void into_tree_order(sg_trace *tr) {
  guint first = tr->delivered, count = tr->events->len - first;
  if (count < 2) return;
  int *parent = g_new(int, count), *child = g_new(int, count), *sibling = g_new(int, count);
  int *last = g_new(int, count), *position = g_new(int, count);
  int roots = -1, last_root = -1;
  for (guint i = 0; i < count; i++) {
    int p = PARENT(tr, first + i) - (int)first; /* < 0: a root of this chain */
    parent[i] = p >= 0 ? p : -1;
    child[i] = sibling[i] = last[i] = -1;
    int *head = p >= 0 ? &child[p] : &roots, *tail = p >= 0 ? &last[p] : &last_root;
    if (*tail >= 0) sibling[*tail] = (int)i;
    else *head = (int)i;
    *tail = (int)i;
  }
  sg_trace_event *sorted = g_new(sg_trace_event, count);
  guint written = 0;
  for (int i = roots; i >= 0;) {
    position[i] = (int)written;
    sorted[written++] = EVENT(tr, first + i);
    if (child[i] >= 0) {
      i = child[i];
      continue;
    }
    while (i >= 0 && sibling[i] < 0) i = parent[i];
    if (i >= 0) i = sibling[i];
  }
  for (guint i = 0; i < count; i++) {
    int k = position[i];
    EVENT(tr, first + k) = sorted[k];
    PARENT(tr, first + k) = parent[i] >= 0 ? position[parent[i]] + (int)first : -1;
  }
  g_free(parent), g_free(child), g_free(sibling), g_free(last), g_free(position);
  g_free(sorted);
}

/* No lock held: the handler is user code. */
static void deliver(sg_trace *tr) {
  into_tree_order(tr);
  guint first = tr->delivered;
  tr->delivered = tr->events->len;
  if (tr->handler && tr->delivered > first)
    tr->handler(&EVENT(tr, first), tr->delivered - first, tr->user);
}

void sg__trace_close(sg_trace *tr, int span) {
  tr->open = PARENT(tr, span);
  if (tr->open < 0) deliver(tr);
}

/* ---------------------------------------------------------------- public */

static void trace_free(sg_trace *tr) {
  g_array_free(tr->events, TRUE);
  g_array_free(tr->parents, TRUE);
  g_hash_table_destroy(tr->marks);
  g_string_chunk_free(tr->strings);
  g_free(tr);
}

int sg_trace_begin(sg_trace_handler handler, void *user) {
  sg_thread *t = sg__thread();
  if (t->trace || t->frame || t->flushing) return SG_EBUSY;
  sg_trace *tr = g_try_new0(sg_trace, 1);
  if (!tr) return SG_ENOMEM;
  tr->events = g_array_new(FALSE, FALSE, sizeof(sg_trace_event));
  tr->parents = g_array_new(FALSE, FALSE, sizeof(int));
  tr->strings = g_string_chunk_new(256);
  tr->marks = g_hash_table_new(g_direct_hash, g_direct_equal);
  tr->open = -1;
  tr->handler = handler;
  tr->user = user;
  t->trace = tr;
  SG_RELAXED_ADD(sg__tracing_threads, 1);
  return SG_OK;
}

int sg_trace_end(sg_trace **out) {
  if (!out) return SG_EINVAL;
  sg_thread *t = sg__thread();
  sg_trace *tr = t->trace;
  if (!tr) return SG_ENOTRACE;
  if (t->frame || t->flushing || tr->open >= 0) return SG_EBUSY;
  deliver(tr); /* events no root owned (a watcher told on arming, say) */
  t->trace = NULL;
  SG_RELAXED_ADD(sg__tracing_threads, -1);
  *out = tr;
  return SG_OK;
}

void sg__trace_thread_exit(sg_thread *t) {
  if (!t->trace) return;
  trace_free(t->trace); /* begun, never ended: nobody can end it now */
  t->trace = NULL;
  SG_RELAXED_ADD(sg__tracing_threads, -1);
}

const sg_trace_event *sg_trace_events(const sg_trace *tr, size_t *count) {
  static const sg_trace_event none[1];
  if (count) *count = tr ? tr->events->len : 0;
  return tr && tr->events->len ? &EVENT(tr, 0) : none;
}

void sg_trace_free(sg_trace *tr) {
  if (tr) trace_free(tr);
}

/* ---------------------------------------------------------------- text */

static const char *name_of(const sg_trace_event *e) { return sg__display_name(e->name); }

static const char *result_text(const sg_trace_event *e) {
  switch (e->result) {
  case SG_TRACE_FIRST_RUN: return "computed (first run)";
  case SG_TRACE_CHANGED: return "recomputed, changed";
  case SG_TRACE_UNCHANGED: return "recomputed, unchanged (cut off)";
  case SG_TRACE_VERIFIED:
    return e->node_kind == SG_EFFECT ? "verified, not run" : "verified, not recomputed";
  case SG_TRACE_RAN: return "ran";
  case SG_TRACE_FAILED: return "failed";
  case SG_TRACE_ABANDONED: break;
  }
  return "abandoned";
}

static const char *root_verb(sg_trace_kind kind) {
  switch (kind) {
  case SG_TRACE_WRITE: return "write";
  case SG_TRACE_ROLLBACK: return "rollback";
  case SG_TRACE_DESTROY: return "destroy";
  case SG_TRACE_READ: return "read";
  case SG_TRACE_CREATE: return "create";
  default: return NULL;
  }
}

int sg_trace_write(const sg_trace_event *events, size_t count, FILE *out) {
  if (!out || (!events && count > 0)) return SG_EINVAL;
  for (size_t i = 0; i < count; i++) {
    const sg_trace_event *e = &events[i];
    fprintf(out, "%*s", 2 * e->depth, "");
    const char *verb = root_verb(e->kind);
    if (verb) {
      GString *label = g_string_new(verb);
      g_string_append_c(label, ' ');
      sg__append_label(label, e->name, e->file, e->line);
      fputs(label->str, out);
      g_string_free(label, TRUE);
    } else if (e->kind == SG_TRACE_BATCH_END) {
      fputs("end of batch", out);
    } else if (e->kind == SG_TRACE_MARK) {
      fprintf(out, "%s: %s", name_of(e), e->state == SG_DIRTY ? "dirty" : "check");
    } else if (e->kind == SG_TRACE_UPDATE) {
      fprintf(out, "%s: %s", name_of(e), result_text(e));
    } else {
      fprintf(out, "%s: watcher notified", name_of(e));
    }
    fputc('\n', out);
  }
  return SG_OK; /* write errors stay in the stream (ferror) */
}
