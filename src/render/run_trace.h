/* run_trace.h - `occcalc run --trace FILE`: the run's launches in the
 * Chrome trace event format (JSON, written through cJSON), the format of
 * chrome://tracing, Perfetto UI and Chrome DevTools' Performance panel
 * (tests/run/trace_view.py opens it in the last). */
#ifndef OCC_RUN_TRACE_H
#define OCC_RUN_TRACE_H

#include <stdio.h>

#include "render/run_out.h"

/* Writes the trace of rep to out: {"traceEvents": [...],
 * "displayTimeUnit": "ns", "otherData": {...}}. Each launch with times
 * is a complete event ("ph": "X") on its process (pid) and stream (tid),
 * ts and dur in microseconds, ts from otherData.origin_ns, 1 us before
 * the run's first launch (no event at ts 0), its args the
 * grid, block, registers, shared memory, theoretical, at-launch and
 * achieved occupancy (null unknown) and the achieved value's basis; each
 * process and stream is named ("ph": "M"); each GPU has a counter track
 * ("ph": "C", its own pid) of achieved occupancy, set at each launch's
 * start and 0 at its end, in time order. Returns 0, or -1 out of memory
 * (after saying so on stderr). */
int occ_run_print_trace(FILE *out, const occ_run_report *rep);

#endif
