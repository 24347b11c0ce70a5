/* vocab.h - the words every writer shares: each limiter's JSON key, its
 * label for people and its short column label, and the phrases built from
 * them. One table, so the report, the explanation, the charts, the
 * suggestions, the compiler-report table and JSON all name a limit the
 * same way. Limiters are indexed by occ_limiter_index (core/occ.h). */
#ifndef OCC_VOCAB_H
#define OCC_VOCAB_H

#include <stddef.h>

#include "core/chart.h"
#include "core/occ.h"

/* "shared_memory": the JSON key (limits, limited_by) and the name in CSV
 * and the charts' captions. "?" past the end. */
const char *occ_limiter_key(int index);

/* "shared memory": the name in sentences and the report's rows. */
const char *occ_limiter_label(int index);

/* "smem": the name in the compiler-report table's narrow column. */
const char *occ_limiter_short_label(int index);

/* Why limit index does not bind, when it is OCC_UNLIMITED: "no registers
 * used", "no barrier limit on this architecture"... */
const char *occ_unlimited_reason(const occ_result *result, int index);

/* The keys of the occ_limiter bits joined by '+' ("registers+
 * shared_memory"); "none" when no bit is set. Returns out. */
const char *occ_limiters_keys(unsigned limited_by, char *out, size_t size);

/* The labels of the occ_limiter bits as a phrase ("registers and shared
 * memory", "warps, blocks and registers"); "" when no bit is set.
 * Returns out. */
const char *occ_limiters_words(unsigned limited_by, char *out, size_t size);

/* How a grid splits into waves, for the report and occcalc run: "62 full,
 * then a tail of 64 blocks", "0 full, then a tail of 1 block", "4 full,
 * no tail". Returns out. */
const char *occ_waves_words(const occ_waves *waves, char *out, size_t size);

/* "threads_per_block", "regs_per_thread", "smem_bytes": the key of the
 * input a chart varies, as JSON's "x" and a CSV column. */
const char *occ_chart_x_key(occ_chart_kind kind);

#endif
