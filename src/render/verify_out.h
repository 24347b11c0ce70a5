/* verify_out.h - the writers of the live verifier's results
 * (model/verify.h): device is the GPU verified, ordinal its index. */
#ifndef OCC_VERIFY_OUT_H
#define OCC_VERIFY_OUT_H

#include "render/json_write.h"
#include <stdio.h>

#include "db/gpudb.h"
#include "model/verify.h"

/* Why the SM holds at launch more blocks of p than the occupancy API's
 * rule says (p->launch_active_blocks_per_sm differs): the configuration
 * the driver chooses, or no shared memory of its own to limit them. One
 * line, without a newline, into out of size bytes. */
void occ_verify_launch_reason(const occ_result *p, char *out, size_t size);

/* The four numbers side by side, for under the calculator's report. */
void occ_print_verify(FILE *out, const occ_device *device, int ordinal,
                      const occ_verify *v);

/* The "verify" object of a report; NULL when out of memory. */
cJSON *occ_json_verify(int ordinal, const occ_verify *v);

/* One disagreeing sweep case, in full, on one line. */
void occ_print_sweep_case(FILE *out, int index, const occ_verify *v);

/* The sweep's counts per check and its cost per configuration. */
void occ_print_sweep_summary(FILE *out, const occ_device *device, int ordinal,
                             int n, uint64_t seed, const occ_sweep_summary *s);
cJSON *occ_json_sweep_summary(const occ_sweep_summary *s, uint64_t seed);

/* One case of verify --sweep --json: {index, kernel (the shared kernel
 * object of what was asked), verify}. NULL when out of memory. */
cJSON *occ_json_sweep_case(int ordinal, int index, const occ_verify *v);

/* The document of verify --sweep --json without its cases: the root
 * (schema, occcalc_version), device and summary; the caller adds "cases".
 * NULL when out of memory. */
cJSON *occ_json_sweep(const occ_device *device, const occ_sweep_summary *s,
                      uint64_t seed);

/* --module: the kernel's attributes and the API's answer beside the
 * prediction, with the verdict the source decided (occ_module_agrees). */
void occ_print_module_check(FILE *out, const occ_module_kernel *mk,
                            const occ_result *prediction, bool agree);
cJSON *occ_json_module_check(const occ_module_kernel *mk,
                             const occ_result *prediction, bool agree);

#endif
