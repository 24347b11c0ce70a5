/* amd_out.h - the writers of an AMD configuration (model/amd_item.h), in
 * AMD's words (wavefronts, lanes, VGPRs, SGPRs, AGPRs, LDS, CU, SIMD):
 * the report, the --explain worksheet, the JSON object, the CSV row and
 * the remark log's table row. They only read the item. */
#ifndef OCC_AMD_OUT_H
#define OCC_AMD_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "model/amd_item.h"
#include "render/json_write.h"

/* The report (text). */
void occ_amd_write_report(FILE *out, const occ_amd_item *item);

/* The worksheet of --explain: every step of both rules with its numbers. */
void occ_amd_write_explain(FILE *out, const occ_amd_item *item);

/* The JSON document of one configuration (schema 3, "device.vendor"
 * "amd"); the caller owns it. NULL when out of memory. */
cJSON *occ_amd_json(const occ_amd_item *item);

/* The device object of an AMD architecture (board NULL, cu_count -1) or
 * board at its default wave size, with "family" and "reference", for
 * --list-gpus; the caller owns it. NULL when out of memory. */
cJSON *occ_amd_json_listed(const occ_amd_arch *arch, const char *board, int cu_count,
                           const char *family, const char *reference);

/* CSV: the header, then a row per configuration (same columns as the
 * JSON's scalar keys; an empty field where JSON has null). */
void occ_amd_csv_header(FILE *out);
void occ_amd_csv_row(FILE *out, const occ_amd_item *item);

/* The remark log's table: a header naming the target, a row per kernel
 * (the compiler's Occupancy beside occcalc's, "!=" where they differ). */
void occ_amd_table_header(FILE *out, const occ_amd_item *first);
void occ_amd_table_row(FILE *out, const occ_amd_item *item);

#endif
