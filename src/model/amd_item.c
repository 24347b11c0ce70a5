/* amd_item.c - an AMD configuration computed once (see amd_item.h). */
#include "model/amd_item.h"


occ_amd_status occ_amd_item_compute(occ_amd_item *item) {
  occ_amd_status st = occ_amd_compute(&item->arch, &item->kernel, &item->result);
  item->status = st;
  if (st == OCC_AMD_OK && item->compiler.present)
    item->compiler.agrees = item->compiler.occupancy_waves_per_simd ==
                            item->result.waves_per_simd;
  return st;
}
