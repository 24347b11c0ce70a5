/* pipeline.c - compute, gate and write one kernel configuration, whatever
 * its source (see pipeline.h). */
#include "cli/pipeline.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cluster_arg.h"
#include "db/gpudb.h"
#include "model/cluster.h"
#include "render/chart_out.h"
#include "render/cluster_verify_out.h"
#include "render/explain_out.h"
#include "render/json_write.h"
#include "render/outfile.h"
#include "render/ptxas_out.h"
#include "render/report.h"
#include "render/report_text.h"
#include "render/suggest_out.h"
#include "render/verify_out.h"
#include "render/text_safe.h"

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
  return cli->explain || cli->suggest || cli->grid || cli->ncu || cli->cluster ||
         (cli->charts && !cli->svg_path);
}

static occ_writer choose_writer(const occ_cli *cli) {
  if (cli->json) return OCC_WRITE_JSON;
  if (cli->jsonl) return OCC_WRITE_JSONL;
  if (cli->csv) return OCC_WRITE_CSV;
  if (cli->svg_path && strcmp(cli->svg_path, "-") == 0) return OCC_WRITE_SVG;
  if (cli->mode == OCC_MODE_PTXAS && !wants_sections(cli))
    return OCC_WRITE_TABLE;
  return OCC_WRITE_TEXT;
}

int occ_pipeline_init(occ_pipeline *p, const occ_cli *cli, bool many,
                      FILE *out, FILE *err) {
  *p = (occ_pipeline){.cli = cli, .out = out, .err = err, .many = many};
  p->request = (occ_model_request){
      .grid_blocks = cli->grid, .explain = cli->explain,
      .charts = cli->charts, .chart_step = (int)cli->chart_step,
      .suggest = cli->suggest,
      .cluster = cli->cluster ? &cli->cluster_shape : NULL};
  p->writer = choose_writer(cli);
  struct stat st;
  p->flush_each = p->writer == OCC_WRITE_JSONL &&
                  !(fstat(fileno(out), &st) == 0 && S_ISREG(st.st_mode));
  if (p->writer == OCC_WRITE_TABLE) {
    int cols = terminal_width(out);
    int fixed = occ_ptxas_table_fixed_width();
    p->name_width = cols == 0 ? 0 : cols - fixed > 12 ? cols - fixed : 12;
  }
  bool svg_file = cli->svg_path && strcmp(cli->svg_path, "-") != 0;
  if (svg_file && !many && occ_outfile_check(cli->svg_path, "--svg", err) != 0)
    return OCC_EXIT_USAGE;
  if (svg_file && many && occ_outfile_mkdir(cli->svg_path, "--svg", err) != 0)
    return OCC_EXIT_USAGE;
  if (svg_file && many) {
    struct stat st;
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
  if (cli->smem + cli->dyn_smem + d->reserved_smem_per_block_bytes > OCC_MAX_SMEM_BYTES)
    return occ_cli_usage_error(p->err, "--smem/--dyn-smem: %lld B static + %lld B "
                               "dynamic + %lld B reserved on %s is out of range "
                               "(accepted: a total up to %lld bytes)",
                               (long long)cli->smem, (long long)cli->dyn_smem,
                               (long long)d->reserved_smem_per_block_bytes, d->name,
                               (long long)OCC_MAX_SMEM_BYTES);
  if (cli->grid > 0 && d->sm_count <= 0)
    return occ_cli_usage_error(p->err, "--grid: %s has no SM count (accepted: "
                               "a board from --gpu, or give --sms N)", d->name);
  char why[256];
  if (cli->cluster && occ_cluster_arg_check(&cli->cluster_shape, d, cli->grid,
                                            why, sizeof why) != 0)
    return occ_cli_usage_error(p->err, "--cluster: %s", why);
  return OCC_EXIT_OK;
}

int occ_pipeline_block(const occ_pipeline *p, const occ_device *device,
                       occ_kernel *kernel) {
  char why[256];
  if (occ_parse_block(p->cli->block, device, kernel->block, why, sizeof why) == 0)
    return OCC_EXIT_OK;
  return occ_cli_usage_error(p->err, "--block: %s", why);
}

occ_status occ_pipeline_compute(const occ_pipeline *p, occ_item *item) {
  return occ_model_compute(item, &p->request);
}

int occ_pipeline_compute_error(const occ_pipeline *p, const occ_item *item,
                               occ_status status) {
  char why[256];
  if (status == OCC_ERR_INVALID_DEVICE &&
      occ_device_check_text(item->device, why, sizeof why) != 0)
    occ_msg(p->err, "%s: %s", item->device->name, why);
  else
    occ_msg(p->err, "%s: %s", item->device->name, occ_strerror(status));
  return OCC_EXIT_USAGE;
}

/* --- the explore outputs: charts --- */

static void svg_writer(FILE *f, const void *context) {
  const occ_charts *set = context;
  occ_chart_write_svg(f, set->list, set->count);
}

/* The SVG file of one configuration: --svg FILE, or with several
 * DIR/N-LABEL.svg, N counting the configurations from 1. */
static int write_svg(const occ_pipeline *p, const occ_item *item) {
  const occ_charts *set = item->charts;
  if (!p->many)
    return occ_outfile_write(p->cli->svg_path, "--svg", svg_writer, set,
                             p->err);
  if (p->written >= OCC_OUTFILE_MAX_FILES) {
    occ_msg(p->err, "--svg: stopped at %d files in '%s' (the most one run "
            "writes; select fewer kernels)", OCC_OUTFILE_MAX_FILES,
            p->cli->svg_path);
    return OCC_EXIT_FAILURE;
  }
  char path[4096];
  occ_outfile_name(path, sizeof path, p->cli->svg_path, p->written + 1,
                   item->label, ".svg");
  return occ_outfile_write(path, "--svg", svg_writer, set, p->err);
}

/* Charts after a text report: on the terminal, or into the SVG file. */
static int text_charts(const occ_pipeline *p, const occ_item *item) {
  if (p->cli->svg_path) return write_svg(p, item);
  fputc('\n', p->out);
  occ_chart_print_term(p->out, item->charts->list, item->charts->count,
                       p->cli->ascii || !occ_chart_locale_is_utf8());
  return OCC_EXIT_OK;
}

/* --- the writers --- */

/* The report of item; name is what it calls the kernel (NULL: nothing). */
static occ_report report_of(const occ_pipeline *p, const occ_item *item,
                            const char *name) {
  (void)p;
  return (occ_report){item->device, &item->kernel, name, &item->result,
                      item->has_waves ? &item->waves : NULL,
                      item->has_ncu ? &item->ncu : NULL,
                      item->explanation ? item->explanation->steps : NULL,
                      item->explanation ? item->explanation->count : 0,
                      NULL, item->has_cluster ? &item->cluster : NULL,
                      item->has_cluster ? &item->cluster_result : NULL,
                      item->has_cluster_waves ? &item->cluster_waves : NULL};
}

static void print_live(const occ_pipeline *p, const occ_item *item) {
  if (item->verify) {
    fputc('\n', p->out);
    occ_print_verify(p->out, item->device, item->gpu_ordinal, item->verify);
    if (item->cluster_verify) {
      fputc('\n', p->out);
      occ_print_cluster_verify(p->out, item->cluster_verify);
    }
  } else if (item->module) {
    fputc('\n', p->out);
    occ_print_module_check(p->out, item->module, &item->result,
                           item->verdict == OCC_VERDICT_AGREE);
  }
}

static int write_text(occ_pipeline *p, const occ_item *item) {
  const occ_cli *cli = p->cli;
  /* A compiler report's kernel is named in its heading; a module's by its
   * readable name, as a person reads it. */
  const char *name = item->readable ? item->readable : item->name;
  occ_report rep = report_of(p, item, item->ptxas ? NULL : name);
  if (p->written > 0) fputc('\n', p->out);
  if (item->ptxas)
    occ_ptxas_print_heading(p->out, item->ptxas, item->readable,
                            item->choice ? item->kernel.block[0] : 0,
                            item->choice);
  (cli->explain ? occ_print_explain : occ_print_report)(p->out, &rep);
  if (cli->ncu) occ_print_ncu(p->out, &rep);
  print_live(p, item);
  int rc = item->charts ? text_charts(p, item) : OCC_EXIT_OK;
  if (rc != OCC_EXIT_OK || !item->suggestion) return rc;
  fputc('\n', p->out);
  occ_suggest_print(p->out, item->device, item->suggestion);
  return OCC_EXIT_OK;
}

static int write_table(occ_pipeline *p, const occ_item *item) {
  occ_report rep = report_of(p, item, item->name);
  occ_ptxas_row row = {item->ptxas, item->readable, &rep, item->choice};
  if (p->written == 0) {
    /* With --gpu or --arch, ARCH still shows the report's target: say
     * which device every row was computed on. */
    if (p->fixed_device) {
      char cc[16], name[4 * sizeof p->fixed_device->name];
      occ_cc_text(p->fixed_device, cc, sizeof cc);
      fprintf(p->out, "on %s (cc %s):\n",
              occ_text_safe(p->fixed_device->name, name, sizeof name), cc);
    }
    occ_ptxas_table_header(p->out);
  }
  occ_ptxas_table_row(p->out, &row, p->name_width);
  p->any_chosen_block |= item->choice != NULL;
  p->any_ties |= occ_ptxas_limiter_ties(&item->result);
  p->any_local |= occ_ptxas_uses_local(item->ptxas);
  return OCC_EXIT_OK;
}

static int write_csv(const occ_pipeline *p, const occ_item *item) {
  if (p->written == 0) occ_chart_write_csv_header(p->out);
  if (item->charts)
    occ_chart_write_csv(p->out, item->label, item->charts->list,
                        item->charts->count);
  return OCC_EXIT_OK;
}

static int write_svg_stdout(const occ_pipeline *p, const occ_item *item) {
  if (item->charts)
    occ_chart_write_svg(p->out, item->charts->list, item->charts->count);
  return OCC_EXIT_OK;
}

static bool add_item(cJSON *obj, const char *key, cJSON *item) {
  if (item && cJSON_AddItemToObject(obj, key, item)) return true;
  cJSON_Delete(item);
  return false;
}

static cJSON *live_json(const occ_item *item) {
  if (item->verify) return occ_json_verify(item->gpu_ordinal, item->verify);
  if (item->module)
    return occ_json_module_check(item->module, &item->result,
                                 item->verdict == OCC_VERDICT_AGREE);
  return cJSON_CreateNull();
}

/* The sections the options ask for, added to the report's object. */
static int add_sections(const occ_pipeline *p, const occ_item *item,
                        cJSON *obj) {
  const occ_cli *cli = p->cli;
  bool ok = true;
  if (cli->mode == OCC_MODE_DEVICE || cli->mode == OCC_MODE_MODULE)
    ok = add_item(obj, "verify", live_json(item));
  /* --device N --cluster C: the cluster launch verified (null with
   * --no-verify). */
  if (ok && cli->mode == OCC_MODE_DEVICE && cli->cluster)
    ok = add_item(obj, "cluster_verify",
                  item->cluster_verify
                      ? occ_json_cluster_verify(item->cluster_verify)
                      : cJSON_CreateNull());
  int rc = OCC_EXIT_OK;
  if (ok && item->charts) {
    ok = add_item(obj, "charts",
                  occ_chart_json(item->charts->list, item->charts->count));
    if (ok && cli->svg_path) rc = write_svg(p, item);
  }
  if (ok && item->explanation) {
    occ_report rep = report_of(p, item, item->name);
    ok = add_item(obj, "explain", occ_json_explain(&rep));
  }
  if (ok && rc == OCC_EXIT_OK && item->suggestion)
    ok = add_item(obj, "suggest", occ_suggest_json(item->suggestion));
  if (ok) return rc;
  occ_msg(p->err, "out of memory writing JSON");
  return OCC_EXIT_FAILURE;
}

/* The kernel's names in a document (occ_json_kernel's rule): the readable
 * name, and the symbol it was demangled from. */
static cJSON *item_json(const occ_pipeline *p, const occ_item *item) {
  occ_report rep = report_of(p, item,
                             item->readable ? item->readable : item->name);
  rep.mangled_name = item->readable ? item->name : NULL;
  if (!item->ptxas) return occ_json_report(&rep);
  occ_ptxas_row row = {item->ptxas, item->readable, &rep, item->choice};
  return occ_ptxas_json(&row);
}

static int write_json(occ_pipeline *p, const occ_item *item) {
  cJSON *obj = item_json(p, item);
  if (!obj) {
    occ_msg(p->err, "out of memory writing JSON");
    return OCC_EXIT_FAILURE;
  }
  int rc = add_sections(p, item, obj);
  bool printed = true; /* printing allocates: it may run out of memory */
  if (rc == OCC_EXIT_OK && p->writer == OCC_WRITE_JSONL) {
    printed = occ_json_write_compact(p->out, obj);
    if (printed) putc('\n', p->out);
    if (p->flush_each) fflush(p->out);
  } else if (rc == OCC_EXIT_OK) {
    fputs(!p->many ? "" : p->written == 0 ? "[\n" : ",\n", p->out);
    printed = occ_json_write_formatted(p->out, obj);
    if (printed && !p->many) fputc('\n', p->out);
  }
  if (!printed) {
    occ_msg(p->err, "out of memory writing JSON");
    rc = OCC_EXIT_FAILURE;
  }
  cJSON_Delete(obj);
  return rc;
}

bool occ_gate_check(const occ_cli *cli, FILE *err, const occ_item *item,
                    const char *on) {
  if (!occ_cli_given(cli, OCC_OPT_MIN_OCCUPANCY) ||
      !occ_model_below(item, cli->min_occupancy_pct))
    return false;
  char text[16];
  occ_pct_text(occ_model_occupancy(item), text, sizeof text);
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
  const char *on = !p->fixed_device && item->ptxas && item->ptxas->arch[0]
                       ? item->ptxas->arch
                       : item->device->name;
  p->below_gate += occ_gate_check(p->cli, p->err, item, on);
}

/* Computes the sections the options ask for, once, before any writer
 * reads them. */
static int compute_sections(const occ_pipeline *p, occ_item *item) {
  occ_model_section failed;
  occ_status status = occ_model_sections(item, &p->request, &failed);
  if (status == OCC_OK) return OCC_EXIT_OK;
  occ_msg(p->err, "%s: %s", occ_model_section_name(failed),
          occ_strerror(status));
  return status == OCC_ERR_NOMEM ? OCC_EXIT_FAILURE : OCC_EXIT_USAGE;
}

static int write_item(occ_pipeline *p, const occ_item *item) {
  int rc = OCC_EXIT_OK;
  switch (p->writer) {
  case OCC_WRITE_TEXT: rc = write_text(p, item); break;
  case OCC_WRITE_TABLE: rc = write_table(p, item); break;
  case OCC_WRITE_JSON:
  case OCC_WRITE_JSONL: rc = write_json(p, item); break;
  case OCC_WRITE_CSV: rc = write_csv(p, item); break;
  case OCC_WRITE_SVG: rc = write_svg_stdout(p, item); break;
  }
  if (rc == OCC_EXIT_OK && p->writer == OCC_WRITE_TABLE && p->cli->svg_path &&
      item->charts)
    rc = write_svg(p, item);
  return rc;
}

int occ_pipeline_write(occ_pipeline *p, occ_item *item) {
  int rc = compute_sections(p, item);
  if (rc != OCC_EXIT_OK) return rc;
  rc = write_item(p, item);
  occ_model_release(item);
  if (rc != OCC_EXIT_OK) return rc;
  check_gate(p, item);
  p->written++;
  /* A reader gone (EPIPE with SIGPIPE ignored) or a full disk: stop now
   * rather than compute the rest of a long report for nobody. */
  if (rc == OCC_EXIT_OK && ferror(p->out)) return occ_exit_of_stream_error(errno);
  return rc;
}

void occ_pipeline_end(occ_pipeline *p) {
  if (p->writer == OCC_WRITE_JSON && p->many && p->written)
    fputs("\n]\n", p->out);
  if (p->writer == OCC_WRITE_TABLE && p->written)
    occ_ptxas_table_footer(p->out, p->any_chosen_block, p->any_ties,
                           p->any_local);
}

int occ_pipeline_gate(const occ_pipeline *p) {
  return occ_gate_summary(p->cli, p->err, p->below_gate);
}
