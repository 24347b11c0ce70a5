/* ptxas_cmd.h - occcalc --ptxas: every kernel of a compiler report
 * (nvcc -Xptxas -v, cuobjdump --dump-resource-usage, or clang's and
 * hipcc's kernel-resource-usage remarks) through the pipeline, as a table,
 * --json or --jsonl, and the occupancy gate. */
#ifndef OCC_PTXAS_CMD_H
#define OCC_PTXAS_CMD_H

#include <stdio.h>

#include "cli/cli.h"
#include "db/gpudb.h"

/* Reads cli->ptxas_path ("-": standard input) as it arrives; the first
 * line only one vendor writes chooses the reader; computes each selected
 * kernel on its target's architecture (or on the device --gpu/--arch
 * names) and writes it as soon as its lines are read; notes, the gate's
 * findings and errors go to err. Returns OCC_EXIT_OK; OCC_EXIT_GATE when
 * a kernel is below --min-occupancy (output still complete);
 * OCC_EXIT_DISAGREE when AMD's compiler disagrees; OCC_EXIT_USAGE when the
 * input holds no kernel, mixes both vendors' reports, or is another
 * vendor's than the target; OCC_EXIT_FAILURE when out of memory. */
int occ_ptxas_command(const occ_cli *cli, const occ_gpudb *db, FILE *out, FILE *err);

/* occcalc --module FILE without --device: every kernel of a cubin, a
 * fatbin, or a program or library with embedded fatbins, read offline
 * (ptxas/binary.h) and computed as occ_ptxas_command computes a log's,
 * each on its cubin's architecture. Returns as occ_ptxas_command; a file
 * that is not a CUDA binary, or holds no readable kernel, is
 * OCC_EXIT_USAGE with one line. */
int occ_module_command(const occ_cli *cli, const occ_gpudb *db, FILE *out, FILE *err);

#endif
