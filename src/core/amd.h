/* amd.h - occupancy on AMD GPUs (CDNA and RDNA), by two rules.
 *
 * Pure computation over plain structs, like occ.h: no I/O, no allocation,
 * no exit(). Every per-architecture number comes from the occ_amd_arch the
 * caller fills (data/gpus.json, through src/db), never from a switch on
 * the gfx name.
 *
 * The two rules:
 * - LLVM's (the compiler's "Occupancy [waves/SIMD]", llc's "; Occupancy:
 *   N"): the minimum of the waves per SIMD allowed by VGPRs (+AGPRs), SGPRs,
 *   LDS and workgroup slots. Read from LLVM 19's
 *   llvm/lib/Target/AMDGPU/Utils/AMDGPUBaseInfo.cpp (getMaxWavesPerEU,
 *   getNumWavesPerEUWithNumVGPRs, getVGPRAllocGranule, getTotalNumVGPRs,
 *   getMaxWorkGroupsPerCU, getEUsPerCU, getLocalMemorySize),
 *   GCNSubtarget.cpp (getOccupancyWithNumSGPRs, computeOccupancy) and
 *   AMDGPUSubtarget.cpp (getOccupancyWithLocalMemSize). Checked against
 *   llc-19 itself by tests/amd/amd.mk.
 * - HIP's runtime (hipOccupancyMaxActiveBlocksPerMultiprocessor): ROCm
 *   clr's hipamd/src/hip_platform.cpp,
 *   hip_impl::ihipOccupancyMaxActiveBlocksPerMultiprocessor, over the
 *   device limits clr's rocdevice.cpp (Device::populateOSDevice...) takes
 *   from comgr's ISA table (amd/comgr/src/comgr-isa-metadata.def).
 */
#ifndef OCC_AMD_H
#define OCC_AMD_H

#include <stdbool.h>
#include <stdint.h>

#define OCC_AMD_NAME_MAX 16

/* occ_amd_kernel.sgprs when the count is not known. */
#define OCC_AMD_SGPRS_UNKNOWN (-1)

/* One AMD architecture (a gfx target) as both rules see it. Sizes are
 * bytes; register counts are per lane (VGPRs, AGPRs) or per wave (SGPRs).
 * Fields named hip_* are the runtime's view where it differs from LLVM's. */
typedef struct occ_amd_arch {
  char name[OCC_AMD_NAME_MAX]; /* "gfx942" */
  int gfx_major;               /* the ISA's major version: 9, 10, 11, 12 */
  bool wave32, wave64;         /* the wave sizes it runs */
  int default_wave_size;       /* the compiler's default */
  int simds_per_cu;            /* SIMDs (LLVM: EUs) per CU: 4 on gfx9, 2 on gfx10+ */
  bool wgp_mode;               /* gfx10+: a workgroup may span a WGP (2 CUs) */
  int max_waves_per_simd;      /* getMaxWavesPerEU */
  int max_threads_per_block;   /* the flat workgroup size's maximum */
  /* The VGPR file per SIMD and its allocation granule, per wave size
   * (0 where the wave size does not run). A unified file holds VGPRs and
   * AGPRs together (gfx90a and later CDNA). */
  int vgprs_per_simd_wave64, vgpr_granule_wave64;
  int vgprs_per_simd_wave32, vgpr_granule_wave32;
  int addressable_vgprs;       /* architectural VGPRs a lane can name */
  int addressable_agprs;       /* AccVGPRs a lane can name (0: none) */
  bool unified_vgpr_file;      /* AGPRs share the VGPR file */
  int unified_agpr_align;      /* AGPRs start at VGPRs aligned up to this */
  int addressable_sgprs;       /* SGPRs a wave can name */
  /* SGPRs limit waves on gfx9 only: a wave using at most sgpr_waves_at[i]
   * SGPRs allows max waves of sgpr_waves[i] (GCNSubtarget::
   * getOccupancyWithNumSGPRs); sgpr_limit_count 0: no SGPR limit. */
  int sgpr_limit_count;
  int sgpr_waves_at[4], sgpr_waves[4]; /* the last step: any count above */
  int lds_per_cu_bytes;        /* what the waves of one CU share */
  int lds_per_wgp_bytes;       /* the same in WGP mode (0: no WGP mode) */
  int lds_per_block_bytes;     /* the most one workgroup may allocate */
  int barriers_per_cu;         /* workgroups of more than one wave per CU */
  int barriers_per_wgp;        /* the same in WGP mode */
  /* The HIP runtime's limits (clr, from comgr's ISA table). */
  int hip_max_waves_per_simd;  /* 8 on gfx9 ("limited by SPI"), 16 after */
  int hip_vgprs_per_simd;      /* comgr TotalNumVGPRs (halved for wave64 on gfx10+) */
  int hip_vgpr_granule;        /* comgr VGPRAllocGranule (halved likewise) */
  int hip_sgprs_per_simd;      /* 800 on gfx8-9; 0: unlimited (gfx10+) */
  int hip_sgpr_granule;        /* 16 */
  int hip_lds_per_cu_bytes;    /* device.info().localMemSize_ */
} occ_amd_arch;

/* What one kernel uses and how it is launched. */
typedef struct occ_amd_kernel {
  int wave_size;             /* 32 or 64; 0: the architecture's default */
  bool cu_mode;              /* gfx10+: compiled with -mcumode (no WGP) */
  int threads_per_block;     /* the launch's block (HIP's rule) */
  int max_threads_per_block; /* the compiler's flat workgroup size maximum
                                (LLVM's rule); 0: threads_per_block */
  int vgprs;                 /* architectural VGPRs per lane (NumVgprs) */
  int agprs;                 /* AccVGPRs per lane (NumAgprs); 0 where none */
  int sgprs;                 /* SGPRs per wave, VCC and the rest included
                                (NumSgprs / TotalSGPRs); OCC_AMD_SGPRS_UNKNOWN
                                when not known (no SGPR limit is applied) */
  int64_t lds_bytes;         /* static LDS per workgroup (what the compiler
                                sees: LDS Size, LDSByteSize) */
  int64_t lds_dynamic_bytes; /* LDS given at launch (HIP's sharedMemBytes):
                                HIP's rule counts it, the compiler's figure
                                cannot */
} occ_amd_kernel;

typedef enum occ_amd_status {
  OCC_AMD_OK = 0,
  OCC_AMD_ERR_ARCH,        /* the architecture's fields are out of range */
  OCC_AMD_ERR_WAVE_SIZE,   /* a wave size the architecture does not run */
  OCC_AMD_ERR_CU_MODE,     /* CU mode on an architecture without WGPs */
  OCC_AMD_ERR_BLOCK,       /* block size not 1..max_threads_per_block */
  OCC_AMD_ERR_VGPRS,       /* VGPRs not 0..addressable */
  OCC_AMD_ERR_AGPRS,       /* AGPRs on a target without them, or too many */
  OCC_AMD_ERR_SGPRS,       /* SGPRs not 0..addressable (+ the extra ones) */
  OCC_AMD_ERR_LDS          /* static + dynamic LDS not 0..lds_per_block_bytes */
} occ_amd_status;

/* A static one-line description of a status (what is accepted). */
const char *occ_amd_strerror(occ_amd_status status);

/* Which limits give LLVM's waves per SIMD: the resources below the
 * SIMD's slots that allow the fewest waves (ties all set), or the slots
 * alone when none is below them. */
typedef enum occ_amd_limiter {
  OCC_AMD_LIMITER_WAVE_SLOTS = 1u << 0, /* the SIMD's wave slots */
  OCC_AMD_LIMITER_VGPRS = 1u << 1,      /* VGPRs (+ AGPRs on a unified file) */
  OCC_AMD_LIMITER_AGPRS = 1u << 2,      /* AGPRs in their own file (gfx908) */
  OCC_AMD_LIMITER_SGPRS = 1u << 3,
  OCC_AMD_LIMITER_LDS = 1u << 4,
  OCC_AMD_LIMITER_WORKGROUPS = 1u << 5  /* workgroup slots (barriers) */
} occ_amd_limiter;

/* Why HIP's blocks per CU differs from LLVM's waves per SIMD (converted
 * to whole blocks); every reason that applies is set. */
typedef enum occ_amd_reason {
  OCC_AMD_REASON_MAX_WAVES = 1u << 0,  /* HIP caps waves per SIMD elsewhere */
  OCC_AMD_REASON_VGPR_FILE = 1u << 1,  /* HIP's VGPR file or granule differs */
  OCC_AMD_REASON_SGPR_RULE = 1u << 2,  /* 800/roundup(sgprs,16) vs thresholds */
  OCC_AMD_REASON_WORKGROUP_SLOTS = 1u << 3, /* HIP models no workgroup slots */
  OCC_AMD_REASON_LDS = 1u << 4,        /* LDS per CU vs per WGP, or dynamic
                                          LDS the compiler does not see */
  OCC_AMD_REASON_BLOCK_SIZE = 1u << 5, /* compiled for a larger block */
  OCC_AMD_REASON_ROUNDING = 1u << 6    /* LLVM rounds waves per SIMD up; HIP
                                          counts whole blocks */
} occ_amd_reason;

/* Every step of both rules, for --explain. Counts that do not apply are
 * -1 (a writer prints null), never 0. */
typedef struct occ_amd_result {
  /* The launch. */
  int wave_size;
  int waves_per_block;        /* ceil(threads_per_block / wave_size) */
  int inactive_lanes;         /* waves_per_block x wave_size - threads */
  int simds;                  /* SIMDs a workgroup's waves spread over:
                                 4 per CU (gfx9) or per WGP, 2 per CU */
  /* Registers, LLVM's rule. */
  int vgprs_total;            /* unified: roundup(vgprs, align) + agprs;
                                 else max(vgprs, agprs) */
  int vgpr_granule;
  int vgprs_allocated;        /* roundup(vgprs_total, granule) */
  int vgprs_per_simd;         /* the file for this wave size */
  int waves_by_vgprs;         /* file / allocated, 1..max */
  int waves_by_agprs;         /* gfx908's own AGPR file; -1 elsewhere */
  int waves_by_sgprs;         /* -1 where SGPRs limit nothing (gfx10+) or
                                 the count is unknown */
  /* LDS and workgroup slots, LLVM's rule (max_threads_per_block). */
  int compiler_waves_per_block;
  int lds_per_cu_bytes;       /* doubled in WGP mode */
  int lds_blocks;             /* lds_per_cu / lds (LDS unused: -1) */
  int workgroup_slots;        /* min(max waves x SIMDs / waves, barriers);
                                 a one-wave group uses no barrier */
  int waves_by_lds;           /* ceil(blocks x waves / SIMDs), 1..max */
  int waves_by_workgroups;
  int max_waves_per_simd;
  int waves_per_simd;         /* LLVM's "Occupancy [waves/SIMD]" */
  unsigned limiters;          /* occ_amd_limiter bits */
  double occupancy;           /* waves_per_simd / max_waves_per_simd */
  /* HIP's rule (blocks per CU; per WGP in WGP mode, where clr counts 4
   * SIMDs). */
  int hip_max_waves_per_simd;
  int hip_vgprs_per_simd, hip_vgpr_granule;
  int hip_waves_by_vgprs;     /* -1 when the kernel reports 0 SGPRs (clr
                                 then skips the VGPR limit too) */
  int hip_waves_by_sgprs;     /* -1: unlimited (gfx10+) or unknown */
  int hip_waves_per_simd;     /* min(max, VGPR, SGPR) */
  int hip_threads_per_cu;     /* simds x waves x wave_size */
  int hip_blocks_by_waves;    /* threads / roundup(block, wave_size) */
  int hip_blocks_by_lds;      /* lds_per_cu / (static + dynamic LDS); -1
                                 when no LDS */
  int active_blocks_per_cu;   /* hipOccupancyMaxActiveBlocksPerMultiprocessor */
  unsigned hip_limiters;      /* what holds HIP's blocks: occ_amd_limiter
                                 bits WAVE_SLOTS (HIP's cap), VGPRS, SGPRS,
                                 LDS (ties all set) */
  double hip_occupancy;       /* blocks x waves / (simds x max waves) */
  /* The comparison. */
  int llvm_blocks_per_cu;     /* floor(waves_per_simd x simds / waves) */
  bool rules_differ;
  unsigned reasons;           /* occ_amd_reason bits when they differ */
} occ_amd_result;

/* Checks arch's fields (what the database loader calls). Returns 0, or -1
 * with the first bad field and its range in why (static text). */
int occ_amd_arch_check(const occ_amd_arch *arch, const char **why);

/* Computes both rules for kernel on arch. Returns OCC_AMD_OK with *result
 * filled, or the first input out of range (result untouched). */
occ_amd_status occ_amd_compute(const occ_amd_arch *arch,
                               const occ_amd_kernel *kernel,
                               occ_amd_result *result);

/* The largest SGPR count occ_amd_compute accepts on arch: addressable
 * plus the ones the compiler adds (VCC, FLAT_SCRATCH, XNACK_MASK). */
int occ_amd_max_sgprs(const occ_amd_arch *arch);

#endif
