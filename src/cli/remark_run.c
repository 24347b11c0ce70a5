/* remark_run.c - occcalc --ptxas on AMD's compiler remarks (see
 * remark_run.h): each kernel the reader hands over becomes a model item
 * (model/amd_item.h) on the log's target or --arch / --gpu's, and goes
 * through the one pipeline (pipeline.h) as it is read. */
#include "cli/remark_run.h"

#include <stdlib.h>
#include <string.h>

#include "cli/kernel_name.h"
#include "cli/pipeline.h"
#include "ptxas/amdgpu_remarks.h"
#include "ptxas/demangle.h"
#include "text/text_safe.h"

/* Targets in one log are few (one per --offload-arch). */
#define ARCH_CACHE_SIZE 16

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
  occ_amdgpu_parser *parser;
  /* The architectures the log names, each looked up once. */
  struct {
    char name[OCC_AMDGPU_ARCH_MAX];
    bool known;
    occ_amd_arch arch;
  } archs[ARCH_CACHE_SIZE];
  int arch_count;
} remark_run;

/* An architecture the log names, from the database once per name (past
 * ARCH_CACHE_SIZE names, each time). */
static bool log_arch(remark_run *r, const char *name, occ_amd_arch *arch) {
  for (int i = 0; i < r->arch_count; i++)
    if (strcmp(r->archs[i].name, name) == 0) {
      *arch = r->archs[i].arch;
      return r->archs[i].known;
    }
  char near[128];
  bool known = occ_gpudb_find_amd_arch(r->db, name, arch, near, sizeof near) == 0;
  if (r->arch_count < ARCH_CACHE_SIZE) {
    snprintf(r->archs[r->arch_count].name, OCC_AMDGPU_ARCH_MAX, "%s", name);
    r->archs[r->arch_count].known = known;
    if (known) r->archs[r->arch_count].arch = *arch;
    r->arch_count++;
  }
  return known;
}

/* The architecture a kernel is computed on: the log's where it names one,
 * else --arch / --gpu's. */
static int kernel_arch(remark_run *r, const occ_amdgpu_kernel *k, occ_amd_item *it) {
  if (k->arch[0]) {
    if (r->target->amd && strcmp(r->target->gpu.arch.name, k->arch) == 0) {
      occ_amd_item_of_target(r->target, it);
      return 0;
    }
    memset(it, 0, sizeof *it);
    it->cu_count = -1;
    if (r->target->amd) r->other_target++;
    if (log_arch(r, k->arch, &it->arch)) return 0;
    if (!r->unknown_arch++) snprintf(r->first_unknown, sizeof r->first_unknown, "%s", k->arch);
    return -1;
  }
  if (!r->target->amd) {
    r->no_arch++;
    return -1;
  }
  occ_amd_item_of_target(r->target, it);
  return 0;
}

static int on_remark(remark_run *r, const occ_amdgpu_kernel *k) {
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
  if (occ_amd_launch_shape(&tmp, &it.arch, &it, r->err) != OCC_EXIT_OK) return r->rc = OCC_EXIT_USAGE;
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

/* The kernel the reader completed, through the pipeline. */
static int take_kernels(remark_run *r) {
  const occ_amdgpu_kernel *k;
  while ((k = occ_amdgpu_next(r->parser)))
    if ((r->rc = on_remark(r, k)) != 0) return r->rc;
  return 0;
}

int occ_remark_run_end(remark_run *r, const char *input) {
  if (r->rc) return r->rc;
  occ_amdgpu_finish(r->parser);
  if ((r->rc = take_kernels(r)) != 0) return r->rc;
  const occ_amdgpu_stats *s = occ_amdgpu_get_stats(r->parser);
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

remark_run *occ_remark_run_new(const occ_cli *cli, const occ_gpudb *db,
                               const occ_amd_target *target, FILE *out, FILE *err,
                               int *rc) {
  remark_run *r = calloc(1, sizeof *r);
  if (!r) {
    occ_msg(err, "out of memory");
    *rc = OCC_EXIT_FAILURE;
    return NULL;
  }
  r->cli = cli;
  r->db = db;
  r->target = target;
  r->err = err;
  *rc = occ_pipeline_init(&r->pipeline, cli, true, out, err);
  if (*rc == OCC_EXIT_OK && !(r->parser = occ_amdgpu_new(NULL, NULL))) {
    occ_msg(err, "out of memory");
    *rc = OCC_EXIT_FAILURE;
  }
  if (*rc != OCC_EXIT_OK) {
    occ_remark_run_free(r);
    return NULL;
  }
  return r;
}

int occ_remark_run_line(remark_run *r, const char *s, size_t len) {
  occ_amdgpu_line(r->parser, s, len);
  return take_kernels(r);
}

void occ_remark_run_free(remark_run *r) {
  if (!r) return;
  occ_amdgpu_free(r->parser);
  occ_demangler_free(&r->demangler);
  free(r);
}
