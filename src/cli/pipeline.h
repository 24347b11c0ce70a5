/* pipeline.h - the one path every kernel configuration takes, whatever its
 * source (typed numbers, a compiler report's kernel, a module's kernel, the
 * live device's probe): compute, waves, the occupancy gate, then one
 * writer switch (text, the --ptxas table, JSON, JSONL, CSV, SVG) with the
 * explanation, charts and suggestions the options ask for. A source fills
 * an occ_item and hands it over; it never prints a result itself. */
#ifndef OCC_PIPELINE_H
#define OCC_PIPELINE_H

#include <stdbool.h>
#include <stdio.h>

#include "cli/cli.h"
#include "core/occ.h"
#include "model/verify.h"
#include "model/model.h"
#include "ptxas/ptxas.h"

typedef enum occ_writer {
  OCC_WRITE_TEXT,  /* the report (or explanation) of each configuration */
  OCC_WRITE_TABLE, /* --ptxas: a row per kernel */
  OCC_WRITE_JSON,
  OCC_WRITE_JSONL,
  OCC_WRITE_CSV,   /* the charts' points */
  OCC_WRITE_SVG    /* --svg -: the charts alone on stdout */
} occ_writer;

typedef struct occ_pipeline {
  const occ_cli *cli;
  occ_model_request request; /* the sections the options ask for */
  FILE *out, *err;
  occ_writer writer;
  bool many;             /* several configurations: a JSON array, an SVG
                            directory, a kernel column in CSV */
  const occ_device *fixed_device; /* the table's "on DEVICE" line */
  int name_width;        /* table: 0 = never cut names */
  bool flush_each;       /* JSONL into a pipe or terminal */
  long written, below_gate;
  bool any_chosen_block, any_ties, any_local;
} occ_pipeline;

/* Starts a run: picks the writer from the options and checks that an
 * --svg directory exists when many (more than one configuration may
 * come). Returns OCC_EXIT_OK (CSV has its header written), or
 * OCC_EXIT_USAGE after the one-line diagnostic. */
int occ_pipeline_init(occ_pipeline *p, const occ_cli *cli, bool many,
                      FILE *out, FILE *err);

/* Checks what needs the device before anything is written or created:
 * --step within its limits, an SM count for --grid.
 * Returns OCC_EXIT_OK or OCC_EXIT_USAGE after the one-line diagnostic. */
int occ_pipeline_check(const occ_pipeline *p, const occ_device *device);

/* The block --block names on device, into kernel->block. Returns
 * OCC_EXIT_OK or OCC_EXIT_USAGE after the diagnostic. */
int occ_pipeline_block(const occ_pipeline *p, const occ_device *device,
                       occ_kernel *kernel);

/* Computes item->result and, with --grid, item->waves (occ_model_compute).
 * Returns the core's status; nothing is printed. */
occ_status occ_pipeline_compute(const occ_pipeline *p, occ_item *item);

/* Reports why occ_pipeline_compute failed, in one line naming the device
 * and, for its properties, the field out of range. Returns
 * OCC_EXIT_USAGE. */
int occ_pipeline_compute_error(const occ_pipeline *p, const occ_item *item,
                               occ_status status);

/* Computes the sections the options ask for into item (the model,
 * src/model/), hands it to the writer, which only reads it, applies the
 * gate and releases the sections. Returns an exit status (OCC_EXIT_OK, or
 * the failure already reported on err). */
int occ_pipeline_write(occ_pipeline *p, occ_item *item);

/* Ends the documents: the JSON array, the table's notes. */
void occ_pipeline_end(occ_pipeline *p);

/* Reports the gate once the rest is said. Returns OCC_EXIT_GATE when a
 * configuration was below --min-occupancy, else OCC_EXIT_OK. */
int occ_pipeline_gate(const occ_pipeline *p);

/* The gate, one for every source, run's included: true, after the one
 * line naming item and where it was computed (on), when --min-occupancy
 * is given and item's occupancy is below it (occ_model_below). */
bool occ_gate_check(const occ_cli *cli, FILE *err, const occ_item *item,
                    const char *on);

/* The gate's last line when below kernels were: returns OCC_EXIT_GATE
 * after it, else OCC_EXIT_OK. */
int occ_gate_summary(const occ_cli *cli, FILE *err, long below);

/* Both, for sources with nothing to say in between. */
static inline int occ_pipeline_finish(occ_pipeline *p) {
  occ_pipeline_end(p);
  return occ_pipeline_gate(p);
}

#endif
