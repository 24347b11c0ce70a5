/* main.c - occcalc: parse the command line, compute, write, check stdout. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/device_cmd.h"
#include "cli/devselect.h"
#include "cli/ptxas_run.h"
#include "cli/explore.h"
#include "out/report.h"

/* Flushes stdout and reports a write error (a full disk, a closed pipe)
 * instead of exiting 0 with output lost. */
static int finish(int rc) {
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "occcalc: error writing output: %s\n", strerror(errno));
    return OCC_EXIT_FAILURE;
  }
  return rc;
}

static int write_result(const occ_cli *cli, const occ_report *rep) {
  if (occ_explore_replaces_report(cli))
    return occ_explore_write(cli, rep->device, rep->kernel, stdout, stderr);
  if (!cli->json) {
    (cli->explain ? occ_print_explain : occ_print_report)(stdout, rep);
    return occ_explore_write(cli, rep->device, rep->kernel, stdout, stderr);
  }
  cJSON *obj = occ_json_report(rep);
  int rc = obj ? occ_explore_add_json(cli, rep->device, rep->kernel, obj, stderr)
               : OCC_EXIT_OK;
  if (rc != OCC_EXIT_OK) {
    cJSON_Delete(obj);
    return rc;
  }
  rc = occ_exit_of_write(occ_print_json(stdout, obj));
  cJSON_Delete(obj);
  return rc;
}

/* The calculator: one configuration on one device. */
static int calculate(const occ_cli *cli, const occ_gpudb *db) {
  if (!cli->regs_given || !cli->block_given)
    return occ_cli_usage_error(stderr, "%s is required (%s)",
                               cli->regs_given ? "--block" : "--regs",
                               cli->regs_given ? "threads per block, e.g. 128 or 40x2"
                                               : "registers per thread, 0 to 255");
  occ_device device;
  const char *note;
  int rc = occ_select_device(db, cli, &device, &note, stderr);
  if (rc != OCC_EXIT_OK) return rc;
  occ_kernel kernel = cli->kernel;
  char why[256];
  if (occ_parse_block(cli->block_text, &device, kernel.block, why, sizeof why) != 0)
    return occ_cli_usage_error(stderr, "--block: %s", why);
  rc = occ_explore_check(cli, &device, stderr);
  if (rc != OCC_EXIT_OK) return rc;
  if (cli->grid_blocks > 0 && device.sm_count <= 0)
    return occ_cli_usage_error(stderr, "--grid: %s has no SM count (accepted: a board "
                               "from --gpu, or give --sms N)", device.name);
  occ_result result;
  occ_status status = occ_compute(&device, &kernel, &result);
  if (status != OCC_OK) {
    fprintf(stderr, "occcalc: %s: %s\n", device.name, occ_strerror(status));
    return OCC_EXIT_USAGE;
  }
  if (note)
    fprintf(stderr, "occcalc: note: no --gpu, --arch or --cc given; using %s (%s)\n",
            device.name, note);
  occ_waves waves;
  if (cli->grid_blocks > 0) occ_waves_compute(&device, &result, cli->grid_blocks, &waves);
  occ_report rep = {&device, &kernel, NULL, &result, cli->grid_blocks > 0 ? &waves : NULL};
  return write_result(cli, &rep);
}

int main(int argc, char **argv) {
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
  occ_gpudb *db = occ_load_database(&cli, stderr);
  if (!db) return OCC_EXIT_USAGE;
  if (cli.verify_command)
    rc = occ_sweep_command(&cli, db);
  else if (cli.device)
    rc = occ_device_command(&cli, db);
  else if (cli.ptxas_path)
    rc = occ_ptxas_run(&cli, db, stdout, stderr);
  else
    rc = cli.list_gpus ? occ_list_gpus(db, cli.json, stdout) : calculate(&cli, db);
  occ_gpudb_free(db);
  return finish(rc);
}
