/*
 * sheet.h — the reactive sheet. Every cell is three StateGraph nodes:
 *
 *   definition  stored    stands for the cell's formula; sg_changed() when
 *                         the user types a new one
 *   result      computed  evaluates the formula: reads `definition` and the
 *                         result of every cell the formula names, so those
 *                         are exactly its dependencies; answers SG_UNCHANGED
 *                         when the value is the same as before, and the
 *                         cells below it are not recomputed (the cutoff)
 *   display     effect    prints the value each time it changes; made when
 *                         the cell first gets a formula (cells that are only
 *                         named by others stay quiet and empty)
 *
 * So after a change the output lists exactly the cells that were
 * recomputed: "B1 = 12" from a display whose value changed, and
 * "C1 = 3 (unchanged)" from a result that was recomputed to the same value,
 * where propagation stops. The callbacks collect this news while the
 * command runs; it is printed in sheet order when the command ends.
 */
#ifndef SHEET_H
#define SHEET_H

#include "formula.h"
#include "lexer.h"

#include <stddef.h>

typedef struct sheet sheet;
typedef struct cell cell;

/* An empty sheet that prints to standard output. */
sheet *sheet_new(void);

/* Destroys every node, then the graph; all memory is freed. */
void sheet_free(sheet *s);

/* The cell at `ref`, made empty on first use. */
cell *sheet_cell(sheet *s, cell_ref ref);

/* For formulas: reads a cell's value, recording it as a dependency of the
 * cell being computed. Returns 0, or a negative StateGraph code (a cycle). */
int sheet_read(cell *c, value *out);

/* Gives `c` a new formula (`text` is how the user typed it) and prints what
 * was recomputed. The sheet takes `formula` either way. Returns 0; or
 * SG_ECYCLE when the formula would make the cell depend on itself: then the
 * cell keeps its old formula, nothing is printed, and `cycle` names the
 * cells on the loop ("B1 -> C1 -> B1"). */
int sheet_define(sheet *s, cell *c, expr *formula, const char *text, char *cycle,
                 size_t cycle_size);

/* Prints every cell that has a formula, column by column. */
void sheet_print(sheet *s);

#endif
