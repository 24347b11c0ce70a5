/* test_inject_counters.c - the injection library's counters logic
 * (src/inject/inject_counters.c) without a GPU: which launches it profiles,
 * how it stops and starts the Range Profiler around the others, and which
 * range it gives each launch. CUPTI's callbacks are driven with the
 * driver calls' parameter structures as cupti.h declares them, so the
 * library's reading of them is checked too; the Range Profiler is a fake
 * that behaves as kernel replay does: a launch made while the profiler is
 * started leaves its range complete when the call returns, a graph launch
 * one range per kernel, and the image holds at most max_ranges ranges.
 * A graph launch must never be profiled, nor the profiler be started
 * while the program forks.
 * Each Criterion test runs in its own process: the library's state starts
 * empty in each. */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "live/counter.h"
#include "inject/inject_lib.h"

/* ---- the fake Range Profiler (counter.h) ---- */

enum { MAX_RANGES = 256, MAX_WRITTEN = 1024 };

static struct {
  bool open, started;
  size_t max_ranges;
  double ranges[MAX_RANGES]; /* each range's achieved value */
  size_t range_count;
  bool overflow;             /* more ranges than the image holds */
  int opens, starts, stops;
  int graphs_profiled;       /* graph launches made while started */
  int metric_count;          /* what the last open asked for */
  bool prepared_enabled;     /* the early start's session is the open one */
  int prepare_ms;            /* how long building the configuration takes */
  char last_metric[32];
} gpu;

struct occ_prof {
  int unused;
};
static occ_prof the_prof;

occ_prof *occ_prof_open(void *cu_context, int ordinal,
                        const char *const *metrics, int metric_count,
                        bool auto_ranges, size_t max_ranges, char *why,
                        size_t why_size) {
  (void)cu_context, (void)ordinal, (void)why, (void)why_size;
  gpu.metric_count = metric_count;
  if (metric_count > 0)
    snprintf(gpu.last_metric, sizeof gpu.last_metric, "%s",
             metrics[metric_count - 1]);
  cr_assert(auto_ranges, "the library profiles in auto range mode");
  cr_assert(!gpu.open, "one profiler at a time");
  gpu.open = true;
  gpu.max_ranges = max_ranges;
  gpu.opens++;
  return &the_prof;
}

/* The early start's two steps: built ahead (no hardware), enabled on a
 * context (the profiler then open, as occ_prof_open leaves it). */
static occ_prof the_prepared;
occ_prof *occ_prof_prepare(int ordinal, const char *const *metrics,
                           int metric_count, bool auto_ranges,
                           size_t max_ranges, char *why, size_t why_size) {
  (void)ordinal, (void)why, (void)why_size;
  gpu.metric_count = metric_count;
  if (metric_count > 0)
    snprintf(gpu.last_metric, sizeof gpu.last_metric, "%s",
             metrics[metric_count - 1]);
  cr_assert(auto_ranges, "the library profiles in auto range mode");
  gpu.max_ranges = max_ranges;
  struct timespec t = {gpu.prepare_ms / 1000, gpu.prepare_ms % 1000 * 1000000L};
  nanosleep(&t, NULL);
  return &the_prepared;
}

int occ_prof_enable(occ_prof *c, void *cu_context, char *why,
                    size_t why_size) {
  (void)cu_context, (void)why, (void)why_size;
  cr_assert(c == &the_prepared, "enabled what was not prepared");
  cr_assert(!gpu.open, "one profiler at a time");
  gpu.open = gpu.prepared_enabled = true;
  gpu.opens++;
  return 0;
}

int occ_prof_reset(occ_prof *c, char *why, size_t why_size) {
  (void)c, (void)why, (void)why_size;
  gpu.range_count = 0;
  return 0;
}

int occ_prof_start(occ_prof *c, char *why, size_t why_size) {
  cr_assert(gpu.open && !gpu.started, "started twice");
  gpu.started = true;
  gpu.starts++;
  return occ_prof_reset(c, why, why_size);
}

int occ_prof_stop(occ_prof *c, char *why, size_t why_size) {
  (void)c, (void)why, (void)why_size;
  cr_assert(gpu.started, "stopped while not started");
  gpu.started = false;
  gpu.stops++;
  return 0;
}

int occ_prof_decode(occ_prof *c, size_t *ranges, char *why,
                    size_t why_size) {
  (void)c, (void)why, (void)why_size;
  if (ranges) *ranges = gpu.range_count;
  return 0;
}

int occ_prof_values(occ_prof *c, size_t index, double *values,
                    const char **range_name, char *why, size_t why_size) {
  (void)c, (void)why, (void)why_size;
  cr_assert(index < gpu.range_count, "range %zu of %zu read", index,
            gpu.range_count);
  values[0] = gpu.ranges[index];
  values[1] = 1000; /* the duration metric */
  if (range_name) *range_name = "kernel";
  return 0;
}

void occ_prof_close(occ_prof *c) {
  if (!c) return;
  cr_assert(!gpu.started, "closed while started");
  if (c == &the_prepared && !gpu.prepared_enabled) return; /* built only */
  gpu.open = false;
  if (c == &the_prepared) gpu.prepared_enabled = false;
}

/* Kernel replay: the range is complete when the launch call returns. */
static void gpu_runs(double value) {
  if (!gpu.started) return;
  if (gpu.range_count == gpu.max_ranges) {
    gpu.overflow = true;
    return;
  }
  gpu.ranges[gpu.range_count++] = value;
}

/* ---- the fake library around it (inject_lib.h) ---- */

static CUpti_CallbackFunc callback;
static occ_launch_record written[MAX_WRITTEN];
static size_t written_count;

static CUptiResult fake_subscribe(CUpti_SubscriberHandle *sub,
                                  CUpti_CallbackFunc fn, void *user,
                                  CUpti_SubscriberParams *params) {
  (void)user, (void)params;
  *sub = NULL;
  callback = fn;
  return CUPTI_SUCCESS;
}

static CUptiResult fake_enable(uint32_t on, CUpti_SubscriberHandle sub,
                               CUpti_CallbackDomain domain,
                               CUpti_CallbackId id) {
  (void)on, (void)sub, (void)domain, (void)id;
  return CUPTI_SUCCESS;
}

static CUptiResult fake_device_id(CUcontext ctx, uint32_t *device) {
  (void)ctx;
  *device = 0;
  return CUPTI_SUCCESS;
}

occ_inject_api occ_inject_cupti = {.cuptiSubscribe_v2 = fake_subscribe,
                                   .cuptiEnableCallback = fake_enable,
                                   .cuptiGetDeviceId = fake_device_id};

void *occ_inject_driver_symbol(const char *name) {
  (void)name;
  return NULL; /* no stream is being captured */
}

void occ_inject_record_init(occ_launch_record *r, occ_record_kind kind) {
  memset(r, 0, sizeof *r);
  r->kind = kind;
}

void occ_inject_write(const occ_launch_record *r) {
  cr_assert(written_count < MAX_WRITTEN);
  written[written_count++] = *r;
}

bool occ_inject_device_attributes(int ordinal, const CUdevice_attribute *which,
                                  int *values, int count) {
  (void)ordinal, (void)which, (void)values, (void)count;
  return false; /* the turn's key is then the ordinal */
}

double occ_inject_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The sampler's gate (inject.c): asked before every launch, graph
 * launches included, without counters too. */
static int gate_asked;
void occ_inject_gate(void) { gate_asked++; }

/* Attributes at launch (inject_attrs.c): each launch's call noted. */
static int attrs_noted;
void occ_inject_attrs_note(CUpti_CallbackId id, const void *params,
                           uint32_t driver_correlation,
                           uint32_t runtime_correlation) {
  (void)id, (void)params, (void)driver_correlation, (void)runtime_correlation;
  attrs_noted++;
}

/* ---- the fake turns (inject_turns.h): another process of the run may
 * hold the GPU's turn (busy) or want it (wanted) ---- */

static struct {
  bool busy, wanted, held;
  int tries, gives;
} turns;

int occ_turns_open(const char *records_path) {
  (void)records_path;
  return 7;
}

uint64_t occ_turns_key(int domain, int bus, int device) {
  return (uint64_t)domain << 16 | (uint64_t)bus << 8 | (uint64_t)device;
}

bool occ_turns_try(int fd, uint64_t key) {
  (void)fd, (void)key;
  turns.tries++;
  if (turns.busy) return false;
  cr_assert_not(turns.held, "the turn taken twice");
  turns.held = true;
  return true;
}

bool occ_turns_wanted(int fd, uint64_t key) {
  (void)fd, (void)key;
  cr_assert(turns.held, "asked whether wanted without the turn");
  return turns.wanted;
}

void occ_turns_give(int fd, uint64_t key) {
  (void)fd, (void)key;
  cr_assert(turns.held, "gave a turn not held");
  cr_assert_not(gpu.open, "gave the turn with the profiler open");
  turns.held = false;
  turns.gives++;
}

/* ---- the program: launches through the driver's API ---- */

static CUcontext context = (CUcontext)0x1000;
static uint32_t correlation;

static void call(CUpti_CallbackId id, void *params, double value,
                 int kernels, bool graph) {
  CUresult ok = CUDA_SUCCESS;
  CUpti_CallbackData cb = {.functionParams = params,
                           .functionReturnValue = &ok,
                           .context = context,
                           .correlationId = ++correlation};
  cb.callbackSite = CUPTI_API_ENTER;
  callback(NULL, CUPTI_CB_DOMAIN_DRIVER_API, id, &cb);
  if (graph && gpu.started) gpu.graphs_profiled++;
  for (int k = 0; k < kernels; k++) gpu_runs(value + k);
  cb.callbackSite = CUPTI_API_EXIT;
  callback(NULL, CUPTI_CB_DOMAIN_DRIVER_API, id, &cb);
}

/* A cuLaunchKernel of function f; the fake GPU measures the launch's own
 * correlation id as its achieved value, so a range given to the wrong
 * launch shows. Returns the correlation id. */
static uint32_t launch(uintptr_t f, unsigned grid, unsigned block) {
  cuLaunchKernel_params p = {.f = (CUfunction)f, .gridDimX = grid,
                             .gridDimY = 1, .gridDimZ = 1,
                             .blockDimX = block, .blockDimY = 1,
                             .blockDimZ = 1};
  call(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &p, correlation + 1, 1, false);
  return correlation;
}

static uint32_t launch_cluster(uintptr_t f, unsigned cluster_x) {
  CUlaunchAttribute attr = {.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION};
  attr.value.clusterDim.x = cluster_x;
  attr.value.clusterDim.y = attr.value.clusterDim.z = 1;
  CUlaunchConfig config = {.gridDimX = 8, .gridDimY = 1, .gridDimZ = 1,
                           .blockDimX = 128, .blockDimY = 1,
                           .blockDimZ = 1, .attrs = &attr, .numAttrs = 1};
  cuLaunchKernelEx_params p = {.config = &config, .f = (CUfunction)f};
  call(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, &p, correlation + 1, 1,
       false);
  return correlation;
}

static void launch_graph(int kernels) {
  cuGraphLaunch_params p = {0};
  call(CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, &p, -1000, kernels, true);
}

/* The counters written for the launch of this correlation id, or NULL. */
static const occ_launch_record *counters_of(uint32_t id) {
  const occ_launch_record *hit = NULL;
  for (size_t i = 0; i < written_count; i++)
    if (written[i].kind == OCC_RECORD_COUNTERS &&
        written[i].correlation == id) {
      cr_assert_null(hit, "launch %u has two counter records", id);
      hit = &written[i];
    }
  return hit;
}

static size_t count_of(occ_record_kind kind) {
  size_t n = 0;
  for (size_t i = 0; i < written_count; i++) n += written[i].kind == kind;
  return n;
}

/* Every launch in ids[] has its own range's value; n counter records in
 * all; no refusal; no overflow. */
static void expect_measured(const uint32_t *ids, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const occ_launch_record *c = counters_of(ids[i]);
    cr_assert_not_null(c, "launch %u was not measured", ids[i]);
    cr_expect_eq(c->values[0], (double)ids[i],
                 "launch %u got the range of launch %g", ids[i],
                 c->values[0]);
  }
  cr_expect_eq(count_of(OCC_RECORD_COUNTERS), n,
               "%zu counter records, expected %zu",
               count_of(OCC_RECORD_COUNTERS), n);
  cr_expect_eq(count_of(OCC_RECORD_NO_COUNTERS), 0, "a refusal was written");
  cr_expect(!gpu.overflow, "more ranges than the image holds");
}

static void start(const char *launches) {
  cr_assert_eq(occ_inject_counters_start(true, NULL, launches), 0);
  cr_assert_not_null(callback);
}

Test(inject_counters, every_launch_by_default_in_one_session) {
  start(NULL);
  uint32_t ids[150];
  for (int i = 0; i < 150; i++) ids[i] = launch(0xa, 64, 128);
  occ_inject_counters_finish();
  expect_measured(ids, 150);
  cr_expect_eq(gpu.opens, 1);
  cr_expect_eq(gpu.starts, 1, "the profiler was restarted %d times",
               gpu.starts - 1);
}

Test(inject_counters, first_n_of_each_configuration) {
  start("2");
  /* A A B A B B A C(grid) A B */
  uint32_t a1 = launch(0xa, 64, 128), a2 = launch(0xa, 64, 128);
  uint32_t b1 = launch(0xb, 64, 128);
  launch(0xa, 64, 128);
  uint32_t b2 = launch(0xb, 64, 128);
  launch(0xb, 64, 128);
  launch(0xa, 64, 128);
  uint32_t c1 = launch(0xa, 65, 128); /* another grid: another config */
  launch(0xa, 64, 128);
  launch(0xb, 64, 128);
  occ_inject_counters_finish();
  uint32_t ids[] = {a1, a2, b1, b2, c1};
  expect_measured(ids, 5);
  /* Stopped before the 4th launch, started before the 5th, stopped
   * before the 6th, started before the 8th, stopped before the 9th. */
  cr_expect_eq(gpu.starts, 3);
  cr_expect_eq(gpu.stops, 3);
}

Test(inject_counters, no_profiler_for_launches_never_measured) {
  start("1");
  uint32_t a1 = launch(0xa, 1, 32);
  for (int i = 0; i < 40; i++) launch(0xa, 1, 32);
  occ_inject_counters_finish();
  expect_measured(&a1, 1);
  cr_expect_eq(gpu.starts, 1);
  cr_expect_eq(gpu.stops, 1);
}

Test(inject_counters, cluster_dimensions_make_a_configuration) {
  start("1");
  uint32_t x2 = launch_cluster(0xc, 2), x4 = launch_cluster(0xc, 4);
  launch_cluster(0xc, 2);
  launch_cluster(0xc, 4);
  occ_inject_counters_finish();
  uint32_t ids[] = {x2, x4};
  expect_measured(ids, 2);
}

/* A graph launch's kernels would be ranges too, as many as it has: it is
 * not profiled, and the launches around it are. */
Test(inject_counters, graphs_not_profiled_by_default) {
  start(NULL);
  uint32_t a1 = launch(0xa, 8, 64);
  launch_graph(3);
  uint32_t a2 = launch(0xa, 8, 64);
  launch_graph(2);
  launch_graph(5);
  uint32_t a3 = launch(0xa, 8, 64), a4 = launch(0xa, 8, 64);
  occ_inject_counters_finish();
  uint32_t ids[] = {a1, a2, a3, a4};
  expect_measured(ids, 4);
  cr_expect_eq(gpu.graphs_profiled, 0, "%d graph launches profiled",
               gpu.graphs_profiled);
  /* Started for a1, a2 and a3; stopped before each run of graphs. */
  cr_expect_eq(gpu.starts, 3);
}

Test(inject_counters, graph_between_skipped_launches) {
  start("1");
  uint32_t a1 = launch(0xa, 8, 64);
  launch(0xa, 8, 64);
  launch_graph(4);
  launch(0xa, 8, 64);
  uint32_t b1 = launch(0xb, 8, 64);
  occ_inject_counters_finish();
  uint32_t ids[] = {a1, b1};
  expect_measured(ids, 2);
  cr_expect_eq(gpu.graphs_profiled, 0);
  cr_expect_eq(gpu.starts, 2);
}

/* The counters are free while the program forks (a child running CUDA
 * would find them held, even by a stopped profiler), and measuring goes on
 * after. */
Test(inject_counters, closed_while_the_program_forks) {
  start(NULL);
  uint32_t a1 = launch(0xa, 8, 64);
  pid_t pid = fork();
  if (pid == 0) _exit(gpu.open ? 1 : 0);
  int status = -1;
  cr_assert_eq(waitpid(pid, &status, 0), pid);
  cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0,
            "the child found the profiler open");
  cr_expect(!gpu.open, "the parent's profiler still open");
  uint32_t a2 = launch(0xa, 8, 64);
  occ_inject_counters_finish();
  uint32_t ids[] = {a1, a2};
  expect_measured(ids, 2);
  cr_expect_eq(gpu.opens, 2);
}

/* A child forked while the early start builds the configuration has no
 * such thread: its first launch must not wait for it. */
Test(inject_counters, a_child_forked_while_preparing_does_not_wait,
     .timeout = 10) {
  gpu.prepare_ms = 500;
  start(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    alarm(3);
    launch(0xa, 8, 64);
    _exit(gpu.open ? 0 : 2);
  }
  int status = -1;
  cr_assert_eq(waitpid(pid, &status, 0), pid);
  cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0,
            "the child's launch %s",
            WIFSIGNALED(status) ? "waited for a thread it does not have"
                                : "was not measured");
}

Test(inject_counters, a_new_context_gets_its_own_session) {
  start(NULL);
  uint32_t a1 = launch(0xa, 8, 64);
  context = (CUcontext)0x2000;
  uint32_t a2 = launch(0xa, 8, 64);
  occ_inject_counters_finish();
  uint32_t ids[] = {a1, a2};
  expect_measured(ids, 2);
  cr_expect_eq(gpu.opens, 2);
}

/* The most --metrics occcalc passes (OCC_RECORD_METRICS_MAX) beside the
 * two the library always reads: every name reaches the profiler (the
 * list had room for one fewer, and the last name was written past it). */
Test(inject_counters, the_most_metrics_all_reach_the_profiler) {
  cr_assert_eq(occ_inject_counters_start(true, "m1,m2,m3,m4,m5,m6,m7,m8", NULL), 0);
  launch(0xa, 64, 128);
  occ_inject_counters_finish();
  cr_expect_eq(gpu.metric_count,
               OCC_RECORD_FIRST_METRIC + OCC_RECORD_METRICS_MAX);
  cr_expect_str_eq(gpu.last_metric, "m8");
}

/* ---- turns between the processes of one run ---- */

Test(inject_counters, attributes_noted_for_every_launch_even_without_counters) {
  cr_assert_eq(occ_inject_counters_start(false, NULL, NULL), 0);
  launch(0xa, 64, 128);
  launch_cluster(0xb, 2);
  launch_graph(3); /* a graph's kernels have no call of their own */
  occ_inject_counters_finish();
  cr_expect_eq(attrs_noted, 2);
  cr_expect_eq(gate_asked, 3, "the gate is asked before each launch's call");
  cr_expect_eq(gpu.opens, 0, "profiled without counters");
  cr_expect_eq(written_count, 0);
}

Test(inject_counters, a_held_turn_leaves_launches_unmeasured_without_using_them_up) {
  start("2");
  turns.busy = true;
  uint32_t skipped[3];
  for (int i = 0; i < 3; i++) skipped[i] = launch(0xa, 64, 128);
  cr_expect_eq(gpu.opens, 0, "opened the profiler without the turn");
  turns.busy = false;
  uint32_t measured[2] = {launch(0xa, 64, 128), launch(0xa, 64, 128)};
  uint32_t past = launch(0xa, 64, 128);
  occ_inject_counters_finish();
  for (int i = 0; i < 3; i++) cr_expect_null(counters_of(skipped[i]));
  expect_measured(measured, 2);
  cr_expect_null(counters_of(past), "the third measured launch of a "
                                    "configuration under --counter-launches 2");
  cr_expect_eq(turns.gives, 1, "the turn given back at the end");
}

Test(inject_counters, a_process_that_never_had_the_turn_says_so) {
  start(NULL);
  turns.busy = true;
  launch(0xa, 64, 128);
  occ_inject_counters_finish();
  cr_expect_eq(count_of(OCC_RECORD_COUNTERS), 0);
  cr_assert_eq(count_of(OCC_RECORD_NO_COUNTERS), 1);
  for (size_t i = 0; i < written_count; i++)
    if (written[i].kind == OCC_RECORD_NO_COUNTERS)
      cr_expect(strstr(written[i].why, "another process"), "%s",
                written[i].why);
}

/* The program's first context starts the profiler on a thread of its
 * own; until a launch is measured, another process that wants the turn
 * gets it at once. */
static void context_created(void) {
  CUpti_ResourceData r = {.context = context};
  callback(NULL, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED,
           &r);
}

static void wait_for(bool (*done)(void)) {
  for (int i = 0; i < 200 && !done(); i++) {
    struct timespec pause = {0, 10 * 1000 * 1000};
    nanosleep(&pause, NULL);
  }
}

static bool profiler_open(void) { return gpu.open; }
static bool turn_given(void) { return turns.gives > 0; }

Test(inject_counters, the_first_context_starts_the_profiler_early,
     .timeout = 10) {
  start(NULL);
  context_created();
  wait_for(profiler_open);
  cr_assert(gpu.open && gpu.started, "not started from the context");
  uint32_t a = launch(0xa, 64, 128);
  occ_inject_counters_finish();
  expect_measured(&a, 1);
  cr_expect_eq(gpu.opens, 1, "opened again at the launch");
}

Test(inject_counters, an_idle_early_holder_yields_at_once, .timeout = 10) {
  start(NULL);
  context_created();
  wait_for(profiler_open);
  cr_assert(gpu.open, "not started from the context");
  turns.wanted = true; /* another process wants the GPU, none launched */
  wait_for(turn_given);
  cr_expect_eq(turns.gives, 1, "an idle holder kept the turn");
  cr_expect_not(gpu.open, "the profiler still open");
}

Test(inject_counters, a_wanted_turn_is_yielded_after_the_slice, .timeout = 10) {
  start(NULL);
  turns.wanted = true;
  uint32_t first = launch(0xa, 64, 128);
  uint32_t within = launch(0xa, 64, 128); /* inside the slice: kept */
  cr_expect_eq(turns.gives, 0, "yielded inside the slice");
  struct timespec slice = {2, 100 * 1000 * 1000}; /* SLICE_MS and more */
  nanosleep(&slice, NULL);
  uint32_t yielding = launch(0xa, 64, 128);
  cr_expect_eq(turns.gives, 1, "not yielded after the slice");
  cr_expect_not(gpu.open, "the profiler still holds the counters");
  turns.wanted = false;
  uint32_t again = launch(0xa, 64, 128);
  occ_inject_counters_finish();
  uint32_t ids[] = {first, within, again};
  expect_measured(ids, 3);
  cr_expect_null(counters_of(yielding), "the yielding launch was measured");
  cr_expect_eq(gpu.opens, 2);
}
