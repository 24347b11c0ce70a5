/* amd_explain.c - an AMD result's derivation as steps (see amd_explain.h).
 * Which steps appear follows what amd.c did (the same conditions). */
#include "core/amd_explain.h"

typedef struct builder {
  const occ_amd_arch *a;
  const occ_amd_kernel *k;
  const occ_amd_result *r;
  occ_step_list list;
} builder;

static occ_step *step(builder *b, const char *key, const char *title, occ_explain_op op,
                      const char *text, const char *joiner) {
  return occ_step_add(&b->list, key, title, op, text, joiner);
}

static bool wgp(const builder *b) { return b->a->wgp_mode && !b->k->cu_mode; }

static int round_up(int v, int unit) { return unit > 0 ? (v + unit - 1) / unit * unit : v; }

static void wavefronts(builder *b) {
  const occ_amd_result *r = b->r;
  int threads = b->k->threads_per_block;
  b->list.section = 1;
  occ_step *s = step(b, "waves_per_block", "wavefronts per workgroup", OCC_OP_CEIL_DIV,
                     "{0} {0:thread} / {1} lanes per wavefront, rounded up = {r} "
                     "{r:wavefront}", NULL);
  occ_step_operand(s, "threads_per_block", threads, "threads");
  occ_step_operand(s, "kernel.wave_size", r->wave_size, "threads");
  occ_step_result(s, "waves_per_block", r->waves_per_block, "wavefronts");
  s = step(b, "inactive_threads", "inactive lanes", OCC_OP_MUL_SUB,
           "{0} x {1} - {2} = {r} inactive {r:lane} in the last wavefront", NULL);
  occ_step_operand(s, "waves_per_block", r->waves_per_block, "wavefronts");
  occ_step_operand(s, "kernel.wave_size", r->wave_size, "threads");
  occ_step_operand(s, "threads_per_block", threads, "threads");
  occ_step_result(s, "inactive_threads", r->inactive_lanes, "threads");
  step(b, "wavefront", "a wavefront", OCC_OP_NOTE,
       r->wave_size == 64 ? "(a wavefront is AMD's warp: 64 lanes, twice a CUDA warp's 32)"
                          : "(a wavefront is AMD's warp: 32 lanes, as a CUDA warp)",
       NULL);
  b->list.section = 2;
  s = step(b, "max_waves_per_simd", "wave slots", OCC_OP_VALUE,
           "a SIMD holds at most {r} {r:wavefront}", NULL);
  occ_step_operand(s, "device.max_waves_per_simd", r->max_waves_per_simd, "wavefronts");
  occ_step_result(s, "max_waves_per_simd", r->max_waves_per_simd, "wavefronts");
  s = step(b, "simds", "SIMDs", OCC_OP_VALUE,
           wgp(b) ? "a workgroup's wavefronts spread over {r} SIMDs (4 in the WGP's\n"
                    "2 CUs, WGP mode)"
           : b->a->wgp_mode ? "a workgroup's wavefronts spread over {r} SIMDs (the CU's 2,\n"
                              "CU mode)"
                            : "a workgroup's wavefronts spread over {r} SIMDs (the CU's 4)",
           NULL);
  occ_step_operand(s, "device.simds_per_cu", b->a->simds_per_cu, "simds");
  occ_step_result(s, "simds", r->simds, "simds");
}

static void vgprs(builder *b) {
  const occ_amd_arch *a = b->a;
  const occ_amd_kernel *k = b->k;
  const occ_amd_result *r = b->r;
  b->list.section = 3;
  occ_step *s;
  if (a->unified_vgpr_file && k->agprs) {
    s = step(b, "vgprs_total", "VGPRs and AGPRs", OCC_OP_SUM,
             "{0} VGPRs, aligned up to {2}, + {1} AGPRs = {r} per lane (one file)", NULL);
    occ_step_operand(s, "kernel.vgprs_per_thread", k->vgprs, "registers");
    occ_step_operand(s, "kernel.agprs_per_thread", k->agprs, "registers");
    occ_step_operand(s, "device.unified_agpr_align", a->unified_agpr_align, "registers");
  } else if (a->unified_vgpr_file) {
    s = step(b, "vgprs_total", "VGPRs and AGPRs", OCC_OP_SUM,
             "{0} VGPRs + {1} AGPRs = {r} per lane (one file for both)", NULL);
    occ_step_operand(s, "kernel.vgprs_per_thread", k->vgprs, "registers");
    occ_step_operand(s, "kernel.agprs_per_thread", k->agprs, "registers");
  } else if (a->addressable_agprs > 0) {
    s = step(b, "vgprs_total", "VGPRs and AGPRs", OCC_OP_MIN,
             "{0} VGPRs and {1} AGPRs, each in its own file", NULL);
    occ_step_operand(s, "kernel.vgprs_per_thread", k->vgprs, "registers");
    occ_step_operand(s, "kernel.agprs_per_thread", k->agprs, "registers");
  } else {
    s = step(b, "vgprs_total", "VGPRs", OCC_OP_VALUE, "{0} VGPRs per lane", NULL);
    occ_step_operand(s, "kernel.vgprs_per_thread", k->vgprs, "registers");
  }
  occ_step_result(s, "allocated.vgprs_total", r->vgprs_total, "registers");
  s = step(b, "vgprs_allocated", "VGPRs allocated", OCC_OP_ROUND_UP,
           "allocated in granules of {1}: {0} rounded up = {r} per lane", NULL);
  occ_step_operand(s, "allocated.vgprs_total", r->vgprs_total > 0 ? r->vgprs_total : 1,
                   "registers");
  occ_step_operand(s, "allocated.vgpr_granule", r->vgpr_granule, "registers");
  occ_step_result(s, "allocated.vgprs_allocated", r->vgprs_allocated, "registers");
  /* What the VGPR limit divides by: the whole file's count on a unified
   * file, the VGPRs alone beside gfx908's own AGPR file; one at least
   * (amd.c, llvm_vgprs). */
  int counted = a->unified_vgpr_file ? (r->vgprs_total > 0 ? r->vgprs_total : 1)
                                     : (k->vgprs > 0 ? k->vgprs : 1);
  int divisor = round_up(counted, r->vgpr_granule);
  if (counted < r->vgpr_granule) {
    s = step(b, "waves_by_vgprs", "waves by VGPRs", OCC_OP_NO_LIMIT,
             "below one granule VGPRs limit nothing: {r} {r:wavefront}", NULL);
    occ_step_operand(s, "allocated.vgprs_total", counted, "registers");
  } else {
    s = step(b, "waves_by_vgprs", "waves by VGPRs", OCC_OP_FLOOR_DIV,
             r->vgprs_per_simd / divisor > r->waves_by_vgprs
                 ? "a SIMD has {0} VGPRs per lane (wave {2}): {0} / {1} = {r} "
                   "{r:wavefront},\nat most the slots"
                 : "a SIMD has {0} VGPRs per lane (wave {2}): {0} / {1} = {r} "
                   "{r:wavefront}",
             NULL);
    occ_step_operand(s, "device.vgprs_per_simd", r->vgprs_per_simd, "registers");
    occ_step_operand(s, "vgprs_counted", divisor, "registers");
    occ_step_operand(s, "kernel.wave_size", r->wave_size, "threads");
  }
  occ_step_result(s, "compiler_rule.limits.vgprs", r->waves_by_vgprs, "wavefronts");
  if (r->waves_by_agprs >= 0) {
    s = step(b, "waves_by_agprs", "waves by AGPRs", OCC_OP_FLOOR_DIV,
             "AGPRs, their own file: {r} {r:wavefront} per SIMD", NULL);
    occ_step_operand(s, "device.vgprs_per_simd", r->vgprs_per_simd, "registers");
    occ_step_operand(s, "kernel.agprs_per_thread", k->agprs, "registers");
    occ_step_result(s, "compiler_rule.limits.agprs", r->waves_by_agprs, "wavefronts");
  }
}

static void sgprs(builder *b) {
  const occ_amd_arch *a = b->a;
  const occ_amd_result *r = b->r;
  int sgprs = b->k->sgprs;
  b->list.section = 4;
  if (a->sgpr_limit_count == 0) {
    occ_step *s = step(b, "waves_by_sgprs", "waves by SGPRs", OCC_OP_NOTE,
                       "on this architecture SGPRs limit nothing", NULL);
    (void)s;
    return;
  }
  if (sgprs == OCC_AMD_SGPRS_UNKNOWN) {
    step(b, "waves_by_sgprs", "waves by SGPRs", OCC_OP_NOTE,
         "not given (--sgprs): no SGPR limit applied", NULL);
    return;
  }
  int i = 0;
  while (i < a->sgpr_limit_count - 1 && sgprs > a->sgpr_waves_at[i]) i++;
  occ_step *s = step(b, "waves_by_sgprs", "waves by SGPRs", OCC_OP_VALUE,
                     "{0} SGPRs per wavefront; up to {1} allow {2} wavefronts per SIMD\n"
                     "= {r} {r:wavefront} per SIMD", NULL);
  occ_step_operand(s, "kernel.sgprs_per_wave", sgprs, "registers");
  occ_step_operand(s, "device.sgpr_waves_at", a->sgpr_waves_at[i], "registers");
  occ_step_operand(s, "device.sgpr_waves", a->sgpr_waves[i], "wavefronts");
  occ_step_result(s, "compiler_rule.limits.sgprs", r->waves_by_sgprs, "wavefronts");
}

static void lds(builder *b) {
  const occ_amd_kernel *k = b->k;
  const occ_amd_result *r = b->r;
  b->list.section = 5;
  if (r->lds_blocks < 0) {
    step(b, "waves_by_lds", "waves by LDS", OCC_OP_NOTE,
         "no static LDS: LDS limits nothing for the compiler", NULL);
    return;
  }
  occ_step *s = step(b, "lds_blocks", "workgroups by LDS", OCC_OP_FLOOR_DIV,
                     wgp(b) ? "{0} bytes per WGP / {1} per workgroup = {r} {r:workgroup}"
                            : "{0} bytes per CU / {1} per workgroup = {r} {r:workgroup}",
                     NULL);
  occ_step_operand(s, "device.lds_per_cu_bytes", r->lds_per_cu_bytes, "bytes");
  occ_step_operand(s, "kernel.lds_per_block_bytes", (double)k->lds_bytes, "bytes");
  occ_step_result(s, "lds_blocks", r->lds_blocks, "blocks");
  s = step(b, "waves_by_lds", "waves by LDS", OCC_OP_CEIL_DIV,
           "{0} x {1} wavefronts (of a {4}-thread workgroup) / {2} SIMDs,\n"
           "rounded up, at most {3} = {r} {r:wavefront} per SIMD", NULL);
  occ_step_operand(s, "lds_blocks", r->lds_blocks, "blocks");
  occ_step_operand(s, "compiler_waves_per_block", r->compiler_waves_per_block, "wavefronts");
  occ_step_operand(s, "simds", r->simds, "simds");
  occ_step_operand(s, "max_waves_per_simd", r->max_waves_per_simd, "wavefronts");
  occ_step_operand(s, "kernel.max_threads_per_block", k->max_threads_per_block, "threads");
  occ_step_result(s, "compiler_rule.limits.lds", r->waves_by_lds, "wavefronts");
}

static void workgroups(builder *b) {
  const occ_amd_kernel *k = b->k;
  const occ_amd_result *r = b->r;
  b->list.section = 6;
  occ_step *s = step(b, "compiler_waves_per_block", "the compiler's workgroup",
                     OCC_OP_CEIL_DIV,
                     "the compiler assumes workgroups of up to {0} threads = {r} "
                     "{r:wavefront}", NULL);
  occ_step_operand(s, "kernel.max_threads_per_block", k->max_threads_per_block, "threads");
  occ_step_operand(s, "kernel.wave_size", r->wave_size, "threads");
  occ_step_result(s, "compiler_waves_per_block", r->compiler_waves_per_block, "wavefronts");
  int barriers = wgp(b) ? b->a->barriers_per_wgp : b->a->barriers_per_cu;
  if (r->compiler_waves_per_block == 1) {
    s = step(b, "workgroup_slots", "workgroup slots", OCC_OP_MUL,
             wgp(b) ? "one wavefront needs no barrier: {0} x {1} slots = {r} "
                      "{r:workgroup} per WGP"
                    : "one wavefront needs no barrier: {0} x {1} slots = {r} "
                      "{r:workgroup} per CU", NULL);
    occ_step_operand(s, "max_waves_per_simd", r->max_waves_per_simd, "wavefronts");
    occ_step_operand(s, "simds", r->simds, "simds");
  } else {
    s = step(b, "workgroup_slots", "workgroup slots", OCC_OP_MIN,
             wgp(b) ? "the smaller of {0} x {1} slots / {2} = {3} and {4} (barriers)\n"
                      "= {r} {r:workgroup} per WGP"
                    : "the smaller of {0} x {1} slots / {2} = {3} and {4} (barriers)\n"
                      "= {r} {r:workgroup} per CU", NULL);
    occ_step_operand(s, "max_waves_per_simd", r->max_waves_per_simd, "wavefronts");
    occ_step_operand(s, "simds", r->simds, "simds");
    occ_step_operand(s, "compiler_waves_per_block", r->compiler_waves_per_block, "wavefronts");
    occ_step_operand(s, "slots_per_block",
                     r->max_waves_per_simd * r->simds / r->compiler_waves_per_block, "blocks");
    occ_step_operand(s, "device.barriers", barriers, "barriers");
  }
  occ_step_result(s, "workgroup_slots", r->workgroup_slots, "blocks");
  s = step(b, "waves_by_workgroups", "waves by workgroup slots", OCC_OP_CEIL_DIV,
           "{0} x {1} / {2} SIMDs, rounded up, at most {3} = {r} {r:wavefront} per SIMD",
           NULL);
  occ_step_operand(s, "workgroup_slots", r->workgroup_slots, "blocks");
  occ_step_operand(s, "compiler_waves_per_block", r->compiler_waves_per_block, "wavefronts");
  occ_step_operand(s, "simds", r->simds, "simds");
  occ_step_operand(s, "max_waves_per_simd", r->max_waves_per_simd, "wavefronts");
  occ_step_result(s, "compiler_rule.limits.workgroups", r->waves_by_workgroups, "wavefronts");
}

static void llvm(builder *b) {
  const occ_amd_result *r = b->r;
  b->list.section = 7;
  occ_step *s = step(b, "compiler_waves_per_simd", "waves per SIMD", OCC_OP_MIN,
                     "the smallest of {list}\n= {r} {r:wavefront} per SIMD, limited by "
                     "{limiters}", NULL);
  const struct {
    const char *name;
    int v;
  } limits[] = {
      {"compiler_rule.limits.wave_slots", r->max_waves_per_simd},
      {"compiler_rule.limits.vgprs", r->waves_by_vgprs},
      {"compiler_rule.limits.agprs", r->waves_by_agprs},
      {"compiler_rule.limits.sgprs", r->waves_by_sgprs},
      {"compiler_rule.limits.lds", r->lds_blocks < 0 ? -1 : r->waves_by_lds},
      {"compiler_rule.limits.workgroups", r->waves_by_workgroups},
  };
  /* Five operands at most: the wave slots bound every other limit, so
   * they are left out where all six apply. */
  int n = 0;
  for (size_t i = 0; i < sizeof limits / sizeof *limits; i++) n += limits[i].v >= 0;
  for (size_t i = n > OCC_EXPLAIN_MAX_OPERANDS; i < sizeof limits / sizeof *limits; i++)
    if (limits[i].v >= 0) occ_step_operand(s, limits[i].name, limits[i].v, "wavefronts");
  occ_step_result(s, "compiler_rule.waves_per_simd", r->waves_per_simd, "wavefronts");
  s = step(b, "compiler_occupancy", "the compiler's occupancy", OCC_OP_DIV,
           "occupancy {0} / {1} = {r}%, for workgroups of up to {2} threads", NULL);
  occ_step_operand(s, "compiler_rule.waves_per_simd", r->waves_per_simd, "wavefronts");
  occ_step_operand(s, "compiler_rule.max_waves_per_simd", r->max_waves_per_simd,
                   "wavefronts");
  occ_step_operand(s, "kernel.max_threads_per_block", b->k->max_threads_per_block,
                   "threads");
  occ_step_result(s, "compiler_rule.occupancy", r->occupancy, "fraction");
}

static void hip(builder *b) {
  const occ_amd_arch *a = b->a;
  const occ_amd_kernel *k = b->k;
  const occ_amd_result *r = b->r;
  b->list.section = 8;
  occ_step *s;
  if (r->hip_waves_by_vgprs >= 0) {
    s = step(b, "hip_waves_by_vgprs", "HIP's waves by VGPRs", OCC_OP_FLOOR_DIV,
             "VGPRs: {0} / {1} (a multiple of {2}) = {r} {r:wavefront} per SIMD", NULL);
    occ_step_operand(s, "hip.vgprs_per_simd", r->hip_vgprs_per_simd, "registers");
    occ_step_operand(s, "hip.vgprs_allocated", round_up(r->vgprs_total, r->hip_vgpr_granule),
                     "registers");
    occ_step_operand(s, "hip.vgpr_granule", r->hip_vgpr_granule, "registers");
    occ_step_result(s, "hip.waves_by_vgprs", r->hip_waves_by_vgprs, "wavefronts");
  }
  if (r->hip_waves_by_sgprs >= 0) {
    s = step(b, "hip_waves_by_sgprs", "HIP's waves by SGPRs", OCC_OP_FLOOR_DIV,
             "SGPRs: {0} / {1} (a multiple of {2}) = {r} {r:wavefront} per SIMD", NULL);
    occ_step_operand(s, "device.hip_sgprs_per_simd", a->hip_sgprs_per_simd, "registers");
    occ_step_operand(s, "hip.sgprs_allocated", round_up(k->sgprs, a->hip_sgpr_granule),
                     "registers");
    occ_step_operand(s, "device.hip_sgpr_granule", a->hip_sgpr_granule, "registers");
    occ_step_result(s, "hip.waves_by_sgprs", r->hip_waves_by_sgprs, "wavefronts");
  }
  s = step(b, "hip_waves_per_simd", "HIP's waves per SIMD", OCC_OP_MIN,
           "waves per SIMD: the smallest of {list} = {r}", NULL);
  occ_step_operand(s, "hip.max_waves_per_simd", r->hip_max_waves_per_simd, "wavefronts");
  if (r->hip_waves_by_vgprs >= 0)
    occ_step_operand(s, "hip.waves_by_vgprs", r->hip_waves_by_vgprs, "wavefronts");
  if (r->hip_waves_by_sgprs >= 0)
    occ_step_operand(s, "hip.waves_by_sgprs", r->hip_waves_by_sgprs, "wavefronts");
  occ_step_result(s, "hip.waves_per_simd", r->hip_waves_per_simd, "wavefronts");
  s = step(b, "hip_threads_per_cu", "threads per CU", OCC_OP_MUL,
           wgp(b) ? "{0} SIMDs x {1} {1:wave} x {2} lanes = {r} threads per WGP"
                  : "{0} SIMDs x {1} {1:wave} x {2} lanes = {r} threads per CU", NULL);
  occ_step_operand(s, "simds", r->simds, "simds");
  occ_step_operand(s, "hip.waves_per_simd", r->hip_waves_per_simd, "wavefronts");
  occ_step_operand(s, "kernel.wave_size", r->wave_size, "threads");
  occ_step_result(s, "hip.threads_per_cu", r->hip_threads_per_cu, "threads");
  s = step(b, "hip_blocks_by_waves", "blocks by waves", OCC_OP_FLOOR_DIV,
           "{0} / {1} threads (the {3}-thread block, a multiple of {2}) = {r} {r:block}",
           NULL);
  occ_step_operand(s, "hip.threads_per_cu", r->hip_threads_per_cu, "threads");
  occ_step_operand(s, "threads_per_block_rounded", r->waves_per_block * r->wave_size,
                   "threads");
  occ_step_operand(s, "kernel.wave_size", r->wave_size, "threads");
  occ_step_operand(s, "threads_per_block", k->threads_per_block, "threads");
  occ_step_result(s, "hip.blocks_by_waves", r->hip_blocks_by_waves, "blocks");
  if (r->hip_blocks_by_lds >= 0) {
    s = step(b, "hip_blocks_by_lds", "blocks by LDS", OCC_OP_FLOOR_DIV,
             "LDS: {0} bytes / {1} (static + dynamic) = {r} {r:block}", NULL);
    occ_step_operand(s, "device.hip_lds_per_cu_bytes", a->hip_lds_per_cu_bytes, "bytes");
    occ_step_operand(s, "lds_total_bytes", (double)(k->lds_bytes + k->lds_dynamic_bytes),
                     "bytes");
    occ_step_result(s, "hip.blocks_by_lds", r->hip_blocks_by_lds, "blocks");
  }
  s = step(b, "active_blocks", "the launch's blocks", OCC_OP_MIN,
           wgp(b) ? "= {r} {r:block} per WGP, limited by {hip_limiters}"
                  : "= {r} {r:block} per CU, limited by {hip_limiters}", NULL);
  occ_step_operand(s, "hip.blocks_by_waves", r->hip_blocks_by_waves, "blocks");
  if (r->hip_blocks_by_lds >= 0)
    occ_step_operand(s, "hip.blocks_by_lds", r->hip_blocks_by_lds, "blocks");
  occ_step_result(s, "active_blocks_per_sm", r->active_blocks_per_cu, "blocks");
  s = step(b, "occupancy", "the launch's occupancy", OCC_OP_DIV,
           "occupancy {0} x {1} {1:wavefront} / ({2} SIMDs x {3}) = {r}%", NULL);
  occ_step_operand(s, "active_blocks_per_sm", r->active_blocks_per_cu, "blocks");
  occ_step_operand(s, "waves_per_block", r->waves_per_block, "wavefronts");
  occ_step_operand(s, "simds", r->simds, "simds");
  occ_step_operand(s, "max_waves_per_simd", r->max_waves_per_simd, "wavefronts");
  occ_step_result(s, "occupancy", r->hip_occupancy, "fraction");
}

static void compare(builder *b) {
  const occ_amd_result *r = b->r;
  b->list.section = 9;
  occ_step *s = step(b, "compiler_blocks", "the compiler's blocks", OCC_OP_FLOOR_DIV,
                     "LLVM: {0} waves per SIMD x {1} SIMDs / {2} {2:wavefront} = {r} "
                     "{r:block}", NULL);
  occ_step_operand(s, "compiler_rule.waves_per_simd", r->waves_per_simd, "wavefronts");
  occ_step_operand(s, "simds", r->simds, "simds");
  occ_step_operand(s, "waves_per_block", r->waves_per_block, "wavefronts");
  occ_step_result(s, "compiler_rule.blocks_per_sm", r->llvm_blocks_per_cu, "blocks");
  s = step(b, "rules", "the rules compared", OCC_OP_VALUE,
           r->rules_differ ? "HIP:  {r} {r:block}: they differ, because\n{reasons}"
                           : "HIP:  {r} {r:block}: the rules agree", NULL);
  occ_step_operand(s, "active_blocks_per_sm", r->active_blocks_per_cu, "blocks");
  occ_step_result(s, "active_blocks_per_sm", r->active_blocks_per_cu, "blocks");
}

size_t occ_amd_explain(const occ_amd_arch *arch, const occ_amd_kernel *kernel,
                       const occ_amd_result *result, occ_step *steps, size_t max) {
  builder b = {arch, kernel, result, {.steps = steps, .max = max}};
  wavefronts(&b);
  vgprs(&b);
  sgprs(&b);
  lds(&b);
  workgroups(&b);
  llvm(&b);
  hip(&b);
  compare(&b);
  return b.list.count;
}
