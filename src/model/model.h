/* model.h - the one plain-data item each analysed kernel configuration
 * becomes, whatever its source (typed numbers, a compiler report's kernel,
 * a module's kernel, the live device's probe): the device, the kernel, the
 * result and the waves, and the optional sections an option asks for,
 * each computed once here (occ_model_build) so that every renderer reads
 * the same numbers and none computes. */
#ifndef OCC_MODEL_H
#define OCC_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/sweep.h"
#include "core/chart.h"
#include "core/cluster.h"
#include "core/explain.h"
#include "core/ncu.h"
#include "core/occ.h"
#include "core/suggest.h"
#include "ptxas/ptxas.h"
#include "model/amd_item.h"
#include "model/block_choice.h"
#include "model/verify.h"

/* The charts of one configuration, --chart's kinds in their order. */
typedef struct occ_charts {
  occ_chart charts[OCC_CHART_KIND_COUNT];
  const occ_chart *list[OCC_CHART_KIND_COUNT]; /* what renderers take */
  size_t count;
} occ_charts;

/* The derivation --explain writes, step by step (core/explain.h). */
typedef struct occ_explanation {
  occ_step steps[OCC_EXPLAIN_MAX_STEPS];
  size_t count;
} occ_explanation;

/* The verification's verdict (the live probe's, or a module's), decided
 * once by the source that verified; every writer and the exit status read
 * it. */
typedef enum occ_verdict {
  OCC_VERDICT_NONE,     /* not verified */
  OCC_VERDICT_AGREE,
  OCC_VERDICT_DISAGREE
} occ_verdict;

/* The sections that need memory, in one allocation: an item's
 * explanation, charts and suggestion point into it (occ_model_build). */
typedef struct occ_sections {
  occ_explanation explanation;
  occ_suggestion suggestion;
  occ_charts charts;
  occ_chart_point points[]; /* the charts' points */
} occ_sections;

/* One kernel configuration. The source sets device, kernel and what it
 * knows; occ_model_build fills the result, the waves and the sections
 * asked for (NULL, or has_ false, when not asked or not known). */
typedef struct occ_item {
  const occ_device *device;        /* NULL for an AMD target (amd) */
  /* An AMD target: its configuration, computed by occ_model_build into
   * amd->result (device NULL, kernel and result unused); NULL for
   * NVIDIA's. */
  occ_amd_item *amd;
  occ_kernel kernel;
  const char *name;                /* as given or read (mangled), or NULL */
  const char *readable;            /* demangled, or NULL */
  const char *label;               /* what --svg files and CSV rows are named
                                      by when there are several, or NULL */
  const occ_ptxas_kernel *ptxas;   /* the compiler's report, or NULL */
  const occ_block_choice *choice;  /* the block chosen without --block
                                      (&chosen, by occ_model_build) */
  occ_block_choice chosen;
  bool choose_block;               /* no block given: the model chooses
                                      it (with the request's cache) */
  bool block_best;                 /* kernel.block is choice's block_size,
                                      as --block best asked (else its
                                      smallest_block_size: a guess) */
  /* What the live backend found (model/verify.h): NULL when not
   * verified. */
  int gpu_ordinal;                 /* live: the GPU's (read with verify) */
  const occ_verify *verify;        /* live: the probe's verification */
  const occ_module_kernel *module; /* live: the module's kernel */
  const occ_cluster_verify *cluster_verify; /* live: --cluster's launch
                                      verified */
  occ_verdict verdict;             /* live: the verification's */
  occ_result result;
  bool has_waves;                  /* a grid was given */
  /* The launch's waves: for a cluster launch of a known layout, a wave
   * holds the clusters at once (cluster_result.active_blocks); else
   * result's blocks per SM x SMs. waves_without_clusters is always the
   * latter (the occupancy API's, ncu's launch__waves_per_multiprocessor). */
  occ_waves waves;
  occ_waves waves_without_clusters;
  bool has_ncu;                    /* ncu's values are known */
  occ_ncu ncu;
  /* --cluster (or a run's cluster launch): the launch in clusters of
   * cluster, computed once by occ_model_build (model/cluster.c);
   * cluster_result.layout_known false, with its reason, where the board's
   * domains were never measured. */
  bool has_cluster;
  occ_cluster cluster;
  occ_cluster_result cluster_result;
  /* The same cluster launch at what the SM holds at launch under the
   * driver's configuration (result.launch_active_blocks_per_sm): equal to
   * cluster_result except under a carveout preference (core/occ.h). */
  occ_cluster_result launch_cluster_result;
  bool has_cluster_waves;          /* a grid was given and clusters fit */
  occ_cluster_waves cluster_waves;
  occ_explanation *explanation;    /* --explain */
  occ_charts *charts;              /* --chart */
  occ_suggestion *suggestion;      /* --suggest */
  occ_sections *sections;          /* where the three above live: the
                                      owner frees it with free() */
} occ_item;

/* The sections a run asks for. */
typedef struct occ_model_request {
  int64_t grid_blocks;  /* 0: no waves */
  /* No --block: the block is chosen (block_choice.h) through this cache
   * into item->kernel.block and item->choice; NULL: the item's block as
   * given. */
  occ_choice_cache *choose_block;
  const occ_cluster *cluster; /* NULL: not a cluster launch */
  bool explain;
  unsigned charts;      /* a bit per occ_chart_kind */
  int chart_step;       /* 0: the chart's own */
  bool suggest;
  /* The sweeps the charts and suggestions share, kept across items (a
   * compiler report's kernels on a few devices); NULL: the item's own,
   * still one per device for its charts and its suggestions. */
  occ_sweep_cache *sweeps;
} occ_model_request;

/* The section whose computation failed. */
typedef enum occ_model_section {
  OCC_SECTION_NONE,
  OCC_SECTION_CHARTS,
  OCC_SECTION_SUGGEST,
  OCC_SECTION_EXPLAIN
} occ_model_section;

/* Chooses the block when req->choose_block; computes item->result and,
 * with a grid, item->waves; with a cluster,
 * the cluster section; Nsight Compute's values; and the sections req asks
 * for, each once. On OCC_OK the sections live in item->sections (NULL when
 * none was asked for), one allocation the item's owner frees with free().
 * Else returns the status, with *failed naming the section that failed
 * (OCC_SECTION_NONE: the configuration itself, the core's status, with
 * OCC_ERR_INVALID_DEVICE for a cluster that occ_cluster_check refuses:
 * check it before, for a message that says why; OCC_ERR_INVALID_KERNEL
 * for an AMD configuration the core refuses, its own status in
 * item->amd->status); item then owns nothing. For an AMD item only the
 * explanation is built (the other sections are NVIDIA's). */
occ_status occ_model_build(occ_item *item, const occ_model_request *req,
                           occ_model_section *failed);

/* Whether item's occupancy (a cluster launch's by the cluster rule, an
 * AMD launch's by HIP's rule: occ_model_occupancy) is below min_pct
 * percent (--min-occupancy): the gate's one decision. False without a
 * device (not known). */
bool occ_model_below(const occ_item *item, double min_pct);

/* The name of a section for a diagnostic ("charts", "suggest", ...). */
const char *occ_model_section_name(occ_model_section section);

#endif
