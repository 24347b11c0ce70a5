/* chart.h - the three occupancy charts: active warps per SM as one input
 * (threads per block, registers per thread, shared memory per block) varies
 * over its whole range with the others fixed, the kernel's own
 * configuration marked. chart.c computes the data with the sweep engine;
 * each output format is its own file (chart_term.c, chart_svg.c,
 * chart_csv.c, chart_json.c) and only draws what the data holds. */
#ifndef OCC_CHART_H
#define OCC_CHART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/occ.h"
#include "core/sweep.h"

typedef enum occ_chart_kind {
  OCC_CHART_BLOCK, /* x: threads per block */
  OCC_CHART_REGS,  /* x: registers per thread */
  OCC_CHART_SMEM   /* x: shared memory per block, static + dynamic bytes */
} occ_chart_kind;

#define OCC_CHART_KIND_COUNT 3

/* "block", "regs", "smem" (the --chart values); NULL past the end. (The
 * kinds' words are inline data, read by the option parser and the
 * renderers without a call into the calculator.) */
static inline const char *occ_chart_kind_name(int kind) {
  static const char *const names[OCC_CHART_KIND_COUNT] = {"block", "regs",
                                                          "smem"};
  return kind >= 0 && kind < OCC_CHART_KIND_COUNT ? names[kind] : NULL;
}

/* The axis label of a kind: "threads per block", ... */
static inline const char *occ_chart_x_label(occ_chart_kind kind) {
  static const char *const labels[OCC_CHART_KIND_COUNT] = {
      "threads per block", "registers per thread",
      "shared memory per block (K = 1024 bytes)"};
  return labels[kind];
}

typedef struct occ_chart_point {
  int64_t x;
  int active_blocks_per_sm;
  int active_warps_per_sm;
  double occupancy;         /* 0..1 */
  unsigned limited_by;      /* occ_limiter bits */
} occ_chart_point;

typedef struct occ_chart {
  occ_chart_kind kind;
  char device_name[OCC_NAME_MAX];
  int cc_major, cc_minor;
  int max_warps_per_sm;     /* the y axis' top */
  /* The kernel's configuration (the fixed inputs and the marked x). */
  int threads_per_block;
  int regs_per_thread;
  int64_t smem_bytes;       /* static + dynamic, at threads_per_block */
  int64_t smem_dynamic_per_thread_bytes; /* the block chart adds this per
                                            thread of each size */
  /* Points in ascending x: the range at its step, plus the kernel's own x
   * when it is off that grid, so the marked point is always a data point. */
  size_t count;
  occ_chart_point *points;
  size_t marked;            /* index of the kernel's configuration */
  bool marked_launchable;   /* false: drawn with "cannot launch" */
  int64_t grid_step;        /* the range's step in x units */
} occ_chart;

/* Builds one chart of kernel on the sweep's device (the sweep must have
 * the kernel's carveout and barrier count). block_step is the block
 * chart's step in threads (the warp size by default; 1 for every size).
 * Returns OCC_OK and fills *chart (free with occ_chart_free), or an error
 * (OCC_ERR_NOMEM, or the core's status for the kernel) with *chart empty. */
occ_status occ_chart_build(const occ_sweep *sweep, const occ_kernel *kernel,
                           occ_chart_kind kind, int block_step,
                           occ_chart *chart);

/* Frees the points of a chart built by occ_chart_build (an empty chart is
 * fine) and leaves it empty. */
void occ_chart_free(occ_chart *chart);

/* The short name of a kind's input for titles: "threads per block",
 * "registers per thread", "shared memory per block". */
static inline const char *occ_chart_x_name(occ_chart_kind kind) {
  static const char *const names[OCC_CHART_KIND_COUNT] = {
      "threads per block", "registers per thread", "shared memory per block"};
  return names[kind];
}

/* The x unit the writers print after a value: "threads", "regs", "B". */
static inline const char *occ_chart_x_unit(occ_chart_kind kind) {
  static const char *const units[OCC_CHART_KIND_COUNT] = {"threads", "regs",
                                                          "B"};
  return units[kind];
}



#endif
