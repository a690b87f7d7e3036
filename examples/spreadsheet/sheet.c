/*
 * sheet.c — cells as StateGraph nodes (see sheet.h for the three nodes of a
 * cell). The graph never sees a value: a cell keeps its own `value`, and
 * its callbacks tell the graph when it was read and whether it changed.
 */
#define _POSIX_C_SOURCE 200809L
#include "sheet.h"

#include <stategraph.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the last command did to a cell, to be printed when it ends. */
typedef enum news { NO_NEWS, CHANGED, RECOMPUTED_UNCHANGED } news;

struct cell {
  char name[8];
  cell_ref ref;
  sheet *sheet;
  expr *formula; /* NULL while empty */
  char *text;    /* the formula as typed */
  value value;   /* the result of the last successful evaluation */
  bool evaluated;
  news news;
  sg_node *definition, *result, *display; /* display: NULL until defined */
};

struct sheet {
  sg_graph *graph;
  cell *grid[SHEET_COLUMNS][SHEET_ROWS];
  cell **cells; /* in creation order, for freeing */
  size_t count, capacity;
  cell **reported; /* cells with news from the running command */
  size_t reported_count;
  bool quiet; /* while a rejected formula is taken back: nothing to show */
};

/* A StateGraph call that cannot fail in a correct program; if it does, the
 * example has a bug, and says so. */
static void must(int rc, const char *call) {
  if (rc >= 0) return;
  fprintf(stderr, "spreadsheet: %s failed: %s\n", call, sg_strerror(rc));
  abort();
}

static void *checked(void *memory) {
  if (memory) return memory;
  fprintf(stderr, "spreadsheet: out of memory\n");
  exit(2);
}

/* Effects run in the order a change reached them, which need not be the
 * order of the sheet: news is collected while a command runs and printed,
 * sorted, when it ends. */
static void tell(cell *c, news what) {
  if (c->sheet->quiet) return;
  if (c->news == NO_NEWS) c->sheet->reported[c->sheet->reported_count++] = c;
  c->news = what;
}

static int by_place(const void *a, const void *b) {
  const cell *x = *(cell *const *)a, *y = *(cell *const *)b;
  if (x->ref.column != y->ref.column) return x->ref.column - y->ref.column;
  return x->ref.row - y->ref.row;
}

static void print_news(sheet *s) {
  qsort(s->reported, s->reported_count, sizeof *s->reported, by_place);
  for (size_t i = 0; i < s->reported_count; i++) {
    cell *c = s->reported[i];
    char shown[64];
    value_format(c->value, shown, sizeof shown);
    printf("  %s = %s%s\n", c->name, shown, c->news == CHANGED ? "" : " (unchanged)");
    c->news = NO_NEWS;
  }
  s->reported_count = 0;
}

/* ------------------------------------------------------------ callbacks */

/* result: evaluate, keep the value, answer with the cutoff. A failed read
 * (a cycle) fails the run with the same code, and the value stays as it
 * was. */
static int compute_result(sg_node *node, void *context) {
  cell *c = context;
  (void)node;
  int rc = sg_read(c->definition); /* a new formula must rerun this */
  if (rc < 0) return rc;
  value v = {VALUE_BLANK, 0, NULL};
  if (c->formula && (rc = formula_eval(c->formula, &v)) < 0) return rc;
  bool same = c->evaluated && value_equal(v, c->value);
  c->evaluated = true;
  if (same) {
    if (c->display) tell(c, RECOMPUTED_UNCHANGED);
    return SG_UNCHANGED;
  }
  c->value = v;
  return SG_CHANGED;
}

/* display: runs when the result changed (and once, when made). */
static int display_result(sg_node *node, void *context) {
  cell *c = context;
  (void)node;
  int rc = sg_read(c->result);
  if (rc < 0) return rc; /* not expected: sheet_define never leaves a cycle in place */
  tell(c, CHANGED);
  return SG_OK;
}

int sheet_read(cell *c, value *out) {
  int rc = sg_read(c->result);
  if (rc < 0) return rc;
  *out = c->value;
  return 0;
}

/* ---------------------------------------------------------------- cells */

cell *sheet_cell(sheet *s, cell_ref ref) {
  cell **slot = &s->grid[ref.column][ref.row - 1];
  if (*slot) return *slot;
  if (s->count == s->capacity) { /* room for every cell to have news, too */
    s->capacity = 2 * s->capacity + 16;
    s->cells = checked(realloc(s->cells, s->capacity * sizeof *s->cells));
    s->reported = checked(realloc(s->reported, s->capacity * sizeof *s->reported));
  }
  cell *c = checked(calloc(1, sizeof *c));
  cell_ref_name(ref, c->name);
  c->ref = ref;
  c->sheet = s;
  char formula_name[16];
  snprintf(formula_name, sizeof formula_name, "%s formula", c->name);
  must(sg_stored_new(s->graph, &(sg_node_info){.name = formula_name}, &c->definition),
       "sg_stored_new");
  must(sg_computed_new(s->graph, &(sg_node_info){.name = c->name}, compute_result, c, NULL,
                       &c->result),
       "sg_computed_new");
  s->cells[s->count++] = c;
  *slot = c;
  return c;
}

int sheet_define(sheet *s, cell *c, expr *formula, const char *text, char *cycle,
                 size_t cycle_size) {
  expr *old_formula = c->formula;
  char *old_text = c->text;
  c->formula = formula;
  c->text = checked(strdup(text));

  /* In a batch, so no display runs before the new formula is known to be
   * sound; reading the result evaluates it right away. */
  sg_batch_begin();
  must(sg_changed(c->definition), "sg_changed");
  int rc = sg_read(c->result);
  if (rc == SG_ECYCLE) {
    snprintf(cycle, cycle_size, "%s", sg_last_cycle());
    formula_free(c->formula);
    free(c->text);
    c->formula = old_formula;
    c->text = old_text;
    /* Taking it back recomputes what the attempt touched, to the values
     * they had: nothing to show. */
    s->quiet = true;
    must(sg_changed(c->definition), "sg_changed");
    must(sg_batch_end(), "sg_batch_end");
    s->quiet = false;
    return SG_ECYCLE;
  }
  must(rc, "sg_read");
  formula_free(old_formula);
  free(old_text);
  if (!c->display) {
    char display_name[16];
    snprintf(display_name, sizeof display_name, "show %s", c->name);
    must(sg_effect_new(s->graph, &(sg_node_info){.name = display_name}, display_result, c,
                       NULL, &c->display),
         "sg_effect_new");
  }
  must(sg_batch_end(), "sg_batch_end"); /* the displays of the cells below */
  print_news(s);
  return 0;
}

void sheet_print(sheet *s) {
  for (int column = 0; column < SHEET_COLUMNS; column++) {
    for (int row = 0; row < SHEET_ROWS; row++) {
      cell *c = s->grid[column][row];
      if (!c || !c->display) continue;
      must(sg_read(c->result), "sg_read"); /* outside callbacks: nothing recorded */
      char shown[64];
      value_format(c->value, shown, sizeof shown);
      if (formula_is_constant(c->formula)) printf("  %s = %s\n", c->name, shown);
      else printf("  %s = %s  (= %s)\n", c->name, shown, c->text);
    }
  }
}

/* --------------------------------------------------------------- sheets */

sheet *sheet_new(void) {
  sheet *s = checked(calloc(1, sizeof *s));
  s->graph = checked(sg_graph_new());
  return s;
}

void sheet_free(sheet *s) {
  /* Displays first, so none runs again while the rest goes. */
  for (size_t i = 0; i < s->count; i++)
    if (s->cells[i]->display) must(sg_node_destroy(s->cells[i]->display), "sg_node_destroy");
  for (size_t i = 0; i < s->count; i++) {
    cell *c = s->cells[i];
    must(sg_node_destroy(c->result), "sg_node_destroy");
    must(sg_node_destroy(c->definition), "sg_node_destroy");
    formula_free(c->formula);
    free(c->text);
    free(c);
  }
  must(sg_graph_free(s->graph), "sg_graph_free");
  free(s->cells);
  free(s->reported);
  free(s);
}
