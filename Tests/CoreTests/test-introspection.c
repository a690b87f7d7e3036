/*
 * test-introspection.c — sg_node_describe tells everything about a node in
 * one consistent snapshot; sg_node_sources/dependents list edges in order;
 * ids tell a destroyed node from a new one that got its memory; a checked
 * call racing a destroy on another thread never touches freed memory.
 */
#include "harness.h"

TEST(introspection_describe_each_kind) {
  sg_graph *g = sg_graph_new();
  cell s, c, e;
  cell_stored_at(&s, g, "price", 3, "shop.c", 10);
  cell_computed_at(&c, g, "total", formula_double, (cell *[]){&s, NULL}, "shop.c", 11);
  cell_effect_at(&e, g, "show", formula_copy, (cell *[]){&c, NULL}, "shop.c", 12);

  sg_node_description ds = DESCRIBE(s.node), dc = DESCRIBE(c.node), de = DESCRIBE(e.node);
  CHECK_STR(ds.name, "price");
  CHECK_STR(ds.file, "shop.c");
  CHECK_EQ(ds.line, 10);
  CHECK(ds.graph == g && dc.graph == g && de.graph == g);
  CHECK_EQ(ds.kind, SG_STORED);
  CHECK_EQ(dc.kind, SG_COMPUTED);
  CHECK_EQ(de.kind, SG_EFFECT);
  CHECK_EQ(ds.state, SG_CLEAN);
  CHECK_EQ(dc.state, SG_CLEAN); /* the effect pulled it */
  CHECK_EQ(ds.run_count, 0);
  CHECK_EQ(dc.run_count, 1);
  CHECK_EQ(de.run_count, 1);
  CHECK_EQ(ds.source_count, 0);
  CHECK_EQ(ds.dependent_count, 1);
  CHECK_EQ(dc.source_count, 1);
  CHECK_EQ(dc.dependent_count, 1);
  CHECK_EQ(de.source_count, 1);
  CHECK_EQ(de.dependent_count, 0);
  /* ids: non-zero, distinct, in creation order */
  CHECK(ds.id > 0 && ds.id < dc.id && dc.id < de.id);
  CHECK_EQ(ds.version, 0);
  CHECK_EQ(dc.version, 1); /* its first successful run */

  /* a write, seen in one snapshot: version, states, and nothing run yet */
  sg_batch_begin();
  SET(&s, 4);
  ds = DESCRIBE(s.node);
  dc = DESCRIBE(c.node);
  CHECK_EQ(ds.version, 1);
  CHECK_EQ(dc.state, SG_DIRTY);
  CHECK_EQ(STATE(e.node), SG_CHECK);
  CHECK_EQ(sg_batch_end(), SG_OK);
  dc = DESCRIBE(c.node);
  CHECK_EQ(dc.state, SG_CLEAN);
  CHECK_EQ(dc.run_count, 2);
  CHECK_EQ(dc.version, 2);
  CHECK_EQ(e.value, 8);

  uint64_t version = 0;
  CHECK_EQ(sg_node_version(c.node, &version), SG_OK);
  CHECK_EQ(version, 2);
  CHECK_EQ(sg_node_version_unchecked(c.node), 2);
  DESTROY(&e);
  DESTROY(&c);
  DESTROY(&s);
  GRAPH_FREE(g);
}

/* Sources in read order, dependents in edge order; a short buffer gets the
 * first ones and the full count. */
TEST(introspection_edges_in_order) {
  sg_graph *g = sg_graph_new();
  cell a, b, c, sum, twice;
  STORED(&a, g, "a", 1);
  STORED(&b, g, "b", 2);
  STORED(&c, g, "c", 3);
  COMPUTED(&sum, g, "sum", formula_sum, &c, &a, &b); /* reads c, a, b */
  COMPUTED(&twice, g, "twice", formula_double, &a);
  CHECK_EQ(READ(&sum), 6);
  CHECK_EQ(READ(&twice), 2);

  sg_node *listed[3] = {NULL, NULL, NULL};
  CHECK_EQ(SOURCES(sum.node, listed, 3), 3);
  CHECK(listed[0] == c.node && listed[1] == a.node && listed[2] == b.node);
  listed[1] = NULL;
  CHECK_EQ(SOURCES(sum.node, listed, 1), 3); /* room for one: the count is all */
  CHECK(listed[0] == c.node && listed[1] == NULL);
  CHECK_EQ(SOURCES(sum.node, NULL, 0), 3);
  CHECK_EQ(DEPENDENTS(a.node, listed, 3), 2);
  CHECK(listed[0] == sum.node && listed[1] == twice.node);
  CHECK_EQ(DEPENDENTS(sum.node, listed, 3), 0);

  /* a destroyed dependent leaves the list at once */
  DESTROY(&sum);
  CHECK_EQ(DEPENDENTS(a.node, listed, 3), 1);
  CHECK(listed[0] == twice.node);
  DESTROY(&twice);
  DESTROY(&c);
  DESTROY(&b);
  DESTROY(&a);
  GRAPH_FREE(g);
}

/* A source's dependents stay in link order whichever end or middle one
 * goes, and a new one joins at the end (the list keeps its tail in the
 * head's link, not in the node). */
TEST(introspection_dependents_keep_their_order_as_links_come_and_go) {
  sg_graph *g = sg_graph_new();
  cell s, d[6];
  STORED(&s, g, "s", 1);
  for (int i = 0; i < 4; i++) {
    COMPUTED(&d[i], g, "d", formula_copy, &s);
    CHECK_EQ(READ(&d[i]), 1);
  }
  sg_node *listed[6] = {NULL};
  DESTROY(&d[3]); /* the tail */
  COMPUTED(&d[4], g, "d4", formula_copy, &s);
  CHECK_EQ(READ(&d[4]), 1);
  CHECK_EQ(DEPENDENTS(s.node, listed, 6), 4);
  CHECK(listed[0] == d[0].node && listed[1] == d[1].node && listed[2] == d[2].node &&
        listed[3] == d[4].node);
  DESTROY(&d[0]); /* the head */
  DESTROY(&d[2]); /* a middle one */
  COMPUTED(&d[5], g, "d5", formula_copy, &s);
  CHECK_EQ(READ(&d[5]), 1);
  CHECK_EQ(DEPENDENTS(s.node, listed, 6), 3);
  CHECK(listed[0] == d[1].node && listed[1] == d[4].node && listed[2] == d[5].node);
  CHECK_EQ(sg_changed(s.node), SG_OK); /* marking walks the same list */
  CHECK_EQ(READ(&d[5]), 1);
  DESTROY(&d[1]);
  DESTROY(&d[4]);
  DESTROY(&d[5]);
  CHECK_EQ(DEPENDENTS(s.node, listed, 6), 0);
  COMPUTED(&d[0], g, "again", formula_copy, &s); /* an emptied list takes a new head */
  CHECK_EQ(READ(&d[0]), 1);
  CHECK_EQ(DEPENDENTS(s.node, listed, 6), 1);
  CHECK(listed[0] == d[0].node);
  DESTROY(&d[0]);
  DESTROY(&s);
  GRAPH_FREE(g);
}

/* The limit of a pointer check, and how ids close it: once a destroyed
 * node's memory is reused by a new node, the old handle names the new node
 * (sg_node_check(old, 0) says SG_OK), but sg_node_check(old, old_id) says
 * SG_ESTALE. glibc hands the freed block straight back; ASan and valgrind
 * keep freed memory out of use for a while, so there the address may never
 * come back and the old handle is simply stale. Both ways the id check is
 * right. */
TEST(introspection_ids_tell_reused_memory_apart) {
  sg_graph *g = sg_graph_new();
  sg_node *old = NULL;
  REQUIRE(sg_stored_new(g, &(sg_node_info){.name = "old"}, &old) == SG_OK);
  uint64_t old_id = DESCRIBE(old).id;
  uintptr_t old_address = (uintptr_t)old;
  CHECK_EQ(sg_node_check(old, old_id), SG_OK);
  CHECK_EQ(sg_node_destroy(old), SG_OK);
  CHECK_EQ(sg_node_check(old, old_id), SG_ESTALE);

  enum { TRIES = 64 };
  sg_node *made[TRIES];
  int count = 0, reused = 0;
  while (count < TRIES && !reused) {
    REQUIRE(sg_stored_new(g, &(sg_node_info){.name = "new"}, &made[count]) == SG_OK);
    reused = (uintptr_t)made[count++] == old_address;
  }
  CHECK_EQ(sg_node_check(old, old_id), SG_ESTALE); /* always */
  if (reused) {
    sg_node *same = made[count - 1];
    CHECK_EQ(sg_node_check(old, 0), SG_OK); /* the gap a pointer cannot close */
    sg_node_description d = DESCRIBE(same);
    CHECK_STR(d.name, "new");
    CHECK(d.id > old_id);
    CHECK_EQ(sg_node_check(same, d.id), SG_OK);
  } else {
    CHECK_EQ(sg_node_check(old, 0), SG_ESTALE);
  }
  for (int i = 0; i < count; i++) CHECK_EQ(sg_node_destroy(made[i]), SG_OK);
  GRAPH_FREE(g);
}

/* Checked calls pin the node: a destroy on another thread in the middle of
 * sg_node_describe or sg_read makes them answer SG_ESTALE or work on the
 * node as it was, never read freed memory (ASan and valgrind would say).
 * The destroy callback still runs exactly once. */
typedef struct race {
  cell s, c;
  _Atomic int go, done;
  int ok, stale, other;
} race;

static void *race_reader(void *arg) {
  race *r = arg;
  sg_node *handle = r->c.node; /* taken before the destroy */
  sg_node_description d;
  atomic_store(&r->go, 1);
  for (;;) {
    int rc1 = sg_node_describe(handle, &d);
    int rc2 = sg_read(handle);
    int rc3 = sg_node_check(handle, 0);
    int rcs[] = {rc1, rc2, rc3};
    for (int i = 0; i < 3; i++) {
      if (rcs[i] == SG_OK) r->ok++;
      else if (rcs[i] == SG_ESTALE) r->stale++;
      else r->other++;
    }
    if (rc1 == SG_ESTALE && rc2 == SG_ESTALE && rc3 == SG_ESTALE) break;
  }
  atomic_store(&r->done, 1);
  return NULL;
}

TEST(introspection_checked_calls_race_destroy) {
  int rounds = harness_quick() ? 20 : 100;
  sg_graph *g = sg_graph_new();
  for (int i = 0; i < rounds; i++) {
    race r = {0};
    STORED(&r.s, g, "s", i);
    COMPUTED(&r.c, g, "c", formula_plus1, &r.s);
    pthread_t reader = spawn_thread(race_reader, &r, 0);
    while (!atomic_load(&r.go)) {
    }
    for (int spin = 0; spin < (i % 7) * 20; spin++) SET(&r.s, i + spin); /* vary the moment */
    DESTROY(&r.c);
    pthread_join(reader, NULL);
    CHECK_EQ(r.other, 0);
    CHECK(r.stale >= 3);
    CHECK_EQ(r.c.destroyed, 1);
    DESTROY(&r.s);
  }
  CHECK_EQ(NODE_COUNT(g), 0);
  GRAPH_FREE(g);
}

/* Node memory is counted by the slots nodes use: a destroyed node's slot is
 * given back (to the library, for the next node) once nothing holds it. A
 * stored node's slot is 96 bytes, a computed node's 192, an effect's 256. */
static int memory_noop(sg_node *node, void *context) {
  (void)node;
  (void)context;
  return SG_CHANGED;
}

TEST(introspection_node_memory_follows_nodes) {
  sg_graph *g = sg_graph_new();
  size_t before = 0, reserved = 0, during = 0, after = 0;
  sg_node_memory(&before, &reserved);
  sg_node *nodes[10];
  for (int i = 0; i < 10; i++) CHECK_EQ(sg_stored_new(g, NULL, &nodes[i]), SG_OK);
  sg_node_memory(&during, NULL);
  CHECK_EQ(during - before, 10 * 96);
  sg_node *c = NULL;
  CHECK_EQ(sg_computed_new(g, NULL, memory_noop, NULL, NULL, &c), SG_OK);
  sg_node_memory(&after, NULL);
  CHECK_EQ(after - during, 192);
  sg_node *e = NULL;
  CHECK_EQ(sg_effect_new(g, NULL, memory_noop, NULL, NULL, &e), SG_OK);
  size_t with_effect = 0;
  sg_node_memory(&with_effect, NULL);
  CHECK_EQ(with_effect - after, 256);
  CHECK_EQ(sg_node_destroy(e), SG_OK);
  CHECK_EQ(sg_node_destroy(c), SG_OK);
  CHECK_EQ(sg_node_hold(nodes[0]), SG_OK);
  for (int i = 0; i < 10; i++) CHECK_EQ(sg_node_destroy(nodes[i]), SG_OK);
  sg_node_memory(&after, NULL);
  CHECK_EQ(after - before, 96); /* the held one */
  CHECK_EQ(sg_node_release(nodes[0]), SG_OK);
  sg_node_memory(&after, &reserved);
  CHECK_EQ(after, before);
  CHECK(reserved >= during);
  sg_node_memory(NULL, NULL);
  GRAPH_FREE(g);
}

#if defined(__SANITIZE_ADDRESS__)
#define FENCE_CHECKED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FENCE_CHECKED 1
#endif
#endif
#ifdef FENCE_CHECKED
#include <sanitizer/asan_interface.h>
/* Under AddressSanitizer the bytes past a short slot are poisoned as far as
 * an effect's slot reaches: a read of a computed node's field in a stored
 * node, or of an effect's field in a computed node, is reported. */
TEST(introspection_short_slots_are_fenced_under_asan) {
  sg_graph *g = sg_graph_new();
  sg_node *s = NULL, *c = NULL, *e = NULL;
  CHECK_EQ(sg_stored_new(g, NULL, &s), SG_OK);
  CHECK_EQ(sg_computed_new(g, NULL, memory_noop, NULL, NULL, &c), SG_OK);
  CHECK_EQ(sg_effect_new(g, NULL, memory_noop, NULL, NULL, &e), SG_OK);
  CHECK(!__asan_address_is_poisoned((char *)s + 95));
  CHECK(__asan_address_is_poisoned((char *)s + 96));
  CHECK(__asan_address_is_poisoned((char *)s + 255));
  CHECK(!__asan_address_is_poisoned((char *)c + 191));
  CHECK(__asan_address_is_poisoned((char *)c + 192));
  CHECK(__asan_address_is_poisoned((char *)c + 255));
  CHECK(!__asan_address_is_poisoned((char *)e + 223));
  CHECK_EQ(sg_node_destroy(e), SG_OK);
  CHECK_EQ(sg_node_destroy(c), SG_OK);
  CHECK_EQ(sg_node_destroy(s), SG_OK);
  GRAPH_FREE(g);
}
#endif
