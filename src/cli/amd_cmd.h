/* amd_cmd.h - occcalc's AMD targets: choosing one (--arch gfxNNN, --gpu
 * with an AMD board's name, NVIDIA's names first), the options checked
 * against it, and the calculator over the typed numbers (a remark log
 * read through --ptxas is remark_run.h's). */
#ifndef OCC_AMD_CMD_H
#define OCC_AMD_CMD_H

#include <stdbool.h>
#include <stdio.h>

#include "cli/cli.h"
#include "db/gpudb.h"
#include "db/select.h"
#include "model/amd_item.h"

/* The target the command line names when it is AMD's. */
typedef struct occ_amd_target {
  bool amd;         /* false: NVIDIA's (or none named): the caller goes on */
  bool board;       /* a board (gpu) rather than an architecture */
  occ_amd_gpu gpu;  /* arch always; name and cu_count when board */
} occ_amd_target;

/* Resolves --arch gfxNNN, or --gpu (or $OCCCALC_GPU without --arch) as an
 * NVIDIA board first and then an AMD one. Returns OCC_EXIT_OK, or
 * OCC_EXIT_USAGE after the one-line diagnostic (an unknown gfx target or
 * a board that neither vendor has, naming the nearest of each). */
int occ_amd_select(const occ_gpudb *db, const occ_cli *cli, occ_amd_target *target,
                   FILE *err);

/* The AMD target of a resolved selection (amd false when the selection
 * failed or is NVIDIA's). */
void occ_amd_target_of(const occ_target *target, occ_amd_target *amd);

/* The calculator on an AMD target: one configuration written as the
 * options ask. Returns an exit status after any diagnostic. */
int occ_amd_calculate(const occ_cli *cli, const occ_amd_target *target, FILE *out,
                      FILE *err);

/* The item of a configuration on target: its architecture, and the board
 * when the target is one. */
void occ_amd_item_of_target(const occ_amd_target *target, occ_amd_item *item);

/* The launch the options give on arch into item (wave size, CU mode,
 * block, --max-block, dynamic LDS), checked against the architecture.
 * Returns OCC_EXIT_OK, or OCC_EXIT_USAGE after the one-line diagnostic. */
int occ_amd_launch_shape(const occ_cli *cli, const occ_amd_arch *arch,
                         occ_amd_item *item, FILE *err);

#endif
