/* run_cmd.h - `occcalc run [options] -- PROGRAM [ARGS...]`: runs the
 * program with the injection library, then reports every kernel and
 * launch configuration it launched: theoretical occupancy from occcalc's
 * core on the live device, occupancy at launch, waves, achieved occupancy
 * and, where achieved falls short, the likely cause. */
#ifndef OCC_RUN_CMD_H
#define OCC_RUN_CMD_H

#include "cli/cli.h"
#include "db/gpudb.h"
#include "live/run.h"

/* Runs cli->run_argv. Returns the program's exit status (128 + signal
 * when a signal ended it, 127 not found, 126 not executable), or
 * OCC_EXIT_GATE when a kernel is below --min-occupancy, OCC_EXIT_USAGE for
 * a bad --output or --device, OCC_EXIT_DEVICE when the injection library
 * is missing or the program cannot be started. */
int occ_run_command(const occ_cli *cli, const occ_gpudb *db);

/* The report occ_run_command makes once the program has exited, over
 * records already read into result (its status the program's): --jsonl's
 * lines, then the report, as cli asks. Takes result's records (freed;
 * result is zeroed). Returns as occ_run_command. For the fuzzer of the
 * records and the report (tests/fuzz/fuzz_run.c). */
int occ_run_report_records(const occ_cli *cli, const occ_gpudb *db,
                           occ_run_result *result);

#endif
