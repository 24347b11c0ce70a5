/* report_text.c - wording shared by the human writers. */
#include "render/report_text.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void occ_cc_text(const occ_device *device, char *out, size_t size) {
  snprintf(out, size, "%d.%d", device->cc_major, device->cc_minor);
}

void occ_reason_detail(const occ_device *d, const occ_kernel *k, const occ_result *r,
                       char *out, size_t size) {
  switch (r->reason) {
  case OCC_CAN_LAUNCH: snprintf(out, size, "can launch"); break;
  case OCC_NO_BLOCK_TOO_LARGE:
    snprintf(out, size, "the block has %d threads; a block may have %d",
             r->threads_per_block, d->max_threads_per_block);
    break;
  case OCC_NO_REGS_PER_THREAD:
    snprintf(out, size, "%d registers per thread; the architecture allows %d",
             k->regs_per_thread, d->max_regs_per_thread);
    break;
  case OCC_NO_REGS_PER_BLOCK:
    snprintf(out, size, "the block needs %d registers; a block may have %d",
             r->regs_per_block_checked, d->regs_per_block);
    break;
  case OCC_NO_SMEM_PER_BLOCK:
    snprintf(out, size, "the block needs %" PRId64 " B of shared memory; a block may have %" PRId64,
             r->smem_per_block_bytes, r->smem_block_cap_bytes);
    break;
  case OCC_NO_BARRIERS:
    snprintf(out, size, "the block uses %d barriers; an SM has %d", k->barriers,
             r->barriers_per_sm);
    break;
  }
}

void occ_pct_text(double fraction, char *out, size_t size) {
  snprintf(out, size, "%.2f", fraction * 100.0);
  char *dot = strchr(out, '.');
  if (!dot) return;
  char *end = out + strlen(out) - 1;
  while (end > dot && *end == '0') *end-- = '\0';
  if (end == dot) *end = '\0';
}

void occ_pct_text_below(double fraction, double gate_pct, char *out, size_t size) {
  for (int decimals = 2; decimals <= 9; decimals++) {
    snprintf(out, size, "%.*f", decimals, fraction * 100.0);
    if (strtod(out, NULL) < gate_pct) break;
  }
  char *dot = strchr(out, '.');
  if (!dot) return;
  char *end = out + strlen(out) - 1;
  while (end > dot && *end == '0') *end-- = '\0';
  if (end == dot) *end = '\0';
}
