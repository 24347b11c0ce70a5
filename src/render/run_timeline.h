/* run_timeline.h - `occcalc run --svg FILE`: the timeline that --trace
 * writes (run_trace.h), drawn as one standalone SVG document. */
#ifndef OCC_RUN_TIMELINE_H
#define OCC_RUN_TIMELINE_H

#include <stdio.h>

#include "render/run_out.h"

/* Writes rep's launches to out as SVG: a title naming the program and
 * its GPUs; a lane per process and stream (sorted by process, then
 * stream), each launch with times a rectangle from its start to its end
 * (at least 1 px wide) filled by its achieved occupancy on a legend's
 * scale, hatched grey where it has none (its reason in its tooltip), a
 * dashed outline where its value is marked (not "clean"); the kernel's
 * name inside where it fits; per GPU, the achieved occupancy of the
 * launch that started last among those running, as a line over 0-100 %;
 * a time axis from the first launch, its ticks in ns, us, ms or s.
 * Returns 0, or -1 out of memory (after saying so on stderr). */
int occ_run_print_svg(FILE *out, const occ_run_report *rep);

#endif
