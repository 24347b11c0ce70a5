/* occcalc.c - the program: parse the command line, run its mode, check
 * stdout (see occcalc.h). */
#include "cli/occcalc.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli/amd_cmd.h"
#include "cli/cli.h"
#include "cli/device_cmd.h"
#include "cli/devselect.h"
#include "cli/pipeline.h"
#include "cli/ptxas_cmd.h"
#include "cli/report_cmd.h"
#include "cli/run_cmd.h"
#include "text/text_safe.h"

/* Flushes stdout and reports a write error (a full disk, a closed pipe)
 * instead of exiting 0 with output lost. */
static int finish(int rc) {
  if (rc == OCC_EXIT_PIPE) return rc;
  errno = 0;
  if (fflush(stdout) != 0 || ferror(stdout)) {
    int saved = errno ? errno : EIO;
    if (occ_exit_of_stream_error(saved) == OCC_EXIT_PIPE) return OCC_EXIT_PIPE;
    occ_msg(stderr, "error writing output: %s", strerror(saved));
    return OCC_EXIT_FAILURE;
  }
  return rc;
}

/* The calculator: the typed configuration on one device. */
static int calculate(const occ_cli *cli) {
  occ_target_query query = occ_cli_target_query(cli);
  occ_target target;
  occ_gpudb_select(&query, &target);
  occ_amd_target amd;
  occ_amd_target_of(&target, &amd);
  int rc = occ_target_vendor_error(&target, stderr);
  if (rc != OCC_EXIT_OK) return rc;
  if (amd.amd) return occ_amd_calculate(cli, &amd, stdout, stderr);
  rc = occ_cli_refuse_vendor(cli, OCC_VENDOR_NVIDIA,
                             target.status == OCC_TARGET_FOUND ? target.device.name
                                                               : occ_target_name(&target),
                             stderr);
  if (rc != OCC_EXIT_OK) return rc;
  if (!occ_cli_given(cli, OCC_OPT_REGS))
    return occ_cli_usage_error(stderr, "--regs is required (registers per thread, 0 to "
                               "255)");
  occ_device device;
  const char *note;
  rc = occ_target_device(cli, &target, &device, &note, stderr);
  if (rc != OCC_EXIT_OK) return rc;
  occ_pipeline p;
  if ((rc = occ_pipeline_init(&p, cli, false, stdout, stderr)) != OCC_EXIT_OK ||
      (rc = occ_pipeline_check(&p, &device)) != OCC_EXIT_OK)
    return rc;
  occ_item item = {.device = &device};
  occ_block_choice choice;
  occ_cli_kernel(cli, &item.kernel);
  if ((rc = occ_pipeline_block(&p, &device, &item.kernel, &choice)) != OCC_EXIT_OK)
    return rc;
  if (occ_cli_block_best(cli)) {
    item.choice = &choice;
    item.block_best = true;
  }
  occ_model_section failed;
  occ_status status = occ_pipeline_build(&p, &item, &failed);
  if (status != OCC_OK)
    return occ_pipeline_build_error(&p, &item, status, failed);
  if (note)
    occ_msg(stderr, "note: no --gpu, --arch or --cc given; using %s (%s)",
            device.name, note);
  rc = occ_pipeline_write(&p, &item);
  free(item.sections);
  int gate = occ_pipeline_finish(&p);
  return rc != OCC_EXIT_OK ? rc : gate;
}

/* The modes that read the loaded database. */
static int run_on_database(const occ_cli *cli, const occ_gpudb *db) {
  switch (cli->mode) {
  case OCC_MODE_PTXAS:
    return cli->module ? occ_module_command(cli, db, stdout, stderr)
                       : occ_ptxas_command(cli, db, stdout, stderr);
  case OCC_MODE_DEVICE:
  case OCC_MODE_MODULE: return occ_device_command(cli, db);
  case OCC_MODE_SWEEP: return occ_sweep_command(cli, db);
  case OCC_MODE_LIST: return occ_list_gpus(db, cli->json, stdout);
  case OCC_MODE_RUN: return occ_run_command(cli, db);
  case OCC_MODE_CALC:
  case OCC_MODE_REPORT: break;
  }
  return OCC_EXIT_USAGE;
}

/* The calculator selects its device in one call to the database layer
 * (which loads and frees the database itself); report reads none. */
static int run(const occ_cli *cli) {
  if (cli->mode == OCC_MODE_CALC) return calculate(cli);
  if (cli->mode == OCC_MODE_REPORT) return occ_report_command(cli);
  occ_gpudb *db;
  int loaded = occ_load_database(cli, stderr, &db);
  if (loaded != OCC_EXIT_OK) return loaded;
  int rc = run_on_database(cli, db);
  occ_gpudb_free(db);
  return rc;
}

int occ_main(int argc, char **argv) {
  /* Past a file-size limit a write fails (EFBIG) and is reported, and a
   * partial output file is removed, instead of the process being killed. */
  signal(SIGXFSZ, SIG_IGN);
  occ_cli cli;
  int rc = occ_cli_parse(argc, argv, &cli, stderr);
  if (rc != OCC_EXIT_OK) return rc;
  if (cli.help) {
    occ_cli_print_help(stdout);
    return finish(OCC_EXIT_OK);
  }
  if (cli.version) {
    printf("occcalc %s\n", OCC_VERSION);
    return finish(OCC_EXIT_OK);
  }
  return finish(run(&cli));
}
