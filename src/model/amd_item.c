/* amd_item.c - an AMD configuration computed once (see amd_item.h). */
#include "model/amd_item.h"

#include <stddef.h>

occ_amd_status occ_amd_item_compute(occ_amd_item *item) {
  occ_amd_status st = occ_amd_compute(&item->arch, &item->kernel, &item->result);
  if (st == OCC_AMD_OK && item->compiler.present)
    item->compiler.agrees = item->compiler.occupancy_waves_per_simd ==
                            item->result.waves_per_simd;
  return st;
}

static const occ_amd_limit_row limit_rows[OCC_AMD_LIMIT_COUNT] = {
    {"wave_slots", "wave slots", OCC_AMD_LIMITER_WAVE_SLOTS},
    {"vgprs", "VGPRs", OCC_AMD_LIMITER_VGPRS},
    {"agprs", "AGPRs", OCC_AMD_LIMITER_AGPRS},
    {"sgprs", "SGPRs", OCC_AMD_LIMITER_SGPRS},
    {"lds", "LDS", OCC_AMD_LIMITER_LDS},
    {"workgroups", "workgroup slots", OCC_AMD_LIMITER_WORKGROUPS},
};

const occ_amd_limit_row *occ_amd_limit_rows(void) { return limit_rows; }

int occ_amd_limit_value(const occ_amd_result *r, int i) {
  switch (i) {
  case 0: return r->max_waves_per_simd;
  case 1: return r->waves_by_vgprs;
  case 2: return r->waves_by_agprs;
  case 3: return r->waves_by_sgprs;
  /* LDS unused: the rule divides by one byte and never binds. */
  case 4: return r->lds_blocks < 0 ? -1 : r->waves_by_lds;
  case 5: return r->waves_by_workgroups;
  }
  return -1;
}

static const struct {
  const char *key, *text;
} reasons[OCC_AMD_REASON_COUNT] = {
    {"max_waves", "HIP caps a SIMD at another number of waves"},
    {"vgpr_file", "HIP sizes the VGPR file or its granule otherwise"},
    {"sgpr_rule", "HIP limits SGPRs by its own rule (800 per SIMD)"},
    {"workgroup_slots", "HIP models no workgroup slots"},
    {"lds", "HIP counts LDS per CU and dynamic LDS the compiler cannot see"},
    {"block_size", "the compiler assumed a larger block (--max-block)"},
    {"rounding", "LLVM counts waves per SIMD, HIP whole blocks per CU"},
};

const char *occ_amd_reason_key(int i) {
  return i >= 0 && i < OCC_AMD_REASON_COUNT ? reasons[i].key : NULL;
}

const char *occ_amd_reason_text(int i) {
  return i >= 0 && i < OCC_AMD_REASON_COUNT ? reasons[i].text : NULL;
}
