/*
 * misuse.c — calls with wrong handles and arguments, each of which must
 * answer exactly the documented error code and change nothing: NULL
 * (SG_EINVAL), destroyed nodes and freed graphs (SG_ESTALE), the wrong kind
 * of node (SG_EKIND), unbalanced ends (SG_EBATCH, SG_EUNTRACKED), a graph that still has
 * nodes (SG_EBUSY). Out-parameters must stay untouched on failure.
 */
#include "fuzz.h"

#include <string.h>

static int dummy_callback(sg_node *node, void *context) {
  (void)node;
  (void)context;
  return SG_OK;
}

/* Every checked call with a destroyed node's handle. Skipped (except the
 * id check) when malloc gave the address to a live node: see the header's
 * "Limit" paragraph. */
void fz_stale_calls(fz_record *dead) {
  if (!dead || dead->live) return;
  FZ_EXPECT_RC(sg_node_check(dead->handle, dead->id), SG_ESTALE);
  for (int i = 0; i < fz.record_count; i++)
    if (fz.records[i]->live && fz.records[i]->handle == dead->handle) return;
  if (fz.foreign->live && fz.foreign->handle == dead->handle) return;
  sg_node *h = dead->handle;
  sg_node_description d;
  memset(&d, 0x5a, sizeof d);
  uint64_t version = 77;
  size_t count = 77;
  sg_node *out[2] = {NULL, NULL};
  FZ_EXPECT_RC(sg_node_check(h, 0), SG_ESTALE);
  FZ_EXPECT_RC(sg_read(h), SG_ESTALE);
  FZ_EXPECT_RC(sg_changed(h), SG_ESTALE);
  FZ_EXPECT_RC(sg_node_destroy(h), SG_ESTALE);
  FZ_EXPECT_RC(sg_node_describe(h, &d), SG_ESTALE);
  FZ_EXPECT_RC(sg_node_version(h, &version), SG_ESTALE);
  FZ_EXPECT_RC(sg_rollback(h, 0), SG_ESTALE);
  FZ_EXPECT_RC(sg_node_arm(h), SG_ESTALE);
  FZ_EXPECT_RC(sg_node_set_watcher(h, fz_watcher), SG_ESTALE);
  FZ_EXPECT_RC(sg_node_sources(h, out, 2, &count), SG_ESTALE);
  FZ_EXPECT_RC(sg_node_dependents(h, out, 2, &count), SG_ESTALE);
  if (version != 77 || count != 77 || out[0] || out[1] || d.line != 0x5a5a5a5a)
    FZ_FAIL("a stale call wrote its out-parameter");
  if (dead->kind != SG_STORED && dead->destroy_calls > 1)
    FZ_FAIL("stale calls ran n%d's destroy callback again", dead->index);
}

/* NULL for every handle and out-parameter a checked call takes. */
void fz_null_calls(void) {
  fz_record *some = NULL;
  for (int i = 0; i < fz.record_count && !some; i++)
    if (fz.records[i]->live) some = fz.records[i];
  sg_node *out = (sg_node *)&out;
  size_t count = 77;
  uint64_t version = 77;
  sg_node_description d;
  FZ_EXPECT_RC(sg_read(NULL), SG_EINVAL);
  FZ_EXPECT_RC(sg_changed(NULL), SG_EINVAL);
  FZ_EXPECT_RC(sg_node_destroy(NULL), SG_EINVAL);
  FZ_EXPECT_RC(sg_node_describe(NULL, &d), SG_EINVAL);
  FZ_EXPECT_RC(sg_node_version(NULL, &version), SG_EINVAL);
  FZ_EXPECT_RC(sg_rollback(NULL, 0), SG_EINVAL);
  FZ_EXPECT_RC(sg_node_arm(NULL), SG_EINVAL);
  FZ_EXPECT_RC(sg_node_set_watcher(NULL, fz_watcher), SG_EINVAL);
  FZ_EXPECT_RC(sg_node_sources(NULL, NULL, 0, &count), SG_EINVAL);
  FZ_EXPECT_RC(sg_node_dependents(NULL, NULL, 0, &count), SG_EINVAL);
  FZ_EXPECT_RC(sg_node_check(NULL, 0), SG_EINVAL);
  FZ_EXPECT_RC(sg_stored_new(NULL, NULL, &out), SG_EINVAL);
  FZ_EXPECT_RC(sg_stored_new(fz.graph, NULL, NULL), SG_EINVAL);
  FZ_EXPECT_RC(sg_computed_new(fz.graph, NULL, NULL, NULL, NULL, &out), SG_EINVAL);
  FZ_EXPECT_RC(sg_computed_new(NULL, NULL, dummy_callback, NULL, NULL, &out), SG_EINVAL);
  FZ_EXPECT_RC(sg_effect_new(fz.graph, NULL, NULL, NULL, NULL, &out), SG_EINVAL);
  FZ_EXPECT_RC(sg_effect_new(fz.graph, NULL, dummy_callback, NULL, NULL, NULL), SG_EINVAL);
  FZ_EXPECT_RC(sg_graph_free(NULL), SG_EINVAL);
  FZ_EXPECT_RC(sg_graph_node_count(NULL, &count), SG_EINVAL);
  FZ_EXPECT_RC(sg_graph_node_count(fz.graph, NULL), SG_EINVAL);
  if (some) {
    FZ_EXPECT_RC(sg_node_describe(some->handle, NULL), SG_EINVAL);
    FZ_EXPECT_RC(sg_node_version(some->handle, NULL), SG_EINVAL);
    FZ_EXPECT_RC(sg_node_sources(some->handle, NULL, 1, &count), SG_EINVAL);
    FZ_EXPECT_RC(sg_node_dependents(some->handle, NULL, 0, NULL), SG_EINVAL);
  }
  if (out != (sg_node *)&out || count != 77 || version != 77)
    FZ_FAIL("a call refused for NULL wrote its out-parameter");
  /* Unbalanced ends answer SG_EBATCH or SG_EUNTRACKED and change nothing. */
  if (fz.tx_depth == 0) FZ_EXPECT_RC(sg_batch_end(), SG_EBATCH);
  FZ_EXPECT_RC(sg_untracked_end(), SG_EUNTRACKED);
  sg_untracked_begin();
  FZ_EXPECT_RC(sg_untracked_end(), SG_OK);
  if (sg_batch_depth() != fz.tx_depth) FZ_FAIL("an unbalanced end changed the batch depth");
}

/* A graph's life: EBUSY while it has nodes, then freed, then stale. */
void fz_graph_misuse(void) {
  if (fz.live_count > 0) FZ_EXPECT_RC(sg_graph_free(fz.graph), SG_EBUSY);
  sg_graph *g = sg_graph_new();
  if (!g) FZ_FAIL("sg_graph_new failed");
  sg_node *n = NULL;
  FZ_EXPECT_RC(sg_stored_new(g, NULL, &n), SG_OK);
  FZ_EXPECT_RC(sg_graph_free(g), SG_EBUSY);
  FZ_EXPECT_RC(sg_node_destroy(n), SG_OK);
  FZ_EXPECT_RC(sg_graph_free(g), SG_OK);
  /* g is freed and nothing was allocated since: no live graph has its
   * address, so these must all see a stale graph */
  sg_node *out = (sg_node *)&out;
  size_t count = 77;
  FZ_EXPECT_RC(sg_graph_free(g), SG_ESTALE);
  FZ_EXPECT_RC(sg_graph_node_count(g, &count), SG_ESTALE);
  FZ_EXPECT_RC(sg_stored_new(g, NULL, &out), SG_ESTALE);
  FZ_EXPECT_RC(sg_computed_new(g, NULL, dummy_callback, NULL, NULL, &out), SG_ESTALE);
  if (out != (sg_node *)&out || count != 77) FZ_FAIL("a call on a freed graph wrote its out-parameter");
}

/* Calls that only some kinds accept. */
void fz_kind_misuse(fz_record *r) {
  if (!r || !r->live) return;
  uint64_t before = r->version;
  if (r->kind == SG_EFFECT) {
    FZ_EXPECT_RC(sg_read(r->handle), SG_EKIND);
    FZ_EXPECT_RC(sg_rollback(r->handle, 0), SG_EKIND);
  }
  if (r->kind != SG_STORED) FZ_EXPECT_RC(sg_changed(r->handle), SG_EKIND);
  if (r->kind != SG_COMPUTED) {
    FZ_EXPECT_RC(sg_node_arm(r->handle), SG_EKIND);
    FZ_EXPECT_RC(sg_node_set_watcher(r->handle, fz_watcher), SG_EKIND);
  }
  if (r->version != before) FZ_FAIL("a refused call changed n%d", r->index);
}
