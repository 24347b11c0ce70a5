/* merge_out.h - the merged report of `occcalc report` (db/run_merge.h's
 * document) written for a person or a script: text (80 columns, every
 * name from a program escaped), JSON (the document as it is) or CSV (a
 * row per configuration, an unknown value an empty field). */
#ifndef OCC_MERGE_OUT_H
#define OCC_MERGE_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "render/json_write.h"
#include "render/render.h"

/* Writes doc in format (OCC_FORMAT_JSON or OCC_FORMAT_CSV; any other is
 * the text). Returns false when memory ran out writing JSON. */
bool occ_merge_print(FILE *out, occ_format format, const cJSON *doc);

#endif
