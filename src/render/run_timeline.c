/* run_timeline.c - the run's timeline as SVG (see run_timeline.h). */
#include "render/run_timeline.h"

#include <stdlib.h>
#include <string.h>

#include "render/run_launches.h"
#include "render/svg_text.h"
#include "text/text_safe.h"

#define WIDTH 1200.0
#define PLOT_LEFT 190.0
#define PLOT_RIGHT 1170.0
#define HEADER 96.0        /* title, subtitle, legend */
#define LANE_HEIGHT 22.0
#define LANE_GAP 4.0
#define GPU_HEIGHT 70.0    /* a GPU's occupancy panel */
#define GPU_GAP 28.0
#define AXIS_HEIGHT 48.0
#define CHAR_WIDTH 6.6     /* an 11 px sans-serif character, about */
#define NAME_MAX_SHOWN 200 /* bytes of a name kept for labels and tooltips */

typedef struct timeline {
  const occ_run_report *rep;
  occ_run_launches ls;     /* with times, by start, and their lanes */
  int32_t *devices;        /* ordinals, ascending */
  size_t device_count;
  uint64_t span_ns;
} timeline;

static int by_ordinal(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return x < y ? -1 : x > y;
}

/* Text from the program (names), made harmless (text_safe.h: no control
 * bytes, which XML forbids, nor invalid UTF-8) and then XML-escaped. */
static void put_text(FILE *out, const char *text) {
  char safe[NAME_MAX_SHOWN * 4 + 8];
  occ_text_safe(text, safe, sizeof safe);
  occ_svg_put_escaped(out, safe);
}

/* At most max_chars characters of name (whole code points), "..."
 * ending a cut one; "" when not even 4 characters fit. */
static void put_label(FILE *out, const char *name, size_t max_chars) {
  char buf[NAME_MAX_SHOWN + 4];
  size_t chars = 0, n = 0;
  for (const unsigned char *p = (const unsigned char *)name; *p; p++)
    if ((*p & 0xC0) != 0x80) chars++;
  if (chars <= max_chars) {
    put_text(out, name);
    return;
  }
  if (max_chars < 8) return;
  size_t keep = max_chars - 3;
  chars = 0;
  while (name[n] && n < NAME_MAX_SHOWN) {
    if (((unsigned char)name[n] & 0xC0) != 0x80 && chars++ == keep) break;
    n++;
  }
  memcpy(buf, name, n);
  memcpy(buf + n, "...", 4);
  put_text(out, buf);
}

static const char *name_of(const occ_run_launch *l) {
  return l->row->item.readable ? l->row->item.readable : l->rec->name;
}

static double px(const timeline *t, uint64_t ns) {
  double span = t->span_ns ? (double)t->span_ns : 1.0;
  return PLOT_LEFT + (double)(ns - t->ls.origin_ns) / span * (PLOT_RIGHT - PLOT_LEFT);
}

/* Viridis at five stops, interpolated: dark is low occupancy, yellow
 * high; readable in grey and by the colour-blind. */
static void colour(double v, char *buf, size_t size) {
  static const int stops[5][3] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140},
                                  {94, 201, 98}, {253, 231, 37}};
  v = v < 0 ? 0 : v > 1 ? 1 : v;
  int k = v >= 1 ? 3 : (int)(v * 4);
  double f = v * 4 - k;
  int c[3];
  for (int j = 0; j < 3; j++)
    c[j] = (int)(stops[k][j] + f * (stops[k + 1][j] - stops[k][j]) + 0.5);
  snprintf(buf, size, "#%02x%02x%02x", c[0], c[1], c[2]);
}

static int add_device(timeline *t, int32_t device) {
  for (size_t i = 0; i < t->device_count; i++)
    if (t->devices[i] == device) return 0;
  void *grown = realloc(t->devices, (t->device_count + 1) * sizeof *t->devices);
  if (!grown) return -1;
  t->devices = grown;
  t->devices[t->device_count++] = device;
  return 0;
}

static int collect(timeline *t) {
  if (occ_run_launches_collect(&t->ls, t->rep)) return -1;
  for (size_t i = 0; i < t->ls.count; i++)
    if (add_device(t, t->ls.launches[i].rec->device)) return -1;
  /* None when no launch is shown (devices is then NULL, which qsort may
   * not be given). */
  if (t->device_count > 1)
    qsort(t->devices, t->device_count, sizeof *t->devices, by_ordinal);
  t->span_ns = t->ls.count ? t->ls.last_end_ns - t->ls.origin_ns : 0;
  return 0;
}

static void write_head(FILE *out, const timeline *t, double height) {
  fprintf(out,
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
          "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n<title>timeline of ",
          WIDTH, height, WIDTH, height);
  put_text(out, t->rep->program ? t->rep->program : "the program");
  fputs("</title>\n<style>\n"
        "text { font-family: sans-serif; font-size: 12px; fill: #222; }\n"
        ".title { font-size: 15px; font-weight: bold; }\n"
        ".subtitle { fill: #555; }\n"
        ".lane-label { font-size: 11px; }\n"
        ".launch text { font-size: 11px; pointer-events: none; }\n"
        ".launch rect { stroke: none; }\n"
        ".marked { stroke: #d62728 !important; stroke-width: 1; "
        "stroke-dasharray: 3 2; }\n"
        ".unmeasured { fill: url(#unmeasured); }\n"
        ".lane-bg { fill: #f4f4f4; }\n"
        ".axis, .tick { stroke: #222; stroke-width: 1; }\n"
        ".grid { stroke: #ddd; stroke-width: 1; }\n"
        ".gpu-line { fill: none; stroke: #1f77b4; stroke-width: 1.5; }\n"
        "</style>\n"
        "<defs>\n"
        "<pattern id=\"unmeasured\" width=\"6\" height=\"6\" "
        "patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
        "<rect width=\"6\" height=\"6\" fill=\"#d9d9d9\"/>"
        "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#888\" "
        "stroke-width=\"2\"/></pattern>\n"
        "<linearGradient id=\"scale\">\n",
        out);
  char c[8];
  for (int q = 0; q <= 4; q++) {
    colour(q / 4.0, c, sizeof c);
    fprintf(out, "<stop offset=\"%d%%\" stop-color=\"%s\"/>\n", 25 * q, c);
  }
  fputs("</linearGradient>\n</defs>\n"
        "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n", out);
}

static void write_title(FILE *out, const timeline *t) {
  fputs("<text class=\"title\" x=\"20\" y=\"24\">Timeline of ", out);
  put_label(out, t->rep->program ? t->rep->program : "the program", 60);
  fputs(" on ", out);
  for (size_t i = 0; i < t->device_count; i++) {
    const char *name = occ_run_launches_device_name(&t->ls, t->devices[i]);
    fprintf(out, "%sGPU %d", i ? ", " : "", t->devices[i]);
    if (name) {
      fputs(" (", out);
      put_text(out, name);
      fputs(")", out);
    }
  }
  if (t->device_count == 0) fputs("no GPU", out);
  size_t measured = 0;
  for (size_t i = 0; i < t->ls.count; i++) {
    double v;
    measured += occ_run_launch_achieved(&t->ls.launches[i], &v);
  }
  fprintf(out,
          "</text>\n<text class=\"subtitle\" x=\"20\" y=\"44\">%zu launch%s "
          "in %zu lane%s (process, stream); ",
          t->ls.count, t->ls.count == 1 ? "" : "es", t->ls.lane_count,
          t->ls.lane_count == 1 ? "" : "s");
  if (t->rep->measure == OCC_MEASURE_NONE)
    fputs("achieved occupancy not measured (--measure none)", out);
  else
    fprintf(out, "achieved occupancy of %zu by %s", measured,
            t->rep->measure == OCC_MEASURE_SAMPLE ? "PM samples"
                                                  : "kernel replay");
  fputs("</text>\n", out);
}

/* The marked outline only where samples measured: replay's values are
 * never marked. */
static void write_legend(FILE *out, bool sampled) {
  double x = 20, y = 62;
  fprintf(out,
          "<g class=\"legend\">\n"
          "<text x=\"%.0f\" y=\"%.0f\">achieved occupancy</text>\n"
          "<rect x=\"%.0f\" y=\"%.0f\" width=\"200\" height=\"12\" "
          "fill=\"url(#scale)\"/>\n",
          x, y + 10, x + 140, y);
  for (int q = 0; q <= 4; q++)
    fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">%d %%"
            "</text>\n", x + 140 + 50 * q, y + 26, 25 * q);
  fprintf(out,
          "<rect class=\"unmeasured\" x=\"%.0f\" y=\"%.0f\" width=\"24\" "
          "height=\"12\"/>\n<text x=\"%.0f\" y=\"%.0f\">not measured "
          "(reason in its tooltip)</text>\n",
          x + 380, y, x + 410, y + 10);
  if (sampled)
    fprintf(out,
            "<rect class=\"marked\" x=\"%.0f\" y=\"%.0f\" width=\"24\" "
            "height=\"12\" fill=\"#21918c\"/>\n<text x=\"%.0f\" y=\"%.0f\">"
            "value marked: short, shared or beside another kernel</text>\n",
            x + 660, y, x + 690, y + 10);
  fputs("</g>\n", out);
}

static double lane_y(size_t lane) {
  return HEADER + (double)lane * (LANE_HEIGHT + LANE_GAP);
}

static void write_lanes(FILE *out, const timeline *t) {
  fputs("<g class=\"lanes\">\n", out);
  for (size_t i = 0; i < t->ls.lane_count; i++) {
    double y = lane_y(i);
    fprintf(out,
            "<rect class=\"lane-bg\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
            "height=\"%.1f\"/>\n<text class=\"lane-label\" x=\"%.1f\" "
            "y=\"%.1f\" text-anchor=\"end\">process %d, stream %u</text>\n",
            PLOT_LEFT, y, PLOT_RIGHT - PLOT_LEFT, LANE_HEIGHT, PLOT_LEFT - 8,
            y + LANE_HEIGHT / 2 + 4, t->ls.lanes[i].pid, t->ls.lanes[i].stream);
  }
  fputs("</g>\n", out);
}

/* Why a launch has no value, or what its value is worth, for its
 * tooltip. */
static const char *basis_words(const occ_run_launch *l, bool known) {
  const occ_sampled_launch *s = l->row->sampled ? l->row->sampled[l->i] : NULL;
  if (s) return s->reason;
  if (known) return "kernel replay";
  if (l->rec->graph_id && l->row->counters) return OCC_RUN_GRAPH_WHY;
  return "not measured";
}

static void write_duration(FILE *out, uint64_t ns) {
  if (ns >= 1000000000) fprintf(out, "%.3g s", (double)ns / 1e9);
  else if (ns >= 1000000) fprintf(out, "%.3g ms", (double)ns / 1e6);
  else if (ns >= 1000) fprintf(out, "%.3g us", (double)ns / 1e3);
  else fprintf(out, "%llu ns", (unsigned long long)ns);
}

static void write_launch(FILE *out, const timeline *t, const occ_run_launch *l) {
  const occ_launch_record *r = l->rec;
  double x0 = px(t, r->start_ns), x1 = px(t, r->end_ns);
  double w = x1 - x0 < 1 ? 1 : x1 - x0, y = lane_y(l->lane) + 2;
  double v = 0;
  bool known = occ_run_launch_achieved(l, &v);
  const occ_sampled_launch *s = l->row->sampled ? l->row->sampled[l->i] : NULL;
  bool marked = known && s && s->known && s->basis != OCC_BASIS_CLEAN;
  char fill[8];
  colour(v, fill, sizeof fill);
  fprintf(out, "<g class=\"launch\"><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
          "height=\"%.1f\"", x0, y, w, LANE_HEIGHT - 4);
  if (known) fprintf(out, " fill=\"%s\"%s", fill, marked ? " class=\"marked\"" : "");
  else fputs(" class=\"unmeasured\"", out);
  fputs("><title>", out);
  put_text(out, name_of(l));
  fprintf(out, "\nprocess %d, stream %u, GPU %d\nstart ", r->pid, r->stream,
          r->device);
  write_duration(out, r->start_ns - t->ls.origin_ns);
  fputs(", duration ", out);
  write_duration(out, r->end_ns - r->start_ns);
  if (known) fprintf(out, "\nachieved occupancy %.1f %%", 100 * v);
  else fputs("\nachieved occupancy unknown", out);
  fputs(" (", out);
  put_text(out, basis_words(l, known));
  fputs(")</title></rect>", out);
  size_t fits = (size_t)((w - 6) / CHAR_WIDTH);
  /* A label of a few characters and "..." says nothing: 8 at least. */
  if (fits >= 8 || (fits >= 1 && strlen(name_of(l)) <= fits)) {
    fprintf(out, "<text x=\"%.2f\" y=\"%.1f\" style=\"fill:%s\">", x0 + 3,
            y + LANE_HEIGHT / 2 + 2, known && v < 0.6 ? "white" : "#111");
    put_label(out, name_of(l), fits);
    fputs("</text>", out);
  }
  fputs("</g>\n", out);
}

static double gpu_top(const timeline *t, size_t g) {
  return lane_y(t->ls.lane_count) + GPU_GAP + (double)g * (GPU_HEIGHT + GPU_GAP);
}

/* The value of the launch that started last among the measured ones
 * running, at each launch's start and end: 0 when none runs, and a gap
 * where only unmeasured ones run, so that no unknown reads as 0. */
static void write_gpu_line(FILE *out, const timeline *t, int32_t device,
                           double top, const occ_run_launch **running) {
  size_t active = 0;
  double y_of_zero = top + GPU_HEIGHT, last_y = y_of_zero;
  bool gap = false;
  typedef struct { uint64_t ns; bool end; const occ_run_launch *l; } ev;
  fputs("<path class=\"gpu-line\" d=\"", out);
  fprintf(out, "M%.2f,%.1f", PLOT_LEFT, last_y);
  size_t next = 0;
  for (;;) {
    /* The next event: the earliest end among those running, or the next
     * start, whichever comes first (ends first on a tie). */
    const occ_run_launch *start = NULL;
    while (next < t->ls.count && t->ls.launches[next].rec->device != device) next++;
    if (next < t->ls.count) start = &t->ls.launches[next];
    size_t end_at = active;
    for (size_t k = 0; k < active; k++)
      if (end_at == active || running[k]->rec->end_ns < running[end_at]->rec->end_ns)
        end_at = k;
    if (!start && end_at == active) break;
    ev e;
    if (end_at < active &&
        (!start || running[end_at]->rec->end_ns <= start->rec->start_ns)) {
      e = (ev){running[end_at]->rec->end_ns, true, running[end_at]};
      running[end_at] = running[--active];
    } else {
      e = (ev){start->rec->start_ns, false, start};
      running[active++] = start;
      next++;
    }
    /* The latest-started measured launch still running. */
    const occ_run_launch *shown = NULL;
    double v = 0;
    for (size_t k = 0; k < active; k++) {
      double kv;
      if (occ_run_launch_achieved(running[k], &kv) &&
          (!shown || running[k]->rec->start_ns >= shown->rec->start_ns)) {
        shown = running[k];
        v = kv;
      }
    }
    double y = shown ? top + GPU_HEIGHT * (1 - v) : y_of_zero;
    double x = px(t, e.ns);
    bool unknown = !shown && active > 0;
    if (gap && !unknown) fprintf(out, " M%.2f,%.1f", x, y);
    else if (!gap && unknown) fprintf(out, " L%.2f,%.1f", x, last_y);
    else if (!gap && y != last_y) fprintf(out, " L%.2f,%.1f L%.2f,%.1f", x, last_y, x, y);
    gap = unknown;
    last_y = y;
  }
  if (!gap) fprintf(out, " L%.2f,%.1f", PLOT_RIGHT, last_y);
  fputs("\"/>\n", out);
}

static void write_gpus(FILE *out, const timeline *t, const occ_run_launch **running) {
  for (size_t g = 0; g < t->device_count; g++) {
    double top = gpu_top(t, g);
    fprintf(out, "<g class=\"gpu\" id=\"gpu-%d\">\n", t->devices[g]);
    for (int q = 0; q <= 4; q++) {
      double y = top + GPU_HEIGHT * (1 - q / 4.0);
      fprintf(out,
              "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
              "y2=\"%.1f\"/>\n",
              PLOT_LEFT, y, PLOT_RIGHT, y);
      if (q % 2 == 0)
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%d %%"
                "</text>\n", PLOT_LEFT - 6, y + 4, 25 * q);
    }
    fprintf(out,
            "<text class=\"lane-label\" x=\"20\" y=\"%.1f\">GPU %d "
            "achieved</text>\n",
            top + GPU_HEIGHT / 2 + 4, t->devices[g]);
    write_gpu_line(out, t, t->devices[g], top, running);
    fputs("</g>\n", out);
  }
}

/* A tick every 1, 2 or 5 times a power of ten ns, at most 10 over the
 * span, labelled in the unit of the span. */
static void write_axis(FILE *out, const timeline *t, double y) {
  double span = t->span_ns ? (double)t->span_ns : 1.0;
  /* The power of ten by a loop, not log10 and pow: libm would be loaded
   * by every run of occcalc for this one writer (make bench-process). */
  double base = 1;
  while (base * 10 <= span / 10) base *= 10;
  double step = base;
  for (int m = 1; m <= 10 && span / step > 10; m = m == 1 ? 2 : m == 2 ? 5 : 10)
    step = base * m;
  if (step < 1) step = 1;
  double unit = span >= 1e9 ? 1e9 : span >= 1e6 ? 1e6 : span >= 1e3 ? 1e3 : 1;
  const char *unit_name = unit == 1e9 ? "s" : unit == 1e6 ? "ms"
                          : unit == 1e3 ? "us" : "ns";
  fprintf(out,
          "<g class=\"time-axis\">\n<line class=\"axis\" x1=\"%.1f\" "
          "y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
          PLOT_LEFT, y, PLOT_RIGHT, y);
  for (double v = 0; v <= span * 1.0000001; v += step) {
    double x = PLOT_LEFT + v / span * (PLOT_RIGHT - PLOT_LEFT);
    fprintf(out,
            "<line class=\"tick\" x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" "
            "y2=\"%.1f\"/>\n<line class=\"grid\" x1=\"%.2f\" y1=\"%.1f\" "
            "x2=\"%.2f\" y2=\"%.1f\"/>\n<text x=\"%.2f\" y=\"%.1f\" "
            "text-anchor=\"middle\">%g %s</text>\n",
            x, y, x, y + 5, x, HEADER - 4, x, y, x, y + 18, v / unit,
            unit_name);
  }
  fprintf(out,
          "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">time since "
          "the first launch</text>\n</g>\n",
          (PLOT_LEFT + PLOT_RIGHT) / 2, y + 36);
}

int occ_run_print_svg(FILE *out, const occ_run_report *rep) {
  timeline t = {.rep = rep};
  const occ_run_launch **running = NULL;
  bool ok = collect(&t) == 0;
  if (ok) running = malloc((t.ls.count + 1) * sizeof *running);
  ok = ok && running;
  if (ok) {
    double axis_y = gpu_top(&t, t.device_count);
    write_head(out, &t, axis_y + AXIS_HEIGHT);
    write_title(out, &t);
    write_legend(out, rep->measure == OCC_MEASURE_SAMPLE);
    /* The grid first, under the lanes. */
    write_axis(out, &t, axis_y);
    write_lanes(out, &t);
    fputs("<g class=\"launches\">\n", out);
    for (size_t i = 0; i < t.ls.count; i++) write_launch(out, &t, &t.ls.launches[i]);
    fputs("</g>\n", out);
    write_gpus(out, &t, running);
    fputs("</svg>\n", out);
  }
  free(running);
  occ_run_launches_free(&t.ls);
  free(t.devices);
  if (!ok) occ_msg(stderr, "out of memory writing the timeline");
  return ok ? 0 : -1;
}
