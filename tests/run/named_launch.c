/* named_launch.c - a stand-in CUDA program for tests/run/hostile_test.sh:
 * appends to $OCCCALC_RUN_OUT, as the injection library would, one launch
 * of the kernel NAME with REGS registers per thread, 128 threads per block,
 * on a device of compute capability 9.0 with 132 SMs (so the report
 * computes its occupancy without a GPU), then exits 0.
 * Usage: named_launch NAME REGS */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/launch_record.h"

int main(int argc, char **argv) {
  const char *path = getenv(OCC_ENV_OUT);
  if (argc != 3 || !path) return 98;
  occ_launch_record r = {.magic = OCC_RECORD_MAGIC, .kind = OCC_RECORD_LAUNCH,
                         .pid = (int)getpid(), .cc_major = 9, .cc_minor = 0,
                         .sm_count = 132, .correlation = 1,
                         .grid = {264, 1, 1}, .block = {128, 1, 1},
                         .cluster = {1, 1, 1}, .regs_per_thread = atoi(argv[2]),
                         .carveout_requested_pct = -1,
                         .start_ns = 1000, .end_ns = 21000};
  snprintf(r.name, sizeof r.name, "%s", argv[1]);
  char block[OCC_RECORD_BYTES] = {0};
  memcpy(block, &r, sizeof r);
  int fd = open(path, O_WRONLY | O_APPEND);
  if (fd < 0 || write(fd, block, sizeof block) != (ssize_t)sizeof block)
    return 97;
  return close(fd) == 0 ? 0 : 96;
}
