/* amd_item.h - one AMD kernel configuration as the renderers read it: the
 * architecture (and board), the kernel, both rules' result (core/amd.h)
 * and, for a kernel read from a compiler remark log, the compiler's own
 * figures and whether occcalc agrees with them. Computed once
 * (occ_amd_item_compute); the text, JSON and CSV writers only read it. */
#ifndef OCC_AMD_ITEM_H
#define OCC_AMD_ITEM_H

#include <stdbool.h>
#include <stdint.h>

#include "core/amd.h"

/* The compiler's own report of one kernel (a -Rpass-analysis=
 * kernel-resource-usage remark), where the item came from one. */
typedef struct occ_amd_compiler {
  bool present;
  int occupancy_waves_per_simd;  /* "Occupancy [waves/SIMD]"; -1 unknown */
  int64_t scratch_bytes_per_lane; /* -1 unknown */
  int sgpr_spills, vgpr_spills;  /* -1 unknown */
  int dynamic_stack;             /* 1, 0, -1 unknown */
  bool agrees;                   /* waves_per_simd equals the compiler's */
} occ_amd_compiler;

typedef struct occ_amd_item {
  const char *board;        /* "MI300X", or NULL for an architecture */
  int cu_count;             /* the board's CUs per HIP device; -1 unknown */
  occ_amd_arch arch;
  const char *name;         /* the kernel's readable name (a remark log,
                               demangled), or NULL */
  const char *mangled_name; /* the symbol as the compiler printed it */
  int block[3];             /* the launch's block shape */
  occ_amd_kernel kernel;    /* threads_per_block = block's product */
  occ_amd_result result;
  occ_amd_status status;    /* occ_amd_item_compute's */
  occ_amd_compiler compiler;
} occ_amd_item;

/* Computes item->result from item->arch and item->kernel, and the
 * compiler's agreement when item->compiler.present. Returns the core's
 * status, also kept in item->status (result untouched unless
 * OCC_AMD_OK). occ_model_build calls it for an item with an AMD part. */
occ_amd_status occ_amd_item_compute(occ_amd_item *item);

#endif
