/* attribute_unit.c - achieved occupancy from PM samples
 * (model/attribute.c, model/measure.c's occ_measure_from_samples) over
 * synthetic sample streams and launch records: serial kernels, a kernel
 * shorter than an interval, overlapping streams, two processes, launches
 * with no sample, lost samples, back-to-back kernels sharing a sample,
 * shared samples split by the kernels' rates (two and three kernels, no
 * rate, two devices, a kernel's rates pooled over its launches, out of
 * memory, kernels whose rates fall near their ends, launches of one
 * kernel number at two lengths, a part past an SM's warps); and the
 * sample reader (live/sample_file.c) over good, bad and cut records.
 * Exits 1 after the cases, naming each failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live/sample_file.h"
#include "model/attribute.h"
#include "model/measure.h"

static int failures;

#define CHECK(cond, ...)                                                     \
  do {                                                                       \
    if (!(cond)) {                                                           \
      printf("attribute_unit: %s:%d: ", __FILE__, __LINE__);                 \
      printf(__VA_ARGS__);                                                   \
      printf("\n");                                                          \
      failures++;                                                            \
    }                                                                        \
  } while (0)

enum { INTERVAL = 20, WARPS = 64 };

/* A sample of device d over [t, t + INTERVAL) with the SMs active for
 * `cycles` cycles at `occupancy` of their warps. */
static occ_pm_sample sample(int d, uint64_t t, double cycles,
                            double occupancy) {
  return (occ_pm_sample){.start_ns = t, .duration_ns = INTERVAL,
                         .device = (uint16_t)d, .magic = OCC_SAMPLE_MAGIC,
                         .warps_active = cycles * occupancy * WARPS,
                         .cycles_active = cycles};
}

static occ_sampled_launch launch(int d, int pid, unsigned stream,
                                 uint64_t start, uint64_t end) {
  return (occ_sampled_launch){.device = d, .pid = pid, .stream = stream,
                              .start_ns = start, .end_ns = end};
}

static occ_sampled_device devices[OCC_SAMPLER_DEVICES_MAX];

/* The attribution's realloc (this test is linked with --wrap=realloc):
 * fails while realloc_fails is set, as when memory runs out. */
static bool realloc_fails;
void *__real_realloc(void *p, size_t n);
void *__wrap_realloc(void *p, size_t n);
void *__wrap_realloc(void *p, size_t n) {
  return realloc_fails ? NULL : __real_realloc(p, n);
}

/* Attributes samples[0..n) to launches[0..count); occ_attr_finish's
 * result. */
static int attribute(occ_sampled_launch *l, size_t count,
                     const occ_pm_sample *samples, size_t n) {
  occ_attribution a;
  if (occ_attr_init(&a, l, count) != 0) {
    printf("attribute_unit: out of memory\n");
    exit(1);
  }
  for (size_t i = 0; i < n; i++) occ_attr_add(&a, &samples[i]);
  int status = occ_attr_finish(&a, devices, OCC_SAMPLER_DEVICES_MAX);
  occ_attr_free(&a);
  return status;
}

static bool near(double a, double b) { return fabs(a - b) < 1e-9; }

/* Within what the fit's rounds settle to. */
static bool fitted(double a, double b) { return fabs(a - b) < 1e-4; }

/* Two kernels with idle time between: each gets its own samples' value,
 * clean; the row's mean is weighted by time. */
static void serial_kernels(void) {
  occ_sampled_launch l[2] = {launch(0, 1, 7, 1000, 1100),
                             launch(0, 1, 7, 1200, 1300)};
  occ_pm_sample s[15];
  size_t n = 0;
  for (uint64_t t = 1000; t < 1300; t += INTERVAL)
    if (t < 1100) s[n++] = sample(0, t, 1000, 0.5);
    else if (t >= 1200) s[n++] = sample(0, t, 1000, 0.25);
  attribute(l, 2, s, n);
  CHECK(l[0].known && near(l[0].achieved, 0.5), "serial: first %g", l[0].achieved);
  CHECK(l[1].known && near(l[1].achieved, 0.25), "serial: second %g", l[1].achieved);
  CHECK(l[0].basis == OCC_BASIS_CLEAN && l[1].basis == OCC_BASIS_CLEAN,
        "serial: bases %d %d", l[0].basis, l[1].basis);
  const occ_sampled_launch *both[2] = {&l[0], &l[1]};
  occ_measure m = {0};
  occ_measure_from_samples(&m, both, 2);
  CHECK(m.achieved_known && near(m.achieved, 0.375) &&
            m.counter_launch_count == 2 && m.clean_launch_count == 2,
        "serial: row %g, %zu measured, %zu clean", m.achieved,
        m.counter_launch_count, m.clean_launch_count);
  /* Weighted by time: a launch three times longer counts three times. */
  l[1].end_ns = 1500;
  l[0].achieved = 0.5;
  l[1].achieved = 0.25;
  occ_measure_from_samples(&m, both, 2);
  CHECK(near(m.achieved, (100 * 0.5 + 300 * 0.25) / 400), "weighted: %g",
        m.achieved);
}

/* A kernel of 5 ns inside one sample whose other cycles are idle: the
 * sample's ratio is the kernel's; it is marked short. */
static void shorter_than_an_interval(void) {
  occ_sampled_launch l = launch(0, 1, 7, 1005, 1010);
  occ_pm_sample s = sample(0, 1000, 300, 0.75);
  attribute(&l, 1, &s, 1);
  CHECK(l.known && near(l.achieved, 0.75), "short: %g", l.achieved);
  CHECK(l.basis == OCC_BASIS_SHORT, "short: basis %d", l.basis);
  CHECK(l.sample_count == 1, "short: %u samples", l.sample_count);
}

/* A launch inside a longer one of its own process that another
 * process' launch also overlaps: it is beside the other process too,
 * though that launch's end is not its process' latest. */
static void overlapped_inside_another(void) {
  occ_pm_sample s[10];
  for (int i = 0; i < 10; i++) s[i] = sample(0, 1000 + i * INTERVAL, 1000, 0.4);
  occ_sampled_launch l[4] = {launch(0, 1, 7, 1000, 1200),
                             launch(0, 1, 8, 1020, 1050),
                             launch(0, 2, 7, 1030, 1040),
                             launch(0, 3, 7, 1150, 1160)};
  attribute(l, 4, s, 10);
  CHECK(l[1].basis == OCC_BASIS_OTHER_PROCESS,
        "inside: the inner launch's basis %d", l[1].basis);
  CHECK(l[0].basis == OCC_BASIS_OTHER_PROCESS &&
            l[2].basis == OCC_BASIS_OTHER_PROCESS &&
            l[3].basis == OCC_BASIS_OTHER_PROCESS,
        "inside: bases %d %d %d", l[0].basis, l[2].basis, l[3].basis);
  /* A later launch of another process that starts before an earlier
   * launch's end marks it, the latest-ending one or not. */
  occ_sampled_launch m[3] = {launch(0, 1, 7, 1000, 1100),
                             launch(0, 1, 7, 1100, 1190),
                             launch(0, 2, 7, 1150, 1160)};
  attribute(m, 3, s, 10);
  CHECK(m[0].basis != OCC_BASIS_OTHER_PROCESS && m[0].basis != OCC_BASIS_CONCURRENT,
        "after: the first launch's basis %d", m[0].basis);
  CHECK(m[1].basis == OCC_BASIS_OTHER_PROCESS && m[2].basis == OCC_BASIS_OTHER_PROCESS,
        "after: bases %d %d", m[1].basis, m[2].basis);
}

/* Two streams of one process at once, then two processes: marked, with
 * the blend of both as their value. */
static void overlapping(void) {
  occ_pm_sample s[10];
  for (int i = 0; i < 10; i++) s[i] = sample(0, 1000 + i * INTERVAL, 1000, 0.4);
  occ_sampled_launch l[2] = {launch(0, 1, 7, 1000, 1100),
                             launch(0, 1, 8, 1050, 1200)};
  attribute(l, 2, s, 10);
  CHECK(l[0].basis == OCC_BASIS_CONCURRENT && l[1].basis == OCC_BASIS_CONCURRENT,
        "streams: bases %d %d", l[0].basis, l[1].basis);
  CHECK(near(l[0].achieved, 0.4), "streams: %g", l[0].achieved);
  l[1].pid = 2;
  attribute(l, 2, s, 10);
  CHECK(l[0].basis == OCC_BASIS_OTHER_PROCESS &&
            l[1].basis == OCC_BASIS_OTHER_PROCESS,
        "processes: bases %d %d", l[0].basis, l[1].basis);
  /* The same times on another device do not overlap. */
  l[1].device = 1;
  attribute(l, 2, s, 10);
  CHECK(l[0].basis == OCC_BASIS_CLEAN, "devices: basis %d", l[0].basis);
  CHECK(!l[1].known && l[1].miss == OCC_MISS_NO_CYCLES,
        "devices: the other device's launch has none of device 0's samples");
}

/* Launches with no value, each with its reason. */
static void without_samples(void) {
  occ_pm_sample s[3] = {sample(0, 1000, 1000, 0.5), sample(0, 1020, 1000, 0.5),
                        sample(0, 1100, 1000, 0.5)};
  /* 1040..1100: samples lost. */
  s[2] = (occ_pm_sample){.start_ns = 1040, .duration_ns = 60, .device = 0,
                         .magic = OCC_SAMPLE_MAGIC, .flags = OCC_SAMPLE_LOST};
  occ_sampled_launch l[5] = {
      launch(0, 1, 7, 5000, 5100), /* after the last sample */
      launch(0, 1, 7, 1060, 1095), /* inside the lost span */
      launch(0, 1, 7, 0, 0),       /* no times */
      launch(2, 1, 7, 1000, 1010), /* a device not sampled */
      launch(0, 1, 7, 1000, 1055)};/* partly lost */
  devices[2].sampled = false;
  attribute(l, 5, s, 3);
  CHECK(l[0].miss == OCC_MISS_OUTSIDE, "after: miss %d", l[0].miss);
  CHECK(l[1].miss == OCC_MISS_LOST, "lost: miss %d", l[1].miss);
  CHECK(l[2].miss == OCC_MISS_NO_TIMES, "no times: miss %d", l[2].miss);
  CHECK(l[3].miss == OCC_MISS_NOT_SAMPLED, "not sampled: miss %d", l[3].miss);
  CHECK(l[4].known && l[4].basis == OCC_BASIS_LOST, "partly lost: basis %d",
        l[4].basis);
  for (int i = 0; i < 4; i++)
    CHECK(!l[i].known && occ_sample_miss_words(l[i].miss), "launch %d: a "
          "reason", i);
  const occ_sampled_launch *row[2] = {&l[0], &l[1]};
  occ_measure m = {0};
  occ_measure_from_samples(&m, row, 2);
  CHECK(!m.achieved_known && m.achieved_why, "a row without values says why");
}

/* Back to back: the sample at the seam holds the end of one and the
 * start of the other. A launch whose own samples span most of it is
 * clean, its share of the seam small; one that lies mostly in shared
 * samples takes its share of the seam, split by the two launches' rates,
 * and is marked: nearer its own 0.9 than the seam's split by time
 * (0.833). */
static void back_to_back(void) {
  occ_pm_sample s[6];
  for (int i = 0; i < 6; i++)
    s[i] = sample(0, 1000 + i * INTERVAL, 1000, i < 5 ? 0.5 : 0.9);
  s[4] = sample(0, 1080, 1000, 0.7); /* half of each */
  occ_sampled_launch l[2] = {launch(0, 1, 7, 1000, 1090),
                             launch(0, 1, 7, 1090, 1120)};
  attribute(l, 2, s, 6);
  CHECK(l[0].known && fitted(l[0].achieved, 0.5) && l[0].basis == OCC_BASIS_CLEAN,
        "seam: long launch %g basis %d", l[0].achieved, l[0].basis);
  CHECK(l[1].known && l[1].basis == OCC_BASIS_SHARED && l[1].achieved > 0.85 &&
            l[1].achieved < 0.9 + 1e-9,
        "seam: short launch %g basis %d", l[1].achieved, l[1].basis);
  CHECK(strstr(l[1].reason, "split by the kernels' rates"),
        "seam: the reason says how: %s", l[1].reason);
}

/* A kernel as the samples see it: on device `device` over [start, end)
 * at `occupancy`, its SMs active CYCLES_PER_NS cycles a ns. */
typedef struct kernel {
  int device;
  uint64_t start, end;
  double occupancy;
} kernel;

enum { CYCLES_PER_NS = 100, SAMPLES_MAX = 64 };

/* The samples of device d every `interval` ns from t0 to t1, their
 * counts made exactly from kernels[0..n): each kernel's cycles and
 * warps over its time inside. Idle samples are left out, as the sampler
 * leaves them. Returns how many, at most SAMPLES_MAX. */
static size_t samples_of(const kernel *kernels, size_t n, int d, uint64_t t0,
                         uint64_t t1, uint32_t interval, occ_pm_sample *out) {
  size_t count = 0;
  for (uint64_t t = t0; t < t1 && count < SAMPLES_MAX; t += interval) {
    occ_pm_sample s = {.start_ns = t, .duration_ns = interval,
                       .device = (uint16_t)d, .magic = OCC_SAMPLE_MAGIC};
    for (size_t k = 0; k < n; k++) {
      uint64_t b = kernels[k].start > t ? kernels[k].start : t;
      uint64_t e = kernels[k].end < t + interval ? kernels[k].end : t + interval;
      if (kernels[k].device != d || e <= b) continue;
      s.cycles_active += (double)(e - b) * CYCLES_PER_NS;
      s.warps_active +=
          (double)(e - b) * CYCLES_PER_NS * kernels[k].occupancy * WARPS;
    }
    if (s.cycles_active > 0) out[count++] = s;
  }
  return count;
}

/* Attributes to launches l[0..n) of kernels[0..n) (process 1, stream 7;
 * their kernel numbers ids[0..n), or none with ids NULL) the samples of
 * each of their devices every 25 ns from 1000 to 1400. */
static int attribute_kernels(const kernel *kernels, size_t n,
                             const size_t *ids, occ_sampled_launch *l) {
  occ_pm_sample s[2 * SAMPLES_MAX];
  size_t count = 0;
  for (int d = 0; d < 2; d++)
    count += samples_of(kernels, n, d, 1000, 1400, 25, s + count);
  for (size_t k = 0; k < n; k++) {
    l[k] = launch(kernels[k].device, 1, 7, kernels[k].start, kernels[k].end);
    l[k].kernel = ids ? ids[k] : 0;
  }
  return attribute(l, n, s, count);
}

/* A 10 ns kernel at 0.5, then 2 ns later a 60 ns one at 0.9, in 25 ns
 * samples: the sample the first lies in holds 3 ns of the second. By
 * time, the first gets (10 x 0.5 + 3 x 0.9) / 13 = 0.592; split by the
 * rates, its own 0.5 within 0.02. */
static void split_neighbour(void) {
  kernel k[2] = {{0, 1010, 1020, 0.5}, {0, 1022, 1082, 0.9}};
  occ_sampled_launch l[2];
  CHECK(attribute_kernels(k, 2, NULL, l) == 0, "neighbour: a failed finish");
  CHECK(l[0].known && fabs(l[0].achieved - 0.5) < 0.02 &&
            l[0].basis == OCC_BASIS_SHARED,
        "neighbour: the short kernel %g basis %d", l[0].achieved, l[0].basis);
  CHECK(l[1].known && fitted(l[1].achieved, 0.9), "neighbour: the long kernel %g",
        l[1].achieved);
  /* Wherever the samples fall, the split is nearer the short kernel's
   * 0.5 than the split by time (which the attribution falls back to when
   * it cannot keep the shared samples), or as near where it has no
   * shared sample. */
  for (uint64_t shift = 0; shift < 25; shift++) {
    kernel at[2] = {{0, 1000 + shift, 1010 + shift, 0.5},
                    {0, 1012 + shift, 1072 + shift, 0.9}};
    attribute_kernels(at, 2, NULL, l);
    double split = l[0].achieved;
    realloc_fails = true;
    attribute_kernels(at, 2, NULL, l);
    realloc_fails = false;
    double by_time = l[0].achieved;
    bool shared = l[0].basis == OCC_BASIS_SHARED;
    CHECK(shared ? fabs(split - 0.5) < fabs(by_time - 0.5)
                 : fabs(split - 0.5) <= fabs(by_time - 0.5) + 1e-9,
          "neighbour shifted %u ns: split %g, by time %g", (unsigned)shift,
          split, by_time);
  }
}

/* A 14 ns kernel at 0.8 between two at 0.3 and 0.4, 2 ns apart, none of
 * its samples its own: by time it gets 0.652; split by the rates
 * (its own rate a blend of its samples') 0.774. The outer ones, whose
 * own samples span them, keep their own. */
static void split_three(void) {
  kernel k[3] = {{0, 1000, 1053, 0.3}, {0, 1055, 1069, 0.8},
                 {0, 1071, 1145, 0.4}};
  occ_sampled_launch l[3];
  attribute_kernels(k, 3, NULL, l);
  CHECK(l[1].known && fabs(l[1].achieved - 0.8) < 0.03 &&
            l[1].basis == OCC_BASIS_SHARED,
        "three: the middle kernel %g basis %d", l[1].achieved, l[1].basis);
  CHECK(fitted(l[0].achieved, 0.3) && fitted(l[2].achieved, 0.4),
        "three: the outer kernels %g %g", l[0].achieved, l[2].achieved);
}

/* Kernels with active cycles and no active warps: no launch of their
 * shared sample has a warps rate, so its warps (none) are split by time;
 * the value is 0, not NaN. */
static void split_without_rate(void) {
  kernel k[2] = {{0, 1010, 1020, 0}, {0, 1022, 1030, 0}};
  occ_sampled_launch l[2];
  attribute_kernels(k, 2, NULL, l);
  for (int i = 0; i < 2; i++)
    CHECK(l[i].known && l[i].achieved == 0 && l[i].basis == OCC_BASIS_SHARED,
          "no rate: launch %d %g basis %d", i, l[i].achieved, l[i].basis);
}

/* The same times on two devices at different occupancies: each device's
 * shared samples are split among its own launches, as if alone. */
static void split_two_devices(void) {
  kernel k[4] = {{0, 1010, 1020, 0.5}, {0, 1022, 1082, 0.9},
                 {1, 1010, 1020, 0.2}, {1, 1022, 1082, 0.6}};
  occ_sampled_launch both[4], one[2];
  attribute_kernels(k, 4, NULL, both);
  for (int d = 0; d < 2; d++) {
    attribute_kernels(k + 2 * d, 2, NULL, one);
    for (int i = 0; i < 2; i++)
      CHECK(both[2 * d + i].known &&
                fitted(both[2 * d + i].achieved, one[i].achieved),
            "devices: device %d launch %d %g, alone %g", d, i,
            both[2 * d + i].achieved, one[i].achieved);
  }
  CHECK(fabs(both[2].achieved - 0.2) < 0.02, "devices: device 1's short "
        "kernel %g", both[2].achieved);
}

/* Kernel A alone (its sample its own, 0.3), later a 14 ns launch of A
 * between B and C (0.9 both, long enough for samples of their own), 2 ns
 * apart, none of its samples its own. Its kernel's rates, fitted to the
 * first launch too, split its samples exactly. */
static void split_kernel_rates(void) {
  kernel k[4] = {{0, 1000, 1018, 0.3}, {0, 1150, 1210, 0.9},
                 {0, 1212, 1226, 0.3}, {0, 1228, 1290, 0.9}};
  const size_t ids[4] = {1, 2, 1, 3};
  occ_sampled_launch l[4];
  CHECK(attribute_kernels(k, 4, ids, l) == 0, "kernel rates: a failed finish");
  CHECK(l[2].known && l[2].basis == OCC_BASIS_SHARED &&
            fitted(l[2].achieved, 0.3),
        "kernel rates: by its kernel's %g basis %d", l[2].achieved, l[2].basis);
  for (int i = 0; i < 4; i++)
    CHECK(i == 2 || fitted(l[i].achieved, k[i].occupancy),
          "kernel rates: launch %d %g", i, l[i].achieved);
}

/* A shared sample that cannot be kept (out of memory): occ_attr_finish
 * says so, and the values are the split by time, the same as the
 * samples' sums give. */
static void split_out_of_memory(void) {
  kernel k[2] = {{0, 1010, 1020, 0.5}, {0, 1022, 1082, 0.9}};
  occ_sampled_launch l[2];
  realloc_fails = true;
  int status = attribute_kernels(k, 2, NULL, l);
  realloc_fails = false;
  CHECK(status == -1, "out of memory: finish returned %d", status);
  CHECK(l[0].known && near(l[0].achieved, (10 * 0.5 + 3 * 0.9) / 13),
        "out of memory: the short kernel %g, not by time", l[0].achieved);
  for (int i = 0; i < 2; i++)
    CHECK(near(l[i].achieved, l[i].warps / (l[i].cycles * WARPS)),
          "out of memory: launch %d not the sums by time", i);
}

/* A kernel whose rates change near its end, as its last blocks leave
 * SMs idle: over [start, start + head_ns) its SMs are active
 * CYCLES_PER_NS cycles a ns at `head`, after that half as many at
 * `tail`. */
typedef struct tailed {
  uint64_t start, end, head_ns;
  double head, tail;
} tailed;

/* The counts of kernel k over [t0, t1): cycles and warps. */
static void tailed_counts(const tailed *k, uint64_t t0, uint64_t t1,
                          double *cycles, double *warps) {
  uint64_t seam = k->start + k->head_ns;
  uint64_t b = k->start > t0 ? k->start : t0, e = seam < t1 ? seam : t1;
  if (e > b) {
    *cycles += (double)(e - b) * CYCLES_PER_NS;
    *warps += (double)(e - b) * CYCLES_PER_NS * k->head * WARPS;
  }
  b = seam > t0 ? seam : t0;
  e = k->end < t1 ? k->end : t1;
  if (e > b) {
    *cycles += (double)(e - b) * CYCLES_PER_NS / 2;
    *warps += (double)(e - b) * CYCLES_PER_NS / 2 * k->tail * WARPS;
  }
}

/* A training loop's step, 24 times: a 100 us kernel at 0.125 whose last
 * 8 us run half its SMs, then 1 us later a 14 us kernel at 0.7 whose
 * last 6 us run half its SMs at 0.3, then 1.5 us idle; 25 us samples,
 * whose seams fall at a different place in each step. After the steps,
 * `long_runs` launches of the short kernel's number (another loop count:
 * 200 us at 0.2 throughout), alone. Returns how far the short kernel's
 * value strays from its own, (8 x 0.7 + 3 x 0.3) / 11, at most over the
 * steps; *shared counts the steps it is marked shared in. */
static double tails_run(int long_runs, size_t *shared) {
  enum { STEPS = 24, STEP_NS = 116500, SAMPLE_NS = 25000, LONG_MAX = 8 };
  tailed k[2 * STEPS + LONG_MAX];
  occ_sampled_launch l[2 * STEPS + LONG_MAX];
  int n = 0;
  for (int i = 0; i < STEPS; i++) {
    uint64_t t = 1000000 + (uint64_t)i * STEP_NS;
    k[n++] = (tailed){t, t + 100000, 92000, 0.125, 0.125};
    k[n++] = (tailed){t + 101000, t + 115000, 8000, 0.7, 0.3};
  }
  uint64_t end = 1000000 + (uint64_t)STEPS * STEP_NS;
  for (int i = 0; i < long_runs && i < LONG_MAX; i++) {
    k[n++] = (tailed){end + 50000, end + 250000, 200000, 0.2, 0.2};
    end += 300000;
  }
  for (int i = 0; i < n; i++) {
    l[i] = launch(0, 1, 7, k[i].start, k[i].end);
    l[i].kernel = i < 2 * STEPS ? 1 + (size_t)(i % 2) : 2;
  }
  occ_attribution a;
  if (occ_attr_init(&a, l, (size_t)n) != 0) exit(1);
  for (uint64_t t = 990000; t < end; t += SAMPLE_NS) {
    occ_pm_sample s = {.start_ns = t, .duration_ns = SAMPLE_NS,
                       .magic = OCC_SAMPLE_MAGIC};
    for (int i = 0; i < n; i++)
      tailed_counts(&k[i], t, t + SAMPLE_NS, &s.cycles_active, &s.warps_active);
    if (s.cycles_active > 0) occ_attr_add(&a, &s);
  }
  occ_sampled_device d[1] = {devices[0]};
  d[0].interval_ns = SAMPLE_NS;
  d[0].first_ns = 990000;
  d[0].last_ns = end;
  CHECK(occ_attr_finish(&a, d, 1) == 0, "tails: a failed finish");
  occ_attr_free(&a);
  double truth = (8 * 0.7 + 3 * 0.3) / 11, worst = 0;
  *shared = 0;
  for (int i = 0; i < STEPS; i++) {
    const occ_sampled_launch *s = &l[2 * i + 1];
    CHECK(s->known, "tails: step %d has no value", i);
    if (fabs(s->achieved - truth) > worst) worst = fabs(s->achieved - truth);
    *shared += s->basis == OCC_BASIS_SHARED;
    CHECK(fabs(l[2 * i].achieved - 0.125) < 0.005,
          "tails: step %d long kernel %g", i, l[2 * i].achieved);
  }
  for (int i = 2 * STEPS; i < n; i++)
    CHECK(fitted(l[i].achieved, 0.2), "tails: a long run %g", l[i].achieved);
  return worst;
}

/* Neither kernel has a sample of its own near the seam, and its rates
 * there are not its middle's: split by each kernel's middle rates, the
 * short kernel gets too few cycles; by its bins' rates, fitted over the
 * steps, it gets its own value within a point, in every step. */
static void split_tails(void) {
  size_t shared;
  double worst = tails_run(0, &shared);
  CHECK(worst < 0.01, "tails: the short kernel off by %g", worst);
  CHECK(shared >= 12, "tails: %zu of 24 steps shared", shared);
}

/* The same, with the short kernel's number also on launches 14 times
 * longer that run otherwise: fitted apart (grouped by length), they
 * leave its bins' rates as they were. */
static void split_by_length(void) {
  size_t shared;
  double worst = tails_run(8, &shared);
  CHECK(worst < 0.01, "by length: the short kernel off by %g", worst);
}

static void write_all(int fd, const void *p, size_t n) {
  if (write(fd, p, n) != (ssize_t)n) {
    printf("attribute_unit: write failed\n");
    exit(1);
  }
}

static uint64_t seen;
static void count(const occ_pm_sample *s, void *context) {
  (void)s;
  (void)context;
  seen++;
}

/* The reader: valid samples handed on, bad ones counted, a cut one
 * reported. */
static void reader(void) {
  char path[] = "/tmp/occ-samples-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) {
    printf("attribute_unit: mkstemp failed\n");
    exit(1);
  }
  unlink(path);
  occ_pm_sample good = sample(0, 1000, 10, 0.5), bad[5];
  for (int i = 0; i < 5; i++) bad[i] = good;
  bad[0].magic = 0;
  bad[1].device = OCC_SAMPLER_DEVICES_MAX;
  bad[2].duration_ns = 0;
  bad[3].warps_active = NAN;
  bad[4].cycles_active = -1;
  for (int i = 0; i < 3; i++) write_all(fd, &good, sizeof good);
  write_all(fd, bad, sizeof bad);
  write_all(fd, &good, 7);
  lseek(fd, 0, SEEK_SET);
  occ_sample_read r;
  occ_samples_read(fd, UINT64_MAX, count, NULL, &r);
  CHECK(seen == 3 && r.accepted == 3 && r.skipped == 5 && r.partial_bytes == 7,
        "reader: %llu accepted, %llu skipped, %zu partial",
        (unsigned long long)r.accepted, (unsigned long long)r.skipped,
        r.partial_bytes);
  /* A limit (the sampler's final status) ends the reading there, even
   * inside a sample. */
  lseek(fd, 0, SEEK_SET);
  seen = 0;
  occ_samples_read(fd, 2 * sizeof good + 5, count, NULL, &r);
  CHECK(seen == 2 && r.accepted == 2 && r.skipped == 0 && r.partial_bytes == 5,
        "reader with a limit: %llu accepted, %llu skipped, %zu partial",
        (unsigned long long)r.accepted, (unsigned long long)r.skipped,
        r.partial_bytes);
  close(fd);
}

/* A kernel at 0.1 alone in four samples, then a 2 ns one whose only
 * sample it shares: that sample holds the first's cycles and warps at
 * its rate and 60 warps more, with 0.01 cycles more. The fit gives the
 * short kernel the warps and almost none of the cycles, a part of about
 * 50 times an SM's warps: no value, and the reason says why; the long
 * kernel keeps its 0.1, and the row counts it alone. */
static void split_past_the_maximum(void) {
  occ_sampled_launch l[2] = {launch(0, 1, 7, 1000, 1090),
                             launch(0, 1, 7, 1092, 1094)};
  occ_pm_sample s[5];
  for (int i = 0; i < 4; i++) s[i] = sample(0, 1000 + 20 * (uint64_t)i, 20, 0.1);
  s[4] = sample(0, 1080, 10.01, 0);
  s[4].warps_active = 10 * 0.1 * WARPS + 60;
  attribute(l, 2, s, 5);
  CHECK(!l[1].known && l[1].miss == OCC_MISS_SPLIT && l[1].reason &&
            strstr(l[1].reason, "more warps than"),
        "past the maximum: known %d achieved %g miss %d", l[1].known,
        l[1].achieved, l[1].miss);
  CHECK(l[0].known && fabs(l[0].achieved - 0.1) < 0.01,
        "past the maximum: the long kernel %g", l[0].achieved);
  /* The row: the long kernel's value, and the short one counted out. */
  const occ_sampled_launch *row[2] = {&l[0], &l[1]};
  occ_measure m = {0};
  occ_measure_from_samples(&m, row, 2);
  CHECK(m.counter_launch_count == 1 && fabs(m.achieved - l[0].achieved) < 1e-12,
        "past the maximum: the row counts %zu, %g", m.counter_launch_count,
        m.achieved);
}

int main(void) {
  devices[0] = (occ_sampled_device){.sampled = true, .max_warps_per_sm = WARPS,
                                    .interval_ns = INTERVAL, .first_ns = 1000,
                                    .last_ns = 1400};
  devices[1] = devices[0];
  serial_kernels();
  shorter_than_an_interval();
  overlapping();
  overlapped_inside_another();
  without_samples();
  back_to_back();
  split_neighbour();
  split_three();
  split_without_rate();
  split_two_devices();
  split_kernel_rates();
  split_out_of_memory();
  split_tails();
  split_by_length();
  split_past_the_maximum();
  reader();
  if (failures) return 1;
  printf("attribute_unit: all cases pass\n");
  return 0;
}
