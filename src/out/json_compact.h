/* json_compact.h - a compact printer of cJSON trees for --jsonl, byte for
 * byte what cJSON_PrintUnformatted writes, without its cost per number
 * (cJSON 1.7 formats every number with "%1.15g" and reads it back with
 * sscanf; a kernel's object has about 60 numbers, nearly all integers). */
#ifndef OCC_JSON_COMPACT_H
#define OCC_JSON_COMPACT_H

#include <cjson/cJSON.h>
#include <stdio.h>

/* Writes item to out as cJSON_PrintUnformatted would, without a newline. */
void occ_json_write_compact(FILE *out, const cJSON *item);

#endif
