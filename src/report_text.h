/* report_text.h - wording shared by the human report and the explanation,
 * so both name things the same way. */
#ifndef OCC_REPORT_TEXT_H
#define OCC_REPORT_TEXT_H

#include <stddef.h>

#include "occ.h"

/* Why limit index i (see occ_limiter_name) does not bind, when it is
 * OCC_UNLIMITED: "no registers used", "no barrier limit before cc 9.0"... */
const char *occ_unlimited_reason(const occ_result *result, int index);

/* "registers", "shared memory"...: the limiter's name for people. */
const char *occ_limiter_label(int index);

/* Writes the limiting set as "registers and shared memory". */
void occ_limited_by_text(const occ_result *result, char *out, size_t size);

/* The compute capability as "9.0". */
void occ_cc_text(const occ_device *device, char *out, size_t size);

#endif
