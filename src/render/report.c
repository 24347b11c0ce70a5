/* report.c - the compact human report, in the spirit of NVIDIA's occupancy
 * spreadsheet: inputs, allocations, the blocks each limit allows with the
 * limiter marked, and the occupancy. Fits 80 columns. */
#include "render/report.h"

#include <inttypes.h>

#include "core/ncu.h"
#include "render/ncu_rows.h"
#include "render/report_rows.h"
#include "render/report_text.h"
#include "render/vocab.h"
#include "text/text_safe.h"

/* The plural ending of a count's noun: "1 warp", "0 warps", "4 warps". */
static const char *plural(long long n) { return n == 1 ? "" : "s"; }

static void print_device(FILE *out, const occ_device *d) {
  char cc[16], name[4 * sizeof d->name];
  occ_cc_text(d, cc, sizeof cc);
  occ_text_safe(d->name, name, sizeof name);
  if (d->sm_count > 0 && d->sm_count_source)
    fprintf(out, "%s (cc %s, %d SMs from %s%s, the rest from the %s)\n", name,
            cc, d->sm_count, d->sm_count_source[0] == '-' ? "" : "the ",
            d->sm_count_source, d->source);
  else if (d->sm_count > 0)
    fprintf(out, "%s (cc %s, %d SMs, from the %s)\n", name, cc, d->sm_count,
            d->source);
  else
    fprintf(out, "%s (cc %s, from the %s)\n", name, cc, d->source);
}

static void print_kernel(FILE *out, const occ_report *rep) {
  const occ_kernel *k = rep->kernel;
  const occ_result *r = rep->result;
  char name[4096];
  fprintf(out, "\nKernel%s%s\n", rep->kernel_name ? " " : "",
          occ_text_safe(rep->kernel_name, name, sizeof name));
  fprintf(out, "  block           %6d thread%s (%dx%dx%d): %d warp%s, %d inactive "
          "thread%s\n", r->threads_per_block, plural(r->threads_per_block),
          k->block[0], k->block[1], k->block[2], r->warps_per_block,
          plural(r->warps_per_block), r->inactive_threads,
          plural(r->inactive_threads));
  fprintf(out, "  registers       %6d per thread\n", k->regs_per_thread);
  fprintf(out, "  shared memory   %6" PRId64 " B static + %" PRId64 " B dynamic",
          k->smem_static_bytes, occ_kernel_smem_dynamic_bytes(k));
  fputc('\n', out);
  if (k->smem_dynamic_per_thread_bytes > 0)
    fprintf(out, "                  (dynamic: %" PRId64 " B + %" PRId64 " B per thread)\n",
            k->smem_dynamic_bytes, k->smem_dynamic_per_thread_bytes);
  fprintf(out, "  barriers        %6d\n", k->barriers);
  if (k->carveout_pct != OCC_CARVEOUT_DEFAULT)
    fprintf(out, "  carveout        %6d %%%s\n", k->carveout_pct,
            r->carveout_ignored ? " (ignored: no carveout before cc 7.0)" : "");
}

static void print_allocated(FILE *out, const occ_report *rep) {
  const occ_device *d = rep->device;
  const occ_result *r = rep->result;
  fprintf(out, "\nAllocated per block\n");
  fprintf(out, "  registers       %6d (%d per warp, in units of %d)\n",
          r->regs_per_block, r->regs_per_warp, d->reg_alloc_unit);
  fprintf(out, "  shared memory   %6" PRId64 " B", r->smem_per_block_bytes);
  if (d->reserved_smem_per_block_bytes > 0)
    fprintf(out, " (incl. %" PRId64 " B reserved; units of %d B)\n",
            d->reserved_smem_per_block_bytes, d->smem_alloc_unit_bytes);
  else
    fprintf(out, " (in units of %d B)\n", d->smem_alloc_unit_bytes);
  /* One figure for the SM's configuration, the driver's at launch (JSON's
   * allocated.smem_config_bytes); the API's assumption beside it. */
  int64_t config = r->launch_smem_config_bytes, api = r->smem_config_bytes;
  if (!occ_launch_config_known(r)) {
    if (api > 0)
      fprintf(out, "  SM configured   unknown (the occupancy API assumes %" PRId64 " B)\n",
              api);
    return;
  }
  fprintf(out, "  SM configured   %6" PRId64 " B of shared memory", config);
  if (d->l1_smem_bytes > 0)
    fprintf(out, ", %" PRId64 " B left to L1", d->l1_smem_bytes - config);
  fputc('\n', out);
  /* A configuration no survey backs says so, before any figure from it. */
  if (r->smem_config_basis == OCC_FIGURE_ASSUMED) {
    char cc[16];
    occ_cc_text(d, cc, sizeof cc);
    fprintf(out, "                  assumed: the driver's choice was never "
            "surveyed on cc %s\n", cc);
  }
  if (config != api && api > 0)
    fprintf(out, "                  (the occupancy API assumes %" PRId64 " B)\n", api);
}

static void print_limits(FILE *out, const occ_result *r) {
  fprintf(out, "\nBlocks per SM allowed by\n");
  for (int i = 0; i < OCC_LIMITER_COUNT; i++) {
    int limit = occ_result_limit(r, i);
    bool binds = (r->limited_by >> i) & 1;
    if (limit == OCC_UNLIMITED)
      fprintf(out, "  %-15s      - (%s)\n", occ_limiter_label(i),
              occ_unlimited_reason(r, i));
    else
      fprintf(out, "  %-15s %6d%s\n", occ_limiter_label(i), limit,
              binds ? "  <- limiter" : "");
  }
}

/* An "at launch" line: blocks (an average for a cluster launch), warps
 * and the occupancy the SM holds under the driver's configuration; for a
 * cluster launch whose count differs from the API's, the clusters at once
 * on the GPU (the "Thread block clusters" section gives the API's). */
static void print_at_launch(FILE *out, const char *label,
                            const occ_at_launch *a) {
  char blocks[32], warps[32], pct[32], clusters[48] = "";
  bool whole = a->active_blocks_per_sm == (double)(int64_t)a->active_blocks_per_sm;
  snprintf(blocks, sizeof blocks, whole ? "%.0f" : "%.2f",
           a->active_blocks_per_sm);
  snprintf(warps, sizeof warps, whole ? "%.0f" : "%.2f", a->active_warps_per_sm);
  occ_pct_text(a->occupancy, pct, sizeof pct);
  if (a->clusters_known && a->differs_from_api)
    snprintf(clusters, sizeof clusters, ", %" PRId64 " cluster%s",
             a->max_active_clusters, plural(a->max_active_clusters));
  fprintf(out, "  %-15s %6s block%s, %s warp%s, %s %%%s%s\n", label, blocks,
          whole && a->active_blocks_per_sm == 1 ? "" : "s", warps,
          whole && a->active_warps_per_sm == 1 ? "" : "s", pct,
          whole ? "" : " (on average)", clusters);
}

static void print_occupancy(FILE *out, const occ_report *rep) {
  const occ_device *d = rep->device;
  const occ_result *r = rep->result;
  char pct[32];
  fprintf(out, "\nOccupancy\n");
  occ_report_value rows[OCC_OCCUPANCY_ROW_COUNT];
  occ_occupancy_rows(rep, rows);
  for (int i = 0; i < OCC_OCCUPANCY_ROW_COUNT; i++) {
    if (!rows[i].label) continue;
    char value[32];
    if (rows[i].fraction)
      occ_pct_text(rows[i].value, value, sizeof value);
    else if (rows[i].value == (double)(int64_t)rows[i].value)
      snprintf(value, sizeof value, "%.0f", rows[i].value);
    else
      snprintf(value, sizeof value, "%.2f", rows[i].value);
    fprintf(out, "  %-15s %6s %s\n", rows[i].label, value, rows[i].unit);
  }
  /* A cluster launch's figures above; the kernel's without clusters here. */
  bool clusters = occ_report_cluster_launch(rep) != NULL;
  occ_at_launch launch = occ_report_at_launch(rep, true);
  occ_at_launch alone = occ_report_at_launch(rep, false);
  if (launch.differs_from_api) print_at_launch(out, "at launch", &launch);
  if (clusters) {
    char limiters[96];
    occ_pct_text(r->occupancy, pct, sizeof pct);
    fprintf(out, "  without clusters %5d block%s per SM, %s %% (limited by %s)\n",
            r->active_blocks_per_sm, plural(r->active_blocks_per_sm), pct,
            occ_limiters_words(r->limited_by, limiters, sizeof limiters));
    if (alone.differs_from_api)
      print_at_launch(out, "  at launch", &alone);
  }
  if (launch.differs_from_api || (clusters && alone.differs_from_api)) {
    if (r->launch_smem_config_bytes > 0)
      fprintf(out, "                  the driver gives the SM %" PRId64 " KB for "
              "this carveout;\n", r->launch_smem_config_bytes / 1024);
    else
      fprintf(out, "                  no shared memory of its own: not limited "
              "by it;\n");
    fprintf(out, "                  the occupancy API and cuda_occupancy.h "
            "assume %" PRId64 " KB\n", r->smem_config_bytes / 1024);
  }
  if (!r->launchable) {
    char reason[160];
    occ_reason_detail(d, rep->kernel, r, reason, sizeof reason);
    fprintf(out, "  cannot launch:  %s\n", reason);
  }
}

static void print_waves(FILE *out, const occ_report *rep) {
  const occ_waves *w = rep->waves;
  fprintf(out, "\nGrid\n");
  fprintf(out, "  blocks          %6" PRId64 " (%" PRId64 " per wave on %d SMs%s)\n",
          w->grid_blocks, w->blocks_per_wave, rep->device->sm_count,
          occ_report_cluster_launch(rep) ? ", in clusters" : "");
  char words[80];
  if (w->blocks_per_wave > 0)
    fprintf(out, "  waves           %6.2f (%s)\n", w->waves,
            occ_waves_words(w, words, sizeof words));
}

void occ_print_report(FILE *out, const occ_report *rep) {
  print_device(out, rep->device);
  print_kernel(out, rep);
  print_allocated(out, rep);
  print_limits(out, rep->result);
  print_occupancy(out, rep);
  if (rep->waves) print_waves(out, rep);
  occ_print_cluster(out, rep);
}

void occ_print_ncu(FILE *out, const occ_report *rep) {
  if (!rep->ncu) return;
  occ_ncu_value rows[OCC_NCU_ROW_COUNT];
  occ_ncu_values_rows(rep->ncu, rows);
  fprintf(out, "\nNsight Compute would report (its metric names)\n");
  /* A row without a figure says why in words, or is left out. */
  for (int i = 0; i < OCC_NCU_ROW_COUNT; i++) {
    const occ_ncu_value *v = &rows[i];
    if (!v->known && v->words)
      fprintf(out, "  %-40s %10s\n", v->key, v->words);
    else if (v->known && v->decimals)
      fprintf(out, "  %-40s %10.*f%s\n", v->key, v->decimals, v->value,
              v->assumed ? " assumed" : "");
    else if (v->known)
      fprintf(out, "  %-40s %10lld%s\n", v->key, (long long)v->value,
              v->assumed ? " assumed" : "");
  }
}
