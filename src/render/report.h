/* report.h - writers of one calculation: the human report, the step-by-step
 * explanation and the JSON object (schema 3, documented in man/occcalc.1).
 * They only format what occ_compute produced; nothing is recomputed. */
#ifndef OCC_REPORT_H
#define OCC_REPORT_H

#include "render/json_write.h"
#include <stdio.h>

#include "core/cluster.h"
#include "core/explain.h"
#include "core/ncu.h"
#include "core/occ.h"
#include "db/gpudb.h"


/* What one report is about, computed before (src/model/): the writers
 * only read it. kernel_name may be NULL; mangled_name is the symbol the
 * name was demangled from, NULL where the source has none (see
 * occ_json_kernel); waves is NULL without --grid; ncu
 * is NULL where its values are not known; steps (step_count of them) is
 * the derivation --explain writes. */
typedef struct occ_report {
  const occ_device *device;
  const occ_kernel *kernel;
  const char *kernel_name;
  const occ_result *result;
  const occ_waves *waves;
  const occ_ncu *ncu;
  const occ_step *steps;
  size_t step_count;
  const char *mangled_name;
  /* A launch in thread block clusters (model/cluster.h): NULL when not;
   * cluster_waves NULL without a grid or without a known layout. */
  const occ_cluster *cluster;
  const occ_cluster_result *cluster_result;
  const occ_cluster_waves *cluster_waves;
  /* The waves without clusters (waves is the launch's: in clusters for a
   * cluster launch of a known layout); NULL without a grid. */
  const occ_waves *waves_without_clusters;
  /* The cluster launch at what the SM holds at launch
   * (occ_item.launch_cluster_result); NULL: the same as cluster_result. */
  const occ_cluster_result *launch_cluster_result;
} occ_report;

/* Writes the compact human report (fits 80 columns), with its "Thread
 * block clusters" section for a cluster launch. */
void occ_print_report(FILE *out, const occ_report *report);

/* Writes the derivation step by step with this case's numbers. */
void occ_print_explain(FILE *out, const occ_report *report);

/* Writes the "Thread block clusters" section of a cluster launch
 * (render/cluster_text.c); nothing when rep->cluster is NULL. */
void occ_print_cluster(FILE *out, const occ_report *report);

/* The "cluster" object of a report (render/cluster_json.c): null when
 * rep->cluster is NULL. The caller owns it; NULL when out of memory. */
cJSON *occ_json_cluster(const occ_report *report);

/* Builds the JSON object of one report; the caller owns it (cJSON_Delete).
 * NULL when out of memory. */
cJSON *occ_json_report(const occ_report *report);

/* A device object's text, kept to be written again: a compiler report's
 * thousands of kernels share a few devices. Zero-initialized: empty. */
typedef struct occ_device_text {
  occ_device device; /* what the text was written from */
  bool formatted;
  int depth;
  size_t len;        /* 0: none */
  char text[2048];
} occ_device_text;

/* The same objects described to a writer (json_write.h's occ_jw), which
 * prints them as they are made or builds the trees above: the report's
 * members from "schema" to "cluster" (the caller adds "compiler",
 * "block_choice" and the sections, then closes the object), and each part
 * under key. With memo (NULL: none), the device's text is written once
 * and repeated while the device stays the same. */
void occ_jw_report_members(occ_jw *w, const occ_report *report,
                           occ_device_text *memo);
void occ_jw_root_members(occ_jw *w);
void occ_jw_device(occ_jw *w, const char *key, const occ_device *device);
void occ_jw_kernel(occ_jw *w, const char *key, const occ_kernel *kernel,
                   const char *name, const char *mangled_name);
void occ_jw_waves(occ_jw *w, const char *key, const occ_waves *waves);
void occ_jw_ncu(occ_jw *w, const char *key, const occ_report *report);
void occ_jw_limited_by(occ_jw *w, const char *key, const occ_result *result);
void occ_jw_cluster(occ_jw *w, const char *key, const occ_report *report);

/* Writes obj as indented JSON and a newline (obj stays the caller's; NULL
 * counts as out of memory). Returns 0, or -1 after
 * saying so on stderr. */
int occ_print_json(FILE *out, const cJSON *obj);

/* Writes the values Nsight Compute reports for this launch (--ncu). */
void occ_print_ncu(FILE *out, const occ_report *report);

/* The values Nsight Compute reports for this launch, under its metric
 * names (core/ncu.h; null values where not known); the caller owns it. */
cJSON *occ_json_ncu(const occ_report *report);

/* The "waves" object, the same in every document: grid_blocks,
 * blocks_per_wave, full_waves, tail_blocks, waves. The caller owns it. */
cJSON *occ_json_waves(const occ_waves *waves);

/* The "limited_by" array of limiter keys (occ_limiter_key), the same in
 * every document. The caller owns it. */
cJSON *occ_json_limited_by(const occ_result *result);

/* Builds the JSON object of a device (the "device" key of a report). */
cJSON *occ_json_device(const occ_device *device);

/* The JSON schema every document of this version follows: its "schema". */
#define OCC_JSON_SCHEMA 3

/* A document's root object with "schema" and "occcalc_version"; the
 * caller owns it. NULL when out of memory. */
cJSON *occ_json_root(void);

/* The "kernel" object, the same wherever a kernel appears (a report, a
 * compiler report's row, a verify probe, a sweep case, a run's row and
 * launch): name, mangled_name, block [x, y, z], regs_per_thread,
 * smem_static_bytes, smem_dynamic_bytes, barriers, carveout_pct (null for
 * the default). The rule for the names: name is what a person reads (the
 * demangled name where the source gives a symbol, else the name as
 * given), mangled_name the symbol itself as the compiler, the module or
 * the driver names it; each null where not known (typed numbers have no
 * symbol). The caller owns it; NULL when out of memory. */
cJSON *occ_json_kernel(const occ_kernel *kernel, const char *name,
                       const char *mangled_name);

/* The document of --list-gpus: the root with "gpus" and "architectures",
 * each an array of device objects with "family" and "reference", then
 * AMD's. The caller owns it; NULL when out of memory. */
cJSON *occ_json_gpu_list(const occ_gpu_catalog *catalog);

/* --list-gpus as tables: the boards, the architectures, then AMD's boards
 * and architectures (none when the database has no AMD entry). */
void occ_print_gpu_list(FILE *out, const occ_gpu_catalog *catalog);

#endif
