/* explore.h - the command line's side of the charts and suggestions:
 * parsing --chart, checking the explore options against each other, and
 * writing what they ask for next to the report. The charts and
 * suggestions themselves are chart.h's and suggest.h's. */
#ifndef OCC_EXPLORE_H
#define OCC_EXPLORE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>

#include "cli/cli.h"
#include "core/occ.h"

/* Parses a --chart value ("block", "regs", "smem", "all", or a comma list
 * of them) and ORs its kinds into *charts (bit 1 << occ_chart_kind).
 * Returns 0, or -1 with the reason in why. */
int occ_parse_charts(const char *text, unsigned *charts, char *why,
                     size_t why_size);

/* Checks the explore options together once all are parsed (--csv and
 * --svg without --chart mean every chart). Returns OCC_EXIT_OK, or prints
 * the usage error to err and returns OCC_EXIT_USAGE. */
int occ_check_explore_options(occ_cli *cli, FILE *err);

/* Checks what needs the device before anything is written: --step within
 * its block size limit, and that the --svg file can be written (it is
 * created here). Returns OCC_EXIT_OK or prints the error and returns
 * OCC_EXIT_USAGE. */
int occ_explore_check(const occ_cli *cli, const occ_device *device, FILE *err);

/* True when stdout carries only chart data (--csv, or --svg -), not the
 * report. */
bool occ_explore_replaces_report(const occ_cli *cli);

/* Writes the charts and suggestions the options ask for: after the human
 * report (terminal charts, or the SVG file, then suggestions), or alone
 * when occ_explore_replaces_report. Returns an exit status; diagnostics go
 * to err. */
int occ_explore_write(const occ_cli *cli, const occ_device *device,
                      const occ_kernel *kernel, FILE *out, FILE *err);

/* Adds "charts" and "suggest" to the report's JSON object as the options
 * ask, and writes the SVG file if one is asked for. Returns an exit
 * status. */
int occ_explore_add_json(const occ_cli *cli, const occ_device *device,
                         const occ_kernel *kernel, cJSON *report, FILE *err);

#endif
