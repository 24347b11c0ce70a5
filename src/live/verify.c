/* verify.c - the live verifier's decisions (see verify.h). */
#include "live/verify.h"

#include <stdio.h>
#include <string.h>

static int block_threads(const occ_kernel *k) {
  return k->block[0] * k->block[1] * k->block[2];
}

/* The probe reproduces the requested resources as it can: the registers
 * the JIT compiler gave it, every byte of shared memory as dynamic, the
 * same thread count in one dimension, and its one barrier. */
static void probe_kernel(const occ_kernel *requested, const occ_probe_run *run,
                         occ_kernel *probe) {
  *probe = *requested;
  probe->block[0] = block_threads(requested);
  probe->block[1] = probe->block[2] = 1;
  probe->regs_per_thread = run->regs_per_thread;
  probe->smem_static_bytes = run->smem_static_bytes;
  probe->smem_dynamic_bytes =
      requested->smem_static_bytes + requested->smem_dynamic_bytes;
  probe->barriers = 1;
}

occ_gpu_status occ_verify_kernel(occ_gpu *gpu, const occ_kernel *kernel,
                                 const occ_verify_options *options,
                                 occ_verify *v, char *err, size_t err_size) {
  memset(v, 0, sizeof *v);
  v->requested = *kernel;
  occ_probe_config cfg = {
      .regs_per_thread = kernel->regs_per_thread,
      .block_threads = block_threads(kernel),
      .smem_dynamic_bytes = kernel->smem_static_bytes + kernel->smem_dynamic_bytes,
      .carveout_pct = kernel->carveout_pct,
      .counter = options->counter,
      .deadline_s = options->deadline_s};
  /* The probe as asked for, predicted before the launch so that the grid
   * covers the blocks expected at launch; predicted again below with the
   * registers the JIT compiler gave. */
  const occ_device *d = occ_gpu_device(gpu);
  occ_probe_run asked = {.regs_per_thread = kernel->regs_per_thread};
  probe_kernel(kernel, &asked, &v->probe);
  if (occ_compute(d, &v->probe, &v->prediction) == OCC_OK)
    cfg.expected_blocks_per_sm = v->prediction.launch_active_blocks_per_sm;
  occ_gpu_status s = occ_gpu_probe(gpu, &cfg, &v->run, err, err_size);
  if (s != OCC_GPU_OK) return s;
  probe_kernel(kernel, &v->run, &v->probe);
  v->regs_exact = v->run.regs_per_thread == kernel->regs_per_thread;
  occ_status st = occ_compute(d, &v->probe, &v->prediction);
  if (st != OCC_OK) {
    snprintf(err, err_size, "the probe's configuration: %s", occ_strerror(st));
    return OCC_GPU_ERR_DEVICE;
  }
  occ_verify_judge(d, v);
  return OCC_GPU_OK;
}

/* splitmix64: small, seedable, the same on every platform. */
static uint64_t next_random(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static int64_t uniform(uint64_t *state, int64_t lo, int64_t hi) {
  return lo + (int64_t)(next_random(state) % (uint64_t)(hi - lo + 1));
}

static void random_smem(const occ_device *d, uint64_t *state, occ_kernel *k) {
  int64_t cap = d->smem_per_block_optin_bytes;
  int64_t total;
  switch (uniform(state, 0, 3)) {
  case 0: total = 0; break;
  case 1: total = uniform(state, 1, d->smem_per_block_bytes); break;
  default: total = uniform(state, 0, cap); break;
  }
  /* Static shared memory cannot exceed the non-opt-in cap. */
  int64_t static_max = total < d->smem_per_block_bytes ? total
                                                       : d->smem_per_block_bytes;
  k->smem_static_bytes = uniform(state, 0, static_max);
  k->smem_dynamic_bytes = total - k->smem_static_bytes;
}

void occ_sweep_case(const occ_device *d, uint64_t *state, occ_kernel *k) {
  for (;;) {
    occ_kernel_init(k);
    k->regs_per_thread = (int)uniform(state, 24, 255);
    /* Half the blocks are whole warps, as most kernels' are. */
    k->block[0] = uniform(state, 0, 1)
                      ? (int)uniform(state, 1, d->max_threads_per_block / 32) * 32
                      : (int)uniform(state, 1, d->max_threads_per_block);
    random_smem(d, state, k);
    k->carveout_pct =
        uniform(state, 0, 1) ? OCC_CARVEOUT_DEFAULT : (int)uniform(state, 0, 100);
    occ_result r;
    if (occ_compute(d, k, &r) == OCC_OK && r.active_blocks_per_sm > 0) return;
  }
}

static double absd(double x) { return x < 0 ? -x : x; }

static void tally(occ_sweep_summary *s, const occ_verify *v) {
  s->cases++;
  s->agree += v->agree;
  for (int i = 0; i < OCC_CHECK_COUNT; i++)
    s->checks[i] += ((v->made & ~v->failed) >> i) & 1;
  s->regs_exact += v->regs_exact;
  s->api_is_measured += v->run.measured_min == v->run.api_blocks_per_sm &&
                        v->run.measured_max == v->run.api_blocks_per_sm;
  s->launch_differs += v->prediction.launch_active_blocks_per_sm !=
                       v->prediction.active_blocks_per_sm;
  if (v->requested.carveout_pct != OCC_CARVEOUT_DEFAULT) {
    s->with_carveout++;
    s->with_carveout_agree += v->agree;
  }
  s->jit_compiles += !v->run.jit_cached;
  /* Achieved occupancy is bounded by what the SM holds at launch. */
  double theoretical = occ_launch_occupancy(&v->prediction);
  double diff = absd(v->run.achieved_timeline - theoretical);
  if (diff > s->timeline_max_diff) s->timeline_max_diff = diff;
  if (v->run.counter_ok) {
    s->counter_ok++;
    diff = absd(v->run.achieved_counter - theoretical);
    if (diff > s->counter_max_diff) s->counter_max_diff = diff;
  }
  s->jit_ms += v->run.jit_ms;
  s->launch_ms += v->run.launch_ms;
  s->counter_ms += v->run.counter_ms;
  s->coop_ms += v->run.coop_ms;
}

/* The sweep's cases are drawn from the seed alone, so their register caps
 * are known before the first launch: the probe is compiled for all of
 * them at once, in parallel (occ_gpu_probe_prepare), instead of one JIT
 * wait per new cap (219 of the 43 s of a 1000-case sweep on the H100).
 * The compile time and count go to the summary's JIT figures. */
static occ_gpu_status prepare_sweep(occ_gpu *gpu, int n, uint64_t seed,
                                    occ_sweep_summary *summary, char *err,
                                    size_t err_size) {
  int caps[256], count = 0;
  bool seen[256] = {false};
  uint64_t state = seed;
  for (int i = 0; i < n && count < 256; i++) {
    occ_kernel k;
    occ_sweep_case(occ_gpu_device(gpu), &state, &k);
    int cap = k.regs_per_thread;
    if (cap >= 0 && cap < 256 && !seen[cap]) caps[count++] = cap;
    if (cap >= 0 && cap < 256) seen[cap] = true;
  }
  double t0 = occ_gpu_now_s();
  char why[256];
  int compiled;
  occ_gpu_status s = occ_gpu_probe_prepare(gpu, caps, count, &compiled, why,
                                           sizeof why, err, err_size);
  summary->jit_compiles += compiled;
  summary->jit_ms += (occ_gpu_now_s() - t0) * 1e3;
  return s;
}

occ_gpu_status occ_verify_sweep(occ_gpu *gpu, int n, uint64_t seed,
                                const occ_verify_options *options,
                                occ_sweep_fn fn, void *context,
                                occ_sweep_summary *summary, char *err,
                                size_t err_size) {
  memset(summary, 0, sizeof *summary);
  double t0 = occ_gpu_now_s();
  occ_gpu_status s = prepare_sweep(gpu, n, seed, summary, err, err_size);
  if (s != OCC_GPU_OK) return s;
  uint64_t state = seed;
  occ_verify v;
  for (int i = 0; i < n; i++) {
    occ_kernel k;
    occ_sweep_case(occ_gpu_device(gpu), &state, &k);
    s = occ_verify_kernel(gpu, &k, options, &v, err, err_size);
    if (s != OCC_GPU_OK) {
      summary->total_ms = (occ_gpu_now_s() - t0) * 1e3;
      return s;
    }
    tally(summary, &v);
    if (fn) fn(context, i, &v);
  }
  summary->total_ms = (occ_gpu_now_s() - t0) * 1e3;
  return OCC_GPU_OK;
}

/* --- Thread block clusters --- */

/* The cluster probe: one dimension of the requested threads, all its
 * shared memory dynamic, regs_per_thread registers. */
static void cluster_probe_kernel(const occ_kernel *kernel,
                                 const occ_cluster_probe_config *cfg,
                                 int regs_per_thread, occ_kernel *probe) {
  occ_kernel_init(probe);
  probe->regs_per_thread = regs_per_thread;
  probe->block[0] = cfg->probe.block_threads;
  probe->smem_dynamic_bytes = cfg->probe.smem_dynamic_bytes;
  probe->carveout_pct = kernel->carveout_pct;
}

occ_gpu_status occ_verify_cluster(occ_gpu *gpu, const occ_kernel *kernel,
                                  const occ_cluster *cluster,
                                  const occ_verify_options *options,
                                  occ_cluster_verify *v, char *err,
                                  size_t err_size) {
  memset(v, 0, sizeof *v);
  v->requested = *kernel;
  v->cluster = *cluster;
  const occ_device *d = occ_gpu_device(gpu);
  occ_cluster_status cs = occ_cluster_check(d, cluster);
  if (cs != OCC_CLUSTER_OK) {
    snprintf(err, err_size, "cluster %dx%dx%d: %s", cluster->dim[0],
             cluster->dim[1], cluster->dim[2], occ_cluster_strerror(cs));
    return OCC_GPU_ERR_DEVICE;
  }
  occ_cluster_probe_config cfg = {
      .probe = {.regs_per_thread = kernel->regs_per_thread,
                .block_threads = block_threads(kernel),
                .smem_dynamic_bytes =
                    kernel->smem_static_bytes + kernel->smem_dynamic_bytes,
                .carveout_pct = kernel->carveout_pct,
                .deadline_s = options->deadline_s},
      .cluster_size = (int)occ_cluster_size(cluster),
      .non_portable = cluster->non_portable};
  /* The probe as asked for, predicted before the launch so that the grid
   * covers the clusters expected at launch; predicted again below with
   * the registers the JIT compiler gave. */
  cluster_probe_kernel(kernel, &cfg, kernel->regs_per_thread, &v->probe);
  int64_t expected;
  if (occ_verify_cluster_predict(d, v) == OCC_OK &&
      occ_verify_cluster_expected(v, &expected))
    cfg.expected_clusters = expected;
  occ_gpu_status s = occ_gpu_cluster_probe(gpu, &cfg, &v->run, err, err_size);
  if (s != OCC_GPU_OK) return s;
  cluster_probe_kernel(kernel, &cfg, v->run.regs_per_thread, &v->probe);
  occ_status st = occ_verify_cluster_predict(d, v);
  if (st != OCC_OK) {
    snprintf(err, err_size, "the probe's configuration: %s", occ_strerror(st));
    return OCC_GPU_ERR_DEVICE;
  }
  occ_verify_cluster_judge(v);
  return OCC_GPU_OK;
}

void occ_sweep_cluster_case(const occ_device *d, uint64_t *state,
                            occ_kernel *kernel, occ_cluster *cluster) {
  occ_sweep_case(d, state, kernel);
  cluster->dim[0] = (int)uniform(state, 1, OCC_CLUSTER_NON_PORTABLE_MAX);
  cluster->dim[1] = cluster->dim[2] = 1;
  cluster->non_portable = cluster->dim[0] > OCC_CLUSTER_PORTABLE_MAX;
}
