/* ptxas_run.h - occcalc --ptxas: every kernel of a compiler report through
 * the calculator, as a table, --json or --jsonl, and the occupancy gate. */
#ifndef OCC_PTXAS_RUN_H
#define OCC_PTXAS_RUN_H

#include <stdio.h>

#include "cli/cli.h"
#include "db/gpudb.h"

/* Reads the compiler report in as it streams (the caller opened it, and
 * may have looked at its first bytes; it closes it), computes each
 * selected kernel on its target's architecture (or on the device
 * --gpu/--arch names), writes the result to out and notes, the gate's
 * findings and errors to err. Returns OCC_EXIT_OK; OCC_EXIT_GATE when a
 * kernel is below --min-occupancy (output still complete); OCC_EXIT_USAGE
 * when the input holds no kernel; OCC_EXIT_FAILURE when out of memory. */
int occ_ptxas_run_stream(const occ_cli *cli, const occ_gpudb *db, FILE *in,
                         FILE *out, FILE *err);

#endif
