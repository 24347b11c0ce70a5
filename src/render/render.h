/* render.h - one kernel configuration (a model item, model/model.h) in the
 * format the options chose: text, the --ptxas table, JSON, JSONL, CSV or
 * SVG. The one entry from the pipeline into the renderers: each item is
 * written by one call, which only reads the item. */
#ifndef OCC_RENDER_H
#define OCC_RENDER_H

#include <stdbool.h>
#include <stdio.h>

#include "model/model.h"
#include "render/report.h"

typedef enum occ_format {
  OCC_FORMAT_TEXT,  /* the report (or explanation) of each configuration */
  OCC_FORMAT_TABLE, /* --ptxas: a row per kernel */
  OCC_FORMAT_JSON,
  OCC_FORMAT_JSONL,
  OCC_FORMAT_CSV,   /* the charts' points */
  OCC_FORMAT_TABLE_CSV, /* --ptxas --csv without --chart: the table */
  OCC_FORMAT_SVG    /* --svg -: the charts alone on stdout */
} occ_format;

/* What the renderer writes, and where; the caller sets the first block,
 * the renderer keeps the second. */
typedef struct occ_render {
  occ_format format;
  FILE *out, *err;
  bool many;             /* several configurations: a JSON array, an SVG
                            directory, a kernel column in CSV */
  bool explain;          /* text: the explanation instead of the report */
  bool ncu;              /* text: Nsight Compute's values after it */
  bool ascii;            /* terminal charts in ASCII */
  bool verify_key;       /* JSON: a "verify" key (--device, --module) */
  bool cluster_verify_key; /* JSON: a "cluster_verify" key (--device
                            with --cluster) */
  const char *svg_path;  /* --svg FILE or DIR (several), or NULL */
  const occ_device *fixed_device; /* the table's "on DEVICE" line */
  int columns;           /* table: the terminal's width; 0 = never cut
                            names */
  bool flush_each;       /* JSONL into a pipe or terminal */

  long written;          /* items written so far */
  int name_width;        /* table: the kernel column's, from columns */
  bool any_chosen_block, any_ties, any_local; /* the table's footer notes */
  occ_device_text device_text; /* JSON: the last device's text, repeated */
} occ_render;

/* Writes item. Returns OCC_EXIT_OK, or the failure (out of memory, an
 * --svg file that could not be written) after its one line on r->err. */
int occ_render_item(occ_render *r, const occ_item *item);

/* Whether r's document has an end still to write: a JSON array or the
 * table's notes, once an item is written. */
static inline bool occ_render_open(const occ_render *r) {
  return r->written > 0 && ((r->format == OCC_FORMAT_JSON && r->many) ||
                            r->format == OCC_FORMAT_TABLE);
}

/* Ends the document when occ_render_open: the JSON array, the table's
 * notes. Call it once. */
void occ_render_end(occ_render *r);

#endif
