/*
 * fuzz_core.c — libFuzzer entry point: decodes an input into operations on
 * the harness's slots, runs each one and checks the invariants after it;
 * at the end destroys everything, frees both graphs and checks that every
 * destroy callback ran once (LeakSanitizer checks the rest of the memory).
 *
 * Input format: a byte stream read front to back; reading past the end
 * gives zeros. Each operation is an opcode byte followed by its argument
 * bytes. Any byte string is a valid input.
 */
#include "fuzz.h"

#include <stdarg.h>
#include <string.h>

fz_state fz;

/* FUZZ_TRACE=1 prints each operation as it runs: the way to read a crash
 * input (`FUZZ_TRACE=1 fuzz-core crash-...`). */
static int tracing = -1;

static void say(const char *fmt, ...) {
  if (tracing < 0) tracing = getenv("FUZZ_TRACE") != NULL;
  if (!tracing) return;
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
}

static void say_formula(const char *what, int slot, fz_formula f) {
  static const char *shapes[] = {"(a+b)%5", "a>k?b:c", "a%3", "(a*a+k)%4"};
  say("%s in slot %d (n%d): %s a=%d b=%d c=%d k=%d untracked=%d", what, slot, fz.record_count,
      shapes[f.op], f.in[0], f.in[1], f.in[2], f.k, f.untracked);
}

typedef struct input {
  const uint8_t *data;
  size_t size, at;
} input;

static uint8_t next(input *in) { return in->at < in->size ? in->data[in->at++] : 0; }

/* Formula inputs name one of the slots, now and then the other graph. */
static uint8_t input_slot(uint8_t byte) { return byte % 16 == 15 ? FZ_FOREIGN : byte % FZ_SLOTS; }

static fz_formula decode_formula(input *in) {
  uint8_t shape = next(in), a = next(in), b = next(in), c = next(in);
  return (fz_formula){
    .op = shape % 4,
    .in = {input_slot(a), input_slot(b), input_slot(c)},
    .k = shape / 4 % 5,
    /* rarely: some inputs read untracked (their nodes skip value checks) */
    .untracked = (shape & 0xe0) == 0xe0 ? (a >> 4 & 7) : 0,
  };
}

static fz_record *any_record(uint8_t byte) {
  return fz.record_count ? fz.records[byte % fz.record_count] : NULL;
}

static void setup(void) {
  memset(&fz, 0, sizeof fz);
  fz.graph = sg_graph_new();
  fz.other = sg_graph_new();
  if (!fz.graph || !fz.other) FZ_FAIL("sg_graph_new failed");
  /* The other graph's node, read from formulas: always SG_EGRAPH. Kept
   * outside the records (it belongs to no slot). */
  fz.foreign = calloc(1, sizeof *fz.foreign);
  fz.foreign->kind = SG_STORED;
  fz.foreign->live = 1;
  fz.foreign->value = 1;
  FZ_EXPECT_RC(sg_stored_new(fz.other, &(sg_node_info){.name = "foreign"}, &fz.foreign->handle),
               SG_OK);
}

static void teardown(void) {
  while (fz.tx_depth > 0) fz_batch_commit();
  for (int i = 0; i < fz.record_count; i++)
    if (fz.records[i]->live) fz_destroy(fz.records[i]);
  fz_check_all(); /* every destroy callback ran once, nothing is live */
  FZ_EXPECT_RC(sg_graph_free(fz.graph), SG_OK);
  FZ_EXPECT_RC(sg_node_destroy(fz.foreign->handle), SG_OK);
  FZ_EXPECT_RC(sg_graph_free(fz.other), SG_OK);
  for (int i = 0; i < fz.record_count; i++) free(fz.records[i]);
  free(fz.foreign);
  memset(&fz, 0, sizeof fz);
}

static void perform(input *in) {
  uint8_t op = next(in);
  switch (op % 24) {
  case 0:
  case 1: {
    uint8_t slot = next(in) % FZ_SLOTS, value = next(in) % 5;
    say("stored in slot %d (n%d) = %d", slot, fz.record_count, value);
    fz_create_stored(slot, value);
    break;
  }
  case 2:
  case 3: {
    uint8_t slot = next(in) % FZ_SLOTS;
    fz_formula f = decode_formula(in);
    say_formula("computed", slot, f);
    fz_create_computed(slot, f);
    break;
  }
  case 4: {
    uint8_t slot = next(in) % FZ_SLOTS;
    fz_formula f = decode_formula(in);
    say_formula("effect", slot, f);
    fz_create_effect(slot, f);
    break;
  }
  case 5:
  case 6:
  case 7: {
    uint8_t slot = next(in) % FZ_SLOTS, value = next(in) % 5;
    say("write slot %d = %d", slot, value);
    fz_write(slot, value, 0);
    break;
  }
  case 8: { /* sg_changed with an equal value */
    uint8_t slot = next(in) % FZ_SLOTS;
    say("changed slot %d, same value", slot);
    fz_write(slot, 0, 1);
    break;
  }
  case 9:
  case 10:
  case 11: {
    uint8_t slot = next(in) % FZ_SLOTS;
    say("read slot %d", slot);
    fz_read(fz.slots[slot]);
    break;
  }
  case 12: {
    uint8_t slot = next(in) % FZ_SLOTS;
    say("destroy slot %d", slot);
    fz_destroy(fz.slots[slot]);
    break;
  }
  case 13: say("batch begin"); fz_batch_begin(); break;
  case 14: say("batch commit"); fz_batch_commit(); break;
  case 15: say("batch rollback"); fz_batch_rollback(); break;
  case 16: {
    uint8_t slot = next(in) % FZ_SLOTS, set = next(in) % 4 != 0;
    say("%s watcher of slot %d, arm", set ? "set" : "remove", slot);
    fz_watch(fz.slots[slot], set);
    break;
  }
  case 17: {
    uint8_t slot = next(in) % FZ_SLOTS;
    say("rollback slot %d to its current version", slot);
    fz_rollback_to_current(fz.slots[slot]);
    break;
  }
  case 18: {
    fz_record *r = any_record(next(in));
    say("stale calls on n%d", r ? r->index : -1);
    fz_stale_calls(r);
    break;
  }
  case 19: say("NULL calls"); fz_null_calls(); break;
  case 20: say("graph misuse"); fz_graph_misuse(); break;
  case 21: {
    uint8_t slot = next(in) % FZ_SLOTS;
    say("wrong-kind calls on slot %d", slot);
    fz_kind_misuse(fz.slots[slot]);
    break;
  }
  case 22: {
    uint8_t slot = next(in) % FZ_SLOTS, max = next(in) % 5;
    say("edges of slot %d (buffer of %d)", slot, max);
    fz_check_edges(fz.slots[slot], max);
    break;
  }
  default:
    say("read all slots");
    for (int i = 0; i < FZ_SLOTS; i++) fz_read(fz.slots[i]);
    break;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  setup();
  input in = {data, size, 0};
  while (in.at < in.size) {
    perform(&in);
    fz_check_all();
  }
  teardown();
  return 0;
}
