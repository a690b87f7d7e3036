/*
 * test-snapshot.c — a snapshot holds exactly the graph's live nodes (or the
 * part up or down from one node), with kinds, states, names, places, run
 * counts, edges and the values a visitor describes; names can be qualified
 * after creation; a visitor's node is not destroyed under it.
 */
#include "harness.h"

static int formula_product(cell *self) { return IN(self, 0) * IN(self, 1); }
static int formula_over_ten(cell *self) { return IN(self, 0) > 10; }

/* Describes every computed or stored node whose context is a cell. */
static void describe_cell(sg_snapshot *s, size_t index, void *context, void *user) {
  size_t count;
  const sg_snapshot_entry *e = &sg_snapshot_entries(s, &count)[index];
  (*(int *)user)++;
  if (!context || e->kind == SG_EFFECT) return;
  char text[32];
  snprintf(text, sizeof text, "%d", ((cell *)context)->value);
  CHECK_EQ(sg_snapshot_set_value(s, index, text), SG_OK);
}

#define CHECK_ENTRY(e, kind_, state_, name_, line_, version_, runs_, sources_)        \
  do {                                                                                \
    CHECK_EQ((e).kind, kind_);                                                        \
    CHECK_EQ((e).state, state_);                                                      \
    CHECK_STR((e).name, name_);                                                       \
    CHECK_STR((e).file, "shop.c");                                                    \
    CHECK_EQ((e).line, line_);                                                        \
    CHECK_EQ((e).version, version_);                                                  \
    CHECK_EQ((e).run_count, runs_);                                                   \
    CHECK_EQ((e).source_count, sources_);                                             \
  } while (0)

/* price, quantity → subtotal → show (an effect); big reads subtotal but was
 * never read, so it never ran and has no edges yet. */
TEST(snapshot_whole_graph_exact) {
  sg_graph *g = sg_graph_new();
  cell price, quantity, subtotal, big, show;
  cell_stored_at(&price, g, "price", 3, "shop.c", 10);
  cell_stored_at(&quantity, g, "quantity", 2, "shop.c", 11);
  cell_computed_at(&subtotal, g, "subtotal", formula_product,
                   (cell *[]){&price, &quantity, NULL}, "shop.c", 12);
  cell_computed_at(&big, g, "big", formula_over_ten, (cell *[]){&subtotal, NULL}, "shop.c", 13);
  cell_effect_at(&show, g, "show", formula_copy, (cell *[]){&subtotal, NULL}, "shop.c", 14);
  CHECK_EQ(sg_stored_set_context(price.node, &price), SG_OK);
  CHECK_EQ(sg_stored_set_context(quantity.node, &quantity), SG_OK);

  /* in the middle of a batch: the write marked, nothing ran yet */
  sg_batch_begin();
  SET(&price, 4);
  sg_snapshot *s = NULL;
  int visits = 0;
  CHECK_EQ(sg_snapshot_graph(g, describe_cell, &visits, &s), SG_OK);
  CHECK_EQ(visits, 5);
  size_t count = 0;
  const sg_snapshot_entry *e = sg_snapshot_entries(s, &count);
  CHECK_EQ(count, 5);
  if (count == 5) {
    CHECK_ENTRY(e[0], SG_STORED, SG_CLEAN, "price", 10, 1, 0, 0);
    CHECK_ENTRY(e[1], SG_STORED, SG_CLEAN, "quantity", 11, 0, 0, 0);
    CHECK_ENTRY(e[2], SG_COMPUTED, SG_DIRTY, "subtotal", 12, 1, 1, 2);
    CHECK_ENTRY(e[3], SG_COMPUTED, SG_DIRTY, "big", 13, 0, 0, 0);
    CHECK_ENTRY(e[4], SG_EFFECT, SG_CHECK, "show", 14, 1, 1, 1);
    CHECK(e[0].node == price.node && e[4].node == show.node);
    CHECK_EQ(e[0].id, DESCRIBE(price.node).id);
    CHECK(e[0].id < e[1].id && e[1].id < e[2].id && e[2].id < e[3].id && e[3].id < e[4].id);
    CHECK_EQ(e[2].sources[0], 0); /* read order: price, then quantity */
    CHECK_EQ(e[2].sources[1], 1);
    CHECK_EQ(e[4].sources[0], 2);
    CHECK_STR(e[0].value, "4");
    CHECK_STR(e[1].value, "2");
    CHECK_STR(e[2].value, "6"); /* the cached value: stale, as its state says */
    CHECK_STR(e[3].value, "0");
    CHECK(e[4].value == NULL);
  }
  sg_snapshot_free(s);
  CHECK_EQ(sg_batch_end(), SG_OK);

  /* after the batch: everything clean, counts moved on */
  CHECK_EQ(sg_snapshot_graph(g, NULL, NULL, &s), SG_OK);
  e = sg_snapshot_entries(s, &count);
  CHECK_EQ(count, 5);
  if (count == 5) {
    CHECK_ENTRY(e[2], SG_COMPUTED, SG_CLEAN, "subtotal", 12, 2, 2, 2);
    CHECK_ENTRY(e[3], SG_COMPUTED, SG_DIRTY, "big", 13, 0, 0, 0);
    CHECK_ENTRY(e[4], SG_EFFECT, SG_CLEAN, "show", 14, 1, 2, 1); /* effects: v1 */
    CHECK(e[0].value == NULL); /* no visitor, no values */
  }
  sg_snapshot_free(s);
  CHECK_EQ(show.value, 8);

  DESTROY(&show);
  DESTROY(&big);
  DESTROY(&subtotal);
  DESTROY(&quantity);
  DESTROY(&price);
  GRAPH_FREE(g);
}

/* a, b → c → d; b → e. Up from c: a, b, c. Down from c: c, d (c's sources
 * are outside: no edges to them). Both: a, b, c, d — never e. */
TEST(snapshot_around_a_node) {
  sg_graph *g = sg_graph_new();
  cell a, b, c, d, e;
  STORED(&a, g, "a", 1);
  STORED(&b, g, "b", 2);
  COMPUTED(&c, g, "c", formula_sum, &a, &b);
  COMPUTED(&d, g, "d", formula_plus1, &c);
  COMPUTED(&e, g, "e", formula_plus1, &b);
  CHECK_EQ(READ(&d), 4);
  CHECK_EQ(READ(&e), 3);

  static const struct {
    sg_direction direction;
    const char *names;
    const char *edges;
  } cases[] = {
    {SG_UPSTREAM, "a b c", "0>2 1>2"},
    {SG_DOWNSTREAM, "c d", "0>1"},
    {SG_BOTH, "a b c d", "0>2 1>2 2>3"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    sg_snapshot *s = NULL;
    CHECK_EQ(sg_snapshot_around(c.node, cases[k].direction, NULL, NULL, &s), SG_OK);
    size_t count;
    const sg_snapshot_entry *en = sg_snapshot_entries(s, &count);
    char names[64] = "", edges[64] = "";
    for (size_t i = 0; i < count; i++) {
      snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? " " : "",
               en[i].name);
      for (size_t j = 0; j < en[i].source_count; j++)
        snprintf(edges + strlen(edges), sizeof edges - strlen(edges), "%s%zu>%zu",
                 edges[0] ? " " : "", en[i].sources[j], i);
    }
    CHECK_STR(names, cases[k].names);
    CHECK_STR(edges, cases[k].edges);
    sg_snapshot_free(s);
  }
  DESTROY(&e);
  DESTROY(&d);
  DESTROY(&c);
  DESTROY(&b);
  DESTROY(&a);
  GRAPH_FREE(g);
}

/* The graph's live list: destroyed nodes leave it, new ones join at the end. */
TEST(snapshot_follows_creation_and_destruction) {
  sg_graph *g = sg_graph_new();
  cell a, b, c, d;
  STORED(&a, g, "a", 1);
  STORED(&b, g, "b", 1);
  STORED(&c, g, "c", 1);
  DESTROY(&b);
  STORED(&d, g, "d", 1);
  DESTROY(&a);
  sg_snapshot *s = NULL;
  CHECK_EQ(sg_snapshot_graph(g, NULL, NULL, &s), SG_OK);
  size_t count;
  const sg_snapshot_entry *e = sg_snapshot_entries(s, &count);
  CHECK_EQ(count, 2);
  if (count == 2) {
    CHECK_STR(e[0].name, "c");
    CHECK_STR(e[1].name, "d");
  }
  sg_snapshot_free(s);
  DESTROY(&c);
  DESTROY(&d);
  CHECK_EQ(sg_snapshot_graph(g, NULL, NULL, &s), SG_OK);
  CHECK(sg_snapshot_entries(s, &count) != NULL);
  CHECK_EQ(count, 0);
  sg_snapshot_free(s);
  GRAPH_FREE(g);
}

/* Renaming: descriptions, snapshots and cycle reports use the new name;
 * a name handed out before stays readable until the node goes. */
TEST(snapshot_names_follow_renames) {
  sg_graph *g = sg_graph_new();
  cell total;
  cell_stored_at(&total, g, "total", 1, "cart.c", 7);
  const char *before = DESCRIBE(total.node).name;
  CHECK_EQ(sg_node_set_name(total.node, "Cart.total"), SG_OK);
  CHECK_EQ(sg_node_set_name(total.node, "Cart.grandTotal"), SG_OK);
  CHECK_STR(before, "total");
  CHECK_STR(DESCRIBE(total.node).name, "Cart.grandTotal");
  CHECK_EQ(sg_node_set_name(total.node, NULL), SG_OK);
  CHECK_STR(DESCRIBE(total.node).name, "");
  CHECK_EQ(sg_node_set_name(total.node, "Cart.total"), SG_OK);
  sg_snapshot *s = NULL;
  CHECK_EQ(sg_snapshot_graph(g, NULL, NULL, &s), SG_OK);
  size_t count;
  CHECK_STR(sg_snapshot_entries(s, &count)[0].name, "Cart.total");
  sg_snapshot_free(s);
  DESTROY(&total); /* valgrind/ASan: every name of the chain freed */
  CHECK_EQ(sg_node_set_name(total.node, "late"), SG_ESTALE);
  CHECK_EQ(sg_node_set_name(NULL, "x"), SG_EINVAL);
  GRAPH_FREE(g);
}

TEST(snapshot_misuse) {
  sg_graph *g = sg_graph_new();
  cell s, c;
  STORED(&s, g, "s", 1);
  COMPUTED(&c, g, "c", formula_copy, &s);
  sg_snapshot *snap = NULL;
  CHECK_EQ(sg_snapshot_graph(NULL, NULL, NULL, &snap), SG_EINVAL);
  CHECK_EQ(sg_snapshot_graph(g, NULL, NULL, NULL), SG_EINVAL);
  CHECK_EQ(sg_snapshot_around(NULL, SG_UPSTREAM, NULL, NULL, &snap), SG_EINVAL);
  CHECK_EQ(sg_snapshot_around(s.node, 0, NULL, NULL, &snap), SG_EINVAL);
  CHECK_EQ(sg_snapshot_around(s.node, 4, NULL, NULL, &snap), SG_EINVAL);
  CHECK_EQ(sg_snapshot_around(s.node, SG_UPSTREAM, NULL, NULL, NULL), SG_EINVAL);
  CHECK(snap == NULL);
  CHECK_EQ(sg_stored_set_context(c.node, &c), SG_EKIND);
  CHECK_EQ(sg_stored_set_context(NULL, &c), SG_EINVAL);

  CHECK_EQ(sg_snapshot_around(s.node, SG_BOTH, NULL, NULL, &snap), SG_OK);
  size_t count = 0;
  sg_snapshot_entries(snap, &count);
  CHECK_EQ(count, 1); /* c never ran: no edge yet */
  CHECK_EQ(sg_snapshot_set_value(snap, 1, "x"), SG_EINVAL);
  CHECK_EQ(sg_snapshot_set_value(NULL, 0, "x"), SG_EINVAL);
  CHECK_EQ(sg_snapshot_set_value(snap, 0, "x"), SG_OK);
  CHECK_EQ(sg_snapshot_set_value(snap, 0, NULL), SG_OK);
  CHECK(sg_snapshot_entries(snap, &count)[0].value == NULL);
  sg_snapshot_free(snap);
  sg_snapshot_free(NULL);
  CHECK(sg_snapshot_entries(NULL, &count) != NULL);
  CHECK_EQ(count, 0);

  DESTROY(&c);
  CHECK_EQ(sg_snapshot_around(c.node, SG_UPSTREAM, NULL, NULL, &snap), SG_ESTALE);
  CHECK_EQ(sg_stored_set_context(c.node, &c), SG_ESTALE);
  DESTROY(&s);
  GRAPH_FREE(g);
  CHECK_EQ(sg_snapshot_graph(g, NULL, NULL, &snap), SG_ESTALE);
}

/* A visitor's node stays: sg_node_destroy on another thread waits until the
 * visitor returns, so a context that only the program owns (freed right
 * after the destroy, as the Swift wrapper's stored nodes are) is safe to
 * read in the visitor. */
typedef struct guarded {
  int magic;
} guarded;

typedef struct visit_race {
  sg_graph *g;
  sg_node *node;
  _Atomic int visiting, destroying, visitor_done, saw_freed;
} visit_race;

static void slow_visitor(sg_snapshot *s, size_t index, void *context, void *user) {
  visit_race *r = user;
  (void)s, (void)index;
  atomic_store(&r->visiting, 1);
  while (!atomic_load(&r->destroying)) {
  }
  struct timespec pause = {0, 20 * 1000 * 1000}; /* let the destroy try to get through */
  nanosleep(&pause, NULL);
  if (((guarded *)context)->magic != 42) atomic_store(&r->saw_freed, 1);
  atomic_store(&r->visitor_done, 1);
}

static void *take_snapshot(void *arg) {
  visit_race *r = arg;
  sg_snapshot *s = NULL;
  CHECK_EQ(sg_snapshot_around(r->node, SG_UPSTREAM, slow_visitor, r, &s), SG_OK);
  sg_snapshot_free(s);
  return NULL;
}

TEST(threads_snapshot_visitor_holds_off_destroy) {
  int rounds = harness_quick() ? 3 : 10;
  for (int i = 0; i < rounds; i++) {
    visit_race r = {.g = sg_graph_new()};
    guarded *context = malloc(sizeof *context);
    context->magic = 42;
    REQUIRE(sg_stored_new(r.g, &(sg_node_info){.name = "s"}, &r.node) == SG_OK);
    CHECK_EQ(sg_stored_set_context(r.node, context), SG_OK);
    pthread_t taker = spawn_thread(take_snapshot, &r, 0);
    while (!atomic_load(&r.visiting)) {
    }
    atomic_store(&r.destroying, 1);
    CHECK_EQ(sg_node_destroy(r.node), SG_OK);
    CHECK_EQ(atomic_load(&r.visitor_done), 1); /* the destroy waited */
    context->magic = 0;
    free(context);
    pthread_join(taker, NULL);
    CHECK_EQ(atomic_load(&r.saw_freed), 0);
    GRAPH_FREE(r.g);
  }
}

/* Nodes made at one place with one name (a model's property, once per
 * instance) share their label: one copy of the name for all of them, no
 * memory of their own beyond the slot. A rename is the renamed node's
 * alone and keeps its place; a name stays readable while any node that
 * had it lives. */
TEST(snapshot_nodes_made_at_one_place_share_their_name) {
  sg_graph *g = sg_graph_new();
  char name[] = "Item.title", file[] = "item.c"; /* a caller's buffers: copied */
  sg_node_info info = {.name = name, .file = file, .line = 4};
  size_t before = 0, after = 0;
  sg_node_memory(&before, NULL);
  sg_node *a = NULL, *b = NULL, *c = NULL;
  CHECK_EQ(sg_stored_new(g, &info, &a), SG_OK);
  CHECK_EQ(sg_stored_new(g, &info, &b), SG_OK);
  info.line = 5;
  CHECK_EQ(sg_stored_new(g, &info, &c), SG_OK);
  sg_node_memory(&after, NULL);
  CHECK_EQ(after - before, 3 * 96);
  name[0] = 'X';
  file[0] = 'X';
  sg_node_description da = DESCRIBE(a), db = DESCRIBE(b), dc = DESCRIBE(c);
  CHECK_STR(da.name, "Item.title");
  CHECK_STR(da.file, "item.c");
  CHECK(da.name == db.name); /* one copy */
  CHECK(da.name != dc.name); /* another line: another label */
  CHECK_EQ(dc.line, 5);
  /* The buffers now say another place: the label made last is not it. */
  sg_node *d = NULL;
  CHECK_EQ(sg_stored_new(g, &info, &d), SG_OK);
  sg_node_description dd = DESCRIBE(d);
  CHECK_STR(dd.name, "Xtem.title");
  CHECK_STR(dd.file, "Xtem.c");
  CHECK_EQ(dd.line, 5);
  CHECK_STR(DESCRIBE(c).name, "Item.title");
  CHECK_EQ(sg_node_destroy(d), SG_OK);
  CHECK_EQ(sg_node_set_name(b, "Item.subtitle"), SG_OK);
  db = DESCRIBE(b);
  CHECK_STR(db.name, "Item.subtitle");
  CHECK_STR(db.file, "item.c");
  CHECK_EQ(db.line, 4);
  CHECK_STR(DESCRIBE(a).name, "Item.title");
  CHECK_EQ(sg_node_destroy(a), SG_OK);
  CHECK_STR(da.name, "Item.title"); /* b still holds it, behind its rename */
  CHECK_EQ(sg_node_destroy(b), SG_OK);
  CHECK_EQ(sg_node_destroy(c), SG_OK);
  GRAPH_FREE(g); /* valgrind/ASan: every label freed with its last node (but
                     the one this thread made last, kept for its next node) */
}
