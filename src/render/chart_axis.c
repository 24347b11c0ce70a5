/* chart_axis.c - the axes shared by the chart writers: ticks and their
 * labels. */
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

size_t occ_chart_x_ticks(const occ_chart *c, int64_t *ticks, size_t max) {
  if (c->count == 0 || max < 2) return 0;
  int64_t first = c->points[0].x, last = c->points[c->count - 1].x;
  int64_t step = 1;
  while (step * 5 < last - first) step *= 2;
  size_t n = 0;
  ticks[n++] = first;
  for (int64_t v = (first / step + 1) * step; v < last && n + 1 < max; v += step)
    if (v - first >= step / 2) ticks[n++] = v;
  if (last - ticks[n - 1] < step / 2 && n > 1) n--;
  ticks[n++] = last;
  return n;
}
