/*
 * dot.c — a snapshot as a Graphviz DOT digraph.
 *
 * The output depends on the snapshot alone: vertices are named by entry
 * index (n0, n1, ...), never by id or address, and come in entry order (by
 * id, that is creation order), edges in entry and read order. So the same
 * graph built the same way gives the same bytes, in tests and in diffs.
 * Data flows top down (Graphviz's default): an edge goes from a source to
 * the node that read it.
 */
#include "sg_internal.h"

enum { VALUE_MAX_CHARS = 40 }; /* longer values are cut: a picture, not a dump */

/* Writes `text` inside a DOT string: quotes and backslashes escaped, line
 * breaks as \n (a centred line in a label), other control bytes as spaces.
 * With max_chars > 0, stops after that many UTF-8 characters and adds "...". */
static void put_escaped(FILE *out, const char *text, size_t max_chars) {
  size_t chars = 0;
  for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
    bool starts_char = (*p & 0xC0) != 0x80; /* not a UTF-8 continuation byte */
    if (starts_char && max_chars && chars++ == max_chars) {
      fputs("...", out);
      return;
    }
    if (*p == '"' || *p == '\\') {
      fputc('\\', out);
      fputc(*p, out);
    } else if (*p == '\n') {
      fputs("\\n", out);
    } else {
      fputc(*p < 0x20 ? ' ' : *p, out);
    }
  }
}

static const char *state_name(sg_state state) {
  return state == SG_DIRTY ? "dirty" : state == SG_CHECK ? "check" : "clean";
}

/* name \n = value \n kind, state, runs \n file:line */
static void put_label(FILE *out, const sg_snapshot_entry *e) {
  put_escaped(out, sg__display_name(e->name), 0);
  if (e->value) {
    fputs("\\n= ", out);
    put_escaped(out, e->value, VALUE_MAX_CHARS);
  }
  if (e->kind == SG_STORED) {
    fputs("\\nstored", out);
  } else {
    fprintf(out, "\\n%s, %s, %llu run%s", e->kind == SG_COMPUTED ? "computed" : "effect",
            state_name(e->state), (unsigned long long)e->run_count, e->run_count == 1 ? "" : "s");
  }
  if (e->file[0]) {
    fputs("\\n", out);
    put_escaped(out, e->file, 0);
    fprintf(out, ":%d", e->line);
  }
}

/* Shape by kind; fill by state when stale (that is what one looks for),
 * else by kind. */
static void put_style(FILE *out, const sg_snapshot_entry *e) {
  static const char *const shape[] = {
    [SG_STORED] = "shape=box", [SG_COMPUTED] = "shape=box, style=\"rounded,filled\"",
    [SG_EFFECT] = "shape=ellipse"};
  static const char *const kind_fill[] = {
    [SG_STORED] = "#e7f5ff", [SG_COMPUTED] = "white", [SG_EFFECT] = "#f3f0ff"};
  const char *fill = e->state == SG_DIRTY   ? "#ffc9c9"
                     : e->state == SG_CHECK ? "#fff3bf"
                                            : kind_fill[e->kind];
  fprintf(out, ", %s, fillcolor=\"%s\"", shape[e->kind], fill);
}

int sg_snapshot_write_dot(const sg_snapshot *s, FILE *out) {
  if (!s || !out) return SG_EINVAL;
  size_t count;
  const sg_snapshot_entry *entries = sg_snapshot_entries(s, &count);
  fputs("digraph stategraph {\n"
        "  node [fontname=\"Helvetica\", fontsize=11, style=filled];\n"
        "  edge [color=\"#495057\"];\n",
        out);
  for (size_t i = 0; i < count; i++) {
    fprintf(out, "  n%zu [label=\"", i);
    put_label(out, &entries[i]);
    fputc('"', out);
    put_style(out, &entries[i]);
    fputs("];\n", out);
  }
  for (size_t i = 0; i < count; i++)
    for (size_t j = 0; j < entries[i].source_count; j++)
      fprintf(out, "  n%zu -> n%zu;\n", entries[i].sources[j], i);
  fputs("}\n", out);
  return SG_OK; /* write errors stay in the stream (ferror) */
}

int sg_graph_write_dot(sg_graph *g, FILE *out) {
  if (!out) return SG_EINVAL;
  sg_snapshot *s;
  int rc = sg_snapshot_graph(g, NULL, NULL, &s);
  if (rc < 0) return rc;
  rc = sg_snapshot_write_dot(s, out);
  sg_snapshot_free(s);
  return rc;
}
