/* explain_out.h - the writers of the derivation (core/explain.h): the
 * worksheet text of --explain (occ_print_explain, in report.h) and the
 * JSON array of its steps, both from the same steps and the same prose. */
#ifndef OCC_EXPLAIN_OUT_H
#define OCC_EXPLAIN_OUT_H

#include "render/json_write.h"
#include <stddef.h>

#include "core/explain.h"
#include "model/amd_item.h"
#include "render/report.h"

/* Writes step's prose (its template with report's numbers filled in) into
 * buf, cut to size; without the joiner to the step before. */
void occ_explain_step_text(const occ_report *report, const occ_step *step,
                           char *buf, size_t size);

/* The same for an AMD item's steps (core/amd_explain.h). */
void occ_amd_explain_step_text(const occ_amd_item *item, const occ_step *step,
                               char *buf, size_t size);

/* The worksheet of an AMD item's explanation (steps[0..n-1]): the same
 * layout as NVIDIA's, both rules' steps. */
void occ_print_amd_explain(FILE *out, const occ_amd_item *item, const occ_step *steps,
                           size_t n);

/* The JSON array of an AMD item's steps, in occ_json_explain's shape. */
cJSON *occ_json_amd_explain(const occ_amd_item *item, const occ_step *steps, size_t n);

/* Builds the derivation of report as a JSON array of steps:
 *   {"step", "section", "title", "operation", "operands": [{"name",
 *   "value", "unit"}], "result": {"name", "value", "unit"} or null,
 *   "text", "joins_previous"}
 * text is the step's prose; joins_previous is null when it starts a line
 * of the worksheet, else the separator that joins it to the step before.
 * Occupancies are fractions; a limit that does not apply has value null.
 * The caller owns it (cJSON_Delete); NULL when out of memory. */
cJSON *occ_json_explain(const occ_report *report);

#endif
