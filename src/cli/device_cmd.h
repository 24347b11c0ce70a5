/* device_cmd.h - the commands that use a live GPU: --device N|all (the
 * report of each device read from the driver, with its verification) and
 * "occcalc verify --sweep N". They return occcalc's exit status. */
#ifndef OCC_DEVICE_CMD_H
#define OCC_DEVICE_CMD_H

#include "cli/cli.h"
#include "db/gpudb.h"

/* --device: OCC_EXIT_OK when every verification agrees,
 * OCC_EXIT_DISAGREE when one does not, OCC_EXIT_DEVICE on a CUDA error,
 * OCC_EXIT_USAGE on bad input. */
int occ_device_command(const occ_cli *cli, const occ_gpudb *db);

/* verify --sweep N: OCC_EXIT_OK when every case agrees, else as above. */
int occ_sweep_command(const occ_cli *cli, const occ_gpudb *db);

#endif
