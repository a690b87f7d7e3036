/*
 * lexer.c — one token at a time, no allocation: tokens point into the line.
 */
#include "lexer.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lexer_start(lexer *lx, const char *line) {
  lx->line = line;
  lx->at = line;
  lexer_next(lx);
}

int lexer_column(const lexer *lx) { return (int)(lx->current.start - lx->line) + 1; }

void cell_ref_name(cell_ref ref, char out[8]) {
  snprintf(out, 8, "%c%d", 'A' + ref.column, ref.row);
}

/* digits [. digits] [e [+-] digits]. Scanned by hand because strtod alone
 * would also accept "inf", "nan" and hex numbers. */
static void read_number(lexer *lx, token *t) {
  const char *p = lx->at;
  while (isdigit((unsigned char)*p)) p++;
  if (*p == '.') {
    p++;
    while (isdigit((unsigned char)*p)) p++;
  }
  if ((*p == 'e' || *p == 'E') &&
      (isdigit((unsigned char)p[1]) ||
       ((p[1] == '+' || p[1] == '-') && isdigit((unsigned char)p[2])))) {
    p += 2;
    while (isdigit((unsigned char)*p)) p++;
  }
  t->kind = TOKEN_NUMBER;
  t->number = strtod(lx->at, NULL); /* stops where the scan stopped */
  t->length = (size_t)(p - lx->at);
  if (p - lx->at == 1 && *lx->at == '.') {
    t->kind = TOKEN_ERROR;
    t->problem = "a lone '.' is not a number";
  }
}

/* letters [digits]: a name when there are no digits, else a cell. */
static void read_word(lexer *lx, token *t) {
  const char *p = lx->at;
  while (isalpha((unsigned char)*p)) p++;
  size_t letters = (size_t)(p - lx->at);
  const char *digits = p;
  while (isalnum((unsigned char)*p)) p++;
  t->length = (size_t)(p - lx->at);
  if (t->length == letters) {
    t->kind = TOKEN_NAME;
    return;
  }
  long row = 0;
  bool all_digits = true;
  for (const char *d = digits; d < p; d++) {
    if (!isdigit((unsigned char)*d)) all_digits = false;
    else if (row <= SHEET_ROWS) row = row * 10 + (*d - '0');
  }
  if (letters != 1 || !all_digits || *digits == '0' || row > SHEET_ROWS) {
    t->kind = TOKEN_ERROR;
    t->problem = "not a cell (cells are A1 to Z999)";
    return;
  }
  t->kind = TOKEN_CELL;
  t->ref = (cell_ref){toupper((unsigned char)*lx->at) - 'A', (int)row};
}

void lexer_next(lexer *lx) {
  while (*lx->at == ' ' || *lx->at == '\t' || *lx->at == '\r') lx->at++;
  token *t = &lx->current;
  *t = (token){.start = lx->at};
  char c = *lx->at;
  if (c == '\0' || c == '\n' || c == '#') {
    t->kind = TOKEN_END;
    return; /* stays at the end: reading on gives TOKEN_END again */
  }
  if (isdigit((unsigned char)c) || c == '.') {
    read_number(lx, t);
  } else if (isalpha((unsigned char)c)) {
    read_word(lx, t);
  } else if (strchr("+-*/(),:=", c)) {
    t->kind = TOKEN_PUNCT;
    t->punct = c;
    t->length = 1;
  } else {
    t->kind = TOKEN_ERROR;
    t->problem = "unexpected character";
    t->length = 1;
  }
  lx->at += t->length;
}
