/* amd.c - occupancy on AMD GPUs by LLVM's rule and by HIP's (amd.h).
 * Each function below names the LLVM or clr function whose rule it
 * follows; the code is written from reading them, not copied. */
#include "core/amd.h"

#include <stddef.h>

#include "core/arith.h"

/* SGPRs the compiler adds to what a kernel names: VCC, FLAT_SCRATCH and
 * XNACK_MASK, 2 each (AMDGPUBaseInfo.cpp, getNumExtraSGPRs). */
#define EXTRA_SGPRS 6

const char *occ_amd_strerror(occ_amd_status status) {
  switch (status) {
  case OCC_AMD_OK: return "success";
  case OCC_AMD_ERR_ARCH: return "the architecture's entry is out of range";
  case OCC_AMD_ERR_WAVE_SIZE: return "a wave size the architecture does not run";
  case OCC_AMD_ERR_CU_MODE: return "CU mode needs an architecture with WGPs (gfx10 or later)";
  case OCC_AMD_ERR_BLOCK: return "the block size must be 1 to the architecture's maximum";
  case OCC_AMD_ERR_VGPRS: return "VGPRs must be 0 to the addressable count";
  case OCC_AMD_ERR_AGPRS: return "AGPRs must be 0 to the addressable count (0 where the architecture has none)";
  case OCC_AMD_ERR_SGPRS: return "SGPRs must be 0 to the addressable count plus VCC, FLAT_SCRATCH and XNACK_MASK";
  case OCC_AMD_ERR_LDS: return "LDS must be 0 to the most one workgroup may allocate";
  }
  return "unknown status";
}

/* Every count here fits an int: the inputs are checked first. */
static int ceil_div(int64_t a, int64_t b) { return (int)occ_ceil_div(a, b); }
static int round_up(int a, int unit) { return (int)occ_round_up(a, unit); }
static int min_int(int a, int b) { return a < b ? a : b; }
static int clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

static bool in_range(int v, int lo, int hi) { return v >= lo && v <= hi; }

int occ_amd_arch_check(const occ_amd_arch *a, const char **why) {
  const struct {
    bool ok;
    const char *why;
  } rules[] = {
      {a->name[0] != '\0', "\"gfx\" must name the target"},
      {in_range(a->gfx_major, 6, 99), "\"gfx_major\" must be 6 to 99"},
      {a->wave32 || a->wave64, "\"wave_sizes\" must hold 32, 64 or both"},
      {(a->default_wave_size == 32 && a->wave32) ||
           (a->default_wave_size == 64 && a->wave64),
       "\"default_wave_size\" must be one of \"wave_sizes\""},
      {in_range(a->simds_per_cu, 1, 8), "\"simds_per_cu\" must be 1 to 8"},
      {in_range(a->max_waves_per_simd, 1, 64), "\"max_waves_per_simd\" must be 1 to 64"},
      {in_range(a->max_threads_per_block, 1, 4096), "\"max_threads_per_block\" must be 1 to 4096"},
      {!a->wave64 || (in_range(a->vgprs_per_simd_wave64, 1, 65536) &&
                      in_range(a->vgpr_granule_wave64, 1, 256)),
       "\"vgprs_per_simd_wave64\" must be 1 to 65536 and \"vgpr_granule_wave64\" 1 to 256 where wave 64 runs"},
      {!a->wave32 || (in_range(a->vgprs_per_simd_wave32, 1, 65536) &&
                      in_range(a->vgpr_granule_wave32, 1, 256)),
       "\"vgprs_per_simd_wave32\" must be 1 to 65536 and \"vgpr_granule_wave32\" 1 to 256 where wave 32 runs"},
      {in_range(a->addressable_vgprs, 1, 1024), "\"addressable_vgprs\" must be 1 to 1024"},
      {in_range(a->addressable_agprs, 0, 1024), "\"addressable_agprs\" must be 0 to 1024"},
      {!a->unified_vgpr_file || in_range(a->unified_agpr_align, 1, 256),
       "\"unified_agpr_align\" must be 1 to 256 on a unified file"},
      {in_range(a->addressable_sgprs, 1, 1024), "\"addressable_sgprs\" must be 1 to 1024"},
      {in_range(a->sgpr_limit_count, 0, 4), "\"sgpr_waves\" must have 0 to 4 steps"},
      {in_range(a->lds_per_cu_bytes, 1, 1 << 24), "\"lds_per_cu_bytes\" must be 1 to 16777216"},
      {in_range(a->lds_per_wgp_bytes, 0, 1 << 24), "\"lds_per_wgp_bytes\" must be 0 to 16777216"},
      {a->wgp_mode == (a->lds_per_wgp_bytes > 0),
       "\"lds_per_wgp_bytes\" must be given exactly where \"wgp_mode\" is true"},
      {in_range(a->lds_per_block_bytes, 1, a->lds_per_cu_bytes),
       "\"lds_per_block_bytes\" must be 1 to \"lds_per_cu_bytes\""},
      {in_range(a->barriers_per_cu, 1, 1024) && in_range(a->barriers_per_wgp, 0, 1024),
       "\"barriers_per_cu\" must be 1 to 1024 and \"barriers_per_wgp\" 0 to 1024"},
      {in_range(a->hip_max_waves_per_simd, 1, 64), "\"hip_max_waves_per_simd\" must be 1 to 64"},
      {in_range(a->hip_vgprs_per_simd, 2, 65536) && in_range(a->hip_vgpr_granule, 2, 256),
       "\"hip_vgprs_per_simd\" must be 2 to 65536 and \"hip_vgpr_granule\" 2 to 256"},
      {in_range(a->hip_sgprs_per_simd, 0, 65536) && in_range(a->hip_sgpr_granule, 1, 256),
       "\"hip_sgprs_per_simd\" must be 0 to 65536 and \"hip_sgpr_granule\" 1 to 256"},
      {in_range(a->hip_lds_per_cu_bytes, 1, 1 << 24), "\"hip_lds_per_cu_bytes\" must be 1 to 16777216"},
  };
  for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
    if (!rules[i].ok) {
      *why = rules[i].why;
      return -1;
    }
  }
  for (int i = 0; i < a->sgpr_limit_count; i++) {
    if (!in_range(a->sgpr_waves_at[i], 1, 1024) || !in_range(a->sgpr_waves[i], 1, 64) ||
        (i > 0 && (a->sgpr_waves_at[i] <= a->sgpr_waves_at[i - 1] ||
                   a->sgpr_waves[i] >= a->sgpr_waves[i - 1]))) {
      *why = "\"sgpr_waves\" must be [SGPRs, waves] steps, SGPRs rising and waves falling";
      return -1;
    }
  }
  return 0;
}

int occ_amd_max_sgprs(const occ_amd_arch *arch) {
  return arch->addressable_sgprs + EXTRA_SGPRS;
}

/* The waves per SIMD a register file allows: 1 wave at least (LLVM
 * reports 1 for a kernel that cannot launch), the slots at most
 * (AMDGPUBaseInfo.cpp, getNumWavesPerEUWithNumVGPRs: no limit below one
 * granule, else file / roundup(count, granule)). */
static int waves_by_file(int count, int granule, int file, int max_waves) {
  if (count < granule) return max_waves;
  return clamp(file / round_up(count, granule), 1, max_waves);
}

/* GCNSubtarget.cpp, getOccupancyWithNumSGPRs: a table of thresholds on
 * gfx8-9 (at most 80 SGPRs: 10 waves, ...; the last step holds any count
 * above it), nothing on gfx10+. */
static int waves_by_sgprs(const occ_amd_arch *a, int sgprs) {
  if (a->sgpr_limit_count == 0) return -1;
  for (int i = 0; i < a->sgpr_limit_count; i++)
    if (sgprs <= a->sgpr_waves_at[i]) return min_int(a->sgpr_waves[i], a->max_waves_per_simd);
  return min_int(a->sgpr_waves[a->sgpr_limit_count - 1], a->max_waves_per_simd);
}

static occ_amd_status check_kernel(const occ_amd_arch *a, const occ_amd_kernel *k,
                                   int wave, int block, int max_block) {
  const char *why;
  if (occ_amd_arch_check(a, &why) != 0) return OCC_AMD_ERR_ARCH;
  if ((wave == 32 && !a->wave32) || (wave == 64 && !a->wave64) ||
      (wave != 32 && wave != 64))
    return OCC_AMD_ERR_WAVE_SIZE;
  if (k->cu_mode && !a->wgp_mode) return OCC_AMD_ERR_CU_MODE;
  if (!in_range(block, 1, a->max_threads_per_block) ||
      !in_range(max_block, 1, a->max_threads_per_block))
    return OCC_AMD_ERR_BLOCK;
  if (!in_range(k->vgprs, 0, a->addressable_vgprs)) return OCC_AMD_ERR_VGPRS;
  if (!in_range(k->agprs, 0, a->addressable_agprs)) return OCC_AMD_ERR_AGPRS;
  if (!in_range(k->sgprs, OCC_AMD_SGPRS_UNKNOWN, occ_amd_max_sgprs(a))) return OCC_AMD_ERR_SGPRS;
  if (k->lds_bytes < 0 || k->lds_dynamic_bytes < 0 ||
      k->lds_bytes > a->lds_per_block_bytes - k->lds_dynamic_bytes)
    return OCC_AMD_ERR_LDS;
  return OCC_AMD_OK;
}

/* The vector registers, LLVM's rule: the total of AMDGPUBaseInfo.cpp's
 * getTotalNumVGPRs(has90AInsts, AGPRs, VGPRs) and the file and granule of
 * getTotalNumVGPRs(STI) and getVGPRAllocGranule(STI) for the wave size. */
static void llvm_vgprs(const occ_amd_arch *a, const occ_amd_kernel *k,
                       occ_amd_result *r) {
  bool w64 = r->wave_size == 64;
  r->vgpr_granule = w64 ? a->vgpr_granule_wave64 : a->vgpr_granule_wave32;
  r->vgprs_per_simd = w64 ? a->vgprs_per_simd_wave64 : a->vgprs_per_simd_wave32;
  r->waves_by_agprs = -1;
  if (a->unified_vgpr_file) {
    r->vgprs_total = (k->agprs ? round_up(k->vgprs, a->unified_agpr_align) : k->vgprs) + k->agprs;
  } else {
    r->vgprs_total = k->vgprs > k->agprs ? k->vgprs : k->agprs;
    if (a->addressable_agprs > 0)
      r->waves_by_agprs = waves_by_file(k->agprs, r->vgpr_granule, r->vgprs_per_simd,
                                        a->max_waves_per_simd);
  }
  /* AMDGPUAsmPrinter counts at least one VGPR (NumVGPRsForWavesPerEU). */
  int counted = r->vgprs_total > 0 ? r->vgprs_total : 1;
  r->vgprs_allocated = round_up(counted, r->vgpr_granule);
  int vgprs_alone = k->vgprs > 0 ? k->vgprs : 1;
  r->waves_by_vgprs = waves_by_file(a->unified_vgpr_file ? counted : vgprs_alone,
                                    r->vgpr_granule, r->vgprs_per_simd,
                                    a->max_waves_per_simd);
}

/* LDS and workgroup slots, LLVM's rule: AMDGPUSubtarget.cpp,
 * getOccupancyWithLocalMemSize, over AMDGPUBaseInfo.cpp's
 * getMaxWorkGroupsPerCU, getEUsPerCU and getLocalMemorySize (doubled in
 * WGP mode). It counts the compiler's maximum workgroup size. */
static void llvm_lds(const occ_amd_arch *a, const occ_amd_kernel *k, bool wgp,
                     int max_block, occ_amd_result *r) {
  int n = ceil_div(max_block, r->wave_size);
  int slots_waves = a->max_waves_per_simd * r->simds;
  r->compiler_waves_per_block = n;
  r->workgroup_slots = n == 1 ? slots_waves
                              : min_int(slots_waves / n, wgp ? a->barriers_per_wgp
                                                             : a->barriers_per_cu);
  r->lds_per_cu_bytes = wgp ? a->lds_per_wgp_bytes : a->lds_per_cu_bytes;
  int64_t lds_groups = r->lds_per_cu_bytes / (k->lds_bytes ? k->lds_bytes : 1);
  r->lds_blocks = k->lds_bytes ? (int)lds_groups : -1;
  r->waves_by_workgroups = clamp(ceil_div((int64_t)r->workgroup_slots * n, r->simds), 1,
                                 a->max_waves_per_simd);
  /* No LDS: the rule divides by 1 byte, so LDS never binds. Too much for
   * one group (not reached: the input is checked): LLVM assumes the worst,
   * 1 wave. */
  if (lds_groups == 0)
    r->waves_by_lds = 1;
  else
    r->waves_by_lds = clamp(ceil_div(lds_groups * n, r->simds), 1, a->max_waves_per_simd);
}

/* The smallest of LLVM's limits and every limit equal to it
 * (GCNSubtarget::computeOccupancy takes the minimum); the wave slots alone
 * when nothing holds the SIMD below them. */
static void llvm_occupancy(const occ_amd_arch *a, occ_amd_result *r) {
  const struct {
    int waves;
    unsigned bit;
  } limits[] = {
      {a->max_waves_per_simd, OCC_AMD_LIMITER_WAVE_SLOTS},
      {r->waves_by_vgprs, OCC_AMD_LIMITER_VGPRS},
      {r->waves_by_agprs, OCC_AMD_LIMITER_AGPRS},
      {r->waves_by_sgprs, OCC_AMD_LIMITER_SGPRS},
      {r->waves_by_lds, OCC_AMD_LIMITER_LDS},
      {r->waves_by_workgroups, OCC_AMD_LIMITER_WORKGROUPS},
  };
  int best = a->max_waves_per_simd;
  for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++)
    if (limits[i].waves > 0 && limits[i].waves < best) best = limits[i].waves;
  /* A resource that allows the SIMD's every slot limits nothing (its
   * count was clamped to the slots): then the slots are the limiter. */
  r->limiters = best == a->max_waves_per_simd ? OCC_AMD_LIMITER_WAVE_SLOTS : 0;
  for (size_t i = 1; best < a->max_waves_per_simd && i < sizeof limits / sizeof limits[0]; i++)
    if (limits[i].waves == best) r->limiters |= limits[i].bit;
  r->max_waves_per_simd = a->max_waves_per_simd;
  r->waves_per_simd = best;
  r->occupancy = (double)best / a->max_waves_per_simd;
}

/* HIP's rule: clr hipamd/src/hip_platform.cpp,
 * hip_impl::ihipOccupancyMaxActiveBlocksPerMultiprocessor (ROCm/clr at
 * 0267308): MaxWavesPerSimd 8 on gfx9 and 16 after; VGPR waves =
 * vgprsPerSimd / alignUp(usedVGPRs, granule), both halved for wave64 on
 * gfx10+, computed only when the kernel reports SGPRs (the runtime tests
 * usedSGPRs_ there); SGPR waves = sgprsPerSimd / alignUp(usedSGPRs, 16);
 * threads = simdPerCU (4 on gfx9; 4 in WGP mode, else 2) x min(max, GPR
 * waves) x wave size; blocks = threads / alignUp(block, wave size), then
 * at most localMemSize / LDS. No workgroup-slot limit. */
static void hip_rule(const occ_amd_arch *a, const occ_amd_kernel *k, int block,
                     occ_amd_result *r) {
  bool halve = a->gfx_major >= 10 && r->wave_size == 64;
  r->hip_max_waves_per_simd = a->hip_max_waves_per_simd;
  r->hip_vgprs_per_simd = halve ? a->hip_vgprs_per_simd / 2 : a->hip_vgprs_per_simd;
  r->hip_vgpr_granule = halve ? a->hip_vgpr_granule / 2 : a->hip_vgpr_granule;
  int total = r->vgprs_total;
  /* An unknown SGPR count is a real kernel's, never 0: the VGPR limit
   * applies. */
  r->hip_waves_by_vgprs = k->sgprs != 0 && total > 0
                              ? r->hip_vgprs_per_simd / round_up(total, r->hip_vgpr_granule)
                              : -1;
  r->hip_waves_by_sgprs = k->sgprs > 0 && a->hip_sgprs_per_simd > 0
                              ? a->hip_sgprs_per_simd / round_up(k->sgprs, a->hip_sgpr_granule)
                              : -1;
  int waves = a->hip_max_waves_per_simd;
  if (r->hip_waves_by_vgprs >= 0) waves = min_int(waves, r->hip_waves_by_vgprs);
  if (r->hip_waves_by_sgprs >= 0) waves = min_int(waves, r->hip_waves_by_sgprs);
  r->hip_waves_per_simd = waves;
  r->hip_threads_per_cu = r->simds * waves * r->wave_size;
  r->hip_blocks_by_waves = r->hip_threads_per_cu / round_up(block, r->wave_size);
  int64_t lds = k->lds_bytes + k->lds_dynamic_bytes;
  r->hip_blocks_by_lds = lds ? (int)(a->hip_lds_per_cu_bytes / lds) : -1;
  r->active_blocks_per_cu = r->hip_blocks_by_lds >= 0
                                ? min_int(r->hip_blocks_by_waves, r->hip_blocks_by_lds)
                                : r->hip_blocks_by_waves;
  /* The launch's limiter: LDS where it allows fewer blocks than the
   * waves, else whatever set the waves per SIMD (ties all named). */
  unsigned lim = 0;
  if (r->active_blocks_per_cu == r->hip_blocks_by_waves) {
    if (waves == a->hip_max_waves_per_simd) lim |= OCC_AMD_LIMITER_WAVE_SLOTS;
    if (waves == r->hip_waves_by_vgprs) lim |= OCC_AMD_LIMITER_VGPRS;
    if (waves == r->hip_waves_by_sgprs) lim |= OCC_AMD_LIMITER_SGPRS;
  }
  if (r->active_blocks_per_cu == r->hip_blocks_by_lds) lim |= OCC_AMD_LIMITER_LDS;
  r->hip_limiters = lim;
  r->hip_occupancy = (double)r->active_blocks_per_cu * r->waves_per_block /
                     ((double)r->simds * a->max_waves_per_simd);
}

/* Where the rules part, each cause that applies (amd.h, occ_amd_reason). */
static unsigned reasons(const occ_amd_arch *a, const occ_amd_kernel *k,
                        int block, int max_block, const occ_amd_result *r) {
  unsigned why = 0;
  int llvm_waves = r->waves_per_simd;
  if (a->hip_max_waves_per_simd != a->max_waves_per_simd &&
      (r->hip_waves_per_simd == a->hip_max_waves_per_simd ||
       (r->limiters & OCC_AMD_LIMITER_WAVE_SLOTS)))
    why |= OCC_AMD_REASON_MAX_WAVES;
  int hip_v = r->hip_waves_by_vgprs < 0 ? a->hip_max_waves_per_simd : r->hip_waves_by_vgprs;
  if (min_int(hip_v, a->hip_max_waves_per_simd) != min_int(r->waves_by_vgprs, a->hip_max_waves_per_simd) &&
      (hip_v < llvm_waves || r->waves_by_vgprs < r->hip_waves_per_simd))
    why |= OCC_AMD_REASON_VGPR_FILE;
  int hip_s = r->hip_waves_by_sgprs < 0 ? a->hip_max_waves_per_simd : r->hip_waves_by_sgprs;
  int llvm_s = r->waves_by_sgprs < 0 ? a->max_waves_per_simd : r->waves_by_sgprs;
  if (min_int(hip_s, a->hip_max_waves_per_simd) != min_int(llvm_s, a->hip_max_waves_per_simd) &&
      (hip_s < llvm_waves || llvm_s < r->hip_waves_per_simd))
    why |= OCC_AMD_REASON_SGPR_RULE;
  if (r->limiters & OCC_AMD_LIMITER_WORKGROUPS) why |= OCC_AMD_REASON_WORKGROUP_SLOTS;
  bool lds_binds = r->limiters & OCC_AMD_LIMITER_LDS ||
                   r->hip_blocks_by_lds == r->active_blocks_per_cu;
  if (lds_binds && ((k->lds_bytes && r->lds_per_cu_bytes != a->hip_lds_per_cu_bytes) ||
                    k->lds_dynamic_bytes))
    why |= OCC_AMD_REASON_LDS;
  if (max_block != block) why |= OCC_AMD_REASON_BLOCK_SIZE;
  if (!why) why = OCC_AMD_REASON_ROUNDING;
  return why;
}

occ_amd_status occ_amd_compute(const occ_amd_arch *a, const occ_amd_kernel *k,
                               occ_amd_result *out) {
  int wave = k->wave_size ? k->wave_size : a->default_wave_size;
  int block = k->threads_per_block;
  int max_block = k->max_threads_per_block ? k->max_threads_per_block : block;
  occ_amd_status st = check_kernel(a, k, wave, block, max_block);
  if (st != OCC_AMD_OK) return st;
  occ_amd_result r = {0};
  bool wgp = a->wgp_mode && !k->cu_mode;
  r.wave_size = wave;
  r.waves_per_block = ceil_div(block, wave);
  r.inactive_lanes = r.waves_per_block * wave - block;
  /* AMDGPUBaseInfo.cpp, getEUsPerCU: 4 SIMDs per CU before gfx10 and per
   * WGP in WGP mode; 2 per CU in CU mode. */
  r.simds = wgp ? 2 * a->simds_per_cu : a->simds_per_cu;
  llvm_vgprs(a, k, &r);
  /* AMDGPUAsmPrinter counts at least one SGPR (NumSGPRsForWavesPerEU). */
  r.waves_by_sgprs = k->sgprs == OCC_AMD_SGPRS_UNKNOWN ? -1
                                                      : waves_by_sgprs(a, k->sgprs > 0 ? k->sgprs : 1);
  llvm_lds(a, k, wgp, max_block, &r);
  llvm_occupancy(a, &r);
  hip_rule(a, k, block, &r);
  r.llvm_blocks_per_cu = r.waves_per_simd * r.simds / r.waves_per_block;
  r.rules_differ = r.llvm_blocks_per_cu != r.active_blocks_per_cu;
  r.reasons = r.rules_differ ? reasons(a, k, block, max_block, &r) : 0;
  *out = r;
  return OCC_AMD_OK;
}
