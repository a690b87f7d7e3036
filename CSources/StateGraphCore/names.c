/*
 * names.c — labels: a node's name, file and line, shared by the nodes made
 * at one place with one name, and renaming.
 *
 * A model's property makes one node per instance, all with the same name,
 * file and line: they share one counted label from a process-wide table, so
 * naming costs a node one pointer and no allocation. The table's lock is a
 * leaf; it is taken at creation (before the graph lock) and when a node's
 * memory is freed (after the graph lock was let go).
 *
 * sg_node_describe hands out the node's name pointer, valid until the node
 * is destroyed. Renaming must not break that promise, so a replaced label
 * is kept, not released: a rename makes a private label that holds the one
 * it replaced, and freeing the node releases the whole chain.
 */
#include "sg_internal.h"

#include <string.h>

static pthread_mutex_t labels_lock = PTHREAD_MUTEX_INITIALIZER;
static GHashTable *labels; /* shared labels, by (name, file, line); under labels_lock */

static guint label_hash(gconstpointer p) {
  const sg_label *l = p;
  return g_str_hash(l->name) * 31u + g_str_hash(l->file) * 7u + (guint)l->line;
}

static gboolean label_equal(gconstpointer a, gconstpointer b) {
  const sg_label *x = a, *y = b;
  return x->line == y->line && strcmp(x->name, y->name) == 0 &&
         (x->file == y->file || strcmp(x->file, y->file) == 0);
}

static sg_label *label_alloc(const char *name, const char *file, int line, bool shared) {
  size_t size = strlen(name) + 1;
  sg_label *l = g_try_malloc(sizeof *l + size);
  if (!l) return NULL;
  memcpy(l->text, name, size);
  l->name = l->text;
  l->file = file;
  l->line = line;
  l->uses = 1;
  l->previous = NULL;
  l->shared = shared;
  return l;
}

/* The shared label for *key, with one use more, made if none is. */
static sg_label *label_lookup(const sg_label *key) {
  sg__lock(&labels_lock);
  if (!labels) labels = g_hash_table_new(label_hash, label_equal);
  sg_label *l = g_hash_table_lookup(labels, key);
  if (l) {
    SG_COUNT_ADD(l->uses, 1);
  } else if ((l = label_alloc(key->name, g_intern_string(key->file), key->line, true))) {
    /* File names are few: one copy each, for the life of the process. */
    g_hash_table_add(labels, l);
  }
  sg__unlock(&labels_lock);
  return l;
}

/* The label this thread got last: nodes made at one place in a row (every
 * instance of a model) find it here, with no hashing and no lock. Compared
 * by content, as the caller's strings may be buffers it reuses. It holds a
 * use of its own, let go when the memo moves on or the thread exits
 * (sg__label_forget_memo). */
static __thread sg_label *memo;

sg_label *sg__label_get(const char *name, const char *file, int line) {
  sg_label key = {.name = name ? name : "", .file = file ? file : "", .line = line};
  if (memo && label_equal(memo, &key)) {
    SG_COUNT_ADD(memo->uses, 1);
    return memo;
  }
  sg_label *l = label_lookup(&key);
  if (l) {
    sg_label *forgotten = memo;
    SG_COUNT_ADD(l->uses, 1); /* the memo's */
    memo = l;
    sg__label_release(forgotten);
  }
  return l;
}

void sg__label_forget_memo(void) {
  sg_label *forgotten = memo;
  memo = NULL;
  sg__label_release(forgotten);
}

/* The file and line are filled in under the lock, from the label replaced. */
sg_label *sg__label_new_name(const char *name) {
  return label_alloc(name ? name : "", "", 0, false);
}

/* Moves the name (docs/core-protocol.md, "What is shared, and what guards it"). */
void sg__rename_locked(sg_node *n, sg_label *renamed) {
  sg_label *old = (sg_label *)n->label;
  renamed->file = old->file;
  renamed->line = old->line;
  renamed->previous = old; /* its use moves along */
  SG_PUBLISH(n->label, renamed);
}

void sg__label_release(const sg_label *label) {
  sg_label *l = (sg_label *)label;
  while (l && !l->shared) { /* a rename's: its node's alone */
    sg_label *previous = l->previous;
    g_free(l);
    l = previous;
  }
  if (!l) return;
  /* One use of several: let go without the lock. Only the last use is let
   * go under it, where no other thread can be taking a new one. */
  uint32_t uses = SG_ATOMIC_GET(l->uses);
  if (uses > 1 && sg_process_is_single_threaded()) { /* nobody else can look: see SG_COUNT_ADD */
    __atomic_store_n(&l->uses, uses - 1, __ATOMIC_RELAXED);
    return;
  }
  while (uses > 1)
    if (SG_ATOMIC_CAS(l->uses, &uses, uses - 1)) return;
  sg__lock(&labels_lock);
  bool unused = SG_ATOMIC_ADD(l->uses, -1) == 0;
  if (unused) g_hash_table_remove(labels, l);
  sg__unlock(&labels_lock);
  if (unused) g_free(l);
}

/* The one form in which nodes are named in reports: "name (file:line)",
 * "(unnamed)" for no name, the place only when a file was given. */
const char *sg__display_name(const char *name) {
  return name && name[0] ? name : "(unnamed)";
}

void sg__append_label(GString *out, const char *name, const char *file, int line) {
  g_string_append(out, sg__display_name(name));
  if (file && file[0]) g_string_append_printf(out, " (%s:%d)", file, line);
}
