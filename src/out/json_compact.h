/* json_compact.h - printers of cJSON trees, byte for byte what
 * cJSON_PrintUnformatted (--jsonl) and cJSON_Print (--json) write, without
 * their cost per number (cJSON 1.7 formats every number with "%1.15g" and
 * reads it back with sscanf; a report has about 60 numbers, nearly all
 * integers) and without building the text in memory first. */
#ifndef OCC_JSON_COMPACT_H
#define OCC_JSON_COMPACT_H

#include <cjson/cJSON.h>
#include <stdio.h>

/* Writes item to out as cJSON_PrintUnformatted would, without a newline. */
void occ_json_write_compact(FILE *out, const cJSON *item);

/* Writes item to out as cJSON_Print would, without a newline. */
void occ_json_write_formatted(FILE *out, const cJSON *item);

#endif
