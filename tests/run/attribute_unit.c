/* attribute_unit.c - achieved occupancy from PM samples
 * (model/attribute.c, model/measure.c's occ_measure_from_samples) over
 * synthetic sample streams and launch records: serial kernels, a kernel
 * shorter than an interval, overlapping streams, two processes, launches
 * with no sample, lost samples, back-to-back kernels sharing a sample;
 * and the sample reader (live/sample_file.c) over good, bad and cut
 * records. Exits 1 on the first failure, naming it. */
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

/* Attributes samples[0..n) to launches[0..count). */
static void attribute(occ_sampled_launch *l, size_t count,
                      const occ_pm_sample *samples, size_t n) {
  occ_attribution a;
  if (occ_attr_init(&a, l, count) != 0) {
    printf("attribute_unit: out of memory\n");
    exit(1);
  }
  for (size_t i = 0; i < n; i++) occ_attr_add(&a, &samples[i]);
  occ_attr_finish(&a, devices, OCC_SAMPLER_DEVICES_MAX);
  occ_attr_free(&a);
}

static bool near(double a, double b) { return fabs(a - b) < 1e-9; }

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
 * start of the other. A launch whose own samples span most of it uses
 * them alone (clean); one that lies mostly in shared samples blends
 * and is marked. */
static void back_to_back(void) {
  occ_pm_sample s[6];
  for (int i = 0; i < 6; i++)
    s[i] = sample(0, 1000 + i * INTERVAL, 1000, i < 5 ? 0.5 : 0.9);
  s[4] = sample(0, 1080, 1000, 0.7); /* half of each */
  occ_sampled_launch l[2] = {launch(0, 1, 7, 1000, 1090),
                             launch(0, 1, 7, 1090, 1120)};
  attribute(l, 2, s, 6);
  CHECK(l[0].known && near(l[0].achieved, 0.5) && l[0].basis == OCC_BASIS_CLEAN,
        "seam: long launch %g basis %d", l[0].achieved, l[0].basis);
  CHECK(l[1].known && l[1].basis == OCC_BASIS_SHARED && l[1].achieved > 0.7 &&
            l[1].achieved < 0.9,
        "seam: short launch %g basis %d", l[1].achieved, l[1].basis);
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
  occ_samples_read(fd, count, NULL, &r);
  CHECK(seen == 3 && r.accepted == 3 && r.skipped == 5 && r.partial_bytes == 7,
        "reader: %llu accepted, %llu skipped, %zu partial",
        (unsigned long long)r.accepted, (unsigned long long)r.skipped,
        r.partial_bytes);
  close(fd);
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
  reader();
  if (failures) return 1;
  printf("attribute_unit: all cases pass\n");
  return 0;
}
