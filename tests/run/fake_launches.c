/* fake_launches.c - a stand-in for a CUDA program under `occcalc run` on
 * machines without a GPU: it writes, as the injection library would, the
 * records of launches into $OCCCALC_RUN_OUT, so the report's path (join
 * of counters, grouping, every format) is tested without a driver.
 * Usage: fake_launches STATUS [child]: 3 launches of one configuration
 * (two with counters: 40% and 60%, one joined by the runtime call's
 * correlation id, one by the driver call's; the first profiled one, as
 * under the profiler, without the SM's shared-memory configuration), 1 of
 * another, then exit STATUS. With "child", also a launch of a child
 * process (the next pid) whose counters were refused, as when its parent
 * held them. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/launch_record.h"

static void put(int fd, const occ_launch_record *r) {
  char block[OCC_RECORD_BYTES] = {0};
  memcpy(block, r, sizeof *r);
  if (write(fd, block, sizeof block) != (ssize_t)sizeof block) exit(99);
}

/* Launch times as CUPTI gives them, ns since 1970: beyond 2^53, where a
 * double would round them. */
#define EPOCH_NS 1795279669160074501ull

static occ_launch_record launch(unsigned correlation, int grid, int block,
                                const char *name, unsigned long long after_ns) {
  unsigned long long start = EPOCH_NS + after_ns;
  occ_launch_record r = {.magic = OCC_RECORD_MAGIC, .kind = OCC_RECORD_LAUNCH,
                         .pid = (int)getpid(), .correlation = correlation,
                         .grid = {grid, 1, 1}, .block = {block, 1, 1},
                         .cluster = {1, 1, 1}, .regs_per_thread = 32,
                         .smem_static_bytes = 4096,
                         .carveout_requested_pct = -1,
                         .smem_executed_bytes = 233472,
                         .start_ns = start, .end_ns = start + 20000};
  snprintf(r.name, sizeof r.name, "%s", name);
  return r;
}

/* The counters of a launch made through the runtime (its id is the
 * runtime call's) or the driver (the driver call's). */
static occ_launch_record counters(unsigned correlation, double pct,
                                  int runtime) {
  occ_launch_record r = {.magic = OCC_RECORD_MAGIC,
                         .kind = OCC_RECORD_COUNTERS, .pid = (int)getpid(),
                         .correlation = runtime ? 1000 + correlation
                                                : correlation,
                         .runtime_correlation = runtime ? correlation : 0,
                         .value_count = 3, .values = {pct, 2000, 1.5}};
  return r;
}

int main(int argc, char **argv) {
  const char *path = getenv(OCC_ENV_OUT);
  if (!path) return 98;
  int fd = open(path, O_WRONLY | O_APPEND);
  if (fd < 0) return 97;
  const char *reduce = "_Z6reduceILi256EEvPKfPfi";
  put(fd, &(occ_launch_record){0}); /* not a record: skipped */
  put(fd, &(occ_launch_record){0});
  put(fd, (occ_launch_record[]){counters(11, 40, 1)});
  occ_launch_record profiled = launch(11, 1024, 256, reduce, 1000000);
  profiled.smem_executed_bytes = 0;
  put(fd, &profiled);
  put(fd, (occ_launch_record[]){launch(12, 1024, 256, reduce, 2000000)});
  put(fd, (occ_launch_record[]){counters(12, 60, 0)});
  put(fd, (occ_launch_record[]){launch(13, 1024, 256, reduce, 3000000)});
  put(fd, (occ_launch_record[]){launch(14, 8, 1024, "copy_kernel", 4000000)});
  if (argc > 2 && strcmp(argv[2], "child") == 0) {
    occ_launch_record child = launch(1, 1, 32, "child_kernel", 5000000);
    child.pid++;
    occ_launch_record refused = {.magic = OCC_RECORD_MAGIC,
                                 .kind = OCC_RECORD_NO_COUNTERS,
                                 .pid = child.pid};
    snprintf(refused.why, sizeof refused.why,
             "cuptiRangeProfilerStart: CUPTI_ERROR_HARDWARE_BUSY");
    put(fd, &refused);
    put(fd, &child);
  }
  close(fd);
  return argc > 1 ? atoi(argv[1]) : 0;
}
