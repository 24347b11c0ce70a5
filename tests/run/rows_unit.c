/* rows_unit.c - run's records joined into rows by the model
 * (src/model/run_rows.c), driven directly: each launch's counters found by
 * either correlation id of its process, each process' first refusal, the
 * summaries summed, the report's note, the launches grouped by
 * configuration in the order each first ran (the driver's shared memory
 * compared only where both launches know it) and each row measured;
 * each row computed on its device (src/model/run_item.c); the launches
 * and the sampler's status handed to the attribution
 * (src/model/run_samples.c). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/gpudb.h"
#include "model/run_item.h"
#include "model/run_rows.h"
#include "model/run_samples.h"

enum { MAX_RECORDS = 32 };

/* The records of a run, and the launches chosen from them. */
typedef struct run {
  occ_launch_record at[MAX_RECORDS];
  size_t count;
  const occ_launch_record *launches[MAX_RECORDS];
  size_t launch_count;
} run;

static occ_launch_record *add(run *r, occ_record_kind kind, int32_t pid,
                              uint32_t correlation) {
  cr_assert_lt(r->count, MAX_RECORDS);
  occ_launch_record *l = &r->at[r->count++];
  *l = (occ_launch_record){.magic = OCC_RECORD_MAGIC,
                           .kind = kind,
                           .pid = pid,
                           .correlation = correlation,
                           .grid = {8, 1, 1},
                           .block = {128, 1, 1},
                           .cluster = {1, 1, 1},
                           .regs_per_thread = 32,
                           .carveout_requested_pct = -1,
                           .start_ns = 1000 * correlation,
                           .end_ns = 1000 * correlation + 500};
  snprintf(l->name, sizeof l->name, "_Z1kv");
  return l;
}

static occ_launch_record *launch(run *r, int32_t pid, uint32_t correlation) {
  return add(r, OCC_RECORD_LAUNCH, pid, correlation);
}

static void counters(run *r, int32_t pid, uint32_t correlation,
                     uint32_t runtime_correlation, double achieved_pct,
                     double metric) {
  occ_launch_record *c = add(r, OCC_RECORD_COUNTERS, pid, correlation);
  c->runtime_correlation = runtime_correlation;
  c->values[0] = achieved_pct;
  c->values[1] = 20000;
  c->values[OCC_RECORD_FIRST_METRIC] = metric;
  c->value_count = OCC_RECORD_FIRST_METRIC + 1;
}

static void refusal(run *r, int32_t pid, const char *why) {
  snprintf(add(r, OCC_RECORD_NO_COUNTERS, pid, 0)->why, OCC_RECORD_WHY_MAX,
           "%s", why);
}

/* Every launch record shown, in record order. */
static void show_all(run *r) {
  for (size_t i = 0; i < r->count; i++)
    if (r->at[i].kind == OCC_RECORD_LAUNCH)
      r->launches[r->launch_count++] = &r->at[i];
}

static void join(run *r, occ_run_join *j) {
  show_all(r);
  cr_assert_eq(
      occ_run_join_records(j, r->at, r->count, r->launches, r->launch_count),
      0);
}

Test(join, counters_by_either_correlation_refusals_and_cost) {
  static run r;
  memset(&r, 0, sizeof r);
  launch(&r, 10, 1);
  counters(&r, 10, 1, 0, 40, 7);
  /* The activity record carries the runtime call's id: the counters name
   * it beside the driver call's. */
  launch(&r, 10, 5);
  counters(&r, 10, 99, 5, 60, 9);
  /* Same correlation id in another process: not the first's counters. */
  launch(&r, 11, 1);
  refusal(&r, 11, "held by another process");
  refusal(&r, 11, "a later refusal");
  occ_launch_record *s = add(&r, OCC_RECORD_SUMMARY, 10, 0);
  s->values[OCC_SUMMARY_SECONDS] = 1.5;
  s->values[OCC_SUMMARY_PROFILED] = 2;
  s = add(&r, OCC_RECORD_SUMMARY, 11, 0);
  s->values[OCC_SUMMARY_SECONDS] = 0.5;
  snprintf(s->why, sizeof s->why, "flush failed");
  occ_run_join j;
  join(&r, &j);
  cr_assert_eq(j.launch_count, 3);
  cr_assert_eq(j.counters[0], &r.at[1]);
  cr_assert_eq(j.counters[1], &r.at[3]);
  cr_assert_null(j.counters[2]);
  cr_assert_null(j.refusals[0]);
  cr_assert_eq(j.refusals[2], &r.at[5]);
  cr_assert_eq(j.cost.process_count, 2);
  cr_assert_float_eq(j.cost.seconds, 2.0, 1e-12);
  cr_assert_float_eq(j.cost.profiled, 2.0, 1e-12);
  cr_assert_str_eq(j.cost.flush_failed_why, "flush failed");
  cr_assert_str_eq(j.note, "no counters in process 11: held by another "
                           "process");
  occ_run_join_free(&j);
}

Test(join, one_process_note_names_no_process) {
  static run r;
  memset(&r, 0, sizeof r);
  launch(&r, 10, 1);
  refusal(&r, 10, "no permission");
  occ_run_join j;
  join(&r, &j);
  cr_assert_str_eq(j.note, "no permission");
  occ_run_join_free(&j);
}

/* The rows of r's launches, replay's measurement. */
static void group(run *r, occ_run_join *j, occ_run_row **rows,
                  size_t *row_count) {
  join(r, j);
  occ_run_measure_spec spec = {
      .measure = OCC_MEASURE_REPLAY, .counter_launches = 3, .metric_count = 1};
  cr_assert_eq(occ_run_rows_group(j, NULL, &spec, rows, row_count), 0);
}

Test(rows, configurations_in_first_launch_order) {
  static run r;
  memset(&r, 0, sizeof r);
  launch(&r, 10, 1)->grid[0] = 16;
  launch(&r, 10, 2);
  launch(&r, 10, 3)->grid[0] = 16;
  snprintf(launch(&r, 10, 4)->name, OCC_RECORD_NAME_MAX, "_Z1jv");
  launch(&r, 10, 5)->device = 1;
  occ_run_join j;
  occ_run_row *rows;
  size_t n;
  group(&r, &j, &rows, &n);
  cr_assert_eq(n, 4);
  cr_assert_eq(rows[0].first, &r.at[0]);
  cr_assert_eq(rows[0].measure.launch_count, 2);
  cr_assert_eq(rows[0].launches[1], &r.at[2]);
  cr_assert_eq(rows[1].first, &r.at[1]);
  cr_assert_eq(rows[2].first, &r.at[3]);
  cr_assert_eq(rows[3].first, &r.at[4]);
  occ_run_rows_free(rows, n);
  occ_run_join_free(&j);
}

/* The shared memory the driver configured: a launch that does not know
 * it (0) joins the configuration's first row, which takes the first value
 * it meets; another value has a row of its own. */
Test(rows, driver_shared_memory_compared_where_known) {
  static run r;
  memset(&r, 0, sizeof r);
  launch(&r, 10, 1);
  launch(&r, 10, 2)->smem_executed_bytes = 65536;
  launch(&r, 10, 3)->smem_executed_bytes = 32768;
  launch(&r, 10, 4)->smem_executed_bytes = 32768;
  launch(&r, 10, 5);
  launch(&r, 10, 6)->smem_executed_bytes = 65536;
  occ_run_join j;
  occ_run_row *rows;
  size_t n;
  group(&r, &j, &rows, &n);
  cr_assert_eq(n, 2);
  cr_assert_eq(rows[0].measure.launch_count, 4);
  cr_assert_eq(rows[0].measure.smem_executed_bytes, 65536);
  cr_assert_eq(rows[0].launches[2], &r.at[4]);
  cr_assert_eq(rows[1].measure.launch_count, 2);
  cr_assert_eq(rows[1].measure.smem_executed_bytes, 32768);
  cr_assert_eq(rows[1].first, &r.at[2]);
  occ_run_rows_free(rows, n);
  occ_run_join_free(&j);
}

Test(rows, replay_measured_over_the_launches_with_counters) {
  static run r;
  memset(&r, 0, sizeof r);
  /* Profiled launches: their activity records carry no times (0). */
  launch(&r, 10, 1)->end_ns = 0;
  counters(&r, 10, 1, 0, 40, 7);
  launch(&r, 10, 2)->end_ns = 0;
  counters(&r, 10, 2, 0, 60, 9);
  launch(&r, 10, 3);
  /* Another configuration, in a process whose counters were refused. */
  launch(&r, 11, 4)->grid[0] = 2;
  refusal(&r, 11, "held");
  occ_run_join j;
  occ_run_row *rows;
  size_t n;
  group(&r, &j, &rows, &n);
  cr_assert_eq(n, 2);
  const occ_measure *m = &rows[0].measure;
  cr_assert_eq(m->launch_count, 3);
  cr_assert_eq(m->counter_launch_count, 2);
  cr_assert(m->achieved_known);
  cr_assert_float_eq(m->achieved, 0.5, 1e-12);
  cr_assert(rows[0].metric_known[0]);
  cr_assert_float_eq(rows[0].metric_values[0], 8.0, 1e-12);
  /* 20 us from each of the counters, 0.5 us from the third launch's own
   * times. */
  cr_assert_float_eq(m->total_us, 40.5, 1e-9);
  cr_assert_float_eq(m->mean_us, 13.5, 1e-9);
  cr_assert_not(rows[1].measure.achieved_known);
  cr_assert_str_eq(rows[1].measure.achieved_why, "held");
  occ_run_rows_free(rows, n);
  occ_run_join_free(&j);
}

Test(rows, why_achieved_is_unknown) {
  static run r;
  memset(&r, 0, sizeof r);
  launch(&r, 10, 1)->graph_id = 3;
  launch(&r, 10, 2)->grid[0] = 2;
  occ_run_join j;
  join(&r, &j);
  occ_run_measure_spec spec = {.measure = OCC_MEASURE_REPLAY,
                               .counter_launches = 0};
  occ_run_row *rows;
  size_t n;
  cr_assert_eq(occ_run_rows_group(&j, NULL, &spec, &rows, &n), 0);
  cr_assert_str_eq(rows[0].measure.achieved_why, OCC_RUN_GRAPH_WHY);
  cr_assert_eq(rows[0].measure.graph_launch_count, 1);
  cr_assert_str_eq(rows[1].measure.achieved_why,
                   "no counters were recorded for this launch");
  occ_run_rows_free(rows, n);
  spec.measure = OCC_MEASURE_NONE;
  cr_assert_eq(occ_run_rows_group(&j, NULL, &spec, &rows, &n), 0);
  cr_assert_str_eq(rows[1].measure.achieved_why,
                   "not measured (--measure none)");
  occ_run_rows_free(rows, n);
  /* Sampled, with no sample: the sampler's reason. */
  spec = (occ_run_measure_spec){.measure = OCC_MEASURE_SAMPLE,
                                .sample_why = "GPU 0 not sampled: busy"};
  occ_sampled_launch sampled[2] = {{0}};
  cr_assert_eq(occ_run_rows_group(&j, sampled, &spec, &rows, &n), 0);
  cr_assert_eq(rows[1].sampled[0], &sampled[1]);
  cr_assert_not(rows[1].measure.achieved_known);
  cr_assert_str_eq(rows[1].measure.achieved_why, "GPU 0 not sampled: busy");
  occ_run_rows_free(rows, n);
  occ_run_join_free(&j);
}

/* ---- a row computed on its device (model/run_item.c) ---- */

/* The database's generic sm_90 with an H100's SMs (no cluster domains:
 * they are a board's). */
static occ_device hopper(void) {
  char why[256];
  occ_gpudb *db = occ_gpudb_load_builtin(why, sizeof why);
  cr_assert_not_null(db, "%s", why);
  occ_device d;
  cr_assert_eq(occ_gpudb_find_cc(db, 9, 0, &d, why, sizeof why), 0);
  occ_gpudb_free(db);
  d.sm_count = 132; /* an architecture's is the driver's (live/run_device.c) */
  return d;
}

/* r's one row, computed on device with the layout's reason why. */
static void compute_one(run *r, const occ_device *device, const char *why,
                        occ_run_join *j, occ_run_row **rows) {
  size_t n;
  group(r, j, rows, &n);
  cr_assert_eq(n, 1);
  occ_run_row_compute(&(*rows)[0], device, strdup("k()"), why);
}

Test(item, computed_on_its_device) {
  static run r;
  memset(&r, 0, sizeof r);
  launch(&r, 10, 1)->grid[0] = 264;
  occ_device d = hopper();
  occ_run_join j;
  occ_run_row *rows;
  compute_one(&r, &d, "unused", &j, &rows);
  const occ_item *item = &rows[0].item;
  cr_assert_eq(item->device, &d);
  cr_assert_str_eq(item->name, "_Z1kv");
  cr_assert_str_eq(item->readable, "k()");
  cr_assert_eq(item->kernel.block[0], 128);
  cr_assert_eq(item->kernel.regs_per_thread, 32);
  cr_assert_not(item->has_cluster);
  /* 16 blocks of 4 warps a SM: 264 blocks fill an eighth of a wave. */
  cr_assert_float_eq(item->waves.waves, 264.0 / (16 * 132), 1e-12);
  cr_assert_float_eq(rows[0].measure.launch_occupancy, 1.0, 1e-12);
  occ_run_rows_free(rows, 1);
  occ_run_join_free(&j);
}

Test(item, cluster_layout_unknown_says_the_callers_reason) {
  static run r;
  memset(&r, 0, sizeof r);
  launch(&r, 10, 1)->cluster[0] = 2;
  occ_device d = hopper();
  occ_run_join j;
  occ_run_row *rows;
  compute_one(&r, &d, "no board", &j, &rows);
  const occ_item *item = &rows[0].item;
  cr_assert_eq(item->device, &d);
  cr_assert(item->has_cluster);
  cr_assert_not(item->cluster_result.layout_known);
  cr_assert_str_eq(item->cluster_result.unknown_reason, "no board");
  occ_run_rows_free(rows, 1);
  occ_run_join_free(&j);
}

Test(item, refused_cluster_shape_keeps_the_api_figures) {
  static run r;
  memset(&r, 0, sizeof r);
  occ_launch_record *l = launch(&r, 10, 1);
  l->cluster[0] = 64; /* past any GPU's cluster size */
  occ_device d = hopper();
  occ_run_join j;
  occ_run_row *rows;
  compute_one(&r, &d, NULL, &j, &rows);
  cr_assert_eq(rows[0].item.device, &d);
  cr_assert_not(rows[0].item.has_cluster);
  cr_assert_gt(rows[0].item.result.active_warps_per_sm, 0);
  occ_run_rows_free(rows, 1);
  occ_run_join_free(&j);
}

Test(item, without_a_device_nothing_is_computed) {
  static run r;
  memset(&r, 0, sizeof r);
  launch(&r, 10, 1);
  occ_run_join j;
  occ_run_row *rows;
  compute_one(&r, NULL, NULL, &j, &rows);
  cr_assert_null(rows[0].item.device);
  cr_assert_str_eq(rows[0].item.readable, "k()");
  occ_run_rows_free(rows, 1);
  occ_run_join_free(&j);
}

/* ---- the samples joined to the launches (model/run_samples.c) ---- */

/* A sample of device d over [t, t + 100) at half of 64 warps. */
static occ_pm_sample half_busy(uint16_t d, uint64_t t) {
  return (occ_pm_sample){.start_ns = t,
                         .duration_ns = 100,
                         .device = d,
                         .magic = OCC_SAMPLE_MAGIC,
                         .warps_active = 3200,
                         .cycles_active = 100};
}

Test(samples, launches_and_devices_from_the_records_and_status) {
  static run r;
  memset(&r, 0, sizeof r);
  /* 1000..1500 on GPU 0, sampled; 2000..2500 on GPU 1, not. */
  launch(&r, 10, 1)->stream = 7;
  launch(&r, 10, 2)->device = 1;
  show_all(&r);
  occ_sampler_status st = {.device_count = 2};
  st.devices[0] = (occ_sampler_device){.ordinal = 0,
                                       .state = OCC_SAMPLER_ON,
                                       .max_warps_per_sm = 64,
                                       .interval_ns = 100,
                                       .first_ns = 900,
                                       .last_ns = 1700};
  st.devices[1] =
      (occ_sampler_device){.ordinal = 1, .state = OCC_SAMPLER_PRIVILEGES};
  snprintf(st.devices[1].why, sizeof st.devices[1].why, "no permission");
  occ_run_attribution a;
  cr_assert_eq(occ_run_attribution_start(&a, r.launches, r.launch_count), 0);
  cr_assert_eq(a.launches[0].stream, 7);
  cr_assert_eq(a.launches[0].pid, 10);
  cr_assert_eq(a.launches[1].device, 1);
  cr_assert_eq(a.launches[1].start_ns, 2000);
  cr_assert_eq(a.launches[1].end_ns, 2500);
  for (uint64_t t = 900; t < 1700; t += 100) {
    occ_pm_sample s = half_busy(0, t);
    occ_run_attribution_add(&s, &a);
  }
  cr_assert_eq(occ_run_attribution_finish(&a, &st), 0);
  cr_assert(a.launches[0].known);
  cr_assert_float_eq(a.launches[0].achieved, 0.5, 1e-12);
  cr_assert_not(a.launches[1].known);
  cr_assert_eq(a.launches[1].miss, OCC_MISS_NOT_SAMPLED);
  free(a.launches);
  char why[OCC_SAMPLER_WHY_MAX + 64] = "";
  cr_assert(occ_run_unsampled_why(&st, why, sizeof why));
  cr_assert_str_eq(why, "GPU 1 not sampled: no permission");
  st.devices[1].state = OCC_SAMPLER_OFF; /* another --device */
  why[0] = '\0';
  cr_assert_not(occ_run_unsampled_why(&st, why, sizeof why));
  cr_assert_str_eq(why, "");
}

Test(samples, launches_numbered_by_kernel_and_configuration) {
  static run r;
  memset(&r, 0, sizeof r);
  launch(&r, 10, 1);
  launch(&r, 10, 2)->grid[0] = 16; /* another configuration */
  launch(&r, 11, 3);               /* the first's, another process */
  snprintf(launch(&r, 10, 4)->name, OCC_RECORD_NAME_MAX, "_Z1gv");
  launch(&r, 10, 5)->device = 1; /* the first's, on another GPU */
  launch(&r, 10, 6)->smem_dynamic_bytes = 16;
  launch(&r, 10, 7);
  show_all(&r);
  occ_run_attribution a;
  cr_assert_eq(occ_run_attribution_start(&a, r.launches, r.launch_count), 0);
  size_t k[7];
  for (int i = 0; i < 7; i++) {
    k[i] = a.launches[i].kernel;
    cr_assert(k[i] >= 1 && k[i] <= 7, "launch %d: kernel %zu", i, k[i]);
  }
  cr_assert(k[0] == k[2] && k[0] == k[6], "one kernel, one number");
  for (int i = 1; i < 6; i++)
    for (int j = 0; j < i; j++)
      if (!(j == 0 && i == 2))
        cr_assert_neq(k[i], k[j], "launches %d and %d", j, i);
  cr_assert_eq(occ_run_attribution_finish(&a, &(occ_sampler_status){0}), 0);
  free(a.launches);
}
