/* amdgpu_remarks.h - a streaming reader of AMD's compiler report: the
 * remarks clang and hipcc print under -Rpass-analysis=kernel-resource-usage,
 * mixed with other compiler output, in the style of the ptxas reader
 * (ptxas.h): bytes in chunks of any size, one callback per kernel, memory
 * fixed when the reader is created.
 *
 * The form (clang 19; newer compilers print TotalSGPRs for SGPRs, RDNA
 * targets no AGPRs line; the location may come before or after "remark:"):
 *
 *   k.cl:1:1: remark: Function Name: reduce [-Rpass-analysis=kernel-resource-usage]
 *   k.cl:1:1: remark:     SGPRs: 55 [-Rpass-analysis=kernel-resource-usage]
 *   k.cl:1:1: remark:     VGPRs: 44 [...]
 *   k.cl:1:1: remark:     AGPRs: 0 [...]
 *   k.cl:1:1: remark:     ScratchSize [bytes/lane]: 0 [...]
 *   k.cl:1:1: remark:     Dynamic Stack: True [...]
 *   k.cl:1:1: remark:     Occupancy [waves/SIMD]: 8 [...]
 *   k.cl:1:1: remark:     SGPRs Spill: 0 [...]
 *   k.cl:1:1: remark:     VGPRs Spill: 0 [...]
 *   k.cl:1:1: remark:     LDS Size [bytes/block]: 1024 [...]
 *
 * with clang's source snippets, ANSI colour codes and CRLF line ends mixed
 * in. The remarks do not name the target: a compiler command line echoed
 * in the log (-mcpu=gfxNNN, --offload-arch=gfxNNN, --cuda-gpu-arch=gfxNNN)
 * names it for the kernels after it when it names exactly one, and
 * -mwavefrontsize64 (or its absence) their wave size. */
#ifndef OCC_AMDGPU_REMARKS_H
#define OCC_AMDGPU_REMARKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The longest line kept (as the ptxas reader's); longer ones are counted
 * as skipped when they claim to be a remark. */
#define OCC_AMDGPU_LINE_MAX 65536
#define OCC_AMDGPU_ARCH_MAX 16

/* A field the report did not carry (RDNA prints no AGPRs). */
#define OCC_AMDGPU_UNKNOWN (-1)

/* One kernel as the compiler reported it. */
typedef struct occ_amdgpu_kernel {
  const char *name;      /* as printed (mangled); valid only during the
                            callback */
  char arch[OCC_AMDGPU_ARCH_MAX]; /* "gfx90a", or "" when the log names no
                                     single target */
  int wave_size;         /* 32 or 64 as the command line asked; 0 when it
                            did not say (the target's default) */
  int sgprs;             /* SGPRs or TotalSGPRs: per wave, VCC and the
                            rest included */
  bool sgprs_total_form; /* printed as "TotalSGPRs" (newer compilers) */
  int vgprs;             /* architectural VGPRs per lane */
  int agprs;             /* OCC_AMDGPU_UNKNOWN where no AGPRs line */
  int64_t scratch_bytes_per_lane;
  int dynamic_stack;     /* 1 True, 0 False, OCC_AMDGPU_UNKNOWN */
  int occupancy_waves_per_simd; /* the compiler's own figure */
  int sgpr_spills, vgpr_spills;
  int64_t lds_bytes;     /* per workgroup (static) */
  long line;             /* 1-based input line of "Function Name" */
} occ_amdgpu_kernel;

/* Called once per kernel; a non-zero return stops the reader, and
 * occ_amdgpu_feed / occ_amdgpu_finish return that value. */
typedef int (*occ_amdgpu_fn)(const occ_amdgpu_kernel *kernel, void *ctx);

typedef struct occ_amdgpu_stats {
  long lines;
  long kernels;            /* handed to the callback */
  long skipped_lines;      /* remark lines that did not parse, or too long */
  long first_skipped_line; /* 1-based, 0 when none */
  long incomplete;         /* kernels handed over without VGPRs, SGPRs or
                              Occupancy (the callback still sees them, with
                              those fields OCC_AMDGPU_UNKNOWN) */
} occ_amdgpu_stats;

typedef struct occ_amdgpu_parser occ_amdgpu_parser;

/* Creates a reader; NULL when out of memory. Free with occ_amdgpu_free
 * (NULL-safe). fn NULL: no callback; the caller takes each kernel with
 * occ_amdgpu_next after each occ_amdgpu_line and after
 * occ_amdgpu_finish. */
occ_amdgpu_parser *occ_amdgpu_new(occ_amdgpu_fn fn, void *ctx);

/* Without a callback: the kernel the last line (or finish) completed,
 * valid until the next call into the reader; NULL when none. */
const occ_amdgpu_kernel *occ_amdgpu_next(occ_amdgpu_parser *parser);
void occ_amdgpu_free(occ_amdgpu_parser *parser);

/* Feeds len bytes (a chunk may end mid-line). Returns 0 or the callback's
 * non-zero value. */
int occ_amdgpu_feed(occ_amdgpu_parser *parser, const char *data, size_t len);

/* Ends the input: reads a last line without a newline and hands over the
 * open kernel. Returns as occ_amdgpu_feed. */
int occ_amdgpu_finish(occ_amdgpu_parser *parser);

/* Hands over one line s[0, len), without its '\n' (a caller that splits
 * the input itself): s NULL for a line over OCC_AMDGPU_LINE_MAX. Do not
 * mix with occ_amdgpu_feed. Returns as occ_amdgpu_feed. */
int occ_amdgpu_line(occ_amdgpu_parser *parser, const char *s, size_t len);

/* Feeds a whole stream and finishes. Returns 0, the callback's value, or
 * -1 when reading failed. */
int occ_amdgpu_read_file(occ_amdgpu_parser *parser, FILE *in);

const occ_amdgpu_stats *occ_amdgpu_get_stats(const occ_amdgpu_parser *parser);


#endif
