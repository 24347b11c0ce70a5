/* remark_run.h - occcalc --ptxas on a log of AMD's compiler remarks
 * (clang's and hipcc's -Rpass-analysis=kernel-resource-usage): each kernel
 * computed as its lines arrive, on the log's target or --arch / --gpu's,
 * checked against the compiler's own Occupancy, written and gated through
 * the pipeline. The caller (ptxas_cmd.c) splits the input into lines and
 * hands them over. */
#ifndef OCC_REMARK_RUN_H
#define OCC_REMARK_RUN_H

#include <stddef.h>
#include <stdio.h>

#include "cli/amd_cmd.h"
#include "cli/cli.h"
#include "db/gpudb.h"

typedef struct remark_run remark_run;

/* Starts a run on target (amd false: the log's own targets only). target
 * and the other arguments must outlive it. Returns the run, or NULL with
 * *rc the exit status after the one-line diagnostic. */
remark_run *occ_remark_run_new(const occ_cli *cli, const occ_gpudb *db,
                               const occ_amd_target *target, FILE *out, FILE *err,
                               int *rc);

/* One line of the log (s NULL: a line too long to keep). Returns 0, or
 * the exit status of a failure that stops the run (already reported). */
int occ_remark_run_line(remark_run *r, const char *s, size_t len);

/* Ends the input (named input in messages): the last kernel, the notes,
 * the gate. Returns the exit status. */
int occ_remark_run_end(remark_run *r, const char *input);

void occ_remark_run_free(remark_run *r);

#endif
