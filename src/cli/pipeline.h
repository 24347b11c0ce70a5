/* pipeline.h - the one path every kernel configuration takes, whatever its
 * source (typed numbers, a compiler report's kernel, a module's kernel, the
 * live device's probe): the model builds the item in one call (the result,
 * the waves and the sections the options ask for: explanation, charts,
 * suggestions, Nsight Compute's values), the renderer writes it in one, in
 * the format the options chose (render/render.h), and the occupancy gate
 * judges it. A source fills an occ_item and hands it over; it never prints
 * a result itself. */
#ifndef OCC_PIPELINE_H
#define OCC_PIPELINE_H

#include <stdbool.h>
#include <stdio.h>

#include "cli/cli.h"
#include "core/occ.h"
#include "model/verify.h"
#include "model/model.h"
#include "render/render.h"
#include "ptxas/ptxas.h"

typedef struct occ_pipeline {
  const occ_cli *cli;
  occ_model_request request; /* the sections the options ask for */
  FILE *err;
  occ_render render;     /* the writer the options chose */
  long below_gate;
} occ_pipeline;

/* The format the options ask for, the one choice for every command:
 * --json, --jsonl, --csv, --svg -, the --ptxas table, else text. */
occ_format occ_pipeline_format(const occ_cli *cli);

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

/* The block --block names on device, into kernel->block; for --block
 * best, cudaOccupancyMaxPotentialBlockSize's (occ_best_block_size, with
 * the kernel's per-thread shared memory and size limit), its choice into
 * *choice when not NULL. Returns OCC_EXIT_OK or OCC_EXIT_USAGE after the
 * diagnostic. */
int occ_pipeline_block(const occ_pipeline *p, const occ_device *device,
                       occ_kernel *kernel, occ_block_choice *choice);

/* Builds item: its result, waves and the sections the options ask for
 * (occ_model_build), into item->sections, which the caller frees with
 * free() once item is written. Returns OCC_OK, or the status with *failed
 * naming the section (OCC_SECTION_NONE: the configuration itself); nothing
 * is printed. */
occ_status occ_pipeline_build(const occ_pipeline *p, occ_item *item,
                              occ_model_section *failed);
/* Reports why occ_pipeline_build failed, in one line naming the section,
 * or the device and, for its properties, the field out of range. Returns
 * OCC_EXIT_USAGE, or OCC_EXIT_FAILURE when memory ran out. */
int occ_pipeline_build_error(const occ_pipeline *p, const occ_item *item,
                             occ_status status, occ_model_section failed);
/* Hands the built item to the renderer (render/render.h), which only
 * reads it, and applies the gate. Returns an exit status (OCC_EXIT_OK, or
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
