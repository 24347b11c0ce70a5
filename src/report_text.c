/* report_text.c - wording shared by the human writers. */
#include "report_text.h"

#include <stdio.h>
#include <string.h>

static const char *const labels[OCC_LIMITER_COUNT] = {
    "warps", "blocks", "registers", "shared memory", "barriers"};

const char *occ_limiter_label(int index) {
  return index >= 0 && index < OCC_LIMITER_COUNT ? labels[index] : "?";
}

const char *occ_unlimited_reason(const occ_result *result, int index) {
  switch (index) {
  case 2: return "no registers used";
  case 3: return "no shared memory used";
  case 4:
    return result->barriers_per_sm == 0 ? "no barrier limit on this architecture"
                                        : "no barriers used";
  }
  return "no limit";
}

void occ_limited_by_text(const occ_result *result, char *out, size_t size) {
  int count = 0, total = 0;
  for (int i = 0; i < OCC_LIMITER_COUNT; i++) total += (result->limited_by >> i) & 1;
  out[0] = '\0';
  for (int i = 0; i < OCC_LIMITER_COUNT; i++) {
    if (!((result->limited_by >> i) & 1)) continue;
    size_t used = strlen(out);
    const char *sep = count == 0 ? "" : count == total - 1 ? " and " : ", ";
    snprintf(out + used, size - used, "%s%s", sep, labels[i]);
    count++;
  }
}

void occ_cc_text(const occ_device *device, char *out, size_t size) {
  snprintf(out, size, "%d.%d", device->cc_major, device->cc_minor);
}
