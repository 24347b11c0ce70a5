/* chart_out.h - the writers of the charts chart.h computes: terminal,
 * CSV, SVG and JSON, one file each. */
#ifndef OCC_CHART_OUT_H
#define OCC_CHART_OUT_H

#include "render/json_write.h"
#include <stdbool.h>
#include <stdio.h>

#include "core/chart.h"

/* Tick values for the x axis: the first x, then multiples of a power of
 * two step chosen for 4-6 ticks, then the last x (dropped when too close
 * to the one before). Writes at most max values; returns how many. */
size_t occ_chart_x_ticks(const occ_chart *chart, int64_t *ticks, size_t max);

/* A tick label for x: the number, or for shared memory from 1 KB on,
 * kilobytes ("64K", "56.5K"; K = 1024 bytes). Returns buf. */
const char *occ_chart_format_tick(occ_chart_kind kind, int64_t x, char *buf,
                                  size_t size);

/* Writers. Each draws charts[0..count-1]; the terminal and SVG writers
 * fit them to their canvas. */

/* Terminal: Unicode block characters, or plain ASCII when ascii is true;
 * fits 80 columns. */
void occ_chart_print_term(FILE *out, const occ_chart *const *charts,
                          size_t count, bool ascii);

/* True when the environment's locale (LC_ALL, else LC_CTYPE, else LANG)
 * names UTF-8, i.e. the terminal writer may use Unicode. */
bool occ_chart_locale_is_utf8(void);

/* CSV: the header row, then the rows of one kernel's charts, a row per
 * point; kernel names them (NULL: an empty field). */
void occ_chart_write_csv_header(FILE *out);
void occ_chart_write_csv(FILE *out, const char *kernel,
                         const occ_chart *const *charts, size_t count);

/* A standalone SVG document with one panel per chart, stacked; its title
 * and each panel's name the kernel (kernel_name, NULL for typed numbers)
 * and the device. */
void occ_chart_write_svg(FILE *out, const char *kernel_name,
                         const occ_chart *const *charts, size_t count);

/* The JSON array of charts (documented in man/occcalc.1); the caller owns
 * it (cJSON_Delete). NULL when out of memory. */
cJSON *occ_chart_json(const occ_chart *const *charts, size_t count);

#endif
