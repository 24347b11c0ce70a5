/* occ.c - the occupancy calculator core (see occ.h for the contract). */
#include "core/occ.h"

#include <stddef.h>
#include <string.h>

static const char *const limiter_names[OCC_LIMITER_COUNT] = {
    "warps", "blocks", "registers", "shared_memory", "barriers"};

const char *occ_limiter_name(int index) {
  if (index < 0 || index >= OCC_LIMITER_COUNT) return NULL;
  return limiter_names[index];
}

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

const char *occ_block_reason_text(occ_block_reason reason) {
  switch (reason) {
  case OCC_CAN_LAUNCH: return "can launch";
  case OCC_NO_BLOCK_TOO_LARGE:
    return "the block has more threads than the device allows per block";
  case OCC_NO_REGS_PER_THREAD:
    return "more registers per thread than the architecture allows";
  case OCC_NO_REGS_PER_BLOCK:
    return "the block needs more registers than one block may have";
  case OCC_NO_SMEM_PER_BLOCK:
    return "the block needs more shared memory than one block may have";
  case OCC_NO_BARRIERS:
    return "the kernel uses more barriers than an SM has";
  }
  return "unknown";
}

void occ_kernel_init(occ_kernel *kernel) {
  kernel->block[0] = kernel->block[1] = kernel->block[2] = 1;
  kernel->regs_per_thread = 0;
  kernel->smem_static_bytes = 0;
  kernel->smem_dynamic_bytes = 0;
  kernel->barriers = 1;
  kernel->carveout_pct = OCC_CARVEOUT_DEFAULT;
}

static int div_round_up(int x, int y) { return (x + y - 1) / y; }
static int round_up(int x, int y) { return y * div_round_up(x, y); }
static int64_t round_up64(int64_t x, int64_t y) { return (x + y - 1) / y * y; }
static int min_int(int a, int b) { return a < b ? a : b; }

static bool device_valid(const occ_device *d) {
  if (d->warp_size <= 0 || d->max_threads_per_block <= 0 ||
      d->max_threads_per_sm < d->warp_size || d->max_blocks_per_sm <= 0 ||
      d->regs_per_sm <= 0 || d->regs_per_block <= 0 ||
      d->max_regs_per_thread <= 0 || d->reg_alloc_unit <= 0 ||
      d->sub_partitions <= 0 || d->reg_block_warp_multiple <= 0 ||
      d->smem_per_sm_bytes <= 0 || d->smem_per_block_bytes <= 0 ||
      d->smem_per_block_optin_bytes < d->smem_per_block_bytes ||
      d->reserved_smem_per_block_bytes < 0 || d->smem_alloc_unit_bytes <= 0 ||
      d->smem_config_count < 0 || d->smem_config_count > OCC_MAX_SMEM_CONFIGS ||
      d->barrier_factor < 0)
    return false;
  for (int i = 1; i < d->smem_config_count; i++)
    if (d->smem_configs_bytes[i] <= d->smem_configs_bytes[i - 1]) return false;
  return true;
}

/* Largest shared-memory request the core accepts: the reference rounds in
 * int, so stay well inside it. */
#define SMEM_INPUT_MAX ((int64_t)1 << 30)

static bool kernel_valid(const occ_device *d, const occ_kernel *k) {
  for (int i = 0; i < 3; i++)
    if (k->block[i] < 1 || k->block[i] > 1 << 20) return false;
  int64_t threads = (int64_t)k->block[0] * k->block[1] * k->block[2];
  return threads <= 1 << 20 && k->regs_per_thread >= 0 &&
         k->regs_per_thread <= 1024 && k->smem_static_bytes >= 0 &&
         k->smem_dynamic_bytes >= 0 &&
         k->smem_static_bytes + k->smem_dynamic_bytes +
                 d->reserved_smem_per_block_bytes <= SMEM_INPUT_MAX &&
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
  int max_warps = d->max_threads_per_sm / d->warp_size;
  r->max_warps_per_sm = max_warps;
  r->limit_warps = r->threads_per_block > d->max_threads_per_block
                       ? 0
                       : max_warps / r->warps_per_block;
}

static void compute_registers(const occ_device *d, const occ_kernel *k,
                              occ_result *r) {
  r->regs_per_warp_raw = k->regs_per_thread * d->warp_size;
  r->regs_per_warp = round_up(r->regs_per_warp_raw, d->reg_alloc_unit);
  r->regs_per_block = r->regs_per_warp * r->warps_per_block;
  r->regs_per_block_checked =
      r->regs_per_warp * round_up(r->warps_per_block, d->reg_block_warp_multiple);
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
  *preference = k->carveout_pct * d->smem_per_sm_bytes / 100;
  *own = round_up64(k->smem_static_bytes + k->smem_dynamic_bytes,
                    d->smem_alloc_unit_bytes);
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
     * configuration the SM then takes is not known from residency. */
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
                         : k->carveout_pct * d->smem_per_sm_bytes / 100;
    if (!smem_config_align_up(d, wanted, &r->smem_preference_bytes))
      return OCC_ERR_SMEM_CONFIG;
  }

  int64_t fixed = k->smem_static_bytes + d->reserved_smem_per_block_bytes;
  r->smem_requested_bytes = fixed + k->smem_dynamic_bytes;
  r->smem_per_block_bytes =
      round_up64(r->smem_requested_bytes, d->smem_alloc_unit_bytes);
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

int occ_result_limit(const occ_result *r, int index) {
  switch (index) {
  case 0: return r->limit_warps;
  case 1: return r->limit_blocks;
  case 2: return r->limit_regs;
  case 3: return r->limit_smem;
  case 4: return r->limit_barriers;
  }
  return OCC_UNLIMITED;
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
}

occ_status occ_compute(const occ_device *device, const occ_kernel *kernel,
                       occ_result *result) {
  if (!device_valid(device)) return OCC_ERR_INVALID_DEVICE;
  if (!kernel_valid(device, kernel)) return OCC_ERR_INVALID_KERNEL;
  if (kernel->carveout_pct != OCC_CARVEOUT_DEFAULT &&
      (kernel->carveout_pct < 0 || kernel->carveout_pct > 100))
    return OCC_ERR_CARVEOUT;

  occ_result *r = result;
  memset(r, 0, sizeof *r);
  r->threads_per_block = kernel->block[0] * kernel->block[1] * kernel->block[2];
  r->warps_per_block = div_round_up(r->threads_per_block, device->warp_size);
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

occ_status occ_best_block_size(const occ_device *device,
                               const occ_kernel *kernel,
                               occ_block_choice *choice) {
  occ_kernel k = *kernel;
  int step = device->warp_size > 0 ? device->warp_size : 1;
  choice->block_size = choice->smallest_block_size = 0;
  choice->active_blocks_per_sm = choice->active_threads_per_sm = 0;
  for (int aligned = round_up(device->max_threads_per_block, step);
       aligned > 0; aligned -= step) {
    k.block[0] = min_int(device->max_threads_per_block, aligned);
    k.block[1] = k.block[2] = 1;
    occ_result r;
    occ_status status = occ_compute(device, &k, &r);
    if (status != OCC_OK) return status;
    if (r.active_threads_per_sm > choice->active_threads_per_sm) {
      choice->block_size = k.block[0];
      choice->active_blocks_per_sm = r.active_blocks_per_sm;
      choice->active_threads_per_sm = r.active_threads_per_sm;
    }
    if (r.active_threads_per_sm == choice->active_threads_per_sm &&
        r.active_threads_per_sm > 0)
      choice->smallest_block_size = k.block[0];
  }
  choice->min_grid_size =
      (int64_t)choice->active_blocks_per_sm * device->sm_count;
  return OCC_OK;
}

static int log2_exact(int64_t v) {
  int shift = 0;
  while (shift < 62 && ((int64_t)1 << shift) < v) shift++;
  return ((int64_t)1 << shift) == v ? shift : -1;
}

/* The tables need power-of-two units and small blocks; other devices (none
 * known) are served by occ_compute on every evaluation. */
static bool tabulable(const occ_device *d) {
  int multiple = d->reg_block_warp_multiple;
  /* A block's own shared memory is then units minus the reserve. */
  return log2_exact(d->warp_size) >= 0 && log2_exact(d->smem_alloc_unit_bytes) >= 0 &&
         d->reserved_smem_per_block_bytes % d->smem_alloc_unit_bytes == 0 &&
         (multiple & (multiple - 1)) == 0 &&
         div_round_up(d->max_threads_per_block, d->warp_size) <= OCC_PREP_MAX_WARPS;
}

static void tabulate(occ_prepared *p) {
  const occ_device *d = &p->device;
  occ_kernel k;
  occ_kernel_init(&k);
  k.carveout_pct = p->carveout_pct;
  occ_result r;
  for (int w = 1; w <= p->block_warps_max; w++) {
    r.threads_per_block = w * d->warp_size;
    r.warps_per_block = w;
    compute_warps(d, &r);
    p->limit_warps[w] = (int16_t)r.limit_warps;
    for (int regs = 0; regs < OCC_PREP_MAX_REGS; regs++) {
      k.regs_per_thread = regs;
      compute_registers(d, &k, &r);
      p->limit_regs[regs][w] = (int16_t)(r.limit_regs == OCC_UNLIMITED ? -1 : r.limit_regs);
      p->regs_per_warp[regs] = r.regs_per_warp;
      if (w == 1) p->warps_per_sub_partition[regs] = (int16_t)r.warps_per_sub_partition;
    }
  }
  k.regs_per_thread = 0;
  for (int u = 0; u < OCC_PREP_SMEM_UNITS; u++) {
    k.smem_static_bytes = 0;
    k.smem_dynamic_bytes = ((int64_t)u << p->smem_unit_shift) - d->reserved_smem_per_block_bytes;
    if (k.smem_dynamic_bytes < 0) k.smem_dynamic_bytes = 0;
    compute_smem(d, &k, &r);
    p->limit_smem[u] = r.limit_smem;
    p->smem_config[u] = r.smem_config_bytes;
    p->launch_limit_smem[u] = r.launch_limit_smem;
    p->launch_smem_config[u] = r.launch_smem_config_bytes;
  }
  r.limit_blocks = d->max_blocks_per_sm;
  for (int b = 0; b <= OCC_PREP_MAX_BARRIERS; b++) {
    k.barriers = b;
    compute_barriers(d, &k, &r);
    p->limit_barriers[b] = r.limit_barriers;
  }
}

occ_status occ_prepare(const occ_device *device, int carveout_pct,
                       occ_prepared *prepared) {
  occ_kernel k;
  occ_kernel_init(&k);
  k.carveout_pct = carveout_pct;
  occ_status status = occ_compute(device, &k, &prepared->base);
  if (status != OCC_OK) return status;
  prepared->device = *device;
  prepared->carveout_pct = carveout_pct;
  prepared->tabulated = tabulable(device);
  if (!prepared->tabulated) return OCC_OK;
  prepared->warp_shift = log2_exact(device->warp_size);
  prepared->smem_unit_shift = log2_exact(device->smem_alloc_unit_bytes);
  prepared->block_warps_max = div_round_up(device->max_threads_per_block, device->warp_size);
  prepared->reg_block_warp_mask = device->reg_block_warp_multiple - 1;
  tabulate(prepared);
  return OCC_OK;
}

/* Fills what depends on the block shape and registers; false when the
 * kernel is outside the tables. */
static bool fast_warps_regs(const occ_prepared *p, const occ_kernel *k, occ_result *r) {
  if (k->block[0] < 1 || k->block[1] < 1 || k->block[2] < 1) return false;
  int64_t threads = (int64_t)k->block[0] * k->block[1] * k->block[2];
  if ( threads > p->device.max_threads_per_block ||
      (unsigned)k->regs_per_thread >= OCC_PREP_MAX_REGS)
    return false;
  int warps = (int)((threads + p->device.warp_size - 1) >> p->warp_shift);
  int regs = k->regs_per_thread;
  r->threads_per_block = (int)threads;
  r->warps_per_block = warps;
  r->inactive_threads = (warps << p->warp_shift) - (int)threads;
  r->limit_warps = p->limit_warps[warps];
  r->regs_per_warp_raw = regs << p->warp_shift;
  r->regs_per_warp = p->regs_per_warp[regs];
  r->regs_per_block = r->regs_per_warp * warps;
  r->regs_per_block_checked =
      r->regs_per_warp * ((warps + p->reg_block_warp_mask) & ~p->reg_block_warp_mask);
  int limit = p->limit_regs[regs][warps];
  r->limit_regs = limit < 0 ? OCC_UNLIMITED : limit;
  /* As compute_registers: the per-SM count exists once the block fits. */
  bool fits = regs <= p->device.max_regs_per_thread &&
              r->regs_per_block_checked <= p->device.regs_per_block &&
              r->regs_per_block <= p->device.regs_per_block && r->regs_per_warp > 0;
  r->warps_per_sub_partition = fits ? p->warps_per_sub_partition[regs] : 0;
  r->warps_per_sm_by_regs = r->warps_per_sub_partition * p->device.sub_partitions;
  return true;
}

static bool fast_smem_barriers(const occ_prepared *p, const occ_kernel *k, occ_result *r) {
  const occ_device *d = &p->device;
  if ((unsigned)k->barriers > OCC_PREP_MAX_BARRIERS || k->smem_static_bytes < 0 ||
      k->smem_dynamic_bytes < 0)
    return false;
  int64_t requested = k->smem_static_bytes + k->smem_dynamic_bytes +
                      d->reserved_smem_per_block_bytes;
  int64_t unit = d->smem_alloc_unit_bytes;
  int64_t per_block = (requested + unit - 1) & ~(unit - 1);
  int64_t units = per_block >> p->smem_unit_shift;
  if (units >= OCC_PREP_SMEM_UNITS) return false;
  r->smem_requested_bytes = requested;
  r->smem_per_block_bytes = per_block;
  r->smem_optin = requested > d->smem_per_block_bytes;
  r->smem_block_cap_bytes = (r->smem_optin ? d->smem_per_block_optin_bytes
                                           : d->smem_per_block_bytes) +
                            d->reserved_smem_per_block_bytes;
  r->limit_smem = p->limit_smem[units];
  r->smem_config_bytes = p->smem_config[units];
  r->launch_limit_smem = p->launch_limit_smem[units];
  r->launch_smem_config_bytes = p->launch_smem_config[units];
  r->limit_barriers = p->limit_barriers[k->barriers];
  return true;
}

occ_status occ_compute_prepared(const occ_prepared *p, const occ_kernel *kernel,
                                occ_result *result) {
  if (!p->tabulated || kernel->carveout_pct != p->carveout_pct)
    return occ_compute(&p->device, kernel, result);
  /* The fields no kernel changes, set one by one: cheaper than copying
   * the whole base result. */
  result->regs_per_sub_partition = p->base.regs_per_sub_partition;
  result->smem_preference_bytes = p->base.smem_preference_bytes;
  result->carveout_ignored = p->base.carveout_ignored;
  result->barriers_per_sm = p->base.barriers_per_sm;
  result->limit_blocks = p->base.limit_blocks;
  result->max_warps_per_sm = p->base.max_warps_per_sm;
  if (!fast_warps_regs(p, kernel, result) || !fast_smem_barriers(p, kernel, result))
    return occ_compute(&p->device, kernel, result);
  compute_active(&p->device, kernel, result);
  return OCC_OK;
}
