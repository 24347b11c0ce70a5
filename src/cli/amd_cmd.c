/* amd_cmd.c - AMD targets on the command line (see amd_cmd.h): the
 * options checked against the target, and the calculator's one model
 * item (model/amd_item.h) through the pipeline (pipeline.h). */
#include "cli/amd_cmd.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/devselect.h"
#include "cli/kernel_name.h"
#include "cli/pipeline.h"
#include "model/amd_item.h"
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

/* The wave size and the workgroup sizes the options give, checked against
 * the architecture. */
int occ_amd_launch_shape(const occ_cli *cli, const occ_amd_arch *a, occ_amd_item *it,
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
  if (occ_cli_block_best(cli))
    return occ_cli_usage_error(err, "--block best: %s is AMD's (best is CUDA's "
                               "cudaOccupancyMaxPotentialBlockSize; accepted: a "
                               "workgroup size N, XxY or XxYxZ)", a->name);
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

void occ_amd_item_of_target(const occ_amd_target *t, occ_amd_item *it) {
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
  int rc = occ_cli_refuse_vendor(cli, OCC_VENDOR_AMD, a->name, err);
  if (rc != OCC_EXIT_OK || charts_asked(cli)) return rc;
  occ_amd_item it;
  occ_amd_item_of_target(t, &it);
  if ((rc = typed_resources(cli, a, &it, err)) != OCC_EXIT_OK ||
      (rc = occ_amd_launch_shape(cli, a, &it, err)) != OCC_EXIT_OK)
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
