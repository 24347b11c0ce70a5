/* chart_svg.c - the charts as one standalone SVG document: a panel per
 * chart, stacked, each with both axes (active warps per SM on the left,
 * occupancy on the right), ticks, labels, a legend, the data as one
 * polyline whose vertices are the chart's points, and the kernel's own
 * configuration marked (in red, or labelled "cannot launch"). */
#include <string.h>

#include "render/svg_text.h"
#include "render/chart_out.h"
#include "render/report_text.h"

#define WIDTH 720.0
#define PANEL_HEIGHT 320.0
#define PLOT_LEFT 70.0
#define PLOT_RIGHT 640.0
#define PLOT_TOP 56.0
#define PLOT_BOTTOM 250.0
#define MARK_COLOUR "#d62728"
#define SERIES_COLOUR "#1f77b4"

typedef struct scale {
  double x_min, x_max, y_max;
} scale;

static double px(const scale *s, double x) {
  double span = s->x_max > s->x_min ? s->x_max - s->x_min : 1.0;
  return PLOT_LEFT + (x - s->x_min) / span * (PLOT_RIGHT - PLOT_LEFT);
}

static double py(const scale *s, double warps) {
  return PLOT_BOTTOM - warps / s->y_max * (PLOT_BOTTOM - PLOT_TOP);
}

/* A kernel name in a panel's title: cut to fit the panel's width, at a
 * code point's boundary, with "..." (the document's <title> has it
 * whole). */
#define TITLE_NAME_MAX 32

static void put_name_cut(FILE *out, const char *name) {
  char cut[TITLE_NAME_MAX + 4];
  size_t n = strlen(name);
  if (n <= TITLE_NAME_MAX) {
    occ_svg_put_escaped(out, name);
    return;
  }
  n = TITLE_NAME_MAX - 3;
  while (n > 0 && ((unsigned char)name[n] & 0xC0) == 0x80) n--;
  memcpy(cut, name, n);
  memcpy(cut + n, "...", 4);
  occ_svg_put_escaped(out, cut);
}

static void write_title(FILE *out, const char *kernel_name, const occ_chart *c) {
  fputs("<text class=\"title\" x=\"70\" y=\"22\">Occupancy by ", out);
  fputs(occ_chart_x_name(c->kind), out);
  fputs(" \u2014 ", out);
  if (kernel_name) {
    put_name_cut(out, kernel_name);
    fputs(" on ", out);
  }
  occ_svg_put_escaped(out, c->device_name);
  fprintf(out, " (CC %d.%d)</text>\n", c->cc_major, c->cc_minor);
  fputs("<text class=\"subtitle\" x=\"70\" y=\"40\">", out);
  switch (c->kind) {
  case OCC_CHART_BLOCK:
    fprintf(out, "at %d registers per thread, %lld B shared memory per block",
            c->regs_per_thread, (long long)c->smem_bytes);
    break;
  case OCC_CHART_REGS:
    fprintf(out, "at %d threads per block, %lld B shared memory per block",
            c->threads_per_block, (long long)c->smem_bytes);
    break;
  case OCC_CHART_SMEM:
    fprintf(out, "at %d threads per block, %d registers per thread",
            c->threads_per_block, c->regs_per_thread);
    break;
  }
  fputs("</text>\n", out);
}

/* Horizontal grid lines and both y axes' ticks at 0, 25, 50, 75, 100 %. */
static void write_y_axes(FILE *out, const occ_chart *c, const scale *s) {
  fprintf(out, "<g class=\"y-ticks\">\n");
  for (int q = 0; q <= 4; q++) {
    double warps = c->max_warps_per_sm * q / 4.0;
    double y = py(s, warps);
    fprintf(out,
            "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n"
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n"
            "<text x=\"%.1f\" y=\"%.1f\">%d %%</text>\n",
            PLOT_LEFT, y, PLOT_RIGHT, y, PLOT_LEFT - 6, y + 4, warps,
            PLOT_RIGHT + 6, y + 4, 25 * q);
  }
  fprintf(out, "</g>\n");
  fprintf(out,
          "<line class=\"axis\" id=\"%s-y-axis\" x1=\"%.1f\" y1=\"%.1f\" "
          "x2=\"%.1f\" y2=\"%.1f\"/>\n"
          "<line class=\"axis\" id=\"%s-y2-axis\" x1=\"%.1f\" y1=\"%.1f\" "
          "x2=\"%.1f\" y2=\"%.1f\"/>\n",
          occ_chart_kind_name(c->kind), PLOT_LEFT, PLOT_TOP, PLOT_LEFT,
          PLOT_BOTTOM, occ_chart_kind_name(c->kind), PLOT_RIGHT, PLOT_TOP,
          PLOT_RIGHT, PLOT_BOTTOM);
  double mid = (PLOT_TOP + PLOT_BOTTOM) / 2;
  fprintf(out,
          "<text class=\"label\" transform=\"translate(22 %.1f) rotate(-90)\" "
          "text-anchor=\"middle\">active warps per SM</text>\n"
          "<text class=\"label\" transform=\"translate(%.1f %.1f) rotate(90)\" "
          "text-anchor=\"middle\">occupancy</text>\n",
          mid, WIDTH - 22, mid);
}

static void write_x_axis(FILE *out, const occ_chart *c, const scale *s) {
  fprintf(out,
          "<line class=\"axis\" id=\"%s-x-axis\" x1=\"%.1f\" y1=\"%.1f\" "
          "x2=\"%.1f\" y2=\"%.1f\"/>\n<g class=\"x-ticks\">\n",
          occ_chart_kind_name(c->kind), PLOT_LEFT, PLOT_BOTTOM, PLOT_RIGHT,
          PLOT_BOTTOM);
  int64_t ticks[16];
  size_t n = occ_chart_x_ticks(c, ticks, 16);
  for (size_t i = 0; i < n; i++) {
    double x = px(s, (double)ticks[i]);
    char label[32];
    occ_chart_format_tick(c->kind, ticks[i], label, sizeof label);
    fprintf(out,
            "<line class=\"tick\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
            "y2=\"%.1f\"/>\n<text x=\"%.1f\" y=\"%.1f\" "
            "text-anchor=\"middle\">%s</text>\n",
            x, PLOT_BOTTOM, x, PLOT_BOTTOM + 5, x, PLOT_BOTTOM + 18, label);
  }
  fprintf(out,
          "</g>\n<text class=\"label\" x=\"%.1f\" y=\"%.1f\" "
          "text-anchor=\"middle\">%s</text>\n",
          (PLOT_LEFT + PLOT_RIGHT) / 2, PLOT_BOTTOM + 38,
          occ_chart_x_label(c->kind));
}

static void write_series(FILE *out, const occ_chart *c, const scale *s) {
  fprintf(out, "<polyline class=\"series\" id=\"%s-series\" points=\"",
          occ_chart_kind_name(c->kind));
  for (size_t i = 0; i < c->count; i++)
    fprintf(out, "%s%.1f,%.1f", i ? " " : "", px(s, (double)c->points[i].x),
            py(s, c->points[i].active_warps_per_sm));
  fputs("\"/>\n", out);
  /* Few points: show where they are, so the lines between them do not
   * read as values. */
  if (c->count > 64) return;
  fputs("<g class=\"points\">\n", out);
  for (size_t i = 0; i < c->count; i++)
    fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\"/>\n",
            px(s, (double)c->points[i].x),
            py(s, c->points[i].active_warps_per_sm));
  fputs("</g>\n", out);
}

/* The marked point, a dashed line down to the axis, and what it reads;
 * the label sits left of the point when the point is in the right half. */
static void write_marked(FILE *out, const occ_chart *c, const scale *s) {
  const occ_chart_point *p = &c->points[c->marked];
  double x = px(s, (double)p->x), y = py(s, p->active_warps_per_sm);
  bool right_half = x > (PLOT_LEFT + PLOT_RIGHT) / 2;
  fprintf(out,
          "<g class=\"marked\" id=\"%s-marked\">\n"
          "<line class=\"mark-line\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
          "y2=\"%.1f\"/>\n<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\"/>\n"
          "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">",
          occ_chart_kind_name(c->kind), x, y, x, PLOT_BOTTOM, x, y,
          right_half ? x - 9 : x + 9, y > PLOT_TOP + 20 ? y - 9 : y + 18,
          right_half ? "end" : "start");
  char pct[16];
  occ_pct_text(p->occupancy, pct, sizeof pct); /* the report's format */
  if (c->marked_launchable)
    fprintf(out, "%lld %s: %d warps/SM, %s %%", (long long)p->x,
            occ_chart_x_unit(c->kind), p->active_warps_per_sm, pct);
  else
    fprintf(out, "%lld %s: cannot launch", (long long)p->x,
            occ_chart_x_unit(c->kind));
  fputs("</text>\n</g>\n", out);
}

static void write_legend(FILE *out) {
  double x = PLOT_RIGHT - 270, y = PLOT_BOTTOM + 56;
  fprintf(out,
          "<g class=\"legend\">\n"
          "<line class=\"series\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
          "y2=\"%.1f\"/>\n<text x=\"%.1f\" y=\"%.1f\">active warps per SM</text>\n"
          "<circle class=\"legend-mark\" cx=\"%.1f\" cy=\"%.1f\" r=\"5\"/>\n"
          "<text x=\"%.1f\" y=\"%.1f\">this kernel</text>\n</g>\n",
          x, y, x + 24, y, x + 30, y + 4, x + 172, y, x + 182, y + 4);
}

static void write_panel(FILE *out, const char *kernel_name, const occ_chart *c,
                        double top) {
  scale s = {(double)c->points[0].x, (double)c->points[c->count - 1].x,
             c->max_warps_per_sm > 0 ? c->max_warps_per_sm : 1};
  fprintf(out, "<g class=\"chart\" id=\"chart-%s\" transform=\"translate(0 %.1f)\">\n",
          occ_chart_kind_name(c->kind), top);
  write_title(out, kernel_name, c);
  write_y_axes(out, c, &s);
  write_x_axis(out, c, &s);
  write_series(out, c, &s);
  write_marked(out, c, &s);
  write_legend(out);
  fputs("</g>\n", out);
}

void occ_chart_write_svg(FILE *out, const char *kernel_name,
                         const occ_chart *const *charts, size_t count) {
  double height = PANEL_HEIGHT * (double)count;
  fprintf(out,
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
          "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n",
          WIDTH, height, WIDTH, height);
  /* The document's title: the kernel, whole, and the device. */
  fputs("<title>occupancy", out);
  if (kernel_name) {
    fputs(" of ", out);
    occ_svg_put_escaped(out, kernel_name);
  }
  if (count > 0) {
    fputs(" on ", out);
    occ_svg_put_escaped(out, charts[0]->device_name);
    fprintf(out, " (CC %d.%d)", charts[0]->cc_major, charts[0]->cc_minor);
  }
  fputs("</title>\n", out);
  fputs("<style>\n"
          "text { font-family: sans-serif; font-size: 12px; fill: #222; }\n"
          ".title { font-size: 15px; font-weight: bold; }\n"
          ".subtitle { fill: #555; }\n"
          ".label { font-size: 13px; }\n"
          ".axis, .tick { stroke: #222; stroke-width: 1; }\n"
          ".grid { stroke: #ddd; stroke-width: 1; }\n"
          ".points circle { fill: " SERIES_COLOUR "; }\n"
          ".series { fill: none; stroke: " SERIES_COLOUR "; stroke-width: 2; }\n"
          ".marked circle, .legend-mark { fill: " MARK_COLOUR "; }\n"
          ".marked text { fill: " MARK_COLOUR "; font-weight: bold; }\n"
          ".mark-line { stroke: " MARK_COLOUR "; stroke-dasharray: 4 3; }\n"
          "</style>\n"
          "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
        out);
  for (size_t i = 0; i < count; i++)
    if (charts[i]->count > 0)
      write_panel(out, kernel_name, charts[i], PANEL_HEIGHT * (double)i);
  fputs("</svg>\n", out);
}
