/* amd_cmd.c - AMD targets on the command line (see amd_cmd.h): the
 * options checked against the target, one model item per configuration
 * (model/amd_item.h), written by src/render/amd_out.c. */
#define _GNU_SOURCE /* fopencookie: the peeked bytes replayed before the rest */
#include "cli/amd_cmd.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/devselect.h"
#include "cli/kernel_name.h"
#include "cli/pipeline.h"
#include "cli/ptxas_run.h"
#include "model/amd_item.h"
#include "ptxas/amdgpu_remarks.h"
#include "ptxas/demangle.h"
#include "render/amd_out.h"
#include "render/report.h"
#include "text/text_safe.h"

void occ_amd_target_of(const occ_target *target, occ_amd_target *amd) {
  memset(amd, 0, sizeof *amd);
  if (target->status != OCC_TARGET_FOUND || !target->amd) return;
  amd->amd = true;
  amd->board = target->amd_board;
  amd->gpu = target->amd_gpu;
}

int occ_amd_select(const occ_gpudb *db, const occ_cli *cli, occ_amd_target *t,
                   FILE *err) {
  occ_target_query query = occ_cli_target_query(cli);
  occ_target target;
  occ_gpudb_resolve(db, &query, &target);
  occ_amd_target_of(&target, t);
  return occ_target_vendor_error(&target, err);
}

/* The NVIDIA options an AMD target refuses: the option table's (--csv
 * alone, no --chart, writes the AMD report's row). */
static int refuse_nvidia_options(const occ_cli *cli, const char *target, FILE *err) {
  return occ_cli_refuse_vendor(cli, OCC_VENDOR_AMD, target, err);
}

/* The wave size and the workgroup sizes the options give, checked against
 * the architecture. */
static int launch_shape(const occ_cli *cli, const occ_amd_arch *a, occ_amd_item *it,
                        FILE *err) {
  if (cli->wave && cli->wave != 32 && cli->wave != 64)
    return occ_cli_usage_error(err, "--wave: '%" PRId64 "' is not a wave size "
                               "(accepted: 32 or 64)", cli->wave);
  if ((cli->wave == 32 && !a->wave32) || (cli->wave == 64 && !a->wave64))
    return occ_cli_usage_error(err, "--wave: %s runs no wave %" PRId64 " (accepted: %d)",
                               a->name, cli->wave, a->wave32 ? 32 : 64);
  if (cli->cu_mode && !a->wgp_mode)
    return occ_cli_usage_error(err, "--cu-mode: %s has no WGP mode to leave (accepted "
                               "on gfx10 and later)", a->name);
  int max = a->max_threads_per_block;
  if (cli->max_block > max)
    return occ_cli_usage_error(err, "--max-block: '%" PRId64 "' is out of range "
                               "(accepted: 1 to %d on %s)", cli->max_block, max, a->name);
  bool block = occ_cli_given(cli, OCC_OPT_BLOCK);
  memcpy(it->block, cli->block.dim, sizeof it->block);
  int64_t threads = cli->block.product;
  int max_block = cli->max_block ? (int)cli->max_block : max;
  if (!block) {
    it->block[0] = max_block;
    threads = max_block;
  }
  if (threads > max_block)
    return occ_cli_usage_error(err, "--block: '%s' is %" PRId64 " threads (accepted: 1 "
                               "to %d threads per workgroup%s)", cli->block.text, threads,
                               max_block, cli->max_block ? ", the --max-block" : "");
  it->kernel.wave_size = (int)cli->wave;
  it->kernel.cu_mode = cli->cu_mode;
  it->kernel.threads_per_block = (int)threads;
  it->kernel.max_threads_per_block = max_block;
  it->kernel.lds_dynamic_bytes = cli->dyn_smem;
  return OCC_EXIT_OK;
}

/* The typed registers and LDS, with the accepted ranges in the message. */
static int typed_resources(const occ_cli *cli, const occ_amd_arch *a, occ_amd_item *it,
                           FILE *err) {
  if (!occ_cli_given(cli, OCC_OPT_VGPRS))
    return occ_cli_usage_error(err, "--vgprs is required for an AMD target (VGPRs per "
                               "lane, 0 to %d on %s)", a->addressable_vgprs, a->name);
  if (cli->vgprs > a->addressable_vgprs)
    return occ_cli_usage_error(err, "--vgprs: '%" PRId64 "' is out of range (accepted: "
                               "0 to %d on %s)", cli->vgprs, a->addressable_vgprs, a->name);
  if (cli->agprs > a->addressable_agprs)
    return occ_cli_usage_error(err, "--agprs: '%" PRId64 "' is out of range (accepted: "
                               "0 to %d on %s%s)", cli->agprs, a->addressable_agprs,
                               a->name, a->addressable_agprs ? "" : ", which has no AGPRs");
  if (cli->sgprs > occ_amd_max_sgprs(a))
    return occ_cli_usage_error(err, "--sgprs: '%" PRId64 "' is out of range (accepted: "
                               "0 to %d on %s)", cli->sgprs, occ_amd_max_sgprs(a), a->name);
  if (cli->smem + cli->dyn_smem > a->lds_per_block_bytes)
    return occ_cli_usage_error(err, "--lds: %" PRId64 " bytes of LDS per workgroup "
                               "(static + dynamic) is too much (accepted: 0 to %d on %s)",
                               cli->smem + cli->dyn_smem, a->lds_per_block_bytes, a->name);
  it->kernel.vgprs = (int)cli->vgprs;
  it->kernel.agprs = (int)cli->agprs;
  it->kernel.sgprs = (int)cli->sgprs;
  it->kernel.lds_bytes = cli->smem;
  return OCC_EXIT_OK;
}

static void item_from_target(const occ_amd_target *t, occ_amd_item *it) {
  memset(it, 0, sizeof *it);
  it->arch = t->gpu.arch;
  it->board = t->board ? t->gpu.name : NULL;
  it->cu_count = t->board ? t->gpu.cu_count : -1;
}

/* --csv writes the report's row, not charts: check_refinements asked for
 * every chart, which only an NVIDIA target draws. */
static bool charts_asked(const occ_cli *cli) {
  return occ_cli_given(cli, OCC_OPT_CHART);
}

int occ_amd_calculate(const occ_cli *cli, const occ_amd_target *t, FILE *out, FILE *err) {
  const occ_amd_arch *a = &t->gpu.arch;
  int rc = refuse_nvidia_options(cli, a->name, err);
  if (rc != OCC_EXIT_OK || charts_asked(cli)) return rc;
  occ_amd_item it;
  item_from_target(t, &it);
  if ((rc = typed_resources(cli, a, &it, err)) != OCC_EXIT_OK ||
      (rc = launch_shape(cli, a, &it, err)) != OCC_EXIT_OK)
    return rc;
  occ_pipeline p;
  if ((rc = occ_pipeline_init(&p, cli, false, out, err)) != OCC_EXIT_OK) return rc;
  occ_item item = {.amd = &it};
  occ_model_section failed;
  occ_status status = occ_pipeline_build(&p, &item, &failed);
  if (status != OCC_OK) return occ_pipeline_build_error(&p, &item, status, failed);
  rc = occ_pipeline_write(&p, &item);
  free(item.sections);
  int gate = occ_pipeline_finish(&p);
  return rc != OCC_EXIT_OK ? rc : gate;
}

/* --ptxas: choosing the reader ------------------------------------------ */

/* A stream that gives the peeked bytes again, then the rest of the file:
 * the input may be a pipe, which cannot be rewound. */
typedef struct replay {
  FILE *in;
  char *head;
  size_t len, at;
} replay;

static ssize_t replay_read(void *cookie, char *buf, size_t size) {
  replay *r = cookie;
  if (r->at < r->len) {
    size_t n = r->len - r->at < size ? r->len - r->at : size;
    memcpy(buf, r->head + r->at, n);
    r->at += n;
    return (ssize_t)n;
  }
  size_t n = fread(buf, 1, size, r->in);
  return n == 0 && ferror(r->in) ? -1 : (ssize_t)n;
}

static int replay_close(void *cookie) {
  replay *r = cookie;
  free(r->head);
  free(r);
  return 0;
}

/* Enough of a log to hold its first remark after the command line and
 * clang's warnings. */
#define PEEK_BYTES 65536

static FILE *peek(FILE *in, bool *remarks) {
  replay *r = calloc(1, sizeof *r);
  char *head = malloc(PEEK_BYTES);
  if (!r || !head) {
    free(r);
    free(head);
    return NULL;
  }
  *r = (replay){.in = in, .head = head, .len = fread(head, 1, PEEK_BYTES, in)};
  *remarks = occ_amdgpu_is_remark_log(head, r->len);
  cookie_io_functions_t io = {.read = replay_read, .close = replay_close};
  FILE *f = fopencookie(r, "r", io);
  if (!f) replay_close(r);
  return f;
}

typedef struct remark_run {
  const occ_cli *cli;
  const occ_gpudb *db;
  const occ_amd_target *target;
  FILE *err;
  occ_pipeline pipeline;
  long kernels, selected, differ, unknown_arch, no_arch, rejected;
  long other_target; /* kernels the log compiled for another target than
                        --arch / --gpu names: computed for the log's */
  char first_differ[128], first_unknown[OCC_AMDGPU_ARCH_MAX];
  int differ_ours, differ_theirs, max_block;
  const char *rejected_why;
  occ_demangler demangler;
  int rc;
} remark_run;

/* The architecture a kernel is computed on: the log's where it names one,
 * else --arch / --gpu's. */
static int kernel_arch(remark_run *r, const occ_amdgpu_kernel *k, occ_amd_item *it) {
  if (k->arch[0]) {
    if (r->target->amd && strcmp(r->target->gpu.arch.name, k->arch) == 0) {
      item_from_target(r->target, it);
      return 0;
    }
    memset(it, 0, sizeof *it);
    it->cu_count = -1;
    if (r->target->amd) r->other_target++;
    char near[128];
    if (occ_gpudb_find_amd_arch(r->db, k->arch, &it->arch, near, sizeof near) == 0) return 0;
    if (!r->unknown_arch++) snprintf(r->first_unknown, sizeof r->first_unknown, "%s", k->arch);
    return -1;
  }
  if (!r->target->amd) {
    r->no_arch++;
    return -1;
  }
  item_from_target(r->target, it);
  return 0;
}

static int on_remark(const occ_amdgpu_kernel *k, void *ctx) {
  remark_run *r = ctx;
  const occ_cli *cli = r->cli;
  r->kernels++;
  if (cli->kernel_name &&
      !occ_kernel_name_matches(cli->kernel_name, k->name, occ_demangle(&r->demangler, k->name)))
    return 0;
  r->selected++;
  occ_amd_item it;
  if (kernel_arch(r, k, &it) != 0) return 0;
  it.mangled_name = k->name;
  it.name = occ_demangle(&r->demangler, k->name);
  occ_cli tmp = *cli;
  if (!tmp.wave) tmp.wave = k->wave_size;
  if (launch_shape(&tmp, &it.arch, &it, r->err) != OCC_EXIT_OK) return r->rc = OCC_EXIT_USAGE;
  it.kernel.vgprs = k->vgprs;
  it.kernel.agprs = k->agprs < 0 ? 0 : k->agprs;
  it.kernel.sgprs = k->sgprs < 0 ? OCC_AMD_SGPRS_UNKNOWN : k->sgprs;
  it.kernel.lds_bytes = k->lds_bytes < 0 ? 0 : k->lds_bytes;
  it.compiler = (occ_amd_compiler){.present = true,
                                   .occupancy_waves_per_simd = k->occupancy_waves_per_simd,
                                   .scratch_bytes_per_lane = k->scratch_bytes_per_lane,
                                   .sgpr_spills = k->sgpr_spills,
                                   .vgpr_spills = k->vgpr_spills,
                                   .dynamic_stack = k->dynamic_stack};
  occ_item item = {.amd = &it, .name = k->name, .readable = it.name};
  occ_model_section failed;
  occ_status status = occ_pipeline_build(&r->pipeline, &item, &failed);
  if (status != OCC_OK && failed != OCC_SECTION_NONE)
    return r->rc = occ_pipeline_build_error(&r->pipeline, &item, status, failed);
  if (status != OCC_OK) {
    r->rejected++;
    r->rejected_why = occ_amd_strerror(it.status);
    return 0;
  }
  if (it.compiler.occupancy_waves_per_simd >= 0 && !it.compiler.agrees && !r->differ++) {
    occ_text_safe(it.name, r->first_differ, sizeof r->first_differ);
    r->differ_ours = it.result.waves_per_simd;
    r->differ_theirs = it.compiler.occupancy_waves_per_simd;
    r->max_block = it.kernel.max_threads_per_block;
  }
  r->rc = occ_pipeline_write(&r->pipeline, &item);
  free(item.sections);
  return r->rc;
}

static int remark_conclude(remark_run *r, const occ_amdgpu_stats *s) {
  const char *input = strcmp(r->cli->ptxas_path, "-") == 0 ? "standard input" : r->cli->ptxas_path;
  occ_pipeline_end(&r->pipeline);
  long written = r->pipeline.render.written;
  if (s->kernels == 0) {
    occ_msg(r->err, "%s: no kernel found (expected clang's or hipcc's "
            "-Rpass-analysis=kernel-resource-usage remarks)", input);
    return OCC_EXIT_USAGE;
  }
  if (r->selected == 0)
    return occ_cli_usage_error(r->err, "--kernel: no kernel matches '%s' (%ld read)",
                               r->cli->kernel_name, s->kernels);
  if (written == 0) {
    if (r->no_arch)
      return occ_cli_usage_error(r->err, "%s: the log names no target; give --arch "
                                 "gfxNNN or an AMD --gpu", input);
    occ_msg(r->err, "%s: no kernel could be computed (%s%s)", input,
            r->unknown_arch ? "targets not in the database, e.g. " : "",
            r->unknown_arch ? r->first_unknown : r->rejected_why);
    return OCC_EXIT_USAGE;
  }
  if (r->no_arch + r->unknown_arch + r->rejected)
    occ_msg(r->err, "note: %ld kernel%s not computed (no target, an unknown one, or "
            "out of range)", r->no_arch + r->unknown_arch + r->rejected,
            r->no_arch + r->unknown_arch + r->rejected == 1 ? "" : "s");
  if (r->other_target)
    occ_msg(r->err, "note: %ld kernel%s computed for the target the log names, not %s's "
            "%s", r->other_target, r->other_target == 1 ? "" : "s",
            r->cli->gpu ? "--gpu" : "--arch", r->target->gpu.arch.name);
  int gate = occ_pipeline_gate(&r->pipeline);
  if (r->differ) {
    occ_msg(r->err, "%ld kernel%s: occcalc's waves per SIMD differ from the compiler's "
            "Occupancy (first: %s: %d, the compiler %d; the log does not carry a kernel's "
            "largest workgroup: occcalc assumed %d, --max-block sets it, OpenCL's default "
            "is 256, HIP's 1024)", r->differ, r->differ == 1 ? "" : "s", r->first_differ,
            r->differ_ours, r->differ_theirs, r->max_block);
    return OCC_EXIT_DISAGREE;
  }
  return gate;
}

static int remarks_run(const occ_cli *cli, const occ_gpudb *db, const occ_amd_target *t,
                       FILE *in, FILE *out, FILE *err) {
  if (t->amd) {
    int rc = refuse_nvidia_options(cli, t->gpu.arch.name, err);
    if (rc != OCC_EXIT_OK) return rc;
  } else if (cli->gpu || cli->arch) {
    return occ_cli_usage_error(err, "%s: the log holds AMD's compiler remarks; give "
                               "--arch gfxNNN, an AMD --gpu, or neither",
                               cli->gpu ? "--gpu" : "--arch/--cc");
  } else if (refuse_nvidia_options(cli, "a remark log", err) != OCC_EXIT_OK) {
    return OCC_EXIT_USAGE;
  }
  remark_run r = {.cli = cli, .db = db, .target = t, .err = err};
  int rc = occ_pipeline_init(&r.pipeline, cli, true, out, err);
  if (rc != OCC_EXIT_OK) return rc;
  occ_amdgpu_parser *parser = occ_amdgpu_new(on_remark, &r);
  if (!parser) {
    occ_msg(err, "out of memory");
    return OCC_EXIT_FAILURE;
  }
  errno = 0;
  rc = occ_amdgpu_read_file(parser, in);
  if (rc == -1) {
    int e = errno ? errno : EIO;
    occ_msg(err, "%s: %s", cli->ptxas_path, occ_input_strerror(e));
    rc = occ_exit_of_input_error(e);
  } else {
    rc = r.rc ? r.rc : remark_conclude(&r, occ_amdgpu_get_stats(parser));
  }
  occ_amdgpu_free(parser);
  occ_demangler_free(&r.demangler);
  return rc;
}

int occ_compiler_report_run(const occ_cli *cli, const occ_gpudb *db, FILE *out,
                            FILE *err) {
  occ_amd_target t;
  int rc = occ_amd_select(db, cli, &t, err);
  if (rc != OCC_EXIT_OK) return rc;
  bool is_stdin = strcmp(cli->ptxas_path, "-") == 0;
  FILE *in = is_stdin ? stdin : fopen(cli->ptxas_path, "rb");
  if (!in) {
    int e = errno;
    occ_msg(err, "%s: %s", cli->ptxas_path, occ_input_strerror(e));
    return occ_exit_of_input_error(e);
  }
  bool remarks = false;
  FILE *stream = peek(in, &remarks);
  if (!stream) {
    occ_msg(err, "out of memory");
    rc = OCC_EXIT_FAILURE;
  } else if (remarks || t.amd) {
    rc = remarks_run(cli, db, &t, stream, out, err);
  } else if ((rc = occ_cli_refuse_vendor(cli, OCC_VENDOR_NVIDIA, "a ptxas log",
                                        err)) == OCC_EXIT_OK) {
    rc = occ_ptxas_run_stream(cli, db, stream, out, err);
  }
  if (stream) fclose(stream);
  if (!is_stdin) fclose(in);
  return rc;
}
