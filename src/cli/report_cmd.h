/* report_cmd.h - `occcalc report [--json|--csv] FILE...`: the `occcalc
 * run --json` reports of the ranks of one job, on one host or many,
 * merged by src/model/run_merge.c into one report: text (80 columns, one
 * line per merged row), JSON (each row with its per-rank breakdown) or
 * CSV. */
#ifndef OCC_REPORT_CMD_H
#define OCC_REPORT_CMD_H

#include "cli/cli.h"

/* Merges cli->report_files and writes the report to stdout. Returns
 * OCC_EXIT_OK; OCC_EXIT_USAGE with one line on stderr naming the file
 * and why when a file cannot be read, is not a run --json report, is
 * forged or was named before (nothing written to stdout); OCC_EXIT_FAILURE out of memory or when
 * the report cannot be written. */
int occ_report_command(const occ_cli *cli);

#endif
