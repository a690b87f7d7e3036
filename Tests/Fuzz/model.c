/*
 * model.c — what a read must give, evaluated from scratch: every formula
 * re-run over the slots' current nodes and values, nothing cached, with the
 * documented error rules:
 *
 *   - reading a stored node gives its value; an effect, SG_EKIND; the other
 *     graph's node from inside a callback, SG_EGRAPH; an empty slot, the
 *     binding's own SG_ESTALE;
 *   - reading a computed node that is (transitively) computing itself gives
 *     SG_ECYCLE;
 *   - a formula stops at its first failed read and fails with that code; a
 *     read of a computed whose formula failed gives SG_ECYCLE when that
 *     code was SG_ECYCLE, SG_ECALLBACK otherwise.
 *
 * "Computing itself" means being on the chain of formulas being evaluated
 * now, which is exactly the stack of the recursion below.
 */
#include "fuzz.h"

enum { MAX_DEPTH = FZ_SLOTS + 2 };

typedef struct chain {
  fz_record *on[MAX_DEPTH];
  int depth;
} chain;

static fz_result read_record(fz_record *n, chain *c);

static fz_result read_slot(int slot, chain *c) {
  if (slot == FZ_FOREIGN) return (fz_result){SG_EGRAPH, 0};
  fz_record *n = fz.slots[slot];
  if (!n || !n->live) return (fz_result){SG_ESTALE, 0};
  return read_record(n, c);
}

#define INPUT(i, v)                                            \
  do {                                                         \
    fz_result input_ = read_slot(r->formula.in[i], c);         \
    if (input_.rc < 0) return input_;                          \
    (v) = input_.value;                                        \
  } while (0)

/* Mirrors run_formula in binding.c, shape for shape and read for read. */
static fz_result evaluate(fz_record *r, chain *c) {
  int a = 0, b = 0;
  switch (r->formula.op) {
  case 0:
    INPUT(0, a);
    INPUT(1, b);
    return (fz_result){SG_OK, (a + b) % 5};
  case 1:
    INPUT(0, a);
    if (a > r->formula.k % 4) INPUT(1, b);
    else INPUT(2, b);
    return (fz_result){SG_OK, b};
  case 2:
    INPUT(0, a);
    return (fz_result){SG_OK, a % 3};
  default:
    INPUT(0, a);
    INPUT(0, b);
    return (fz_result){SG_OK, (a * b + r->formula.k) % 4};
  }
}

/* The outcome of running `r`'s formula with `r` on the chain. */
static fz_result run_on_chain(fz_record *r, chain *c) {
  if (c->depth == MAX_DEPTH) FZ_FAIL("model: chain deeper than the slots allow");
  c->on[c->depth++] = r;
  fz_result result = evaluate(r, c);
  c->depth--;
  return result;
}

static fz_result read_record(fz_record *n, chain *c) {
  if (n->kind == SG_STORED) return (fz_result){SG_OK, n->value};
  if (n->kind == SG_EFFECT) return (fz_result){SG_EKIND, 0};
  for (int i = 0; i < c->depth; i++)
    if (c->on[i] == n) return (fz_result){SG_ECYCLE, 0};
  fz_result result = run_on_chain(n, c);
  if (result.rc < 0) result.rc = result.rc == SG_ECYCLE ? SG_ECYCLE : SG_ECALLBACK;
  return result;
}

fz_result fz_scratch_read(int slot) {
  chain c = {.depth = 0};
  return read_slot(slot, &c);
}

fz_result fz_scratch_top(fz_record *r) {
  chain c = {.depth = 0};
  return read_record(r, &c);
}

fz_result fz_scratch_formula(fz_record *r) {
  chain c = {.depth = 0};
  return run_on_chain(r, &c);
}

/* ------------------------------------------------------------------ taint */

int fz_is_impure(const fz_record *r) {
  return r->kind != SG_STORED && (r->formula.untracked & 7) != 0;
}

/* A node whose last run read something untracked, directly or through the
 * nodes it tried to read, may hold a value the graph was told not to keep
 * up to date: the invariants skip its value (never its bookkeeping). */
static int tainted_from(fz_record *r, unsigned char *seen) {
  if (seen[r->index]) return 0;
  seen[r->index] = 1;
  if (fz_is_impure(r)) return 1;
  for (int i = 0; i < r->touched_count; i++)
    if (tainted_from(r->touched[i], seen)) return 1;
  return 0;
}

int fz_tainted(fz_record *r) {
  unsigned char seen[FZ_MAX_RECORDS] = {0};
  return tainted_from(r, seen);
}
