/* merge_out.h - the merged report of `occcalc report` (model/run_merge.h)
 * written for a person or a script: text (80 columns, every name from a
 * program escaped), JSON (streamed a row at a time) or CSV (a row per
 * configuration, an unknown value an empty field). */
#ifndef OCC_MERGE_OUT_H
#define OCC_MERGE_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "model/run_merge.h"
#include "render/render.h"

/* Writes merge in format (OCC_FORMAT_JSON or OCC_FORMAT_CSV; any other is
 * the text). Returns false when memory ran out writing JSON. */
bool occ_merge_print(FILE *out, occ_format format, const occ_run_merge *merge);

#endif
