/*
 * fuzz.h — the libFuzzer harness for the StateGraph C core: shared state.
 *
 * The harness is a small binding (like the Swift wrapper or a C program):
 * it owns the int values nodes stand for and tells the core about reads and
 * changes. A fuzz input is a sequence of operations on a few "slots"; each
 * slot holds at most one live node. A computed or effect node's formula
 * reads slots, not fixed nodes, so destroying a node and creating another in
 * its slot rewires the graph, and two formulas reading each other's slots
 * make a cycle. Every record (one per node ever created) stays allocated
 * until the input ends, so the harness can keep checking what happened to
 * destroyed nodes; the core's memory for them is gone, and AddressSanitizer
 * catches any use of it.
 *
 * After every operation the invariants (invariants.c) compare the core with
 * what the harness knows and with a from-scratch evaluation (model.c); a
 * violation prints what differs and aborts, which libFuzzer reports as a
 * crash with the input that caused it.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include "stategraph.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define FZ_SLOTS 8         /* node slots in the main graph */
#define FZ_FOREIGN FZ_SLOTS /* formula input naming the other graph's node */
#define FZ_MAX_RECORDS 256  /* nodes created per input, at most */
#define FZ_MAX_READS 4      /* distinct inputs a formula can read */
#define FZ_MAX_TX 8         /* nested transactions */

/* A formula: op picks the shape, in[] the slots it reads (FZ_FOREIGN: the
 * node of the other graph), k a threshold or constant, untracked a bit per
 * input read inside an untracked section. */
typedef struct fz_formula {
  uint8_t op, in[3], k, untracked;
} fz_formula;

/* One node ever created: the binding's context for it (computed and effect
 * callbacks get it) and everything the harness expects the core to report. */
typedef struct fz_record {
  int index; /* in the records array; the node's name is "n<index>" */
  sg_node *handle;
  uint64_t id;
  sg_kind kind;
  int live;            /* not destroyed yet */
  int context_dead;    /* its destroy callback ran: no callback may follow */
  int destroy_calls;
  int value;           /* stored: the value; computed: the cached value */
  int has_value;       /* computed: ran successfully at least once */
  fz_formula formula;
  /* what sg_node_describe must say */
  uint64_t version, last_version, runs;
  int has_run; /* last run succeeded (the core's has_run) */
  /* the distinct nodes the last run read, tracked, in read order */
  struct fz_record *reads[FZ_MAX_READS];
  int read_count;
  /* every node the last run tried to read, tracked or not, failed or not:
   * what its outcome depends on (see fz_tainted) */
  struct fz_record *touched[FZ_MAX_READS];
  int touched_count;
  /* effects: the outcome of the last run */
  int last_rc, last_value;
  /* watcher bookkeeping */
  int has_watcher, armed, watcher_calls;
} fz_record;

typedef struct fz_state {
  sg_graph *graph;   /* the main graph */
  sg_graph *other;   /* a second graph holding `foreign` */
  fz_record *foreign; /* a stored node of `other` */
  fz_record *slots[FZ_SLOTS];
  fz_record *records[FZ_MAX_RECORDS];
  int record_count;
  int live_count; /* live nodes of the main graph */
  /* the binding's transaction log, one level per open batch */
  struct fz_log_entry {
    fz_record *record;
    int value, has_value;
    uint64_t version;
  } log[FZ_MAX_TX][2 * FZ_MAX_RECORDS];
  int log_count[FZ_MAX_TX];
  int tx_depth;
  int in_callback; /* callbacks running on this thread right now */
} fz_state;

extern fz_state fz;

#define FZ_FAIL(...)                                                       \
  do {                                                                     \
    fprintf(stderr, "fuzz invariant failed at %s:%d: ", __FILE__, __LINE__); \
    fprintf(stderr, __VA_ARGS__);                                          \
    fprintf(stderr, "\n");                                                 \
    abort();                                                               \
  } while (0)

/* Checks the return code of a call against the documented one. */
#define FZ_EXPECT_RC(call, expected)                                        \
  do {                                                                      \
    int fz_rc_ = (call), fz_expected_ = (expected);                         \
    if (fz_rc_ != fz_expected_)                                             \
      FZ_FAIL("%s returned %d (%s), expected %d (%s)", #call, fz_rc_,       \
              sg_strerror(fz_rc_), fz_expected_, sg_strerror(fz_expected_)); \
  } while (0)

/* binding.c */
fz_record *fz_new_record(sg_kind kind);
void fz_create_stored(int slot, int value);
void fz_create_computed(int slot, fz_formula formula);
void fz_create_effect(int slot, fz_formula formula);
void fz_write(int slot, int value, int force);
void fz_read(fz_record *r);
void fz_destroy(fz_record *r);
void fz_batch_begin(void);
void fz_batch_commit(void);
void fz_batch_rollback(void);
void fz_watch(fz_record *r, int set);
void fz_rollback_to_current(fz_record *r);
int fz_watcher(sg_node *node, void *context);

/* model.c: what a read must give, evaluated from scratch */
typedef struct fz_result {
  int rc;
  int value;
} fz_result;
fz_result fz_scratch_read(int slot);   /* as a callback's read of a slot */
fz_result fz_scratch_top(fz_record *r); /* as a read outside callbacks */
fz_result fz_scratch_formula(fz_record *r); /* its callback's outcome */
int fz_tainted(fz_record *r);
int fz_is_impure(const fz_record *r);

/* invariants.c */
void fz_check_all(void);
void fz_check_edges(fz_record *r, unsigned max);

/* misuse.c: exact error codes for handles and arguments that are wrong */
void fz_stale_calls(fz_record *dead);
void fz_null_calls(void);
void fz_graph_misuse(void);
void fz_kind_misuse(fz_record *r);

#endif
