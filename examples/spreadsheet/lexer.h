/*
 * lexer.h — splits one line of a sheet into tokens.
 *
 * Tokens: numbers (12, 0.5, 1e3), cell references (A1 … Z999, any case),
 * function names (SUM, min, …), and the punctuation + - * / ( ) , : =.
 * Whitespace separates tokens and is otherwise ignored.
 */
#ifndef LEXER_H
#define LEXER_H

#include <stdbool.h>
#include <stddef.h>

enum { SHEET_COLUMNS = 26, SHEET_ROWS = 999 };

/* A cell's place: column 0 is A, rows count from 1 as on screen. */
typedef struct cell_ref {
  int column;
  int row;
} cell_ref;

typedef enum token_kind {
  TOKEN_END,    /* end of the line (or a # comment) */
  TOKEN_NUMBER,
  TOKEN_CELL,
  TOKEN_NAME,   /* letters only: a function or a command */
  TOKEN_PUNCT,
  TOKEN_ERROR   /* `problem` says what is wrong */
} token_kind;

typedef struct token {
  token_kind kind;
  const char *start; /* the token's text in the line */
  size_t length;
  double number;       /* TOKEN_NUMBER */
  cell_ref ref;        /* TOKEN_CELL */
  char punct;          /* TOKEN_PUNCT */
  const char *problem; /* TOKEN_ERROR */
} token;

typedef struct lexer {
  const char *line; /* for columns in messages */
  const char *at;   /* next character to read */
  token current;
} lexer;

/* Starts reading `line` and reads the first token into lx->current. */
void lexer_start(lexer *lx, const char *line);

/* Reads the next token into lx->current. */
void lexer_next(lexer *lx);

/* 1-based column of the current token, for messages. */
int lexer_column(const lexer *lx);

/* Writes a cell's name ("B12") into `out`, which has room for 8 bytes. */
void cell_ref_name(cell_ref ref, char out[8]);

#endif
