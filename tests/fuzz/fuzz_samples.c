/* fuzz_samples.c - libFuzzer target of --measure sample's sample reader
 * (live/sample_file.c) and the attribution it feeds (model/attribute.c,
 * occ_measure_from_samples): the input's first 96 bytes make up to four
 * launches (device, pid, stream, kernel, start and end, each a few
 * bytes), the rest is the samples' file as the sampler writes it. Whatever the bytes, the
 * reader must only accept valid samples and the attribution must give
 * each launch a value in a sane range or a reason. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "live/sample_file.h"
#include "model/attribute.h"
#include "model/measure.h"

enum { LAUNCHES = 4, HEAD = LAUNCHES * 24 };

static void add(const occ_pm_sample *s, void *context) {
  if (!occ_sample_valid(s)) abort(); /* the reader let a bad one through */
  occ_attr_add(context, s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < HEAD) return 0;
  occ_sampled_launch l[LAUNCHES];
  for (int i = 0; i < LAUNCHES; i++) {
    const uint8_t *p = data + 24 * i;
    uint64_t start, length;
    memcpy(&start, p + 8, 8);
    memcpy(&length, p + 16, 8);
    l[i] = (occ_sampled_launch){.device = p[0] % 20 - 2, .pid = p[1] % 3,
                                .stream = p[2], .start_ns = start % 100000,
                                /* up to 60 us: every bin of the fit */
                                .end_ns = start % 100000 + length % 60000,
                                .kernel = p[3] % 3};
  }
  occ_attribution a;
  if (occ_attr_init(&a, l, LAUNCHES) != 0) return 0;
  int fd = memfd_create("samples", 0);
  if (fd < 0) {
    occ_attr_free(&a);
    return 0;
  }
  if (write(fd, data + HEAD, size - HEAD) == (ssize_t)(size - HEAD)) {
    lseek(fd, 0, SEEK_SET);
    occ_sample_read r;
    occ_samples_read(fd, UINT64_MAX, add, &a, &r);
    if (r.accepted + r.skipped != (size - HEAD) / sizeof(occ_pm_sample)) abort();
  }
  close(fd);
  occ_sampled_device devices[OCC_SAMPLER_DEVICES_MAX] = {{0}};
  for (int d = 0; d < OCC_SAMPLER_DEVICES_MAX; d++)
    devices[d] = (occ_sampled_device){.sampled = d % 3 != 2,
                                      .max_warps_per_sm = 64,
                                      .interval_ns = 20 + d,
                                      .first_ns = 1, .last_ns = 300000};
  occ_attr_finish(&a, devices, OCC_SAMPLER_DEVICES_MAX);
  occ_attr_free(&a);
  const occ_sampled_launch *row[LAUNCHES];
  for (int i = 0; i < LAUNCHES; i++) {
    if (l[i].known == (l[i].miss != OCC_MISS_NONE)) abort();
    if (l[i].known && (isnan(l[i].achieved) || l[i].achieved < 0)) abort();
    if (l[i].known && !occ_basis_key(l[i].basis)) abort();
    row[i] = &l[i];
  }
  occ_measure m = {0};
  occ_measure_from_samples(&m, row, LAUNCHES);
  if (!m.achieved_known && !m.achieved_why) abort();
  return 0;
}
