/* explain.c - the derivation step by step, as a lab worksheet would show
 * it, with this case's numbers. Every number printed is one the core
 * computed (occ_result) or an input; nothing is recomputed here except the
 * arithmetic shown to the reader, which restates the core's steps. */
#include <inttypes.h>

#include "out/report.h"
#include "out/report_text.h"
#include "out/vocab.h"

static const char *warps_word(int n) { return n == 1 ? "warp" : "warps"; }

static void step_warps(FILE *out, const occ_device *d, const occ_result *r) {
  fprintf(out, "1. Warps per block\n");
  fprintf(out, "   %d threads / %d threads per warp, rounded up = %d %s\n",
          r->threads_per_block, d->warp_size, r->warps_per_block,
          warps_word(r->warps_per_block));
  fprintf(out, "   %d x %d - %d = %d inactive threads in the last warp\n",
          r->warps_per_block, d->warp_size, r->threads_per_block, r->inactive_threads);
  fprintf(out, "\n2. Warp limit\n");
  if (r->threads_per_block > d->max_threads_per_block) {
    fprintf(out, "   %d threads exceed the %d a block may have: 0 blocks\n",
            r->threads_per_block, d->max_threads_per_block);
    return;
  }
  fprintf(out, "   %d threads per SM / %d = %d warps per SM\n", d->max_threads_per_sm,
          d->warp_size, r->max_warps_per_sm);
  fprintf(out, "   %d / %d %s per block = %d blocks\n", r->max_warps_per_sm,
          r->warps_per_block, warps_word(r->warps_per_block), r->limit_warps);
}

static void step_blocks(FILE *out, const occ_result *r) {
  fprintf(out, "\n3. Block limit\n");
  fprintf(out, "   an SM of this architecture holds at most %d blocks\n", r->limit_blocks);
}

static void step_registers(FILE *out, const occ_device *d, const occ_kernel *k,
                           const occ_result *r) {
  fprintf(out, "\n4. Registers\n");
  if (k->regs_per_thread > d->max_regs_per_thread) {
    fprintf(out, "   %d registers per thread exceed the maximum %d: 0 blocks\n",
            k->regs_per_thread, d->max_regs_per_thread);
    return;
  }
  fprintf(out, "   %d x %d = %d registers per warp", k->regs_per_thread, d->warp_size,
          r->regs_per_warp_raw);
  if (r->regs_per_warp != r->regs_per_warp_raw)
    fprintf(out, ", rounded up to a multiple of %d = %d", d->reg_alloc_unit, r->regs_per_warp);
  else
    fprintf(out, " (a multiple of the %d-register unit)", d->reg_alloc_unit);
  fprintf(out, "\n   per block: %d x %d %s = %d registers; a block may have %d\n",
          r->regs_per_warp, r->warps_per_block, warps_word(r->warps_per_block),
          r->regs_per_block, d->regs_per_block);
  if (r->regs_per_block_checked != r->regs_per_block)
    fprintf(out, "   (checked as %d: the hardware rounds warps up to a multiple of %d)\n",
            r->regs_per_block_checked, d->reg_block_warp_multiple);
  if (r->limit_regs == 0) {
    fprintf(out, "   the block needs more than that: 0 blocks\n");
    return;
  }
  if (r->limit_regs == OCC_UNLIMITED) {
    fprintf(out, "   no registers used: no limit\n");
    return;
  }
  fprintf(out, "   %d registers per SM / %d sub-partitions = %d per sub-partition\n",
          d->regs_per_sm, d->sub_partitions, r->regs_per_sub_partition);
  fprintf(out, "   %d / %d = %d warps each, %d x %d = %d warps per SM\n",
          r->regs_per_sub_partition, r->regs_per_warp, r->warps_per_sub_partition,
          r->warps_per_sub_partition, d->sub_partitions, r->warps_per_sm_by_regs);
  fprintf(out, "   %d / %d %s per block = %d blocks\n", r->warps_per_sm_by_regs,
          r->warps_per_block, warps_word(r->warps_per_block), r->limit_regs);
}

static void step_smem_config(FILE *out, const occ_device *d, const occ_kernel *k,
                             const occ_result *r) {
  if (d->smem_config_count == 0) {
    fprintf(out, "   the SM has %" PRId64 " bytes of shared memory%s\n", d->smem_per_sm_bytes,
            r->carveout_ignored ? " (no carveout before cc 7.0: preference ignored)" : "");
    return;
  }
  if (k->carveout_pct == OCC_CARVEOUT_DEFAULT)
    fprintf(out, "   no carveout preference: the SM's %" PRId64 " bytes", d->smem_per_sm_bytes);
  else
    fprintf(out, "   carveout %d %% of %" PRId64 " bytes", k->carveout_pct, d->smem_per_sm_bytes);
  fprintf(out, ",\n   as a configuration the SM supports = %" PRId64 " bytes\n",
          r->smem_preference_bytes);
  if (r->smem_config_bytes != r->smem_preference_bytes)
    fprintf(out, "   one block needs more: the smallest configuration that holds it is %"
            PRId64 " bytes\n", r->smem_config_bytes);
}

/* Where the SM holds more at launch than the rule above (see occ.h). */
static void step_smem_launch(FILE *out, const occ_device *d, const occ_kernel *k,
                             const occ_result *r) {
  if (r->launch_limit_smem == r->limit_smem) return;
  int64_t preference, own;
  occ_launch_smem_terms(d, k, &preference, &own);
  fprintf(out, "   at launch the driver counts only the blocks' own shared memory\n"
          "   against the carveout (measured on H100 and H200; the API does not):\n");
  if (own == 0) {
    fprintf(out, "   the kernel has none: shared memory does not limit it at launch\n");
    return;
  }
  fprintf(out, "   %" PRId64 " / %" PRId64 " = %" PRId64 " blocks, x %" PRId64
          " = %" PRId64 " bytes,\n   so it configures %" PRId64 " bytes\n",
          preference, own, preference / own, r->smem_per_block_bytes,
          preference / own * r->smem_per_block_bytes, r->launch_smem_config_bytes);
  fprintf(out, "   %" PRId64 " / %" PRId64 " = %d blocks at launch\n",
          r->launch_smem_config_bytes, r->smem_per_block_bytes, r->launch_limit_smem);
}

static void step_smem(FILE *out, const occ_device *d, const occ_kernel *k,
                      const occ_result *r) {
  fprintf(out, "\n5. Shared memory\n");
  fprintf(out, "   %" PRId64 " static + %" PRId64 " dynamic + %" PRId64
          " reserved = %" PRId64 " bytes",
          k->smem_static_bytes, k->smem_dynamic_bytes, d->reserved_smem_per_block_bytes,
          r->smem_requested_bytes);
  if (r->smem_per_block_bytes != r->smem_requested_bytes)
    fprintf(out, ",\n   rounded up to a multiple of %d = %" PRId64, d->smem_alloc_unit_bytes,
            r->smem_per_block_bytes);
  fprintf(out, "\n   a block may have %" PRId64 " bytes%s\n", r->smem_block_cap_bytes,
          r->smem_optin ? " (opted in above the default limit)" : "");
  if (r->limit_smem == 0) {
    fprintf(out, "   the block needs more than that: 0 blocks\n");
    return;
  }
  step_smem_config(out, d, k, r);
  if (r->limit_smem == OCC_UNLIMITED)
    fprintf(out, "   no shared memory used: no limit\n");
  else
    fprintf(out, "   %" PRId64 " / %" PRId64 " = %d blocks\n", r->smem_config_bytes,
            r->smem_per_block_bytes, r->limit_smem);
  step_smem_launch(out, d, k, r);
}

static void step_barriers(FILE *out, const occ_device *d, const occ_kernel *k,
                          const occ_result *r) {
  fprintf(out, "\n6. Barriers\n");
  if (d->barrier_factor == 0) {
    fprintf(out, "   no barrier limit on this architecture\n");
    return;
  }
  fprintf(out, "   %d blocks x %d = %d barriers per SM", r->limit_blocks, d->barrier_factor,
          r->barriers_per_sm);
  if (k->barriers == 0)
    fprintf(out, "; the kernel uses none: no limit\n");
  else
    fprintf(out, "; / %d per block = %d blocks\n", k->barriers, r->limit_barriers);
}

static void step_result(FILE *out, const occ_report *rep) {
  const occ_result *r = rep->result;
  char limiters[96];
  occ_limiters_words(r->limited_by, limiters, sizeof limiters);
  fprintf(out, "\n7. Active blocks\n   the smallest of");
  for (int i = 0, first = 1; i < OCC_LIMITER_COUNT; i++) {
    int v = occ_result_limit(r, i);
    if (v == OCC_UNLIMITED) continue;
    /* Three limits to a line keeps the worksheet inside 80 columns. */
    fprintf(out, "%s%s %d (%s)", first ? "" : ",",
            i == OCC_LIMIT_INDEX_SHARED_MEMORY ? "\n  " : "", v,
            occ_limiter_label(i));
    first = 0;
  }
  fprintf(out, "\n   = %d blocks per SM, limited by %s\n", r->active_blocks_per_sm, limiters);
  fprintf(out, "   %d blocks x %d %s = %d active warps\n", r->active_blocks_per_sm,
          r->warps_per_block, warps_word(r->warps_per_block), r->active_warps_per_sm);
  char pct[32];
  occ_pct_text(r->occupancy, pct, sizeof pct);
  fprintf(out, "\n8. Occupancy\n   %d / %d warps = %s %%\n", r->active_warps_per_sm,
          r->max_warps_per_sm, pct);
  if (r->launch_active_blocks_per_sm != r->active_blocks_per_sm) {
    int warps = r->launch_active_blocks_per_sm * r->warps_per_block;
    occ_pct_text(occ_launch_occupancy(r), pct, sizeof pct);
    fprintf(out, "   at launch: %d blocks x %d %s = %d warps, %d / %d = %s %%\n",
            r->launch_active_blocks_per_sm, r->warps_per_block,
            warps_word(r->warps_per_block), warps, warps, r->max_warps_per_sm, pct);
  }
  if (!r->launchable) {
    char reason[160];
    occ_reason_detail(rep->device, rep->kernel, r, reason, sizeof reason);
    fprintf(out, "   cannot launch: %s\n", reason);
  }
  if (rep->waves && rep->waves->blocks_per_wave > 0)
    fprintf(out, "\n9. Waves\n   %d blocks x %d SMs = %" PRId64 " blocks per wave; %" PRId64
            " / %" PRId64 " = %.2f waves\n", r->active_blocks_per_sm, rep->device->sm_count,
            rep->waves->blocks_per_wave, rep->waves->grid_blocks,
            rep->waves->blocks_per_wave, rep->waves->waves);
}

void occ_print_explain(FILE *out, const occ_report *rep) {
  char cc[16];
  occ_cc_text(rep->device, cc, sizeof cc);
  fprintf(out, "Occupancy of a %d-thread block on %s (cc %s)\n\n",
          rep->result->threads_per_block, rep->device->name, cc);
  step_warps(out, rep->device, rep->result);
  step_blocks(out, rep->result);
  step_registers(out, rep->device, rep->kernel, rep->result);
  step_smem(out, rep->device, rep->kernel, rep->result);
  step_barriers(out, rep->device, rep->kernel, rep->result);
  step_result(out, rep);
}
