/* gpu_device.c - a device opened: its properties read from the driver over the
 * database's rules, its context and the probe's buffers (see gpu.h for the
 * contract, gpu_impl.h for what the files share). */
#include "live/gpu_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static occ_gpu_status read_attr(int *value, CUdevice_attribute attr,
                                CUdevice dev, char *err, size_t err_size) {
  DRV(occ_drv.cuDeviceGetAttribute(value, attr, dev));
  return OCC_GPU_OK;
}

#define ATTR(field, attr)                                                   \
  do {                                                                      \
    int v_;                                                                 \
    occ_gpu_status s_ = read_attr(&v_, attr, dev, err, err_size);           \
    if (s_ != OCC_GPU_OK) return s_;                                        \
    (field) = v_;                                                           \
  } while (0)

/* The thread block cluster layout is measured per board (make
 * cluster-survey), so the device gets the one of the database's board of
 * its name, and only if that board has its SM count and capability;
 * otherwise it has none (unknown, never guessed). */
static void board_cluster_layout(const occ_gpudb *db, const char *name,
                                 occ_device *d) {
  occ_device board;
  char near[256];
  d->cluster_domain_count = 0;
  d->cluster_max_blocks_per_sm = 0;
  if (occ_gpudb_find_gpu(db, name, &board, near, sizeof near) != 0 ||
      board.sm_count != d->sm_count || board.cc_major != d->cc_major ||
      board.cc_minor != d->cc_minor)
    return;
  d->cluster_domain_count = board.cluster_domain_count;
  memcpy(d->cluster_domain_sms, board.cluster_domain_sms,
         sizeof d->cluster_domain_sms);
  d->cluster_max_blocks_per_sm = board.cluster_max_blocks_per_sm;
}

/* The database's entry for the capability gives what the driver does not
 * report (allocation units, carveout configurations, the barrier rule);
 * every limit the driver reports overwrites it. */
static occ_gpu_status read_device(CUdevice dev, int ordinal,
                                  const occ_gpudb *db, occ_device *d,
                                  bool *coop, char *err, size_t err_size) {
  int major, minor, coop_attr;
  ATTR(major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  ATTR(minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  char name[256];
  DRV(occ_drv.cuDeviceGetName(name, (int)sizeof name, dev));
  char near[64];
  if (occ_gpudb_find_cc(db, major, minor, d, near, sizeof near) != 0) {
    snprintf(err, err_size, "device %d (%s) has compute capability %d.%d, "
             "which is not in the database (nearest: %s)", ordinal, name,
             major, minor, near);
    return OCC_GPU_ERR_DEVICE;
  }
  snprintf(d->name, sizeof d->name, "%.*s", OCC_NAME_MAX - 1, name);
  d->source = "driver";
  ATTR(d->sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  ATTR(d->warp_size, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  ATTR(d->max_threads_per_block, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  ATTR(d->max_block_dim[0], CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
  ATTR(d->max_block_dim[1], CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
  ATTR(d->max_block_dim[2], CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
  ATTR(d->max_threads_per_sm,
       CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  ATTR(d->max_blocks_per_sm, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
  ATTR(d->regs_per_sm, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
  ATTR(d->regs_per_block, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
  ATTR(d->smem_per_sm_bytes,
       CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
  ATTR(d->smem_per_block_bytes,
       CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  ATTR(d->smem_per_block_optin_bytes,
       CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  ATTR(d->reserved_smem_per_block_bytes,
       CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);
  ATTR(coop_attr, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH);
  *coop = coop_attr != 0;
  board_cluster_layout(db, name, d);
  /* The driver's numbers with the database's rules must still hold
   * together (a configuration list ending at the SM's size, say). */
  char why[256];
  if (occ_device_check_text(d, why, sizeof why) == 0) return OCC_GPU_OK;
  snprintf(err, err_size, "device %d (%s): the driver's properties with the "
           "database's rules for cc %d.%d: %s", ordinal, d->name, major, minor, why);
  return OCC_GPU_ERR_DEVICE;
}

static occ_gpu_status alloc_buffers(occ_gpu *gpu, char *err, size_t err_size) {
  const occ_device *d = &gpu->device;
  /* The timeline launches WAVES x (API blocks) x SMs, the cooperative
   * check one more than API x SMs. */
  gpu->records_cap = WAVES * (int64_t)d->max_blocks_per_sm * d->sm_count + 1;
  size_t bytes = (size_t)gpu->records_cap * sizeof(probe_record);
  gpu->records_host = malloc(bytes);
  if (!gpu->records_host) {
    snprintf(err, err_size, "out of memory for %zu bytes", bytes);
    return OCC_GPU_ERR_NOMEM;
  }
  DRV(occ_drv.cuMemAlloc(&gpu->records_dev, bytes));
  DRV(occ_drv.cuMemAlloc(&gpu->seed_dev, SEED_FLOATS * sizeof(float)));
  DRV(occ_drv.cuMemAlloc(&gpu->sink_dev, SINK_FLOATS * sizeof(float)));
  /* Seeds near 1 keep the probe's arithmetic finite and its sum far from
   * the sentinel that would make it write. */
  float seed[SEED_FLOATS];
  for (int i = 0; i < SEED_FLOATS; i++) seed[i] = 0.5f + (float)i / 1024.0f;
  DRV(occ_drv.cuMemcpyHtoD(gpu->seed_dev, seed, sizeof seed));
  return OCC_GPU_OK;
}

/* The device's primary context, the one the CUDA runtime and CUPTI would
 * use, made current on this thread. */
static occ_gpu_status open_context(occ_gpu *gpu, const occ_gpudb *db,
                                   char *err, size_t err_size) {
  int count;
  occ_gpu_status s = occ_gpu_count(&count, err, err_size);
  if (s != OCC_GPU_OK) return s;
  if (gpu->ordinal < 0 || gpu->ordinal >= count) {
    snprintf(err, err_size, "no device %d: %d device%s (0 to %d)",
             gpu->ordinal, count, count == 1 ? "" : "s", count - 1);
    return OCC_GPU_ERR_DEVICE;
  }
  DRV(occ_drv.cuDeviceGet(&gpu->cu_device, gpu->ordinal));
  DRV(occ_drv.cuDevicePrimaryCtxRetain(&gpu->context, gpu->cu_device));
  DRV(occ_drv.cuCtxSetCurrent(gpu->context));
  s = read_device(gpu->cu_device, gpu->ordinal, db, &gpu->device,
                  &gpu->coop_supported, err, err_size);
  if (s != OCC_GPU_OK) return s;
  return alloc_buffers(gpu, err, err_size);
}

occ_gpu_status occ_gpu_open(int ordinal, const occ_gpudb *db, occ_gpu **out,
                            char *err, size_t err_size) {
  *out = NULL;
  occ_gpu *gpu = calloc(1, sizeof *gpu);
  if (!gpu) {
    snprintf(err, err_size, "out of memory");
    return OCC_GPU_ERR_NOMEM;
  }
  gpu->ordinal = ordinal;
  occ_gpu_status s = open_context(gpu, db, err, err_size);
  if (s != OCC_GPU_OK) {
    occ_gpu_close(gpu);
    return s;
  }
  *out = gpu;
  return OCC_GPU_OK;
}

/* Libraries were loaded only where the runtime was open; memory exists
 * only in a retained context. */
void occ_gpu_close(occ_gpu *gpu) {
  if (!gpu) return;
  occ_counter_close(gpu->counter);
  for (int i = 0; occ_rt && i <= MAX_CAP; i++)
    if (gpu->probes[i].library) occ_rt->cudaLibraryUnload(gpu->probes[i].library);
  for (int i = 0; i <= MAX_CAP; i++) free(gpu->probes[i].cubin);
  if (gpu->context) {
    if (gpu->records_dev) occ_drv.cuMemFree(gpu->records_dev);
    if (gpu->seed_dev) occ_drv.cuMemFree(gpu->seed_dev);
    if (gpu->sink_dev) occ_drv.cuMemFree(gpu->sink_dev);
    occ_drv.cuDevicePrimaryCtxRelease(gpu->cu_device);
  }
  free(gpu->records_host);
  free(gpu);
}

const occ_device *occ_gpu_device(const occ_gpu *gpu) { return &gpu->device; }
int occ_gpu_ordinal(const occ_gpu *gpu) { return gpu->ordinal; }

/* The runtime's current device made this one, once per device: the
 * runtime then works in the primary context the driver calls use, which
 * is checked, not assumed (ordinals could differ between the two only if
 * the environment changed between their initializations). */
occ_gpu_status occ_gpu_runtime_device(occ_gpu *gpu, char *err, size_t err_size) {
  if (gpu->runtime_ready) return OCC_GPU_OK;
  occ_gpu_status s = occ_gpu_runtime_open(err, err_size);
  if (s != OCC_GPU_OK) return s;
  RT(occ_rt->cudaSetDevice(gpu->ordinal));
  CUcontext current = NULL;
  DRV(occ_drv.cuCtxGetCurrent(&current));
  if (current != gpu->context) {
    snprintf(err, err_size, "cudaSetDevice (%s:%d): the runtime's device %d "
             "is not in the driver's context for device %d", __FILE__,
             __LINE__, gpu->ordinal, gpu->ordinal);
    return OCC_GPU_ERR_DEVICE;
  }
  gpu->runtime_ready = true;
  return OCC_GPU_OK;
}
