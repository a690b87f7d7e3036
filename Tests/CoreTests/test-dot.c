/*
 * test-dot.c — the DOT text of a snapshot, byte for byte: vertices in
 * entry order with labels and styles by kind and state, edges from source
 * to reader in read order, labels escaped and long values cut.
 */
#include "harness.h"

/* The snapshot as DOT; free() the result. */
static char *dot_of(const sg_snapshot *s) {
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  REQUIRE(out != NULL);
  CHECK_EQ(sg_snapshot_write_dot(s, out), SG_OK);
  fclose(out);
  return text;
}

/* Values of stored nodes and of computed nodes that ran. */
static void describe_cell(sg_snapshot *s, size_t index, void *context, void *user) {
  size_t count;
  const sg_snapshot_entry *e = &sg_snapshot_entries(s, &count)[index];
  (void)user;
  if (e->kind == SG_EFFECT || (e->kind == SG_COMPUTED && e->run_count == 0)) return;
  char text[32];
  snprintf(text, sizeof text, "%d", ((cell *)context)->value);
  sg_snapshot_set_value(s, index, text);
}

static const char header[] = "digraph stategraph {\n"
                             "  node [fontname=\"Helvetica\", fontsize=11, style=filled];\n"
                             "  edge [color=\"#495057\"];\n";

TEST(dot_small_graph_exact) {
  sg_graph *g = sg_graph_new();
  cell price, total, unused, show;
  cell_stored_at(&price, g, "price", 3, "dot.c", 1);
  cell_computed_at(&total, g, "total", formula_double, (cell *[]){&price, NULL}, "dot.c", 2);
  cell_computed_at(&unused, g, "unused", formula_plus1, (cell *[]){&price, NULL}, "dot.c", 3);
  cell_effect_at(&show, g, "show", formula_copy, (cell *[]){&total, NULL}, "dot.c", 4);
  CHECK_EQ(sg_stored_set_context(price.node, &price), SG_OK);

  sg_batch_begin(); /* a write in flight: total dirty, show check */
  SET(&price, 5);
  sg_snapshot *s = NULL;
  CHECK_EQ(sg_snapshot_graph(g, describe_cell, NULL, &s), SG_OK);
  char *dot = dot_of(s);
  CHECK_STR(dot, "digraph stategraph {\n"
                 "  node [fontname=\"Helvetica\", fontsize=11, style=filled];\n"
                 "  edge [color=\"#495057\"];\n"
                 "  n0 [label=\"price\\n= 5\\nstored\\ndot.c:1\", shape=box, "
                 "fillcolor=\"#e7f5ff\"];\n"
                 "  n1 [label=\"total\\n= 6\\ncomputed, dirty, 1 run\\ndot.c:2\", shape=box, "
                 "style=\"rounded,filled\", fillcolor=\"#ffc9c9\"];\n"
                 "  n2 [label=\"unused\\ncomputed, dirty, 0 runs\\ndot.c:3\", shape=box, "
                 "style=\"rounded,filled\", fillcolor=\"#ffc9c9\"];\n"
                 "  n3 [label=\"show\\neffect, check, 1 run\\ndot.c:4\", shape=ellipse, "
                 "fillcolor=\"#fff3bf\"];\n"
                 "  n0 -> n1;\n"
                 "  n1 -> n3;\n"
                 "}\n");
  free(dot);
  sg_snapshot_free(s);
  CHECK_EQ(sg_batch_end(), SG_OK);

  /* the same graph once the batch ran: clean again, two runs */
  CHECK_EQ(sg_snapshot_around(show.node, SG_UPSTREAM, describe_cell, NULL, &s), SG_OK);
  dot = dot_of(s);
  CHECK(strstr(dot, "  n1 [label=\"total\\n= 10\\ncomputed, clean, 2 runs\\ndot.c:2\", shape=box, "
                    "style=\"rounded,filled\", fillcolor=\"white\"];\n") != NULL);
  CHECK(strstr(dot, "  n2 [label=\"show\\neffect, clean, 2 runs\\ndot.c:4\", shape=ellipse, "
                    "fillcolor=\"#f3f0ff\"];\n") != NULL);
  CHECK(strstr(dot, "unused") == NULL); /* not upstream of show */
  free(dot);
  sg_snapshot_free(s);

  DESTROY(&show);
  DESTROY(&unused);
  DESTROY(&total);
  DESTROY(&price);
  GRAPH_FREE(g);
}

/* Quotes, backslashes and line breaks are escaped; values are cut at 40
 * characters (UTF-8 characters, not bytes); unnamed nodes say so; a node
 * without a file shows no place. */
TEST(dot_escapes_and_cuts) {
  sg_graph *g = sg_graph_new();
  sg_node *odd = NULL, *anonymous = NULL;
  REQUIRE(sg_stored_new(g, &(sg_node_info){.name = "say \"hi\" \\ now", .file = "x.c", .line = 3},
                        &odd) == SG_OK);
  REQUIRE(sg_stored_new(g, NULL, &anonymous) == SG_OK);
  sg_snapshot *s = NULL;
  CHECK_EQ(sg_snapshot_graph(g, NULL, NULL, &s), SG_OK);
  char value[128] = "a\"b\nc"; /* 5 characters, then 40 two-byte ones */
  for (int i = 0; i < 40; i++) strcat(value, "\xc3\xa9");
  CHECK_EQ(sg_snapshot_set_value(s, 0, value), SG_OK);
  char expected[1024];
  char cut[128] = "a\\\"b\\nc";
  for (int i = 0; i < 35; i++) strcat(cut, "\xc3\xa9");
  snprintf(expected, sizeof expected,
           "%s"
           "  n0 [label=\"say \\\"hi\\\" \\\\ now\\n= %s...\\nstored\\nx.c:3\", shape=box, "
           "fillcolor=\"#e7f5ff\"];\n"
           "  n1 [label=\"(unnamed)\\nstored\", shape=box, fillcolor=\"#e7f5ff\"];\n"
           "}\n",
           header, cut);
  char *dot = dot_of(s);
  CHECK_STR(dot, expected);
  free(dot);
  sg_snapshot_free(s);
  CHECK_EQ(sg_node_destroy(odd), SG_OK);
  CHECK_EQ(sg_node_destroy(anonymous), SG_OK);
  GRAPH_FREE(g);
}

/* The one-call form, and its errors. */
TEST(dot_graph_write_dot) {
  sg_graph *g = sg_graph_new();
  cell a, b;
  cell_stored_at(&a, g, "a", 1, "one.c", 1);
  cell_computed_at(&b, g, "b", formula_plus1, (cell *[]){&a, NULL}, "one.c", 2);
  CHECK_EQ(READ(&b), 2);
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);
  REQUIRE(out != NULL);
  CHECK_EQ(sg_graph_write_dot(g, out), SG_OK);
  fclose(out);
  char expected[1024];
  snprintf(expected, sizeof expected,
           "%s"
           "  n0 [label=\"a\\nstored\\none.c:1\", shape=box, fillcolor=\"#e7f5ff\"];\n"
           "  n1 [label=\"b\\ncomputed, clean, 1 run\\none.c:2\", shape=box, "
           "style=\"rounded,filled\", fillcolor=\"white\"];\n"
           "  n0 -> n1;\n"
           "}\n",
           header);
  CHECK_STR(text, expected);
  free(text);
  CHECK_EQ(sg_graph_write_dot(g, NULL), SG_EINVAL);
  CHECK_EQ(sg_graph_write_dot(NULL, stdout), SG_EINVAL);
  CHECK_EQ(sg_snapshot_write_dot(NULL, stdout), SG_EINVAL);
  DESTROY(&b);
  DESTROY(&a);
  GRAPH_FREE(g);
  CHECK_EQ(sg_graph_write_dot(g, stdout), SG_ESTALE);
}
