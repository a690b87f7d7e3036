/*
 * invariants.c — what must hold after every operation:
 *
 *   - the graph counts exactly the live nodes; the batch depth is the
 *     harness's;
 *   - sg_node_describe of each live node agrees with what the harness saw:
 *     id, kind, graph, name, version (a new one per change, the old one
 *     back after a rollback), callback runs, sources (the distinct nodes its
 *     last run read, tracked), dependents (live nodes whose last run read
 *     it); stored nodes are CLEAN, nodes whose last run failed are DIRTY;
 *   - a CLEAN computed node holds the value its formula gives from scratch
 *     (clean means up to date), and outside batches a CLEAN effect's last run
 *     succeeded with the value its formula gives from scratch;
 *   - a destroyed node's handle is stale for good (sg_node_check with its
 *     id), and outside batches its destroy callback ran exactly once.
 */
#include "fuzz.h"

#include <string.h>

static size_t live_sources(const fz_record *r) {
  size_t count = 0;
  for (int i = 0; i < r->read_count; i++) count += r->reads[i]->live;
  return count;
}

/* Whether `reader`'s last run read `r` (tracked). */
static int reads(const fz_record *reader, const fz_record *r) {
  for (int i = 0; i < reader->read_count; i++)
    if (reader->reads[i] == r) return 1;
  return 0;
}

static size_t live_dependents(const fz_record *r) {
  size_t count = 0;
  for (int i = 0; i < fz.record_count; i++)
    count += fz.records[i]->live && reads(fz.records[i], r);
  return count;
}

static void check_description(fz_record *r, sg_node_description *d) {
  FZ_EXPECT_RC(sg_node_describe(r->handle, d), SG_OK);
  char name[16];
  snprintf(name, sizeof name, "n%d", r->index);
  if (d->id != r->id || d->kind != r->kind || d->graph != fz.graph || strcmp(d->name, name) != 0)
    FZ_FAIL("n%d describes as id %llu kind %d name %s", r->index, (unsigned long long)d->id,
            d->kind, d->name);
  if (d->version != r->version)
    FZ_FAIL("n%d has version %llu, expected %llu", r->index, (unsigned long long)d->version,
            (unsigned long long)r->version);
  if (d->run_count != r->runs)
    FZ_FAIL("n%d ran %llu times, the harness counted %llu", r->index,
            (unsigned long long)d->run_count, (unsigned long long)r->runs);
  if (d->source_count != live_sources(r))
    FZ_FAIL("n%d has %zu sources, its last run read %zu live nodes", r->index, d->source_count,
            live_sources(r));
  if (d->dependent_count != live_dependents(r))
    FZ_FAIL("n%d has %zu dependents, %zu live nodes read it", r->index, d->dependent_count,
            live_dependents(r));
  if (r->kind == SG_STORED && d->state != SG_CLEAN) FZ_FAIL("stored n%d is not CLEAN", r->index);
  if (r->kind != SG_STORED && !r->has_run && d->state != SG_DIRTY)
    FZ_FAIL("n%d never ran or failed, yet its state is %d", r->index, d->state);
}

static void check_value(fz_record *r, const sg_node_description *d) {
  if (d->state != SG_CLEAN || r->kind == SG_STORED || fz_tainted(r)) return;
  if (r->kind == SG_COMPUTED) {
    fz_result expected = fz_scratch_top(r);
    if (expected.rc != SG_OK || !r->has_value || r->value != expected.value)
      FZ_FAIL("CLEAN n%d holds %d, from scratch %d (%s)", r->index, r->value, expected.value,
              sg_strerror(expected.rc));
  } else if (fz.tx_depth == 0) { /* effects are pending inside a batch */
    fz_result expected = fz_scratch_formula(r);
    if (r->last_rc != SG_OK || expected.rc != SG_OK || r->last_value != expected.value)
      FZ_FAIL("CLEAN effect n%d last saw %d (%s), from scratch %d (%s)", r->index, r->last_value,
              sg_strerror(r->last_rc), expected.value, sg_strerror(expected.rc));
  }
}

void fz_check_all(void) {
  size_t count = 0;
  FZ_EXPECT_RC(sg_graph_node_count(fz.graph, &count), SG_OK);
  if (count != (size_t)fz.live_count)
    FZ_FAIL("the graph counts %zu live nodes, the harness %d", count, fz.live_count);
  if (sg_batch_depth() != fz.tx_depth)
    FZ_FAIL("batch depth %d, the harness opened %d", sg_batch_depth(), fz.tx_depth);
  for (int i = 0; i < fz.record_count; i++) {
    fz_record *r = fz.records[i];
    if (r->live) {
      sg_node_description d;
      check_description(r, &d);
      check_value(r, &d);
    } else {
      FZ_EXPECT_RC(sg_node_check(r->handle, r->id), SG_ESTALE);
      if (fz.tx_depth == 0 && r->kind != SG_STORED && r->destroy_calls != 1)
        FZ_FAIL("destroyed n%d: destroy callback ran %d times", r->index, r->destroy_calls);
    }
  }
}

/* The edge lists, through a buffer of `max` entries (smaller than the list
 * at times: the count is the whole length all the same). */
void fz_check_edges(fz_record *r, unsigned max) {
  if (!r || !r->live) return;
  sg_node *out[FZ_MAX_RECORDS];
  size_t count = 99;
  FZ_EXPECT_RC(sg_node_sources(r->handle, out, max, &count), SG_OK);
  if (count != live_sources(r)) FZ_FAIL("n%d lists %zu sources", r->index, count);
  size_t listed = 0;
  for (int i = 0; i < r->read_count && listed < max; i++) {
    if (!r->reads[i]->live) continue;
    if (out[listed] != r->reads[i]->handle)
      FZ_FAIL("n%d's source %zu is not n%d (read order)", r->index, listed, r->reads[i]->index);
    listed++;
  }
  FZ_EXPECT_RC(sg_node_dependents(r->handle, out, max, &count), SG_OK);
  if (count != live_dependents(r)) FZ_FAIL("n%d lists %zu dependents", r->index, count);
  for (size_t i = 0; i < count && i < max; i++) {
    int found = 0;
    for (int j = 0; j < fz.record_count; j++) {
      fz_record *m = fz.records[j];
      if (m->live && m->handle == out[i] && reads(m, r)) found = 1;
    }
    for (size_t j = 0; j < i; j++)
      if (out[j] == out[i]) found = 0;
    if (!found) FZ_FAIL("n%d lists a dependent that did not read it (or twice)", r->index);
  }
  FZ_EXPECT_RC(sg_node_sources(r->handle, NULL, 0, &count), SG_OK); /* sizing call */
}
