/* occ.c - the occupancy calculator core (see occ.h for the contract). */
#include "core/occ.h"

#include <stddef.h>
#include <string.h>

#include "core/arith.h"

const char *occ_strerror(occ_status status) {
  switch (status) {
  case OCC_OK: return "success";
  case OCC_ERR_INVALID_DEVICE: return "device properties out of range";
  case OCC_ERR_INVALID_KERNEL: return "kernel configuration out of range";
  case OCC_ERR_CARVEOUT: return "carveout must be 0 to 100 percent";
  case OCC_ERR_SMEM_CONFIG:
    return "no shared-memory configuration of the device fits";
  case OCC_ERR_NOMEM: return "out of memory";
  }
  return "unknown error";
}

static int min_int(int a, int b) { return a < b ? a : b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* The first violation found, recorded; false, for `return fail(...)`. */
static bool fail(occ_device_violation *v, const char *field, int index,
                 int64_t min, int64_t max, bool power_of_two, const char *why) {
  if (v) {
    v->field = field;
    v->index = index;
    v->min = min;
    v->max = max;
    v->power_of_two = power_of_two;
    v->why = why;
  }
  return false;
}

static bool in_range(int64_t value, int64_t min, int64_t max) {
  return value >= min && value <= max;
}

static bool is_power_of_two(int64_t value) {
  return value > 0 && (value & (value - 1)) == 0;
}

/* One field: value in min..max (a power of two if asked), else fail. */
#define CHECK(v, field, value, min, max, pow2, why)                         \
  do {                                                                      \
    if (!in_range(value, min, max) || ((pow2) && !is_power_of_two(value)))  \
      return fail(v, #field, -1, min, max, pow2, why);                      \
  } while (0)

static bool check_threads(const occ_device *d, occ_device_violation *v) {
  CHECK(v, warp_size, d->warp_size, 1, OCC_DEV_WARP_SIZE_MAX, true, NULL);
  CHECK(v, max_threads_per_sm, d->max_threads_per_sm, d->warp_size,
        OCC_DEV_THREADS_PER_SM_MAX, false, "at least the warp size");
  int64_t block_max = min64(min64(OCC_DEV_THREADS_PER_BLOCK_MAX,
                                  (int64_t)OCC_DEV_WARPS_PER_BLOCK_MAX * d->warp_size),
                            d->max_threads_per_sm);
  CHECK(v, max_threads_per_block, d->max_threads_per_block, 1, block_max, false,
        "at most 2048, 256 warps and \"max_threads_per_sm\"");
  for (int i = 0; i < 3; i++)
    if (!in_range(d->max_block_dim[i], 1, d->max_threads_per_block))
      return fail(v, "max_block_dim", i, 1, d->max_threads_per_block, false,
                  "at most \"max_threads_per_block\"");
  CHECK(v, max_blocks_per_sm, d->max_blocks_per_sm, 1, OCC_DEV_BLOCKS_PER_SM_MAX,
        false, NULL);
  CHECK(v, barrier_factor, d->barrier_factor, 0, OCC_DEV_BARRIER_FACTOR_MAX, false,
        NULL);
  CHECK(v, sm_count, d->sm_count, 0, OCC_DEV_SM_COUNT_MAX, false, NULL);
  return true;
}

static bool check_registers(const occ_device *d, occ_device_violation *v) {
  CHECK(v, regs_per_sm, d->regs_per_sm, 1, OCC_DEV_REGS_PER_SM_MAX, false, NULL);
  CHECK(v, regs_per_block, d->regs_per_block, 1, d->regs_per_sm, false,
        "at most \"regs_per_sm\"");
  CHECK(v, max_regs_per_thread, d->max_regs_per_thread, 1,
        OCC_DEV_REGS_PER_THREAD_MAX, false, NULL);
  CHECK(v, reg_alloc_unit, d->reg_alloc_unit, 1, OCC_DEV_REG_ALLOC_UNIT_MAX, false,
        NULL);
  CHECK(v, sub_partitions, d->sub_partitions, 1, OCC_DEV_SUB_PARTITIONS_MAX, false,
        NULL);
  CHECK(v, reg_block_warp_multiple, d->reg_block_warp_multiple, 1,
        OCC_DEV_REG_WARP_MULTIPLE_MAX, false, NULL);
  return true;
}

/* The largest configuration is the SM's size: the default preference and
 * every block that fits the opt-in cap then find one. */
static bool check_smem_configs(const occ_device *d, occ_device_violation *v) {
  if (!in_range(d->smem_config_count, 0, OCC_MAX_SMEM_CONFIGS))
    return fail(v, "smem_config_count", -1, 0, OCC_MAX_SMEM_CONFIGS, false, NULL);
  int last = d->smem_config_count - 1;
  for (int i = 0; i < last; i++) {
    int64_t min = i ? d->smem_configs_bytes[i - 1] + 1 : 0;
    if (!in_range(d->smem_configs_bytes[i], min, d->smem_per_sm_bytes - 1))
      return fail(v, "smem_configs_bytes", i, min, d->smem_per_sm_bytes - 1, false,
                  "ascending, below \"smem_per_sm_bytes\"");
  }
  if (last >= 0 && d->smem_configs_bytes[last] != d->smem_per_sm_bytes)
    return fail(v, "smem_configs_bytes", last, d->smem_per_sm_bytes,
                d->smem_per_sm_bytes, false,
                "the largest is \"smem_per_sm_bytes\"");
  return true;
}

/* A block may have at most the SM's memory, its reserve included; the
 * allocation unit fits the per-block size, so the sweep's shared-memory
 * table has at most OCC_DEV_SMEM_PER_SM_MAX / OCC_DEV_SMEM_UNIT_MIN units
 * and reaches the reserve. */
static bool check_smem(const occ_device *d, occ_device_violation *v) {
  CHECK(v, smem_per_sm_bytes, d->smem_per_sm_bytes, OCC_DEV_SMEM_UNIT_MIN,
        OCC_DEV_SMEM_PER_SM_MAX, false, NULL);
  CHECK(v, reserved_smem_per_block_bytes, d->reserved_smem_per_block_bytes, 0,
        d->smem_per_sm_bytes - OCC_DEV_SMEM_UNIT_MIN, false,
        "below \"smem_per_sm_bytes\"");
  CHECK(v, smem_per_block_optin_bytes, d->smem_per_block_optin_bytes,
        OCC_DEV_SMEM_UNIT_MIN,
        d->smem_per_sm_bytes - d->reserved_smem_per_block_bytes, false,
        "with the reserve, at most \"smem_per_sm_bytes\"");
  CHECK(v, smem_per_block_bytes, d->smem_per_block_bytes, OCC_DEV_SMEM_UNIT_MIN,
        d->smem_per_block_optin_bytes, false,
        "at most \"smem_per_block_optin_bytes\"");
  CHECK(v, smem_alloc_unit_bytes, d->smem_alloc_unit_bytes, OCC_DEV_SMEM_UNIT_MIN,
        d->smem_per_block_bytes, true, "at most \"smem_per_block_bytes\"");
  if (d->l1_smem_bytes != 0)
    CHECK(v, l1_smem_bytes, d->l1_smem_bytes, d->smem_per_sm_bytes,
          OCC_DEV_SMEM_PER_SM_MAX, false, "0, or at least \"smem_per_sm_bytes\"");
  CHECK(v, launch_default_smem_cap_bytes, d->launch_default_smem_cap_bytes, 0,
        d->smem_per_sm_bytes, false, "at most \"smem_per_sm_bytes\"");
  return check_smem_configs(d, v);
}

bool occ_device_check(const occ_device *d, occ_device_violation *v) {
  if (!in_range(d->cc_major, 1, 99))
    return fail(v, "cc_major", -1, 1, 99, false, NULL);
  if (!in_range(d->cc_minor, 0, 9))
    return fail(v, "cc_minor", -1, 0, 9, false, NULL);
  return check_threads(d, v) && check_registers(d, v) && check_smem(d, v);
}

static bool kernel_valid(const occ_device *d, const occ_kernel *k) {
  for (int i = 0; i < 3; i++)
    if (k->block[i] < 1 || k->block[i] > OCC_KERNEL_THREADS_MAX) return false;
  int64_t threads = occ_block_threads(k);
  return threads <= OCC_KERNEL_THREADS_MAX && k->regs_per_thread >= 0 &&
         k->regs_per_thread <= OCC_KERNEL_REGS_MAX && k->smem_static_bytes >= 0 &&
         k->smem_dynamic_bytes >= 0 && k->smem_dynamic_per_thread_bytes >= 0 &&
         k->smem_static_bytes <= OCC_KERNEL_SMEM_MAX &&
         k->smem_dynamic_bytes <= OCC_KERNEL_SMEM_MAX &&
         k->smem_dynamic_per_thread_bytes <= OCC_KERNEL_SMEM_MAX &&
         k->smem_static_bytes + occ_kernel_smem_dynamic_bytes(k) +
                 d->reserved_smem_per_block_bytes <= OCC_KERNEL_SMEM_MAX &&
         k->max_threads_per_block >= 0 &&
         k->barriers >= 0 && k->barriers <= 1024;
}

/* The smallest configuration of at least bytes; false if none is. */
static bool smem_config_align_up(const occ_device *d, int64_t bytes,
                                 int64_t *config) {
  for (int i = 0; i < d->smem_config_count; i++) {
    if (d->smem_configs_bytes[i] >= bytes) {
      *config = d->smem_configs_bytes[i];
      return true;
    }
  }
  return false;
}

static void compute_warps(const occ_device *d, occ_result *r) {
  int max_warps = occ_device_max_warps(d);
  r->max_warps_per_sm = max_warps;
  r->limit_warps = r->threads_per_block > d->max_threads_per_block
                       ? 0
                       : max_warps / r->warps_per_block;
}

/* Products in 64 bits: the contracts bound them far below 2^31 (at most
 * (1024 x 64 + 8192) x (2^16 / 64 + 64) registers), so the int fields
 * hold them exactly. */
static void compute_registers(const occ_device *d, const occ_kernel *k,
                              occ_result *r) {
  int64_t raw = (int64_t)k->regs_per_thread * d->warp_size;
  int64_t per_warp = occ_round_up(raw, d->reg_alloc_unit);
  int64_t checked_warps = occ_round_up(r->warps_per_block, d->reg_block_warp_multiple);
  r->regs_per_warp_raw = (int)raw;
  r->regs_per_warp = (int)per_warp;
  r->regs_per_block = (int)(per_warp * r->warps_per_block);
  r->regs_per_block_checked = (int)(per_warp * checked_warps);
  r->regs_per_sub_partition = d->regs_per_sm / d->sub_partitions;
  r->warps_per_sub_partition = 0;
  r->warps_per_sm_by_regs = 0;
  if (k->regs_per_thread > d->max_regs_per_thread ||
      r->regs_per_block_checked > d->regs_per_block ||
      r->regs_per_block > d->regs_per_block) {
    r->limit_regs = 0;
  } else if (r->regs_per_warp == 0) {
    r->limit_regs = OCC_UNLIMITED;
  } else {
    r->warps_per_sub_partition = r->regs_per_sub_partition / r->regs_per_warp;
    r->warps_per_sm_by_regs = r->warps_per_sub_partition * d->sub_partitions;
    r->limit_regs = r->warps_per_sm_by_regs / r->warps_per_block;
  }
}

void occ_launch_smem_terms(const occ_device *d, const occ_kernel *k,
                           int64_t *preference, int64_t *own) {
  *preference = (int64_t)k->carveout_pct * d->smem_per_sm_bytes / 100;
  *own = occ_round_up(k->smem_static_bytes + occ_kernel_smem_dynamic_bytes(k),
                    d->smem_alloc_unit_bytes);
}

/* Blocks with no shared memory of their own, under the default
 * preference: the SM is configured for the reserves of 32 blocks when a
 * block has fewer than 16 warps, of 16 below 24 warps, else of 8 (at most
 * max_blocks_per_sm; one block's when only one fits). Measured on CC 9.0,
 * whose warps per SM are 64: the thresholds are a quarter and three
 * eighths of them. */
static int64_t config_without_own(const occ_device *d, const occ_result *r) {
  int max_warps = r->max_warps_per_sm, warps = r->warps_per_block;
  int64_t blocks = warps * 4 < max_warps ? 32 : warps * 8 < max_warps * 3 ? 16 : 8;
  if (blocks > d->max_blocks_per_sm) blocks = d->max_blocks_per_sm;
  if (r->active_blocks_per_sm == 1) blocks = 1;
  return blocks * d->reserved_smem_per_block_bytes;
}

/* Blocks with shared memory of their own, under the default preference:
 * room for twice the blocks that fit, at most max_blocks_per_sm less the
 * block's warps, at most the cap, and at least what the blocks that fit
 * need. A single block gets no more; blocks of 29 warps one more, of 30 or
 * more none (measured on CC 9.0, 64 warps an SM: above 45 % of them a
 * block). The bound of max_blocks_per_sm less the warps is exact on CC 9.0
 * for blocks of 2, 3 and 4 warps (30, 29 and 28 blocks; blocks of 1 warp
 * and of 5 or more never reach it there): 4-warp blocks with 16 or 24 B of
 * dynamic memory, as PyTorch's layer norms launch them, get 32 KB, not
 * the 64 KB that 32 blocks would need. */
static int64_t config_with_own(const occ_device *d, const occ_result *r) {
  int64_t blocks = r->active_blocks_per_sm, per = r->smem_per_block_bytes;
  int warps = r->warps_per_block, max_warps = r->max_warps_per_sm;
  int64_t bound = (int64_t)d->max_blocks_per_sm - warps;
  int64_t target = 2 * blocks < bound ? 2 * blocks : bound;
  if (blocks == 1 || warps * 32 >= max_warps * 15)
    target = blocks;
  else if (warps * 64 > max_warps * 28)
    target = blocks + 1;
  int64_t more = target * per;
  if (more > d->launch_default_smem_cap_bytes) more = d->launch_default_smem_cap_bytes;
  return blocks * per > more ? blocks * per : more;
}

/* The configuration the driver chooses where the carveout rule of
 * compute_launch_smem does not say it: under the default preference, and
 * for blocks with no shared memory of their own under any preference (at
 * least the default's choice). Known for the architectures whose default
 * choice was measured (launch_default_smem_cap_bytes > 0); fitted with no
 * miss to 19,992 launchable configurations on an H100 and 34,272 on an
 * H200 (CUPTI's sharedMemoryExecuted, tests/survey/h*-config-survey.csv;
 * ncu's launch__shared_mem_config_size agreed on all 512 asked), and to
 * 7,760 more on an H100 with 0 B to 4 KB of a block's own memory
 * (tests/survey/h100-config-small.csv, h100-config-fine.csv). Residency
 * is unchanged: the configuration holds the blocks that fit. */
bool occ_launch_config_terms(const occ_device *d, const occ_kernel *k,
                             const occ_result *r, int64_t *blocks,
                             int64_t *wanted) {
  if (d->smem_config_count == 0 || d->launch_default_smem_cap_bytes == 0 ||
      d->reserved_smem_per_block_bytes == 0 || r->active_blocks_per_sm == 0)
    return false;
  int64_t preference, own;
  occ_launch_smem_terms(d, k, &preference, &own);
  bool by_default = k->carveout_pct == OCC_CARVEOUT_DEFAULT;
  if (!by_default && own > 0) return false;
  *wanted = own > 0 ? config_with_own(d, r) : config_without_own(d, r);
  *blocks = *wanted / r->smem_per_block_bytes;
  if (!by_default && preference > *wanted) *wanted = preference;
  int64_t largest = d->smem_configs_bytes[d->smem_config_count - 1];
  if (*wanted > largest) *wanted = largest;
  return true;
}

static void compute_launch_config(const occ_device *d, const occ_kernel *k,
                                  occ_result *r) {
  int64_t blocks, wanted;
  if (occ_launch_config_terms(d, k, r, &blocks, &wanted))
    smem_config_align_up(d, wanted, &r->launch_smem_config_bytes);
  r->smem_config_basis = occ_smem_config_basis(d, NULL);
}

/* The configuration the driver sets at launch under a carveout preference
 * (see occ.h): the preference is taken to hold floor(preference / own)
 * blocks, where own is a block's shared memory without the reserve, and
 * the SM is configured for that many whole blocks, reserve included; with
 * none of their own, the reserve does not limit them. Fitted
 * to 3,737 configurations measured on an H100 with no miss; the occupancy
 * API's rule missed 485 of them. */
static void compute_launch_smem(const occ_device *d, const occ_kernel *k,
                                occ_result *r) {
  r->launch_smem_config_bytes = r->smem_config_bytes;
  r->launch_limit_smem = r->limit_smem;
  int64_t reserve = d->reserved_smem_per_block_bytes;
  if (d->smem_config_count == 0 || k->carveout_pct == OCC_CARVEOUT_DEFAULT ||
      reserve == 0 || r->limit_smem == 0 || r->smem_per_block_bytes == 0)
    return;
  int64_t largest = d->smem_configs_bytes[d->smem_config_count - 1];
  int64_t preference, own;
  occ_launch_smem_terms(d, k, &preference, &own);
  if (own == 0) {
    /* Blocks with nothing of their own are not limited at all; which
     * configuration the SM then takes: compute_launch_config. */
    r->launch_smem_config_bytes = 0;
    r->launch_limit_smem = OCC_UNLIMITED;
    return;
  }
  int64_t wanted = preference / own * r->smem_per_block_bytes;
  if (wanted > largest) wanted = largest;
  if (wanted <= r->smem_config_bytes) return;
  smem_config_align_up(d, wanted, &r->launch_smem_config_bytes);
  r->launch_limit_smem =
      (int)(r->launch_smem_config_bytes / r->smem_per_block_bytes);
}

static occ_status compute_smem(const occ_device *d, const occ_kernel *k,
                               occ_result *r) {
  bool has_carveout = d->smem_config_count > 0;
  r->carveout_ignored = !has_carveout && k->carveout_pct != OCC_CARVEOUT_DEFAULT;
  r->smem_preference_bytes = d->smem_per_sm_bytes;
  if (has_carveout) {
    int64_t wanted = k->carveout_pct == OCC_CARVEOUT_DEFAULT
                         ? d->smem_per_sm_bytes
                         : (int64_t)k->carveout_pct * d->smem_per_sm_bytes / 100;
    if (!smem_config_align_up(d, wanted, &r->smem_preference_bytes))
      return OCC_ERR_SMEM_CONFIG;
  }

  int64_t fixed = k->smem_static_bytes + d->reserved_smem_per_block_bytes;
  r->smem_requested_bytes = fixed + occ_kernel_smem_dynamic_bytes(k);
  r->smem_per_block_bytes =
      occ_round_up(r->smem_requested_bytes, d->smem_alloc_unit_bytes);
  /* The kernel is taken to have opted in to exactly its dynamic size, as
   * it must to launch with more than the default per-block cap. */
  r->smem_optin = r->smem_requested_bytes > d->smem_per_block_bytes;
  r->smem_block_cap_bytes =
      (r->smem_optin ? d->smem_per_block_optin_bytes : d->smem_per_block_bytes) +
      d->reserved_smem_per_block_bytes;

  r->smem_config_bytes = 0;
  if (r->smem_per_block_bytes > r->smem_block_cap_bytes) {
    r->limit_smem = 0;
    compute_launch_smem(d, k, r);
    return OCC_OK;
  }
  if (r->smem_preference_bytes >= r->smem_per_block_bytes) {
    r->smem_config_bytes = r->smem_preference_bytes;
  } else if (has_carveout) {
    if (!smem_config_align_up(d, r->smem_per_block_bytes, &r->smem_config_bytes))
      return OCC_ERR_SMEM_CONFIG;
  } else {
    r->smem_config_bytes = d->smem_per_sm_bytes;
  }
  r->limit_smem = r->smem_per_block_bytes > 0
                      ? (int)(r->smem_config_bytes / r->smem_per_block_bytes)
                      : OCC_UNLIMITED;
  compute_launch_smem(d, k, r);
  return OCC_OK;
}

static void compute_barriers(const occ_device *d, const occ_kernel *k,
                             occ_result *r) {
  r->barriers_per_sm = d->barrier_factor * r->limit_blocks;
  if (d->barrier_factor == 0 || k->barriers == 0)
    r->limit_barriers = OCC_UNLIMITED;
  else
    r->limit_barriers = r->barriers_per_sm / k->barriers;
}

static occ_block_reason block_reason(const occ_device *d, const occ_kernel *k,
                                     const occ_result *r) {
  if (r->limit_warps == 0) return OCC_NO_BLOCK_TOO_LARGE;
  if (r->limit_regs == 0)
    return k->regs_per_thread > d->max_regs_per_thread ? OCC_NO_REGS_PER_THREAD
                                                      : OCC_NO_REGS_PER_BLOCK;
  if (r->limit_smem == 0) return OCC_NO_SMEM_PER_BLOCK;
  return OCC_NO_BARRIERS;
}

static void compute_active(const occ_device *d, const occ_kernel *k,
                           occ_result *r) {
  /* Written out rather than looped: this runs once per evaluation. */
  int lw = r->limit_warps, lb = r->limit_blocks, lr = r->limit_regs;
  int ls = r->limit_smem, lbar = r->limit_barriers;
  int active = min_int(min_int(min_int(lw, lb), min_int(lr, ls)), lbar);
  r->limited_by = (lw == active ? OCC_LIMITER_WARPS : 0u) |
                  (lb == active ? OCC_LIMITER_BLOCKS : 0u) |
                  (lr == active ? OCC_LIMITER_REGISTERS : 0u) |
                  (ls == active ? OCC_LIMITER_SHARED_MEMORY : 0u) |
                  (lbar == active ? OCC_LIMITER_BARRIERS : 0u);
  r->active_blocks_per_sm = active;
  r->launch_active_blocks_per_sm =
      r->launch_limit_smem == ls
          ? active
          : min_int(min_int(min_int(lw, lb), min_int(lr, r->launch_limit_smem)),
                    lbar);
  r->active_warps_per_sm = active * r->warps_per_block;
  r->active_threads_per_sm = active * r->threads_per_block;
  r->occupancy = (double)r->active_warps_per_sm / r->max_warps_per_sm;
  r->launchable = active > 0;
  r->reason = active > 0 ? OCC_CAN_LAUNCH : block_reason(d, k, r);
  compute_launch_config(d, k, r);
}

occ_status occ_compute(const occ_device *device, const occ_kernel *kernel,
                       occ_result *result) {
  if (!occ_device_check(device, NULL)) return OCC_ERR_INVALID_DEVICE;
  if (!kernel_valid(device, kernel)) return OCC_ERR_INVALID_KERNEL;
  if (kernel->carveout_pct != OCC_CARVEOUT_DEFAULT &&
      (kernel->carveout_pct < 0 || kernel->carveout_pct > 100))
    return OCC_ERR_CARVEOUT;

  occ_result *r = result;
  memset(r, 0, sizeof *r);
  r->threads_per_block = (int)occ_block_threads(kernel);
  r->warps_per_block = (int)occ_ceil_div(r->threads_per_block, device->warp_size);
  r->inactive_threads =
      r->warps_per_block * device->warp_size - r->threads_per_block;

  compute_warps(device, r);
  compute_registers(device, kernel, r);
  r->limit_blocks = device->max_blocks_per_sm;
  occ_status status = compute_smem(device, kernel, r);
  if (status != OCC_OK) return status;
  compute_barriers(device, kernel, r);
  compute_active(device, kernel, r);
  return OCC_OK;
}

void occ_waves_compute(const occ_device *device, const occ_result *result,
                       int64_t grid_blocks, occ_waves *waves) {
  waves->grid_blocks = grid_blocks;
  waves->blocks_per_wave =
      (int64_t)result->active_blocks_per_sm * device->sm_count;
  if (waves->blocks_per_wave <= 0) {
    waves->full_waves = waves->tail_blocks = 0;
    waves->waves = 0.0;
    return;
  }
  waves->full_waves = grid_blocks / waves->blocks_per_wave;
  waves->tail_blocks = grid_blocks % waves->blocks_per_wave;
  waves->waves = (double)grid_blocks / (double)waves->blocks_per_wave;
}

/* Records a block size reaching active threads per SM; sizes come largest
 * first, so the list is kept descending and reversed at the end. Only a
 * strictly higher occupancy replaces the choice, so of equally good sizes
 * the first tried, the largest, is kept. */
static void note_block_size(occ_block_choice *c, int size, const occ_result *r,
                            int *sizes, int max_sizes, int *count) {
  if (r->active_threads_per_sm == 0 ||
      r->active_threads_per_sm < c->active_threads_per_sm)
    return;
  if (r->active_threads_per_sm > c->active_threads_per_sm) {
    c->block_size = size;
    c->active_blocks_per_sm = r->active_blocks_per_sm;
    c->active_threads_per_sm = r->active_threads_per_sm;
    *count = 0;
  }
  c->smallest_block_size = size;
  if (*count < max_sizes) sizes[(*count)++] = size;
}

/* A size whose shared memory is past what occ_compute takes cannot launch
 * on any device: it holds no block (cuda_occupancy.h answers 0 for it). */
static bool smem_in_bound(const occ_device *d, const occ_kernel *k) {
  int64_t threads = occ_block_threads(k);
  int64_t room = OCC_KERNEL_SMEM_MAX - d->reserved_smem_per_block_bytes -
                 k->smem_static_bytes - k->smem_dynamic_bytes;
  return k->smem_dynamic_per_thread_bytes == 0 ||
         (room >= 0 && k->smem_dynamic_per_thread_bytes <= room / threads);
}

occ_status occ_best_block_sizes(const occ_device *device,
                                const occ_kernel *kernel,
                                occ_block_choice *choice, int *sizes,
                                int max_sizes, int *count) {
  occ_kernel k = *kernel;
  int step = device->warp_size;
  memset(choice, 0, sizeof *choice);
  *count = 0;
  if (!occ_device_check(device, NULL)) return OCC_ERR_INVALID_DEVICE;
  int limit = device->max_threads_per_block;
  if (kernel->max_threads_per_block > 0 && kernel->max_threads_per_block < limit)
    limit = kernel->max_threads_per_block;
  choice->max_threads_per_block = limit;
  for (int aligned = (int)occ_round_up(limit, step); aligned > 0; aligned -= step) {
    k.block[0] = min_int(limit, aligned);
    k.block[1] = k.block[2] = 1;
    if (!smem_in_bound(device, &k)) continue;
    occ_result r;
    occ_status status = occ_compute(device, &k, &r);
    if (status != OCC_OK) return status;
    note_block_size(choice, k.block[0], &r, sizes, max_sizes, count);
  }
  for (int i = 0, j = *count - 1; i < j; i++, j--) {
    int t = sizes[i];
    sizes[i] = sizes[j];
    sizes[j] = t;
  }
  if (device->sm_count > 0)
    choice->min_grid_size =
        (int64_t)choice->active_blocks_per_sm * device->sm_count;
  return OCC_OK;
}

occ_status occ_best_block_size(const occ_device *device,
                               const occ_kernel *kernel,
                               occ_block_choice *choice) {
  int count;
  return occ_best_block_sizes(device, kernel, choice, NULL, 0, &count);
}

occ_figure_basis occ_smem_config_basis(const occ_device *d, const char **why) {
  const char *phrase;
  occ_figure_basis basis;
  if (d->smem_config_count == 0) {
    basis = OCC_FIGURE_DERIVED;
    phrase = "the SM's one shared-memory size";
  } else if (d->launch_default_smem_cap_bytes > 0) {
    basis = OCC_FIGURE_DERIVED;
    phrase = "the driver's rule, surveyed on this architecture";
  } else {
    basis = OCC_FIGURE_ASSUMED;
    phrase = "the driver's choice was never surveyed on this architecture";
  }
  if (why) *why = phrase;
  return basis;
}
