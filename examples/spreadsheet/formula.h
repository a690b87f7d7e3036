/*
 * formula.h — what a cell holds: a formula, parsed into a tree, and the
 * values it evaluates to.
 *
 *   formula := sum
 *   sum     := product { ("+" | "-") product }
 *   product := unary { ("*" | "/") unary }
 *   unary   := "-" unary | primary
 *   primary := number | cell | function "(" argument { "," argument } ")"
 *            | "(" sum ")"
 *   argument := cell ":" cell   (a range, e.g. A1:A3, any two corners)
 *             | sum
 *   function := SUM | MIN | MAX  (any case)
 *
 * A plain number is a formula too. An empty cell counts as 0 in arithmetic
 * and is skipped by SUM, MIN and MAX.
 */
#ifndef FORMULA_H
#define FORMULA_H

#include "lexer.h"

#include <stddef.h>

struct sheet;
struct cell;

typedef enum value_kind { VALUE_BLANK, VALUE_NUMBER, VALUE_ERROR } value_kind;

/* A cell's value. Errors are values too ("#DIV/0!"): they flow into the
 * cells that use them, as in any spreadsheet. */
typedef struct value {
  value_kind kind;
  double number;     /* VALUE_NUMBER */
  const char *error; /* VALUE_ERROR: a static string */
} value;

/* Whether two values look the same to a reader: the equality cutoff. */
int value_equal(value a, value b);

/* Writes a value as shown on screen ("12", "0.5", "#DIV/0!"). */
void value_format(value v, char *out, size_t size);

typedef struct expr expr;

/* Parses a formula from the lexer's current token to the end of the line.
 * Cells the formula names are looked up in (or added to) `sheet` as it
 * goes. Returns the tree, or NULL with a message in `error` that names the
 * column. */
expr *formula_parse(struct sheet *sheet, lexer *lx, char *error, size_t error_size);

/* Evaluates a formula, reading every cell it names through sheet_read()
 * (which records the dependency). Returns 0, or the negative StateGraph
 * code of a failed read (a cycle): then *out is not set. */
int formula_eval(const expr *formula, value *out);

/* Whether the formula is a plain number (shown without its formula). */
int formula_is_constant(const expr *formula);

void formula_free(expr *formula);

#endif
