/*
 * names.c — renaming a node, and freeing its names.
 *
 * sg_node_describe hands out the node's name pointer, valid until the node
 * is destroyed. Renaming must not break that promise, so a replaced name is
 * kept, not freed: a new name is allocated behind a hidden link to the one
 * it replaced, and freeing the node frees the whole chain. The name a node
 * is created with is a plain string (g_strdup, or the shared sg__no_name
 * when empty), so a node that is never renamed pays nothing; `renamed`
 * tells the two cases apart.
 *
 *   block:  [ previous | previous is a block? | 't' 'o' 't' 'a' 'l' '\0' ]
 *                                               ^ n->name points here
 */
#include "sg_internal.h"

#include <string.h>

char sg__no_name[] = "";

typedef struct name_block {
  char *previous;          /* the name this one replaced */
  bool previous_is_block;  /* false: previous is the plain name from creation */
  char text[];
} name_block;

static name_block *block_of(char *name) {
  return (name_block *)(name - offsetof(name_block, text));
}

void sg__names_free(sg_node *n) {
  char *name = n->name;
  bool is_block = true; /* n->renamed: the caller frees plain names itself */
  while (is_block) {
    name_block *b = block_of(name);
    name = b->previous;
    is_block = b->previous_is_block;
    g_free(b);
  }
  sg__name_free(name);
}

/* Allocated before the lock; linked to the old name under it, where
 * readers (descriptions, snapshots, traces, cycle reports) look. */
char *sg__name_copy(const char *name) {
  size_t size = strlen(name) + 1;
  name_block *b = g_try_malloc(sizeof *b + size);
  if (!b) return NULL;
  memcpy(b->text, name, size);
  return b->text;
}

/* Moves name (docs/core-protocol.md, "What is shared, and what guards it"). */
void sg__rename_locked(sg_node *n, char *copy) {
  name_block *b = block_of(copy);
  b->previous = n->name;
  b->previous_is_block = n->renamed;
  SG_PUBLISH(n->name, b->text);
  n->renamed = true;
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
