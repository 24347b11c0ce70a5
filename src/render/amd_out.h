/* amd_out.h - the writers of an AMD configuration (model/amd_item.h), in
 * AMD's words (wavefronts, lanes, VGPRs, SGPRs, AGPRs, LDS, CU, SIMD):
 * the report, the JSON object, the CSV row and the remark log's table
 * row (the --explain worksheet is render/explain.c's, from the core's
 * steps). The top-level figures are the launch's (HIP's rule for the
 * block given); LLVM's, the compiler's, for its largest workgroup, are
 * labelled so. They only read the item. */
#ifndef OCC_AMD_OUT_H
#define OCC_AMD_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "model/amd_item.h"
#include "render/json_write.h"

/* The report (text). */
void occ_amd_write_report(FILE *out, const occ_amd_item *item);

/* AMD's words for the explanation's placeholders (render/explain.c):
 * the limiters' labels ("VGPRs and LDS"), the reasons the rules differ
 * (a "- " line each), an operand's label by its name's last keys
 * ("compiler_rule.limits.vgprs": "VGPRs"; the name itself when none). */
void occ_amd_limiter_words(unsigned limiters, char *buf, size_t size);
void occ_amd_reasons_text(unsigned reasons, char *buf, size_t size);
const char *occ_amd_value_label(const char *name);

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
