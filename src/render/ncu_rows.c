/* ncu_rows.c - the rows of the Nsight Compute section (see ncu_rows.h). */
#include "render/ncu_rows.h"

/* A row's value: true when known, the figure in *v, else *words (NULL:
 * nothing to say). */
typedef bool getter(const occ_ncu *n, double *v, const char **words);

#define FIELD_GETTER(fn, field)                                                \
  static bool fn(const occ_ncu *n, double *v, const char **words) {          \
    (void)words;                                                             \
    *v = (double)n->field;                                                   \
    return true;                                                             \
  }
FIELD_GETTER(limit_registers, occupancy_limit_registers)
FIELD_GETTER(limit_warps, occupancy_limit_warps)
FIELD_GETTER(limit_blocks, occupancy_limit_blocks)
FIELD_GETTER(limit_barriers, occupancy_limit_barriers)
FIELD_GETTER(registers, registers_per_thread)
FIELD_GETTER(smem_static, shared_mem_per_block_static)
FIELD_GETTER(smem_dynamic, shared_mem_per_block_dynamic)
FIELD_GETTER(smem_driver, shared_mem_per_block_driver)
FIELD_GETTER(max_warps_pct, maximum_warps_per_active_cycle_pct)
#undef FIELD_GETTER

/* No figure where the block allocates no shared memory ("unlimited") or
 * where the configuration the driver chooses is not known ("unknown"). */
static bool limit_smem(const occ_ncu *n, double *v, const char **words) {
  *v = n->occupancy_limit_shared_mem;
  *words = n->shared_mem_limit == OCC_NCU_SMEM_LIMIT_NONE ? "unlimited"
                                                           : "unknown";
  return n->shared_mem_limit == OCC_NCU_SMEM_LIMIT_KNOWN;
}

static bool config_size(const occ_ncu *n, double *v, const char **words) {
  *v = (double)n->shared_mem_config_size;
  *words = "unknown";
  return n->shared_mem_config_known;
}

/* Without a grid there are no waves: null, and no row in the text. */
static bool waves(const occ_ncu *n, double *v, const char **words) {
  (void)words;
  *v = n->waves_per_multiprocessor;
  return n->has_waves;
}

/* Not a cluster launch, or a board whose domains were never measured:
 * null, and no row in the text (the cluster section says why). */
static bool cluster_max_active(const occ_ncu *n, double *v, const char **words) {
  (void)words;
  *v = (double)n->cluster_max_active;
  return n->has_cluster_max_active;
}

static bool occupancy_cluster_pct(const occ_ncu *n, double *v,
                                  const char **words) {
  (void)words;
  *v = n->occupancy_cluster_pct;
  return n->has_cluster_max_active;
}

static bool occupancy_cluster_gpu_pct(const occ_ncu *n, double *v,
                                      const char **words) {
  (void)words;
  *v = n->occupancy_cluster_gpu_pct;
  return n->has_cluster_max_active;
}

/* The rows that follow from the SM's configuration carry its basis. */
static const struct {
  const char *key, *unit;
  int decimals;
  getter *get;
  bool from_config;
} rows[OCC_NCU_ROW_COUNT] = {
    {"launch__occupancy_limit_registers", "blocks", 0, limit_registers, false},
    {"launch__occupancy_limit_shared_mem", "blocks", 0, limit_smem, true},
    {"launch__occupancy_limit_warps", "blocks", 0, limit_warps, false},
    {"launch__occupancy_limit_blocks", "blocks", 0, limit_blocks, false},
    {"launch__occupancy_limit_barriers", "blocks", 0, limit_barriers, false},
    {"launch__registers_per_thread", "registers", 0, registers, false},
    {"launch__shared_mem_config_size", "bytes", 0, config_size, true},
    {"launch__shared_mem_per_block_static", "bytes", 0, smem_static, false},
    {"launch__shared_mem_per_block_dynamic", "bytes", 0, smem_dynamic, false},
    {"launch__shared_mem_per_block_driver", "bytes", 0, smem_driver, false},
    {"sm__maximum_warps_per_active_cycle_pct", "percent", 2, max_warps_pct, false},
    {"launch__waves_per_multiprocessor", "waves", 2, waves, false},
    {"launch__cluster_max_active", "clusters", 0, cluster_max_active, false},
    {"launch__occupancy_cluster_pct", "percent", 2, occupancy_cluster_pct, false},
    {"launch__occupancy_cluster_gpu_pct", "percent", 2,
     occupancy_cluster_gpu_pct, false},
};

void occ_ncu_values_rows(const occ_ncu *n,
                         occ_ncu_value values[OCC_NCU_ROW_COUNT]) {
  for (int i = 0; i < OCC_NCU_ROW_COUNT; i++) {
    occ_ncu_value *o = &values[i];
    *o = (occ_ncu_value){rows[i].key, rows[i].unit, rows[i].decimals, false,
                         0, NULL, false};
    o->known = rows[i].get(n, &o->value, &o->words);
    o->assumed = o->known && rows[i].from_config && n->shared_mem_config_assumed;
  }
}
