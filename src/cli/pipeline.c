/* pipeline.c - compute, gate and write one kernel configuration, whatever
 * its source (see pipeline.h). */
#include "cli/pipeline.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/gpudb.h"
#include "model/cluster.h"
#include "render/outfile.h"
#include "render/render.h"
#include "render/report.h"
#include "render/report_text.h"
#include "text/text_safe.h"

/* Columns to fit kernel names in: the terminal's when writing to one, else
 * $COLUMNS when set, else no limit (a pipe to grep wants whole names). */
static int terminal_width(FILE *out) {
  struct winsize ws;
  if (isatty(fileno(out)) && ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 &&
      ws.ws_col > 0)
    return ws.ws_col;
  const char *env = getenv("COLUMNS");
  long cols = env ? strtol(env, NULL, 10) : 0;
  return cols > 0 && cols < 10000 ? (int)cols : 0;
}

/* --ptxas writes its table unless a kernel needs more room than a row:
 * an explanation, terminal charts, suggestions or waves. */
static bool wants_sections(const occ_cli *cli) {
  return cli->explain || cli->suggest || cli->grid || cli->ncu ||
         occ_cli_given(cli, OCC_OPT_CLUSTER) ||
         (cli->charts && !cli->svg_path);
}

occ_format occ_pipeline_format(const occ_cli *cli) {
  if (cli->json) return OCC_FORMAT_JSON;
  if (cli->jsonl) return OCC_FORMAT_JSONL;
  /* --ptxas --csv: the table, a row per kernel; its charts' points with
   * --chart. */
  if (cli->csv)
    return cli->mode == OCC_MODE_PTXAS && !occ_cli_given(cli, OCC_OPT_CHART)
               ? OCC_FORMAT_TABLE_CSV
               : OCC_FORMAT_CSV;
  if (cli->svg_path && strcmp(cli->svg_path, "-") == 0) return OCC_FORMAT_SVG;
  if (cli->mode == OCC_MODE_PTXAS && !wants_sections(cli))
    return OCC_FORMAT_TABLE;
  return OCC_FORMAT_TEXT;
}

int occ_pipeline_init(occ_pipeline *p, const occ_cli *cli, bool many,
                      FILE *out, FILE *err) {
  *p = (occ_pipeline){.cli = cli, .err = err};
  p->request = (occ_model_request){
      .grid_blocks = cli->grid, .explain = cli->explain,
      .charts = cli->charts, .chart_step = (int)cli->chart_step,
      .suggest = cli->suggest,
      .cluster = occ_cli_given(cli, OCC_OPT_CLUSTER) ? &cli->cluster_shape : NULL};
  occ_format format = occ_pipeline_format(cli);
  struct stat st;
  p->render = (occ_render){
      .format = format, .out = out, .err = err, .many = many,
      .explain = cli->explain, .ncu = cli->ncu, .ascii = cli->ascii,
      .verify_key = cli->mode == OCC_MODE_DEVICE || cli->mode == OCC_MODE_MODULE,
      .cluster_verify_key = cli->mode == OCC_MODE_DEVICE &&
                            occ_cli_given(cli, OCC_OPT_CLUSTER),
      .svg_path = cli->svg_path,
      .columns = format == OCC_FORMAT_TABLE ? terminal_width(out) : 0,
      .flush_each = format == OCC_FORMAT_JSONL &&
                    !(fstat(fileno(out), &st) == 0 && S_ISREG(st.st_mode))};
  bool svg_file = cli->svg_path && strcmp(cli->svg_path, "-") != 0;
  if (svg_file && !many && occ_outfile_check(cli->svg_path, "--svg", err) != 0)
    return OCC_EXIT_USAGE;
  if (svg_file && many && occ_outfile_mkdir(cli->svg_path, "--svg", err) != 0)
    return OCC_EXIT_USAGE;
  if (svg_file && many) {
    if (stat(cli->svg_path, &st) != 0 || !S_ISDIR(st.st_mode))
      return occ_cli_usage_error(err, "--svg: '%s' is not a directory (with "
                                 "several kernel configurations --svg takes a "
                                 "directory, created when the name ends in "
                                 "'/', and writes a file per one)",
                                 cli->svg_path);
  }
  return OCC_EXIT_OK;
}

int occ_pipeline_check(const occ_pipeline *p, const occ_device *d) {
  const occ_cli *cli = p->cli;
  if (cli->chart_step > d->max_threads_per_block)
    return occ_cli_usage_error(p->err, "--step: '%lld' is out of range "
                               "(accepted: 1 to %d on %s)",
                               (long long)cli->chart_step,
                               d->max_threads_per_block, d->name);
  /* The calculator takes a block's shared memory, its reserve included,
   * up to 1 GiB (the parser's bound for each size alone). */
  int64_t per_thread = cli->dyn_smem_per_thread * d->max_threads_per_block;
  if (cli->smem + cli->dyn_smem + per_thread + d->reserved_smem_per_block_bytes >
      OCC_MAX_SMEM_BYTES)
    return occ_cli_usage_error(p->err, "--smem/--dyn-smem: %lld B static + %lld B "
                               "dynamic + %lld B reserved on %s is out of range "
                               "(accepted: a total up to %lld bytes)",
                               (long long)cli->smem, (long long)(cli->dyn_smem + per_thread),
                               (long long)d->reserved_smem_per_block_bytes, d->name,
                               (long long)OCC_MAX_SMEM_BYTES);
  /* A kernel declares at most the device's default per-block size
   * statically (48 KB on every CUDA architecture in the database); only
   * dynamic shared memory may go past it, up to the opt-in limit. */
  if (cli->smem > d->smem_per_block_bytes)
    return occ_cli_usage_error(p->err, "--smem: %lld bytes of static shared "
                               "memory is more than a kernel can declare on %s "
                               "(accepted: 0 to %lld; only --dyn-smem may exceed "
                               "it, up to %lld with the opt-in)",
                               (long long)cli->smem, d->name,
                               (long long)d->smem_per_block_bytes,
                               (long long)d->smem_per_block_optin_bytes);
  if (cli->grid > 0 && d->sm_count <= 0)
    return occ_cli_usage_error(p->err, "--grid: %s has no SM count (accepted: "
                               "a board from --gpu, or give --sms N)", d->name);
  char why[256];
  if (occ_cli_given(cli, OCC_OPT_CLUSTER) &&
      occ_cluster_device_check(&cli->cluster_shape, d, &cli->grid_shape, cli->grid, why,
                               sizeof why) != 0)
    return occ_cli_usage_error(p->err, "--cluster: %s", why);
  return OCC_EXIT_OK;
}

int occ_pipeline_block(const occ_pipeline *p, const occ_device *device,
                       occ_kernel *kernel, occ_block_choice *choice) {
  char why[256];
  if (occ_cli_block_best(p->cli)) {
    occ_block_choice local;
    occ_status status = occ_best_block_size(device, kernel, choice ? choice : &local);
    if (status != OCC_OK) {
      occ_msg(p->err, "--block best: %s: %s", device->name, occ_strerror(status));
      return OCC_EXIT_USAGE;
    }
    occ_best_block_apply(choice ? choice : &local, device, kernel);
    return OCC_EXIT_OK;
  }
  if (occ_block_check(&p->cli->block, device, kernel->block, why, sizeof why) == 0)
    return OCC_EXIT_OK;
  return occ_cli_usage_error(p->err, "--block: %s", why);
}

occ_status occ_pipeline_build(const occ_pipeline *p, occ_item *item,
                              occ_model_section *failed) {
  return occ_model_build(item, &p->request, failed);
}

int occ_pipeline_build_error(const occ_pipeline *p, const occ_item *item,
                             occ_status status, occ_model_section failed) {
  char why[256];
  if (failed != OCC_SECTION_NONE) {
    occ_msg(p->err, "%s: %s", occ_model_section_name(failed),
            occ_strerror(status));
    return status == OCC_ERR_NOMEM ? OCC_EXIT_FAILURE : OCC_EXIT_USAGE;
  }
  if (item->amd) {
    occ_msg(p->err, "%s: %s", item->amd->arch.name,
            occ_amd_strerror(item->amd->status));
    return OCC_EXIT_USAGE;
  }
  if (status == OCC_ERR_INVALID_DEVICE &&
      occ_device_check_text(item->device, why, sizeof why) != 0)
    occ_msg(p->err, "%s: %s", item->device->name, why);
  else
    occ_msg(p->err, "%s: %s", item->device->name, occ_strerror(status));
  return OCC_EXIT_USAGE;
}

bool occ_gate_check(const occ_cli *cli, FILE *err, const occ_item *item,
                    const char *on) {
  if (!occ_cli_given(cli, OCC_OPT_MIN_OCCUPANCY) ||
      !occ_model_below(item, cli->min_occupancy_pct))
    return false;
  char text[16];
  occ_pct_text_below(occ_model_occupancy(item), cli->min_occupancy_pct, text,
                     sizeof text);
  occ_msg(err, "below --min-occupancy %g%%: %s on %s: %s%%",
          cli->min_occupancy_pct,
          item->readable ? item->readable : item->name ? item->name : "the kernel",
          on, text);
  return true;
}

int occ_gate_summary(const occ_cli *cli, FILE *err, long below) {
  if (!below) return OCC_EXIT_OK;
  occ_msg(err, "%ld kernel%s below --min-occupancy %g%%", below,
          below == 1 ? "" : "s", cli->min_occupancy_pct);
  return OCC_EXIT_GATE;
}

static void check_gate(occ_pipeline *p, const occ_item *item) {
  const char *on = item->amd ? (item->amd->board ? item->amd->board
                                                 : item->amd->arch.name)
                   : !p->render.fixed_device && item->ptxas && item->ptxas->arch[0]
                       ? item->ptxas->arch
                       : item->device->name;
  /* A kernel judged at a block occcalc guessed (no --block for it, no
   * --block best) is not passed: its occupancy at the block it is really
   * launched with is not known. */
  if (occ_cli_given(p->cli, OCC_OPT_MIN_OCCUPANCY) && item->choice &&
      !item->block_best) {
    occ_msg(p->err, "--min-occupancy %g%%: %s on %s: no block known (computed "
            "at a guessed %d threads); give --block N, --block 'NAME_GLOB=N' or "
            "--block best", p->cli->min_occupancy_pct,
            item->readable ? item->readable : item->name ? item->name : "the kernel",
            on, item->kernel.block[0]);
    p->below_gate++;
    return;
  }
  p->below_gate += occ_gate_check(p->cli, p->err, item, on);
}

int occ_pipeline_write(occ_pipeline *p, occ_item *item) {
  int rc = occ_render_item(&p->render, item);
  if (rc != OCC_EXIT_OK) return rc;
  check_gate(p, item);
  /* A reader gone (EPIPE with SIGPIPE ignored) or a full disk: stop now
   * rather than compute the rest of a long report for nobody. */
  if (ferror(p->render.out)) return occ_exit_of_stream_error(errno);
  return OCC_EXIT_OK;
}

void occ_pipeline_end(occ_pipeline *p) {
  if (occ_render_open(&p->render)) occ_render_end(&p->render);
}

int occ_pipeline_gate(const occ_pipeline *p) {
  return occ_gate_summary(p->cli, p->err, p->below_gate);
}
