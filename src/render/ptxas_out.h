/* ptxas_out.h - the writers of occcalc --ptxas: a table row per kernel
 * and target (ptxas_table.c) and the JSON object of one (ptxas_json.c).
 * They format what the reader and the calculator produced; nothing is
 * recomputed. */
#ifndef OCC_PTXAS_OUT_H
#define OCC_PTXAS_OUT_H

#include "render/json_write.h"
#include <stdbool.h>
#include <stdio.h>

#include "core/occ.h"
#include "ptxas/ptxas.h"
#include "render/report.h"

/* One kernel on one device, as computed. choice is NULL when --block set
 * the block size; otherwise the block is choice->smallest_block_size. */
typedef struct occ_ptxas_row {
  const occ_ptxas_kernel *kernel;
  const char *demangled;
  const occ_report *report;
  const occ_block_choice *choice;
  bool block_best; /* the block is choice->block_size (--block best) */
} occ_ptxas_row;

/* True when the kernel has a stack frame or spills: local-memory traffic
 * the table flags whatever the occupancy. */
bool occ_ptxas_uses_local(const occ_ptxas_kernel *kernel);

/* The table: a header, rows, then the footnotes the rows called for. A
 * kernel name longer than name_width (0: no limit) goes on a line of its
 * own below its row, cut with "..." only past the row's whole width. */
void occ_ptxas_table_header(FILE *out);
void occ_ptxas_table_row(FILE *out, const occ_ptxas_row *row, int name_width);
void occ_ptxas_table_footer(FILE *out, bool any_chosen_block,
                            bool any_limiter_ties, bool any_local);

/* True when more than one limit binds (the table marks it "+"). */
bool occ_ptxas_limiter_ties(const occ_result *result);

/* The heading of a kernel's text report (--ptxas with --explain, --chart,
 * --suggest, --grid or --ncu): its readable name, cut to 80 columns, where
 * it was read, and with choice the block chosen without --block
 * (chosen_block threads). */
void occ_ptxas_print_heading(FILE *out, const occ_ptxas_kernel *kernel,
                             const char *readable, int chosen_block,
                             const occ_block_choice *choice, bool block_best);

/* The table as CSV (RFC 4180): a header, then a row per kernel and
 * target, each column named by the --jsonl key it holds, in its units
 * (documented in man/occcalc.1). */
void occ_ptxas_csv_header(FILE *out);
void occ_ptxas_csv_row(FILE *out, const occ_ptxas_row *row);

/* Columns a row takes before the kernel name. */
int occ_ptxas_table_fixed_width(void);

/* The calculator's object (occ_json_report) with `kernel` filled from the
 * report: name (mangled), demangled, arch, source, line, the local-memory
 * sizes, and `block_choice`. The caller owns it; NULL when out of memory. */
cJSON *occ_ptxas_json(const occ_ptxas_row *row);

/* Its "compiler" and "block_choice", described to a writer after
 * occ_jw_report_members. */
void occ_jw_ptxas_members(occ_jw *w, const occ_ptxas_row *row);

#endif
