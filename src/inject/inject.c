/* inject.c - libocc_inject.so, the library `occcalc run` has the CUDA
 * driver load into a program (CUDA_INJECTION64_PATH): InitializeInjection
 * enables CUPTI's kernel activity records and appends one
 * occ_launch_record per launch to the file named by OCCCALC_RUN_OUT; with
 * OCCCALC_RUN_COUNTERS=1, inject_counters.c adds each launch's metrics.
 *
 * Nothing here may disturb the program: no output on its stdout or
 * stderr, no exit; a failure leaves the program running without records
 * (occcalc then says no kernel was recorded). */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "live/counter.h"
#include "live/cupti_buffer.h"
#include "inject/inject_lib.h"

#define EXPORT __attribute__((visibility("default")))

/* CUPTI's activity buffers: large enough that a program of thousands of
 * launches fills few, aligned as CUPTI requires. */
enum { BUFFER_BYTES = 1 << 20 };

occ_inject_api occ_inject_cupti;
static int out_fd = -1;
static pid_t owner_pid; /* a fork()ed child without exec must not flush */
static int counters_on;

/* The gate (live/sampler.h): occcalc's sampler starts beside the program,
 * and the program's first launch waits here until it samples. Bounded:
 * after GATE_LIMIT_MS the program goes on (its early launches then say
 * they ran before sampling started). */
#define GATE_LIMIT_MS 30000
static int gate_fd = -1;
static int gate_pending; /* read and cleared atomically */
static pthread_once_t gate_once = PTHREAD_ONCE_INIT;

/* OCC_ENV_GATE is "FD:DEV:INODE": the descriptor is used only while it
 * still is that pipe (a program may have closed it and reused the
 * number). */
static void find_gate(void) {
  const char *env = getenv(OCC_ENV_GATE);
  int fd;
  unsigned long long dev, ino;
  struct stat st;
  if (!env || sscanf(env, "%d:%llu:%llu", &fd, &dev, &ino) != 3 || fd < 0 ||
      fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode) ||
      (unsigned long long)st.st_dev != dev ||
      (unsigned long long)st.st_ino != ino)
    return;
  gate_fd = fd;
  __atomic_store_n(&gate_pending, 1, __ATOMIC_RELEASE);
}

/* Waits until the pipe's write end is closed (its end of file), then
 * closes the program's copy. */
static void pass_gate(void) {
  double start = occ_inject_now();
  char byte[64];
  for (;;) {
    int left = GATE_LIMIT_MS - (int)((occ_inject_now() - start) * 1000);
    if (left <= 0) break;
    struct pollfd p = {.fd = gate_fd, .events = POLLIN};
    int n = poll(&p, 1, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    ssize_t got = read(gate_fd, byte, sizeof byte);
    if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN)) break;
  }
  close(gate_fd);
  gate_fd = -1;
  occ_inject_counters_add_seconds(occ_inject_now() - start);
  __atomic_store_n(&gate_pending, 0, __ATOMIC_RELEASE);
}

void occ_inject_gate(void) {
  if (__atomic_load_n(&gate_pending, __ATOMIC_ACQUIRE))
    pthread_once(&gate_once, pass_gate);
}

static int load_cupti(void) {
  char why[160]; /* the library says nothing: the run's note says why */
  void *lib = occ_cupti_open(RTLD_NOW | RTLD_GLOBAL, why, sizeof why);
  if (!lib) return -1;
#define INJECT_LOAD(name)                                                    \
  if (!(*(void **)&occ_inject_cupti.name = dlsym(lib, #name))) return -1;
  INJECT_CUPTI_FUNCS(INJECT_LOAD)
#undef INJECT_LOAD
  /* The records are read as this header's CUpti_ActivityKernel10: an
   * older CUPTI writes an older layout. */
  uint32_t version = 0;
  return occ_inject_cupti.cuptiGetVersion(&version) == CUPTI_SUCCESS &&
                 version >= CUPTI_API_VERSION ? 0 : -1;
}

void occ_inject_record_init(occ_launch_record *r, occ_record_kind kind) {
  occ_record_start(r, kind, (int32_t)getpid());
  r->carveout_requested_pct = -1;
}

void occ_inject_write(const occ_launch_record *r) {
  char block[OCC_RECORD_BYTES] = {0};
  memcpy(block, r, sizeof *r);
  /* One write of under PIPE_BUF bytes with O_APPEND: whole or not at all;
   * a failed write loses one record, never the program. */
  ssize_t n = write(out_fd, block, sizeof block);
  (void)n;
}

static void copy_name(char *dst, const char *src) {
  if (!src) src = "";
  size_t n = strlen(src);
  if (n >= OCC_RECORD_NAME_MAX) n = OCC_RECORD_NAME_MAX - 1;
  memcpy(dst, src, n);
  dst[n] = '\0';
}

/* A cluster launch is reported with the cooperative launch type
 * (measured on an H200, CUPTI 13.0): its cluster dimensions decide. */
static int launch_type(const CUpti_ActivityKernel10 *k) {
  if (k->clusterX * k->clusterY * k->clusterZ > 1) return OCC_LAUNCH_CLUSTER;
  if (k->launchType == CUPTI_ACTIVITY_LAUNCH_TYPE_COOPERATIVE_SINGLE_DEVICE)
    return OCC_LAUNCH_COOPERATIVE;
  if (k->launchType == CUPTI_ACTIVITY_LAUNCH_TYPE_COOPERATIVE_MULTI_DEVICE)
    return OCC_LAUNCH_COOPERATIVE_MULTI;
  return OCC_LAUNCH_REGULAR;
}

void *occ_inject_driver_symbol(const char *name) {
  void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  return driver ? dlsym(driver, name) : NULL;
}

bool occ_inject_device_attributes(int ordinal, const CUdevice_attribute *which,
                                  int *values, int count) {
  CUresult (*get)(CUdevice *, int);
  CUresult (*attribute)(int *, CUdevice_attribute, CUdevice);
  *(void **)&get = occ_inject_driver_symbol("cuDeviceGet");
  *(void **)&attribute = occ_inject_driver_symbol("cuDeviceGetAttribute");
  CUdevice dev;
  if (!get || !attribute || get(&dev, ordinal) != CUDA_SUCCESS) return false;
  for (int i = 0; i < count; i++)
    if (attribute(&values[i], which[i], dev) != CUDA_SUCCESS) return false;
  return true;
}

/* The board's name from the driver already loaded in the program; left
 * empty when it cannot say. */
static void device_name(int ordinal, char *name, int size) {
  CUresult (*get)(CUdevice *, int);
  CUresult (*get_name)(char *, int, CUdevice);
  *(void **)&get = occ_inject_driver_symbol("cuDeviceGet");
  *(void **)&get_name = occ_inject_driver_symbol("cuDeviceGetName");
  CUdevice dev;
  if (!get || !get_name || get(&dev, ordinal) != CUDA_SUCCESS ||
      get_name(name, size, dev) != CUDA_SUCCESS)
    name[0] = '\0';
  name[size - 1] = '\0';
}

/* The device's compute capability, SM count and name, read once per device
 * from the driver already loaded in the program, so that occcalc need not
 * open the GPU after the program to compute theoretical occupancy; left 0
 * when the driver cannot say. */
static void device_properties(int ordinal, occ_launch_record *r) {
  enum { DEVICES = 64 };
  static struct {
    bool read;
    int32_t major, minor, sms;
    char name[OCC_RECORD_DEVICE_NAME_MAX];
  } cache[DEVICES];
  static const CUdevice_attribute which[] = {
      CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
      CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
      CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT};
  if (ordinal < 0 || ordinal >= DEVICES) return;
  if (!cache[ordinal].read) {
    cache[ordinal].read = true;
    int v[3];
    if (occ_inject_device_attributes(ordinal, which, v, 3)) {
      cache[ordinal].major = v[0];
      cache[ordinal].minor = v[1];
      cache[ordinal].sms = v[2];
    }
    device_name(ordinal, cache[ordinal].name, (int)sizeof cache[ordinal].name);
  }
  r->cc_major = cache[ordinal].major;
  r->cc_minor = cache[ordinal].minor;
  r->sm_count = cache[ordinal].sms;
  memcpy(r->device_name, cache[ordinal].name, sizeof r->device_name);
}

static void write_kernel(const CUpti_ActivityKernel10 *k) {
  occ_launch_record r;
  occ_inject_record_init(&r, OCC_RECORD_LAUNCH);
  r.device = (int32_t)k->deviceId;
  device_properties(r.device, &r);
  r.context = k->contextId;
  r.stream = k->streamId;
  r.correlation = k->correlationId;
  r.graph_id = k->graphId;
  r.graph_node_id = k->graphNodeId;
  int32_t dims[9] = {k->gridX,  k->gridY,  k->gridZ,
                     k->blockX, k->blockY, k->blockZ,
                     (int32_t)k->clusterX, (int32_t)k->clusterY,
                     (int32_t)k->clusterZ};
  memcpy(r.grid, dims, sizeof r.grid);
  memcpy(r.block, dims + 3, sizeof r.block);
  memcpy(r.cluster, dims + 6, sizeof r.cluster);
  r.regs_per_thread = k->registersPerThread;
  r.smem_static_bytes = k->staticSharedMemory;
  r.smem_dynamic_bytes = k->dynamicSharedMemory;
  r.local_bytes_per_thread = (int32_t)k->localMemoryPerThread;
  /* Under the Range Profiler CUPTI's carveout and configuration are not
   * the launch's: 0, or another launch's (measured on an H100: a kernel
   * launched with no carveout preference recorded as 100 % and 228 KiB,
   * where ncu saw 132 KiB). They are left unknown then; the carveout
   * comes from the launch's attributes, the configuration from occcalc's
   * launch rule. */
  if (k->isSharedMemoryCarveoutRequested && !counters_on)
    r.carveout_requested_pct = k->sharedMemoryCarveoutRequested;
  if (!counters_on) r.smem_executed_bytes = (int32_t)k->sharedMemoryExecuted;
  r.launch_type = launch_type(k);
  occ_inject_attrs_fill(&r);
  r.start_ns = k->start;
  r.end_ns = k->end;
  copy_name(r.name, k->name);
  occ_inject_write(&r);
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size,
                                      size_t *max_records) {
  occ_cupti_buffer_new(buffer, size, max_records, BUFFER_BYTES);
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream,
                                      uint8_t *buffer, size_t size,
                                      size_t valid) {
  (void)ctx, (void)stream, (void)size;
  occ_cupti_buffer_each_kernel(occ_inject_cupti.cuptiActivityGetNextRecord,
                               buffer, valid, write_kernel);
}

double occ_inject_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Last, what the library cost this process (the report's header). */
static void at_exit(void) {
  if (getpid() != owner_pid) return;
  double start = occ_inject_now();
  if (counters_on) occ_inject_counters_finish();
  occ_inject_cupti.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  occ_inject_counters_add_seconds(occ_inject_now() - start);
  occ_launch_record summary;
  occ_inject_record_init(&summary, OCC_RECORD_SUMMARY);
  occ_inject_counters_summary(&summary);
  occ_inject_write(&summary);
}

static int start_tracing(void) {
  if (occ_inject_cupti.cuptiActivityRegisterCallbacks(
          buffer_requested, buffer_completed) != CUPTI_SUCCESS ||
      occ_inject_cupti.cuptiActivityEnable(
          CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS)
    return -1;
  /* --jsonl: records as the program runs, not only when a buffer fills. */
  const char *flush_ms = getenv(OCC_ENV_FLUSH_MS);
  if (flush_ms && atoi(flush_ms) > 0)
    occ_inject_cupti.cuptiActivityFlushPeriod((uint32_t)atoi(flush_ms));
  return 0;
}

static int open_output(void) {
  const char *path = getenv(OCC_ENV_OUT);
  if (!path || !*path) return -1;
  out_fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
  return out_fd < 0 ? -1 : 0;
}

static void init_once(void) {
  double start = occ_inject_now();
  if (open_output() != 0 || load_cupti() != 0 || start_tracing() != 0) return;
  owner_pid = getpid();
  find_gate();
  const char *counters = getenv(OCC_ENV_COUNTERS);
  bool profile = counters && strcmp(counters, "1") == 0;
  /* Without counters too: the callbacks note each launch's attributes. */
  counters_on = occ_inject_counters_start(profile, getenv(OCC_ENV_METRICS),
                                          getenv(OCC_ENV_COUNTER_LAUNCHES)) ==
                    0 && profile;
  atexit(at_exit);
  occ_inject_counters_add_seconds(occ_inject_now() - start);
}

/* Called by the CUDA driver in cuInit. Returns 1, success, even when the
 * library could not start (no records then): its failure must never fail
 * the program's cuInit. */
EXPORT int InitializeInjection(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, init_once);
  return 1;
}
