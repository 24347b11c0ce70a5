/* chart_term.c - the charts in the terminal: a column chart of active
 * warps per SM, 8 rows of 8 levels each, in Unicode block characters or
 * plain ASCII, 78 columns wide at most. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "render/chart_out.h"
#include "render/report_text.h"
#include "render/vocab.h"
#include "text/text_safe.h"

#define PLOT_ROWS 8
#define LEVELS_PER_ROW 8
#define PLOT_COLUMNS 64
#define LEFT_GUTTER 6  /* "  64 |" */
#define LINE_MAX_BYTES 512

typedef struct glyphs {
  const char *levels[LEVELS_PER_ROW + 1]; /* a cell filled 0..8 eighths */
  const char *axis_tick, *axis_corner, *axis_line, *right_tick, *marker;
  const char *dot;
} glyphs;

static const glyphs unicode_glyphs = {
    {" ", "\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586",
     "\u2587", "\u2588"},
    "\u2524", "\u253c", "\u2500", "\u251c", "\u25b2", "\u00b7"};

/* ASCII has no eighth blocks: '.' for a cell under half full, ':' for
 * half or more, '#' for full. */
static const glyphs ascii_glyphs = {
    {" ", ".", ".", ".", ":", ":", ":", ":", "#"}, "+", "+", "-", "+", "^", "-"};

bool occ_chart_locale_is_utf8(void) {
  const char *vars[] = {"LC_ALL", "LC_CTYPE", "LANG"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    const char *v = getenv(vars[i]);
    if (!v || !*v) continue;
    const char *dot = strchr(v, '.');
    if (!dot) return false;
    return strncasecmp(dot + 1, "utf-8", 5) == 0 ||
           strncasecmp(dot + 1, "utf8", 4) == 0;
  }
  return false;
}

/* Where the chart's points land: each column shows the highest value of
 * the points it covers (the best the range offers); with fewer points
 * than columns each point takes an equal run of columns. */
typedef struct layout {
  int columns;                      /* plot width used */
  int levels[PLOT_COLUMNS];         /* bar height in eighths of a row */
  size_t first_point[PLOT_COLUMNS]; /* the first point of each column */
  int marked_column;
} layout;

static void lay_out(const occ_chart *c, layout *l) {
  size_t n = c->count;
  int per_point = n < PLOT_COLUMNS ? PLOT_COLUMNS / (int)n : 1;
  l->columns = n < PLOT_COLUMNS ? per_point * (int)n : PLOT_COLUMNS;
  int top = PLOT_ROWS * LEVELS_PER_ROW;
  for (int col = 0; col < l->columns; col++) {
    size_t from = n < PLOT_COLUMNS ? (size_t)(col / per_point)
                                   : (size_t)col * n / PLOT_COLUMNS;
    size_t to = n < PLOT_COLUMNS ? from + 1
                                 : (size_t)(col + 1) * n / PLOT_COLUMNS;
    int best = 0;
    for (size_t i = from; i < to; i++) {
      if (c->points[i].active_warps_per_sm > best)
        best = c->points[i].active_warps_per_sm;
      if (i == c->marked) l->marked_column = col;
    }
    l->first_point[col] = from;
    /* Round to the nearest level, but never show a non-zero value as 0. */
    int level = (best * top + c->max_warps_per_sm / 2) / c->max_warps_per_sm;
    l->levels[col] = best > 0 && level == 0 ? 1 : level;
  }
  if (n < PLOT_COLUMNS) l->marked_column = (int)c->marked * per_point;
}

static void format_x(const occ_chart *c, int64_t x, char *buf, size_t size) {
  occ_chart_format_tick(c->kind, x, buf, size);
}

/* The fixed inputs of a chart: "48 regs, 4096 B smem" for the block
 * chart, and so on. */
static void format_fixed(const occ_chart *c, char *buf, size_t size) {
  switch (c->kind) {
  case OCC_CHART_BLOCK:
    snprintf(buf, size, "%d regs, %lld B smem", c->regs_per_thread,
             (long long)c->smem_bytes);
    break;
  case OCC_CHART_REGS:
    snprintf(buf, size, "block %d, %lld B smem", c->threads_per_block,
             (long long)c->smem_bytes);
    break;
  case OCC_CHART_SMEM:
    snprintf(buf, size, "block %d, %d regs", c->threads_per_block,
             c->regs_per_thread);
    break;
  }
}

/* Two lines: what varies on which device, then the y axis' names with
 * what stays fixed between them. */
static void print_title(FILE *out, const occ_chart *c, const layout *l,
                        const glyphs *g) {
  char name[28];
  fprintf(out, "Occupancy by %s %s %s (CC %d.%d)\n",
          occ_chart_x_name(c->kind), g->dot,
          occ_text_safe(c->device_name, name, sizeof name), c->cc_major,
          c->cc_minor);
  char fixed[96], left[128];
  format_fixed(c, fixed, sizeof fixed);
  snprintf(left, sizeof left, "warps/SM   at %s", fixed);
  fprintf(out, "%-*s occupancy\n", LEFT_GUTTER + l->columns, left);
}

static void print_rows(FILE *out, const occ_chart *c, const layout *l,
                       const glyphs *g) {
  for (int row = 0; row < PLOT_ROWS; row++) {
    int row_top = PLOT_ROWS - row; /* in rows from the baseline */
    bool labelled = row % 2 == 0;
    if (labelled)
      fprintf(out, "%4d %s", c->max_warps_per_sm * row_top / PLOT_ROWS,
              g->axis_tick);
    else
      fprintf(out, "%4s %s", "", g->axis_tick[0] == '+' ? "|" : "\u2502");
    /* Labelled rows run to the right edge, where their labels line up;
     * unlabelled rows stop at their last filled cell: no trailing blanks. */
    int end = 0;
    for (int col = 0; col < l->columns; col++)
      if (l->levels[col] > (row_top - 1) * LEVELS_PER_ROW) end = col + 1;
    if (labelled) end = l->columns;
    for (int col = 0; col < end; col++) {
      int fill = l->levels[col] - (row_top - 1) * LEVELS_PER_ROW;
      fill = fill < 0 ? 0 : fill > LEVELS_PER_ROW ? LEVELS_PER_ROW : fill;
      fputs(g->levels[fill], out);
    }
    if (labelled) fprintf(out, " %3d %%", 100 * row_top / PLOT_ROWS);
    fputc('\n', out);
  }
  fprintf(out, "%4d %s", 0, g->axis_corner);
  for (int col = 0; col < l->columns; col++) fputs(g->axis_line, out);
  fprintf(out, " %3d %%\n", 0);
}

/* The column whose points span x, or -1 when x falls between columns
 * (a tick there would name a value no column shows). */
static int column_of(const occ_chart *c, const layout *l, int64_t x) {
  for (int col = 0; col < l->columns; col++) {
    size_t first = l->first_point[col];
    size_t last = first;
    while (last + 1 < c->count &&
           (col + 1 == l->columns || last + 1 < l->first_point[col + 1]))
      last++;
    if (c->points[first].x <= x && x <= c->points[last].x) {
      while (col > 0 && l->first_point[col - 1] == first) col--;
      return col;
    }
  }
  return -1;
}

/* Tick labels under the axis, left-aligned on their column; the last is
 * right-aligned on the axis' end and always shown, the others are skipped
 * where they would overlap. */
static void print_ticks(FILE *out, const occ_chart *c, const layout *l) {
  char line[LINE_MAX_BYTES];
  int width = LEFT_GUTTER + l->columns + 8;
  memset(line, ' ', (size_t)width);
  line[width] = '\0';
  int64_t ticks[16];
  size_t n = occ_chart_x_ticks(c, ticks, 16);
  char label[32];
  format_x(c, ticks[n - 1], label, sizeof label);
  int last_at = LEFT_GUTTER + l->columns - (int)strlen(label);
  memcpy(line + last_at, label, strlen(label));
  int next_free = 0;
  for (size_t i = 0; i + 1 < n; i++) {
    format_x(c, ticks[i], label, sizeof label);
    int len = (int)strlen(label);
    int col = column_of(c, l, ticks[i]);
    int at = LEFT_GUTTER + col;
    if (col < 0 || at < next_free || at + len >= last_at) continue;
    memcpy(line + at, label, (size_t)len);
    next_free = at + len + 1;
  }
  int end = width;
  while (end > 0 && line[end - 1] == ' ') end--;
  fprintf(out, "%.*s\n", end, line);
  fprintf(out, "%*s%s\n",
          LEFT_GUTTER + l->columns - (int)strlen(occ_chart_x_label(c->kind)),
          "", occ_chart_x_label(c->kind));
}

/* The marker under the kernel's column and what it reads there; the text
 * goes left of the marker when it would pass 80 columns on the right. */
static void print_marker(FILE *out, const occ_chart *c, const layout *l,
                         const glyphs *g) {
  const occ_chart_point *p = &c->points[c->marked];
  char x[48], text[200], limiters[64], pct[16];
  snprintf(x, sizeof x, "%lld %s", (long long)p->x, occ_chart_x_unit(c->kind));
  occ_pct_text(p->occupancy, pct, sizeof pct); /* the report's format */
  if (p->active_blocks_per_sm > 0)
    snprintf(text, sizeof text,
             "%s: %d block%s, %d warps/SM, %s %% (%s)", x,
             p->active_blocks_per_sm, p->active_blocks_per_sm == 1 ? "" : "s",
             p->active_warps_per_sm, pct,
             occ_limiters_keys(p->limited_by, limiters, sizeof limiters));
  else
    snprintf(text, sizeof text, "%s: cannot launch", x);
  int at = LEFT_GUTTER + l->marked_column;
  int len = (int)strlen(text);
  if (at + 2 + len <= 79)
    fprintf(out, "%*s%s %s\n", at, "", g->marker, text);
  else if (at - len - 1 >= 0)
    fprintf(out, "%*s%s %s\n", at - len - 1, "", text, g->marker);
  else
    fprintf(out, "%*s%s\n%s\n", at, "", g->marker, text);
}

void occ_chart_print_term(FILE *out, const occ_chart *const *charts,
                          size_t count, bool ascii) {
  const glyphs *g = ascii ? &ascii_glyphs : &unicode_glyphs;
  for (size_t i = 0; i < count; i++) {
    const occ_chart *c = charts[i];
    if (c->count == 0 || c->max_warps_per_sm <= 0) continue;
    layout l;
    memset(&l, 0, sizeof l);
    lay_out(c, &l);
    if (i > 0) fputc('\n', out);
    print_title(out, c, &l, g);
    print_rows(out, c, &l, g);
    print_ticks(out, c, &l);
    print_marker(out, c, &l, g);
  }
}
