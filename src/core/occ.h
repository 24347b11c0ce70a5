/* occ.h - the occupancy calculator core.
 *
 * Pure computation over plain structs: no I/O, no allocation, no exit().
 * The rules are the hardware's as NVIDIA's cuda_occupancy.h encodes them;
 * every per-architecture number comes from the occ_device the caller fills
 * (from data/gpus.json or from the driver), never from a switch on the
 * compute capability.
 */
#ifndef OCC_H
#define OCC_H

#include <stdbool.h>
#include <stdint.h>

#define OCC_MAX_SMEM_CONFIGS 16
#define OCC_NAME_MAX 64
#define OCC_CLUSTER_DOMAINS_MAX 32

/* A limit that does not apply (no registers used, no shared memory, no
 * barrier limit on this architecture) is reported as OCC_UNLIMITED. */
#define OCC_UNLIMITED INT32_MAX

/* No carveout preference: the driver's default (the SM's full shared
 * memory, rounded to a supported configuration). */
#define OCC_CARVEOUT_DEFAULT (-1)

typedef enum occ_status {
  OCC_OK = 0,
  OCC_ERR_INVALID_DEVICE, /* a device field is out of range */
  OCC_ERR_INVALID_KERNEL, /* a kernel field is out of range */
  OCC_ERR_CARVEOUT,       /* carveout not in -1 or 0..100 */
  OCC_ERR_SMEM_CONFIG,    /* no shared-memory configuration fits */
  OCC_ERR_NOMEM           /* out of memory (tables of the sweep engine) */
} occ_status;

/* Returns a static, human-readable description of a status. */
const char *occ_strerror(occ_status status);

/* The properties of one device (or of a generic device of one compute
 * capability) that occupancy depends on. Sizes are bytes. */
typedef struct occ_device {
  char name[OCC_NAME_MAX];
  const char *source; /* "database" or "driver" */
  /* The database entry whose limits these are: a board's name, or an
   * architecture's ("generic sm_90 Hopper") where the device is known
   * only by its capability; name may then be the driver's board name.
   * Empty where the device was not looked up in the database. */
  char limits_from[OCC_NAME_MAX];
  int cc_major, cc_minor;
  int sm_count;
  /* Where sm_count came from when not from source: "--sms", "driver" (a
   * launch record's); NULL: from source. */
  const char *sm_count_source;
  int warp_size;
  int max_threads_per_block;
  int max_block_dim[3];
  int max_threads_per_sm;
  int max_blocks_per_sm;
  int regs_per_sm;
  int regs_per_block;
  int max_regs_per_thread;
  int reg_alloc_unit;     /* registers are allocated per warp in these units */
  int sub_partitions;     /* a warp's registers come from one sub-partition */
  int reg_block_warp_multiple; /* the per-block register check rounds warps
                                  up to this multiple */
  int64_t smem_per_sm_bytes;
  int64_t smem_per_block_bytes;       /* without opt-in */
  int64_t smem_per_block_optin_bytes; /* with cudaFuncAttributeMaxDynamic... */
  int64_t reserved_smem_per_block_bytes;
  int smem_alloc_unit_bytes;
  /* Shared-memory sizes the SM can be configured to, ascending. Zero
   * entries: the SM always has smem_per_sm_bytes (no carveout). */
  int smem_config_count;
  int64_t smem_configs_bytes[OCC_MAX_SMEM_CONFIGS];
  /* Barriers available per SM = max_blocks_per_sm x barrier_factor; 0 means
   * the architecture has no barrier limit. */
  int barrier_factor;
  /* The SM's unified L1 data cache and shared memory: what the shared-
   * memory configuration leaves is L1. 0: not unified, or not known. */
  int64_t l1_smem_bytes;
  /* Under the default carveout preference the driver configures the SM for
   * up to twice the blocks that fit, at most this much (measured: 132 KB on
   * CC 9.0; see occ_result.launch_smem_config_bytes). 0: the driver's
   * default choice is not known for the architecture, and the occupancy
   * API's assumption stands in for it. */
  int64_t launch_default_smem_cap_bytes;
  /* Thread block clusters (see core/cluster.h): the SM count of each
   * scheduling domain of the board, largest first (a cluster's blocks run
   * inside one domain, on distinct SMs), and the blocks an SM holds under a
   * cluster launch. Measured per board (make cluster-survey); 0 domains:
   * the board was never surveyed, or the device is a bare architecture. */
  int cluster_domain_count;
  int cluster_domain_sms[OCC_CLUSTER_DOMAINS_MAX];
  int cluster_max_blocks_per_sm;
} occ_device;

/* The device contract: the ranges occ_compute accepts (else
 * OCC_ERR_INVALID_DEVICE) and the database loader enforces, field by field.
 * Real hardware with headroom (every NVIDIA GPU so far has a 32-thread warp,
 * 1024 threads per block, 255 registers per thread, at most 32 blocks and
 * 228 KB per SM), chosen so that every product below stays far inside 31
 * bits and every table a command builds stays small: the register table of
 * the sweep engine has at most (256 + 1) x (256 + 1) entries, each an
 * occ_compute; its shared-memory table at most 2^20 / 64 + 1; a chart at
 * most 16385 points; the suggestions at most 256 block sizes and 64 steps
 * (man occcalc, DATABASE FILE, has the measured worst case). */
#define OCC_DEV_WARP_SIZE_MAX 64            /* a power of two, 1 .. this */
#define OCC_DEV_THREADS_PER_SM_MAX 8192
#define OCC_DEV_THREADS_PER_BLOCK_MAX 2048
#define OCC_DEV_WARPS_PER_BLOCK_MAX 256     /* max threads per block / warp */
#define OCC_DEV_BLOCKS_PER_SM_MAX 64        /* = OCC_SUGGEST_MAX_STEPS */
#define OCC_DEV_REGS_PER_SM_MAX (1 << 20)
#define OCC_DEV_REGS_PER_THREAD_MAX 256
#define OCC_DEV_REG_ALLOC_UNIT_MAX 8192
#define OCC_DEV_SUB_PARTITIONS_MAX 32
#define OCC_DEV_REG_WARP_MULTIPLE_MAX 64
#define OCC_DEV_SMEM_PER_SM_MAX ((int64_t)1 << 20)
#define OCC_DEV_SMEM_UNIT_MIN 64            /* a power of two, this .. the
                                               per-block size */
#define OCC_DEV_BARRIER_FACTOR_MAX 16
#define OCC_DEV_SM_COUNT_MAX 100000         /* 0: unknown */

/* What occ_device_check found out of range: the first field (in the
 * order of the contract, so that a bound drawn from another field is
 * only drawn from one already checked) and its accepted range. */
typedef struct occ_device_violation {
  const char *field;  /* the occ_device member, also the database's key */
  int index;          /* the element of an array field; -1 otherwise */
  int64_t min, max;   /* the accepted range, given the fields before */
  bool power_of_two;  /* the value must also be a power of two */
  const char *why;    /* where a bound comes from ("at most the
                         SM's threads"), or NULL */
} occ_device_violation;

/* Returns true when every field of device is inside the contract; else
 * false with the first violation in *violation (when not NULL). */
bool occ_device_check(const occ_device *device, occ_device_violation *violation);

/* The largest block (threads) and shared-memory request (static + dynamic
 * + reserved bytes) occ_compute accepts: far above any device's, so that a
 * block too large for the device is still explained, and small enough that
 * its registers (threads x 1024 x the allocation unit) fit in an int. */
#define OCC_KERNEL_THREADS_MAX (1 << 16)
#define OCC_KERNEL_REGS_MAX 1024
#define OCC_KERNEL_SMEM_MAX ((int64_t)1 << 30)

/* One kernel launch configuration. */
typedef struct occ_kernel {
  int block[3];          /* threads per block in x, y, z (each >= 1) */
  int regs_per_thread;   /* 0 .. max_regs_per_thread */
  int64_t smem_static_bytes;
  int64_t smem_dynamic_bytes; /* per block, whatever its size */
  /* Dynamic shared memory that grows with the block: a block of N threads
   * asks for smem_dynamic_bytes + N x this (the runtime's
   * blockSizeToDynamicSMemSize, for a kernel that allocates per thread,
   * e.g. a reduction's 4 bytes). 0 by default. */
  int64_t smem_dynamic_per_thread_bytes;
  int barriers;          /* named barriers the kernel uses; 1 by default */
  int carveout_pct;      /* 0..100, or OCC_CARVEOUT_DEFAULT */
  /* The largest block the kernel may be launched with (its launch bounds,
   * cudaFuncAttributes.maxThreadsPerBlock, or the runtime's
   * blockSizeLimit); 0: the device's. Only the best-block search reads it,
   * as cuda_occupancy.h's does. */
  int max_threads_per_block;
} occ_kernel;

/* Fills a kernel with the defaults: a 1x1x1 block, no registers, no shared
 * memory, 1 barrier, no carveout preference. (Inline, like the result's
 * accessors below: setting and reading plain data is no call into the
 * calculator.) */
static inline void occ_kernel_init(occ_kernel *kernel) {
  *kernel = (occ_kernel){.block = {1, 1, 1}, .barriers = 1,
                         .carveout_pct = OCC_CARVEOUT_DEFAULT};
}

/* Threads of the kernel's block shape (x * y * z), in 64 bits: a shape
 * occ_compute rejects may overflow an int. */
static inline int64_t occ_block_threads(const occ_kernel *kernel) {
  return (int64_t)kernel->block[0] * kernel->block[1] * kernel->block[2];
}

/* The dynamic shared memory a block of the kernel's shape asks for:
 * smem_dynamic_bytes plus smem_dynamic_per_thread_bytes per thread. */
static inline int64_t occ_kernel_smem_dynamic_bytes(const occ_kernel *kernel) {
  return kernel->smem_dynamic_bytes +
         kernel->smem_dynamic_per_thread_bytes * occ_block_threads(kernel);
}

/* Warps an SM of the device can hold. */
static inline int occ_device_max_warps(const occ_device *device) {
  return device->max_threads_per_sm / device->warp_size;
}

typedef enum occ_limiter {
  OCC_LIMITER_WARPS = 1u << 0,
  OCC_LIMITER_BLOCKS = 1u << 1,
  OCC_LIMITER_REGISTERS = 1u << 2,
  OCC_LIMITER_SHARED_MEMORY = 1u << 3,
  OCC_LIMITER_BARRIERS = 1u << 4
} occ_limiter;

#define OCC_LIMITER_COUNT 5

/* The index of each limiter, in the order of occ_limiter's bits: bit
 * (1u << OCC_LIMIT_INDEX_X) is OCC_LIMITER_X. (Not OCC_LIMIT_X: the
 * toolkit's cuda_occupancy.h, which the tests include, has those.) */
typedef enum occ_limiter_index {
  OCC_LIMIT_INDEX_WARPS = 0,
  OCC_LIMIT_INDEX_BLOCKS = 1,
  OCC_LIMIT_INDEX_REGISTERS = 2,
  OCC_LIMIT_INDEX_SHARED_MEMORY = 3,
  OCC_LIMIT_INDEX_BARRIERS = 4
} occ_limiter_index;


/* Why a configuration cannot launch (when active_blocks_per_sm == 0). */
typedef enum occ_block_reason {
  OCC_CAN_LAUNCH = 0,
  OCC_NO_BLOCK_TOO_LARGE,     /* threads per block over the device maximum */
  OCC_NO_REGS_PER_THREAD,     /* registers per thread over the maximum */
  OCC_NO_REGS_PER_BLOCK,      /* block's registers over regs_per_block */
  OCC_NO_SMEM_PER_BLOCK,      /* block's shared memory over the per-block cap */
  OCC_NO_BARRIERS             /* more barriers than the SM has */
} occ_block_reason;

/* Where a figure comes from: measured (read from the GPU or the driver at
 * run time), derived (computed by a rule measured on this architecture, or
 * from documented sizes that leave no choice), or assumed (no survey backs
 * it on this architecture: a rule taken from another, or the occupancy
 * API's assumption). */
typedef enum occ_figure_basis {
  OCC_FIGURE_MEASURED,
  OCC_FIGURE_DERIVED,
  OCC_FIGURE_ASSUMED
} occ_figure_basis;

/* Every number the calculation produced, including the intermediate steps
 * an explanation prints. Limits are blocks per SM. */
typedef struct occ_result {
  int threads_per_block;
  int warps_per_block;
  int inactive_threads;

  /* registers */
  int regs_per_warp_raw;        /* regs_per_thread x warp_size */
  int regs_per_warp;            /* rounded up to reg_alloc_unit */
  int regs_per_block;           /* regs_per_warp x warps_per_block */
  int regs_per_block_checked;   /* regs_per_warp x warps rounded up to
                                   reg_block_warp_multiple */
  int regs_per_sub_partition;
  int warps_per_sub_partition;  /* by registers */
  int warps_per_sm_by_regs;

  /* shared memory */
  int64_t smem_requested_bytes; /* static + dynamic + reserved */
  int64_t smem_per_block_bytes; /* rounded up to smem_alloc_unit_bytes */
  int64_t smem_block_cap_bytes; /* what one block may have, reserved incl. */
  bool smem_optin;              /* the opt-in cap applies */
  int64_t smem_preference_bytes; /* the carveout, rounded to a config */
  int64_t smem_config_bytes;    /* the configuration the occupancy API
                                   and cuda_occupancy.h assume */
  bool carveout_ignored;        /* a preference given to a CC without carveout */

  /* At launch, with a carveout preference, the driver sizes the SM's shared
   * memory for the blocks the preference holds counting only their own
   * shared memory, then adds each block's reserve on top; blocks with no
   * shared memory of their own are not limited by it (launch_limit_smem is
   * OCC_UNLIMITED and the configuration, not known, 0). So the SM can hold
   * more blocks than the occupancy API says (measured on an H100 and an
   * H200, see docs/gpu-verification.md). Equal to the fields above without
   * a preference or a per-block reserve. */
  int64_t launch_smem_config_bytes;
  int launch_limit_smem;
  /* Where launch_smem_config_bytes comes from (occ_smem_config_basis):
   * derived, or assumed where no survey backs it. */
  occ_figure_basis smem_config_basis;

  /* barriers */
  int barriers_per_sm;          /* 0 when there is no barrier limit */

  int limit_warps;
  int limit_blocks;
  int limit_regs;
  int limit_smem;
  int limit_barriers;
  unsigned limited_by;          /* occ_limiter bits */

  int active_blocks_per_sm;     /* by the occupancy API's rule */
  int launch_active_blocks_per_sm; /* what the SM holds at launch */
  int active_warps_per_sm;
  int active_threads_per_sm;
  int max_warps_per_sm;
  double occupancy;             /* active warps / max warps, 0..1 */
  bool launchable;
  occ_block_reason reason;
} occ_result;

/* Computes the occupancy of kernel on device into *result. Returns OCC_OK,
 * or an error when an input is out of range (result is then unspecified).
 * Cannot-launch is not an error: it is active_blocks_per_sm == 0 with
 * launchable false and the reason set. */
occ_status occ_compute(const occ_device *device, const occ_kernel *kernel,
                       occ_result *result);

/* The two numbers the launch rule divides (see occ_result): the carveout
 * preference in bytes and a block's own shared memory (static + dynamic,
 * rounded to the allocation unit, without the reserve). */
void occ_launch_smem_terms(const occ_device *device, const occ_kernel *kernel,
                           int64_t *preference, int64_t *own);

/* The terms of the driver's choice where the carveout rule does not say
 * it (the default preference; blocks with no shared memory of their own):
 * the blocks it provides for and the bytes it wants, whose smallest
 * configuration is result->launch_smem_config_bytes. False where the
 * architecture's default choice is not known (or nothing launches). */
bool occ_launch_config_terms(const occ_device *device, const occ_kernel *kernel,
                             const occ_result *result, int64_t *blocks,
                             int64_t *wanted);

/* Active warps / max warps at launch, as occupancy is for the API's rule. */
static inline double occ_launch_occupancy(const occ_result *r) {
  return (double)r->launch_active_blocks_per_sm * r->warps_per_block /
         r->max_warps_per_sm;
}

/* Whether launch_smem_config_bytes is known: it is 0 both where the
 * configuration is 0 bytes (the API's own answer, an architecture with a
 * 0 KB configuration) and where the driver's choice is not known (a block
 * with no shared memory of its own under a carveout preference, on an
 * architecture whose default choice was not measured). */
static inline bool occ_launch_config_known(const occ_result *r) {
  return r->launch_smem_config_bytes > 0 || (r->launchable && r->smem_config_bytes == 0);
}


/* The basis of the SM's shared-memory configuration occ_compute gives
 * (launch_smem_config_bytes, and the L1 it leaves): derived where the
 * driver's choice was surveyed on the architecture
 * (launch_default_smem_cap_bytes > 0: CC 9.0, on an H100 and an H200) or
 * where the SM has one size and nothing to choose (no configurations);
 * else assumed: the occupancy API's largest configuration, or the carveout
 * rule measured on CC 9.0. *why, when not NULL, is a static phrase that
 * says which. */
occ_figure_basis occ_smem_config_basis(const occ_device *d, const char **why);

/* "measured", "derived" or "assumed": the JSON's basis words. */
static inline const char *occ_figure_basis_name(occ_figure_basis basis) {
  return basis == OCC_FIGURE_MEASURED  ? "measured"
         : basis == OCC_FIGURE_DERIVED ? "derived"
                                       : "assumed";
}

/* The blocks per SM under limiter index i (0..OCC_LIMITER_COUNT-1);
 * OCC_UNLIMITED past them. */
static inline int occ_result_limit(const occ_result *r, int index) {
  switch (index) {
  case OCC_LIMIT_INDEX_WARPS: return r->limit_warps;
  case OCC_LIMIT_INDEX_BLOCKS: return r->limit_blocks;
  case OCC_LIMIT_INDEX_REGISTERS: return r->limit_regs;
  case OCC_LIMIT_INDEX_SHARED_MEMORY: return r->limit_smem;
  case OCC_LIMIT_INDEX_BARRIERS: return r->limit_barriers;
  }
  return OCC_UNLIMITED;
}

/* The block sizes that maximise active threads per SM for a kernel. */
typedef struct occ_block_choice {
  int block_size;            /* what cudaOccupancyMaxPotentialBlockSize
                                answers: the largest size reaching the
                                highest occupancy */
  int smallest_block_size;   /* the smallest size reaching it */
  int active_blocks_per_sm;  /* at block_size */
  int active_threads_per_sm; /* the highest occupancy, in threads */
  int64_t min_grid_size;     /* active blocks x SMs at block_size: the
                                fewest blocks that fill the device */
  int max_threads_per_block; /* the largest size tried */
} occ_block_choice;

/* cuda_occupancy.h's cudaOccMaxPotentialOccupancyBlockSize (the runtime's
 * cudaOccupancyMaxPotentialBlockSizeVariableSMem): tries every block size
 * from the limit (the device's maximum, or kernel->max_threads_per_block
 * when smaller) down in steps of the warp size, the limit itself first when
 * it is not a multiple, each with the dynamic shared memory it asks for
 * (occ_kernel_smem_dynamic_bytes). kernel->block is ignored; its other
 * fields are used. A size whose shared memory is past the calculator's
 * bound holds no block, as one past the device's does. Fills *choice;
 * block_size is 0 when no size can launch; min_grid_size is 0 when the
 * device's SM count is unknown. */
occ_status occ_best_block_size(const occ_device *device,
                               const occ_kernel *kernel,
                               occ_block_choice *choice);

/* The same, and also every block size that reaches the highest occupancy,
 * ascending, into sizes (at most max_sizes; *count says how many). */
occ_status occ_best_block_sizes(const occ_device *device,
                                const occ_kernel *kernel,
                                occ_block_choice *choice, int *sizes,
                                int max_sizes, int *count);

/* Sets kernel->block to choice's block size (1-D), or to one warp when no
 * size can launch, so the result still says why. */
static inline void occ_best_block_apply(const occ_block_choice *choice,
                                        const occ_device *device,
                                        occ_kernel *kernel) {
  kernel->block[0] = choice->block_size > 0 ? choice->block_size : device->warp_size;
  kernel->block[1] = kernel->block[2] = 1;
}

/* Grid waves: how a grid of grid_blocks spreads over the device. */
typedef struct occ_waves {
  int64_t grid_blocks;
  int64_t blocks_per_wave;   /* active blocks per SM x SMs */
  int64_t full_waves;
  int64_t tail_blocks;       /* blocks of the last, partial wave */
  double waves;              /* grid_blocks / blocks_per_wave */
} occ_waves;

/* Fills *waves for a grid on device given a result; blocks_per_wave is 0
 * (and waves 0) when the configuration cannot launch. */
void occ_waves_compute(const occ_device *device, const occ_result *result,
                       int64_t grid_blocks, occ_waves *waves);

#endif
