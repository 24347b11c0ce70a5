/* report_text.h - wording shared by the human report and the explanation,
 * so both name things the same way. */
#ifndef OCC_REPORT_TEXT_H
#define OCC_REPORT_TEXT_H

#include <stddef.h>

#include "core/occ.h"

/* The compute capability as "9.0". */
void occ_cc_text(const occ_device *device, char *out, size_t size);

/* The reason a configuration cannot launch, with its numbers: "the block
 * needs 262144 registers; a block may have 65536". */
void occ_reason_detail(const occ_device *device, const occ_kernel *kernel,
                       const occ_result *result, char *out, size_t size);

/* A percentage with at most two decimals and no trailing zeros: "62.5",
 * "6.25", "33.33". */
void occ_pct_text(double fraction, char *out, size_t size);

/* The same for a figure below gate_pct (a percentage): as many decimals
 * as it takes to read below the gate (66.667 % under a gate of 66.67),
 * at most 9. */
void occ_pct_text_below(double fraction, double gate_pct, char *out, size_t size);

#endif
