/* fuzz_db.c - libFuzzer target for the database loader: parses the input
 * as a --data file and, for every board and architecture it accepts, runs
 * the calculator, the explanation, the charts and the suggestions on a few
 * kernels through their writers (to /dev/null). A device the loader
 * accepts must satisfy the core's contract and give sane numbers; anything
 * else aborts. Built and run by `make fuzz-db` (tests/db/db.mk). */
#include <stdio.h>
#include <stdlib.h>

#include "core/chart.h"
#include "core/explain.h"
#include "core/suggest.h"
#include "core/sweep.h"
#include "db/gpudb.h"
#include "model/model.h"
#include "render/chart_out.h"
#include "render/report.h"
#include "render/suggest_out.h"

static FILE *sink;

static void check(bool ok) {
  if (!ok) abort();
}

static void write_json(cJSON *obj) {
  check(obj != NULL);
  occ_print_json(sink, obj);
  cJSON_Delete(obj);
}

/* The model computes (src/model/); the writers only read it. */
static void report(const occ_device *d, const occ_kernel *k) {
  occ_item item = {.device = d, .kernel = *k, .name = "k"};
  occ_model_request req = {.grid_blocks = 1000, .explain = true};
  occ_model_section failed;
  check(occ_model_build(&item, &req, &failed) == OCC_OK);
  const occ_result *r = &item.result;
  check(r->occupancy >= 0 && r->occupancy <= 1 &&
        r->active_blocks_per_sm <= d->max_blocks_per_sm &&
        r->regs_per_block >= 0 && r->smem_per_block_bytes >= 0);
  occ_report rep = {.device = d, .kernel = &item.kernel, .kernel_name = "k",
                    .result = r, .waves = &item.waves,
                    .ncu = item.has_ncu ? &item.ncu : NULL,
                    .steps = item.explanation->steps,
                    .step_count = item.explanation->count};
  occ_print_report(sink, &rep);
  occ_print_explain(sink, &rep);
  occ_print_ncu(sink, &rep);
  write_json(occ_json_report(&rep));
  free(item.sections);
}

static void charts(const occ_device *d, const occ_kernel *k, int step) {
  occ_sweep *s;
  check(occ_sweep_new(d, k->carveout_pct, k->barriers, &s) == OCC_OK);
  occ_chart built[OCC_CHART_KIND_COUNT];
  const occ_chart *list[OCC_CHART_KIND_COUNT];
  for (int kind = 0; kind < OCC_CHART_KIND_COUNT; kind++) {
    check(occ_chart_build(s, k, (occ_chart_kind)kind, step, &built[kind]) == OCC_OK);
    check(built[kind].count > 0 && built[kind].count <= 16386);
    list[kind] = &built[kind];
  }
  occ_chart_print_term(sink, list, OCC_CHART_KIND_COUNT, step == 1);
  occ_chart_write_csv(sink, "k", list, OCC_CHART_KIND_COUNT);
  occ_chart_write_svg(sink, "k", list, OCC_CHART_KIND_COUNT);
  write_json(occ_chart_json(list, OCC_CHART_KIND_COUNT));
  for (int kind = 0; kind < OCC_CHART_KIND_COUNT; kind++) occ_chart_free(&built[kind]);
  occ_sweep_free(s);
}

static void suggest(const occ_device *d, const occ_kernel *k) {
  static occ_suggestion s;
  check(occ_suggest(d, k, &s) == OCC_OK);
  occ_suggest_print(sink, d, &s);
  write_json(occ_suggest_json(&s));
}

/* Kernels inside the device's limits: the smallest, then a full block
 * with every register, shared memory and a carveout preference (charted,
 * every block size, and suggested: a sweep costs tens of thousands of
 * occ_compute calls under the sanitizers, so one kernel has them). */
static void run_device(const occ_device *d) {
  occ_kernel k;
  occ_kernel_init(&k);
  report(d, &k);
  k.block[0] = d->max_threads_per_block < d->max_block_dim[0]
                   ? d->max_threads_per_block : d->max_block_dim[0];
  k.regs_per_thread = d->max_regs_per_thread;
  k.smem_dynamic_bytes = d->smem_per_block_bytes / 2;
  k.carveout_pct = 50;
  k.barriers = 2;
  report(d, &k);
  charts(d, &k, 1);
  suggest(d, &k);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!sink) sink = fopen("/dev/null", "w");
  char err[512];
  occ_gpudb *db = occ_gpudb_parse((const char *)data, size, "fuzz", err, sizeof err);
  if (!db) return 0;
  occ_gpu_catalog catalog;
  check(occ_gpudb_catalog(db, &catalog) == 0);
  write_json(occ_json_gpu_list(&catalog));
  occ_print_gpu_list(sink, &catalog);
  free(catalog.storage);
  occ_device d;
  for (size_t i = 0; i < occ_gpudb_gpu_count(db); i++) {
    occ_gpudb_gpu_at(db, i, &d, NULL, NULL);
    check(occ_device_check(&d, NULL));
    run_device(&d);
  }
  for (size_t i = 0; i < occ_gpudb_arch_count(db); i++) {
    occ_gpudb_arch_at(db, i, &d, NULL, NULL);
    run_device(&d);
  }
  occ_gpudb_free(db);
  return 0;
}
