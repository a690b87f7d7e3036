/*
 * formula.c — a recursive-descent parser for the grammar in formula.h, and
 * the evaluation of the tree it builds.
 *
 * Evaluation always reads every cell a formula names, even when an early
 * operand already decided the result (an error, say): the cells a compute
 * callback reads are its dependencies, and skipping one would leave the
 * cell deaf to changes there.
 */
#include "formula.h"
#include "sheet.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef enum expr_kind {
  EXPR_NUMBER,
  EXPR_CELL,
  EXPR_NEGATE,
  EXPR_ADD,
  EXPR_SUBTRACT,
  EXPR_MULTIPLY,
  EXPR_DIVIDE,
  EXPR_SUM,
  EXPR_MIN,
  EXPR_MAX
} expr_kind;

struct expr {
  expr_kind kind;
  double number;     /* EXPR_NUMBER */
  struct cell *cell; /* EXPR_CELL */
  size_t count;
  expr *operands[]; /* count of them: 1 for NEGATE, 2 for + - * /, n for calls */
};

enum {
  MAX_DEPTH = 100,       /* parentheses and unary minus */
  MAX_RANGE_CELLS = 1000 /* cells in one range */
};

/* -------------------------------------------------------------- values */

static value number(double n) {
  if (n == 0) n = 0; /* -0 shows as "0" */
  if (!isfinite(n)) return (value){VALUE_ERROR, 0, "#NUM!"};
  return (value){VALUE_NUMBER, n, NULL};
}

static value error(const char *what) { return (value){VALUE_ERROR, 0, what}; }

int value_equal(value a, value b) {
  if (a.kind != b.kind) return 0;
  if (a.kind == VALUE_NUMBER) return a.number == b.number;
  if (a.kind == VALUE_ERROR) return strcmp(a.error, b.error) == 0;
  return 1;
}

void value_format(value v, char *out, size_t size) {
  if (v.kind == VALUE_NUMBER) snprintf(out, size, "%.10g", v.number);
  else if (v.kind == VALUE_ERROR) snprintf(out, size, "%s", v.error);
  else snprintf(out, size, "(empty)");
}

/* --------------------------------------------------------------- trees */

static expr *node(expr_kind kind, size_t count) {
  expr *e = calloc(1, sizeof *e + count * sizeof e->operands[0]);
  if (!e) {
    fprintf(stderr, "spreadsheet: out of memory\n");
    exit(2);
  }
  e->kind = kind;
  e->count = count;
  return e;
}

void formula_free(expr *e) {
  if (!e) return;
  for (size_t i = 0; i < e->count; i++) formula_free(e->operands[i]);
  free(e);
}

int formula_is_constant(const expr *e) { return e->kind == EXPR_NUMBER; }

/* -------------------------------------------------------------- parser */

typedef struct parser {
  struct sheet *sheet;
  lexer *lx;
  char *error;
  size_t error_size;
  int depth;
} parser;

/* Writes "column N: ..." about the current token; returns NULL to pass up. */
static expr *fail(parser *p, const char *format, ...) {
  int n = snprintf(p->error, p->error_size, "column %d: ", lexer_column(p->lx));
  va_list ap;
  va_start(ap, format);
  if (n >= 0 && (size_t)n < p->error_size) vsnprintf(p->error + n, p->error_size - n, format, ap);
  va_end(ap);
  return NULL;
}

/* The current token as a message shows it. */
static const char *shown(parser *p, char *buffer, size_t size) {
  const token *t = &p->lx->current;
  if (t->kind == TOKEN_END) return "the end of the line";
  snprintf(buffer, size, "'%.*s'", (int)t->length, t->start);
  return buffer;
}

static expr *expected(parser *p, const char *what) {
  char buffer[64];
  if (p->lx->current.kind == TOKEN_ERROR)
    return fail(p, "'%.*s': %s", (int)p->lx->current.length, p->lx->current.start,
                p->lx->current.problem);
  return fail(p, "expected %s but found %s", what, shown(p, buffer, sizeof buffer));
}

static int is_punct(parser *p, char c) {
  return p->lx->current.kind == TOKEN_PUNCT && p->lx->current.punct == c;
}

static expr *parse_sum(parser *p);

static expr *binary(expr_kind kind, expr *left, expr *right) {
  expr *e = node(kind, 2);
  e->operands[0] = left;
  e->operands[1] = right;
  return e;
}

/* A growing list of call arguments. */
typedef struct arguments {
  expr **items;
  size_t count, capacity;
} arguments;

static void push(arguments *args, expr *e) {
  if (args->count == args->capacity) {
    args->capacity = args->capacity ? 2 * args->capacity : 8;
    args->items = realloc(args->items, args->capacity * sizeof *args->items);
    if (!args->items) {
      fprintf(stderr, "spreadsheet: out of memory\n");
      exit(2);
    }
  }
  args->items[args->count++] = e;
}

static expr *cell_expr(parser *p, cell_ref ref) {
  expr *e = node(EXPR_CELL, 0);
  e->cell = sheet_cell(p->sheet, ref);
  return e;
}

/* The current token is the cell before ':'. Adds every cell of the
 * rectangle, row by row. */
static int parse_range(parser *p, arguments *args) {
  cell_ref from = p->lx->current.ref;
  lexer_next(p->lx); /* the cell */
  lexer_next(p->lx); /* ':' */
  if (p->lx->current.kind != TOKEN_CELL) {
    expected(p, "a cell after ':'");
    return -1;
  }
  cell_ref to = p->lx->current.ref;
  int left = from.column < to.column ? from.column : to.column;
  int right = from.column < to.column ? to.column : from.column;
  int top = from.row < to.row ? from.row : to.row;
  int bottom = from.row < to.row ? to.row : from.row;
  long cells = (long)(right - left + 1) * (bottom - top + 1);
  if (cells > MAX_RANGE_CELLS) {
    fail(p, "a range of %ld cells; at most %d", cells, MAX_RANGE_CELLS);
    return -1;
  }
  for (int row = top; row <= bottom; row++)
    for (int column = left; column <= right; column++)
      push(args, cell_expr(p, (cell_ref){column, row}));
  lexer_next(p->lx);
  return 0;
}

static int lookahead_is_colon(parser *p) {
  lexer copy = *p->lx;
  lexer_next(&copy);
  return copy.current.kind == TOKEN_PUNCT && copy.current.punct == ':';
}

/* function "(" argument { "," argument } ")" — the name is current. */
static expr *parse_call(parser *p) {
  static const struct {
    const char *name;
    expr_kind kind;
  } functions[] = {{"SUM", EXPR_SUM}, {"MIN", EXPR_MIN}, {"MAX", EXPR_MAX}};
  const token name = p->lx->current;
  expr_kind kind = EXPR_SUM;
  size_t i = 0;
  for (; i < sizeof functions / sizeof functions[0]; i++) {
    if (strlen(functions[i].name) == name.length &&
        strncasecmp(functions[i].name, name.start, name.length) == 0) {
      kind = functions[i].kind;
      break;
    }
  }
  if (i == sizeof functions / sizeof functions[0])
    return fail(p, "unknown function '%.*s' (known: SUM, MIN, MAX)", (int)name.length,
                name.start);
  lexer_next(p->lx);
  if (!is_punct(p, '(')) return expected(p, "'(' after the function name");
  lexer_next(p->lx);

  arguments args = {0};
  for (;;) {
    if (p->lx->current.kind == TOKEN_CELL && lookahead_is_colon(p)) {
      if (parse_range(p, &args) < 0) goto failed;
    } else {
      expr *e = parse_sum(p);
      if (!e) goto failed;
      push(&args, e);
    }
    if (is_punct(p, ')')) break;
    if (!is_punct(p, ',')) {
      expected(p, "',' or ')'");
      goto failed;
    }
    lexer_next(p->lx);
  }
  lexer_next(p->lx); /* ')' */
  expr *call = node(kind, args.count);
  memcpy(call->operands, args.items, args.count * sizeof *args.items);
  free(args.items);
  return call;

failed:
  for (size_t k = 0; k < args.count; k++) formula_free(args.items[k]);
  free(args.items);
  return NULL;
}

static expr *parse_primary(parser *p) {
  token t = p->lx->current;
  if (t.kind == TOKEN_NUMBER) {
    expr *e = node(EXPR_NUMBER, 0);
    e->number = t.number;
    lexer_next(p->lx);
    return e;
  }
  if (t.kind == TOKEN_CELL) {
    if (lookahead_is_colon(p)) return fail(p, "a range can only be a function's argument");
    lexer_next(p->lx);
    return cell_expr(p, t.ref);
  }
  if (t.kind == TOKEN_NAME) return parse_call(p);
  if (!is_punct(p, '(')) return expected(p, "a number, a cell, a function or '('");
  lexer_next(p->lx);
  expr *inside = parse_sum(p);
  if (!inside) return NULL;
  if (!is_punct(p, ')')) {
    formula_free(inside);
    return expected(p, "')'");
  }
  lexer_next(p->lx);
  return inside;
}

static expr *parse_unary(parser *p) {
  if (!is_punct(p, '-')) return parse_primary(p);
  if (++p->depth > MAX_DEPTH) return fail(p, "the formula is nested too deeply");
  lexer_next(p->lx);
  expr *operand = parse_unary(p);
  p->depth--;
  if (!operand) return NULL;
  if (operand->kind == EXPR_NUMBER) { /* "-5" is a number, not a formula */
    operand->number = -operand->number;
    return operand;
  }
  expr *e = node(EXPR_NEGATE, 1);
  e->operands[0] = operand;
  return e;
}

static expr *parse_product(parser *p) {
  expr *left = parse_unary(p);
  while (left && (is_punct(p, '*') || is_punct(p, '/'))) {
    expr_kind kind = is_punct(p, '*') ? EXPR_MULTIPLY : EXPR_DIVIDE;
    lexer_next(p->lx);
    expr *right = parse_unary(p);
    if (!right) {
      formula_free(left);
      return NULL;
    }
    left = binary(kind, left, right);
  }
  return left;
}

static expr *parse_sum(parser *p) {
  if (++p->depth > MAX_DEPTH) return fail(p, "the formula is nested too deeply");
  expr *left = parse_product(p);
  while (left && (is_punct(p, '+') || is_punct(p, '-'))) {
    expr_kind kind = is_punct(p, '+') ? EXPR_ADD : EXPR_SUBTRACT;
    lexer_next(p->lx);
    expr *right = parse_product(p);
    if (!right) {
      formula_free(left);
      left = NULL;
      break;
    }
    left = binary(kind, left, right);
  }
  p->depth--;
  return left;
}

expr *formula_parse(struct sheet *sheet, lexer *lx, char *error, size_t error_size) {
  parser p = {sheet, lx, error, error_size, 0};
  expr *e = parse_sum(&p);
  if (e && lx->current.kind != TOKEN_END) {
    formula_free(e);
    return expected(&p, "an operator or the end of the line");
  }
  return e;
}

/* ----------------------------------------------------------- evaluation */

static double as_number(value v) { return v.kind == VALUE_NUMBER ? v.number : 0; }

static int eval_arithmetic(const expr *e, value *out) {
  value v[2] = {{0}};
  for (size_t i = 0; i < e->count; i++) {
    int rc = formula_eval(e->operands[i], &v[i]);
    if (rc < 0) return rc;
  }
  for (size_t i = 0; i < e->count; i++) {
    if (v[i].kind == VALUE_ERROR) {
      *out = v[i];
      return 0;
    }
  }
  double a = as_number(v[0]), b = as_number(v[1]);
  switch (e->kind) {
  case EXPR_NEGATE: *out = number(-a); break;
  case EXPR_ADD: *out = number(a + b); break;
  case EXPR_SUBTRACT: *out = number(a - b); break;
  case EXPR_MULTIPLY: *out = number(a * b); break;
  default: *out = b == 0 ? error("#DIV/0!") : number(a / b); break;
  }
  return 0;
}

/* SUM, MIN, MAX: empty cells are skipped, the first error wins. */
static int eval_call(const expr *e, value *out) {
  value result = {VALUE_BLANK, 0, NULL}, first_error = result;
  for (size_t i = 0; i < e->count; i++) {
    value v;
    int rc = formula_eval(e->operands[i], &v);
    if (rc < 0) return rc;
    if (v.kind == VALUE_ERROR && first_error.kind == VALUE_BLANK) first_error = v;
    if (v.kind != VALUE_NUMBER) continue;
    if (result.kind == VALUE_BLANK) result = v;
    else if (e->kind == EXPR_SUM) result = number(result.number + v.number);
    else if (e->kind == EXPR_MIN) result = v.number < result.number ? v : result;
    else result = v.number > result.number ? v : result;
  }
  *out = first_error.kind == VALUE_ERROR ? first_error : number(as_number(result));
  return 0;
}

int formula_eval(const expr *e, value *out) {
  switch (e->kind) {
  case EXPR_NUMBER: *out = number(e->number); return 0;
  case EXPR_CELL: return sheet_read(e->cell, out);
  case EXPR_SUM:
  case EXPR_MIN:
  case EXPR_MAX: return eval_call(e, out);
  default: return eval_arithmetic(e, out);
  }
}
