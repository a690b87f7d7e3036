/*
 * main.c — a small reactive spreadsheet on the StateGraph C library.
 *
 *   spreadsheet [FILE]     reads FILE, or standard input without one (or "-")
 *
 * One command per line:
 *
 *   A1 = 5                 a cell gets a number …
 *   B1 = A1 * 2 + C1       … or a formula: + - * / ( ), SUM MIN MAX of
 *   C1 = SUM(A1:A3, 4)     cells, ranges and numbers
 *   print                  shows every cell that has a formula
 *   # a comment            (also at the end of a line)
 *
 * After each change it prints the cells that were recomputed, with their
 * new values; a cell recomputed to the value it had is marked
 * "(unchanged)", and the cells below it are not recomputed at all. A
 * formula that would make a cell depend on itself is refused, naming the
 * cells on the loop. Each command is echoed ("> ...") unless the input is a
 * terminal, so a transcript reads on its own. Errors go to standard
 * error as "FILE:LINE: error: ..."; the exit status is 1 when there was any.
 */
#define _POSIX_C_SOURCE 200809L
#include "formula.h"
#include "lexer.h"
#include "sheet.h"

#include <stategraph.h>

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

typedef struct input {
  const char *name; /* for messages */
  int line;
  int errors;
} input;

static void report(input *in, const char *format, ...)
  __attribute__((format(printf, 2, 3)));

static void report(input *in, const char *format, ...) {
  fflush(stdout); /* keeps the transcript in order when both go to one file */
  fprintf(stderr, "%s:%d: error: ", in->name, in->line);
  va_list ap;
  va_start(ap, format);
  vfprintf(stderr, format, ap);
  va_end(ap);
  fputc('\n', stderr);
  in->errors++;
}

/* The formula as typed: from `start` to the end of the line or a comment,
 * without trailing blanks. */
static void formula_text(const char *start, char *out, size_t size) {
  size_t length = strcspn(start, "#\n");
  while (length > 0 && strchr(" \t\r", start[length - 1])) length--;
  snprintf(out, size, "%.*s", (int)length, start);
}

/* CELL "=" formula */
static void assign(sheet *s, lexer *lx, input *in) {
  char name[8];
  cell_ref ref = lx->current.ref;
  cell_ref_name(ref, name);
  lexer_next(lx);
  if (lx->current.kind != TOKEN_PUNCT || lx->current.punct != '=') {
    report(in, "column %d: expected '=' after %s", lexer_column(lx), name);
    return;
  }
  lexer_next(lx);
  char text[512];
  formula_text(lx->current.start, text, sizeof text);
  if (lx->current.kind == TOKEN_END) {
    report(in, "column %d: expected a number or a formula after %s =", lexer_column(lx), name);
    return;
  }
  char problem[256];
  expr *formula = formula_parse(s, lx, problem, sizeof problem);
  if (!formula) {
    report(in, "%s = %s: %s", name, text, problem);
    return;
  }
  char cycle[256];
  if (sheet_define(s, sheet_cell(s, ref), formula, text, cycle, sizeof cycle) == SG_ECYCLE) {
    report(in, "%s = %s refers to itself: %s; %s is unchanged", name, text, cycle, name);
  }
}

static void run_line(sheet *s, const char *line, input *in, bool echo) {
  lexer lx;
  lexer_start(&lx, line);
  if (lx.current.kind == TOKEN_END) return; /* blank, or a comment */
  if (echo) {
    char shown[512];
    formula_text(line, shown, sizeof shown);
    printf("> %s\n", shown);
  }
  if (lx.current.kind == TOKEN_CELL) {
    assign(s, &lx, in);
    return;
  }
  token first = lx.current;
  if (first.kind == TOKEN_ERROR) {
    report(in, "'%.*s': %s", (int)first.length, first.start, first.problem);
    return;
  }
  lexer_next(&lx);
  if (first.kind == TOKEN_NAME && first.length == 5 &&
      strncasecmp(first.start, "print", 5) == 0 && lx.current.kind == TOKEN_END) {
    sheet_print(s);
    return;
  }
  report(in, "expected 'CELL = formula', 'print' or a comment");
}

int main(int argc, char **argv) {
  if (argc > 2 || (argc == 2 && argv[1][0] == '-' && argv[1][1] != '\0')) {
    fprintf(stderr, "usage: %s [FILE]   (reads standard input without FILE)\n", argv[0]);
    return 2;
  }
  bool from_stdin = argc < 2 || strcmp(argv[1], "-") == 0;
  FILE *file = from_stdin ? stdin : fopen(argv[1], "r");
  if (!file) {
    perror(argv[1]);
    return 2;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  input in = {from_stdin ? "<stdin>" : argv[1], 0, 0};
  bool echo = !isatty(fileno(file));

  sheet *s = sheet_new();
  char *line = NULL;
  size_t capacity = 0;
  while (getline(&line, &capacity, file) != -1) {
    in.line++;
    run_line(s, line, &in, echo);
  }
  free(line);
  sheet_free(s);
  if (file != stdin) fclose(file);
  return in.errors ? 1 : 0;
}
