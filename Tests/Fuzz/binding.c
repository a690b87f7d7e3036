/*
 * binding.c — the harness as a binding: it owns the values, runs formulas in
 * compute and effect callbacks, keeps a transaction log like the Swift
 * wrapper's (first change of each node per batch: value and version), and
 * mirrors what the core must report about each node (version, runs, the
 * sources of the last run).
 */
#include "fuzz.h"

#include <string.h>

static void on_destroy(void *context) {
  fz_record *r = context;
  if (r->context_dead || r->live) FZ_FAIL("destroy callback of n%d: twice, or while live", r->index);
  r->context_dead = 1;
  r->destroy_calls++;
}

fz_record *fz_new_record(sg_kind kind) {
  if (fz.record_count == FZ_MAX_RECORDS) return NULL;
  fz_record *r = calloc(1, sizeof *r);
  r->index = fz.record_count;
  r->kind = kind;
  fz.records[fz.record_count++] = r;
  return r;
}

static sg_node_info info_for(fz_record *r, char *name, size_t size) {
  snprintf(name, size, "n%d", r->index);
  return (sg_node_info){.name = name, .file = "fuzz", .line = r->index};
}

/* Learns the id of a node just created and makes it the slot's occupant. */
static void adopt(fz_record *r, int slot) {
  sg_node_description d;
  FZ_EXPECT_RC(sg_node_describe(r->handle, &d), SG_OK);
  r->id = d.id;
  fz.slots[slot] = r;
  fz.live_count++;
}

/* A new node replaces the slot's occupant. */
static int vacate(int slot) {
  fz_record *old = fz.slots[slot];
  if (old && old->live) fz_destroy(old);
  return fz.record_count < FZ_MAX_RECORDS;
}

/* ------------------------------------------------------------ transactions */

/* Logs the node's state before its first change in the innermost batch. */
static void log_change(fz_record *r) {
  if (fz.tx_depth == 0) return;
  int level = fz.tx_depth - 1;
  for (int i = 0; i < fz.log_count[level]; i++)
    if (fz.log[level][i].record == r) return;
  fz.log[level][fz.log_count[level]++] =
    (struct fz_log_entry){r, r->value, r->has_value, r->version};
}

void fz_batch_begin(void) {
  if (fz.tx_depth == FZ_MAX_TX) return;
  sg_batch_begin();
  fz.log_count[fz.tx_depth++] = 0;
}

/* Ends the innermost batch; its log joins the enclosing one, which keeps
 * its own older entry for a node both changed. */
void fz_batch_commit(void) {
  if (fz.tx_depth == 0) {
    FZ_EXPECT_RC(sg_batch_end(), SG_EBATCH);
    return;
  }
  int level = --fz.tx_depth;
  if (level > 0) {
    for (int i = 0; i < fz.log_count[level]; i++) {
      fz_record *r = fz.log[level][i].record;
      int known = 0;
      for (int j = 0; j < fz.log_count[level - 1]; j++) known |= fz.log[level - 1][j].record == r;
      if (!known) fz.log[level - 1][fz.log_count[level - 1]++] = fz.log[level][i];
    }
  }
  FZ_EXPECT_RC(sg_batch_end(), SG_OK); /* the outermost end runs effects */
}

/* Undoes the innermost batch, newest change first, then ends it. Nodes
 * destroyed meanwhile are skipped: the binding knows they are gone (their
 * handles might even name new nodes by now). */
void fz_batch_rollback(void) {
  if (fz.tx_depth == 0) {
    FZ_EXPECT_RC(sg_batch_end(), SG_EBATCH);
    return;
  }
  int level = --fz.tx_depth;
  for (int i = fz.log_count[level] - 1; i >= 0; i--) {
    struct fz_log_entry *e = &fz.log[level][i];
    if (!e->record->live) continue;
    e->record->value = e->value;
    e->record->has_value = e->has_value;
    FZ_EXPECT_RC(sg_rollback(e->record->handle, e->version), SG_OK);
    e->record->version = e->version;
  }
  FZ_EXPECT_RC(sg_batch_end(), SG_OK);
}

/* --------------------------------------------------------------- formulas */

/* Appends `n` to a list of distinct nodes (a node read twice is one edge). */
static void add_once(fz_record **list, int *count, fz_record *n) {
  for (int i = 0; i < *count; i++)
    if (list[i] == n) return;
  if (*count == FZ_MAX_READS) FZ_FAIL("a formula read more than %d nodes", FZ_MAX_READS);
  list[(*count)++] = n;
}

/* A formula's read of input `which`: the slot's node through sg_read, the
 * binding's own "gone" for an empty slot, EGRAPH for the other graph. */
static int input(fz_record *self, int which, int *out) {
  int slot = self->formula.in[which];
  int untracked = self->formula.untracked >> which & 1;
  if (slot == FZ_FOREIGN) {
    FZ_EXPECT_RC(sg_read(fz.foreign->handle), SG_EGRAPH);
    return SG_EGRAPH;
  }
  fz_record *n = fz.slots[slot];
  if (!n || !n->live) return SG_ESTALE;
  add_once(self->touched, &self->touched_count, n);
  if (untracked) sg_untracked_begin();
  int rc = sg_read(n->handle);
  if (untracked) FZ_EXPECT_RC(sg_untracked_end(), SG_OK);
  if (rc == SG_OK) {
    *out = n->value;
    if (!untracked) add_once(self->reads, &self->read_count, n);
  }
  return rc;
}

#define INPUT(i, v)                          \
  do {                                       \
    int input_rc_ = input(self, i, &(v));    \
    if (input_rc_ < 0) return input_rc_;     \
  } while (0)

/* The four formula shapes; model.c evaluates the same ones from scratch. */
static int run_formula(fz_record *self, int *value) {
  int a = 0, b = 0;
  switch (self->formula.op) {
  case 0: /* sum, cut off to 0..4 */
    INPUT(0, a);
    INPUT(1, b);
    *value = (a + b) % 5;
    return SG_OK;
  case 1: /* a conditional read */
    INPUT(0, a);
    if (a > self->formula.k % 4) INPUT(1, b);
    else INPUT(2, b);
    *value = b;
    return SG_OK;
  case 2: /* strong cutoff */
    INPUT(0, a);
    *value = a % 3;
    return SG_OK;
  default: /* the same input twice: one edge */
    INPUT(0, a);
    INPUT(0, b);
    *value = (a * b + self->formula.k) % 4;
    return SG_OK;
  }
}

static void enter_callback(fz_record *r, sg_node *node) {
  if (r->context_dead) FZ_FAIL("callback of n%d after its destroy callback", r->index);
  if (node != r->handle) FZ_FAIL("callback of n%d got another node", r->index);
  if (sg_current() != node) FZ_FAIL("sg_current() is not the running node n%d", r->index);
  r->runs++;
  r->read_count = 0;
  r->touched_count = 0;
  fz.in_callback++;
}

static int compute(sg_node *node, void *context) {
  fz_record *r = context;
  enter_callback(r, node);
  int value = 0, rc = run_formula(r, &value);
  fz.in_callback--;
  if (rc < 0) {
    r->has_run = 0; /* the core keeps a failed node DIRTY */
    return rc;
  }
  int changed = !r->has_value || value != r->value;
  if (changed) {
    if (r->has_value) log_change(r);
    r->value = value;
    r->has_value = 1;
  }
  if (changed || !r->has_run) r->version = ++r->last_version;
  r->has_run = 1;
  return changed ? SG_CHANGED : SG_UNCHANGED;
}

static int effect(sg_node *node, void *context) {
  fz_record *r = context;
  enter_callback(r, node);
  int value = 0, rc = run_formula(r, &value);
  fz.in_callback--;
  r->last_rc = rc;
  r->last_value = value;
  if (rc < 0) {
    r->has_run = 0;
    return rc;
  }
  if (!r->has_run) r->version = ++r->last_version;
  r->has_run = 1;
  return SG_OK;
}

int fz_watcher(sg_node *node, void *context) {
  fz_record *r = context;
  if (r->context_dead || !r->live) FZ_FAIL("watcher of n%d after destroy", r->index);
  if (node != r->handle) FZ_FAIL("watcher of n%d got another node", r->index);
  if (!r->armed || !r->has_watcher) FZ_FAIL("watcher of n%d called while not armed", r->index);
  if (sg_batch_depth() != 0 || sg_current() || fz.in_callback)
    FZ_FAIL("watcher of n%d called inside a batch or callback", r->index);
  r->armed = 0; /* disarmed until armed again */
  r->watcher_calls++;
  return 0;
}

/* --------------------------------------------------------------- creation */

void fz_create_stored(int slot, int value) {
  if (!vacate(slot)) return;
  fz_record *r = fz_new_record(SG_STORED);
  char name[16];
  sg_node_info info = info_for(r, name, sizeof name);
  r->value = value;
  r->live = 1;
  FZ_EXPECT_RC(sg_stored_new(fz.graph, &info, &r->handle), SG_OK);
  adopt(r, slot);
}

void fz_create_computed(int slot, fz_formula formula) {
  if (!vacate(slot)) return;
  fz_record *r = fz_new_record(SG_COMPUTED);
  char name[16];
  sg_node_info info = info_for(r, name, sizeof name);
  r->formula = formula;
  r->live = 1;
  FZ_EXPECT_RC(sg_computed_new(fz.graph, &info, compute, r, on_destroy, &r->handle), SG_OK);
  if (r->runs != 0) FZ_FAIL("computed n%d ran before its first read", r->index);
  adopt(r, slot);
}

/* An effect runs once, right away: the outcome its formula must have is
 * known beforehand from scratch (it may read its own slot: EKIND). */
void fz_create_effect(int slot, fz_formula formula) {
  if (!vacate(slot)) return;
  fz_record *r = fz_new_record(SG_EFFECT);
  char name[16];
  sg_node_info info = info_for(r, name, sizeof name);
  r->formula = formula;
  r->live = 1;
  fz.slots[slot] = r;
  fz_result expected = fz_scratch_formula(r);
  int rc = sg_effect_new(fz.graph, &info, effect, r, on_destroy, &r->handle);
  int tainted = fz_tainted(r);
  if (rc != (expected.rc < 0 ? SG_ECALLBACK : SG_OK) && !tainted)
    FZ_FAIL("sg_effect_new(n%d) returned %s, its formula gives %s", r->index, sg_strerror(rc),
            sg_strerror(expected.rc));
  if (r->runs != 1) FZ_FAIL("effect n%d ran %llu times when created", r->index,
                            (unsigned long long)r->runs);
  if (!tainted && expected.rc == SG_OK && r->last_value != expected.value)
    FZ_FAIL("effect n%d saw %d, from scratch %d", r->index, r->last_value, expected.value);
  adopt(r, slot);
}

/* ---------------------------------------------------------- other actions */

/* Whether a destroyed node's address now belongs to a live node (malloc
 * reuses memory): then a call with the old handle reaches that node, which
 * the header documents as the limit of pointer checks. */
static int address_reused(const fz_record *dead) {
  for (int i = 0; i < fz.record_count; i++)
    if (fz.records[i]->live && fz.records[i]->handle == dead->handle) return 1;
  return fz.foreign->live && fz.foreign->handle == dead->handle;
}

void fz_write(int slot, int value, int force) {
  fz_record *r = fz.slots[slot];
  if (!r) {
    FZ_EXPECT_RC(sg_changed(NULL), SG_EINVAL);
  } else if (!r->live) {
    if (!address_reused(r)) FZ_EXPECT_RC(sg_changed(r->handle), SG_ESTALE);
  } else if (r->kind != SG_STORED) {
    uint64_t before = r->version;
    FZ_EXPECT_RC(sg_changed(r->handle), SG_EKIND);
    if (r->version != before) FZ_FAIL("refused write changed n%d", r->index);
  } else if (force || value != r->value) {
    log_change(r);
    r->value = value;
    r->version = ++r->last_version;
    FZ_EXPECT_RC(sg_changed(r->handle), SG_OK);
  }
}

void fz_read(fz_record *r) {
  if (!r) {
    FZ_EXPECT_RC(sg_read(NULL), SG_EINVAL);
    return;
  }
  if (!r->live) {
    if (!address_reused(r)) FZ_EXPECT_RC(sg_read(r->handle), SG_ESTALE);
    return;
  }
  fz_result expected = fz_scratch_top(r);
  int rc = sg_read(r->handle);
  if (fz_tainted(r)) return; /* an untracked read upstream may be stale by design */
  if (rc != expected.rc)
    FZ_FAIL("sg_read(n%d) returned %d (%s), from scratch %d (%s)", r->index, rc,
            sg_strerror(rc), expected.rc, sg_strerror(expected.rc));
  if (rc == SG_OK && r->value != expected.value)
    FZ_FAIL("n%d reads %d, from scratch %d", r->index, r->value, expected.value);
  if (rc == SG_ECYCLE) {
    const char *cycle = sg_last_cycle();
    if (!strstr(cycle, " -> ")) FZ_FAIL("cycle report \"%s\" names no cycle", cycle);
  }
}

void fz_destroy(fz_record *r) {
  if (!r) {
    FZ_EXPECT_RC(sg_node_destroy(NULL), SG_EINVAL);
    return;
  }
  if (!r->live) {
    if (!address_reused(r)) FZ_EXPECT_RC(sg_node_destroy(r->handle), SG_ESTALE);
    return;
  }
  r->live = 0; /* before the call: the destroy callback checks it */
  fz.live_count--;
  FZ_EXPECT_RC(sg_node_destroy(r->handle), SG_OK);
  r->armed = 0;
}

/* Sets (or removes) the watcher and arms it. */
void fz_watch(fz_record *r, int set) {
  if (!r || !r->live) return;
  int kind_rc = r->kind == SG_COMPUTED ? SG_OK : SG_EKIND;
  FZ_EXPECT_RC(sg_node_set_watcher(r->handle, set ? fz_watcher : NULL), kind_rc);
  if (kind_rc != SG_OK) {
    FZ_EXPECT_RC(sg_node_arm(r->handle), SG_EKIND);
    return;
  }
  r->has_watcher = set;
  if (!set) r->armed = 0;
  if (set) r->armed = 1; /* before the call: a stale node reports at once */
  FZ_EXPECT_RC(sg_node_arm(r->handle), SG_OK);
}

/* sg_rollback to the version the node has now: nothing changes (a computed
 * node re-runs at its next read and finds its value unchanged). */
void fz_rollback_to_current(fz_record *r) {
  if (!r || !r->live) return;
  FZ_EXPECT_RC(sg_rollback(r->handle, r->version), r->kind == SG_EFFECT ? SG_EKIND : SG_OK);
}
