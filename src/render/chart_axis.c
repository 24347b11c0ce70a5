/* chart_axis.c - axis labels shared by the chart writers. */
#include "render/chart_out.h"

#include <stdio.h>

const char *occ_chart_format_tick(occ_chart_kind kind, int64_t x, char *buf,
                                  size_t size) {
  if (kind == OCC_CHART_SMEM && x >= 1024)
    snprintf(buf, size, "%.4gK", (double)x / 1024.0);
  else
    snprintf(buf, size, "%lld", (long long)x);
  return buf;
}
