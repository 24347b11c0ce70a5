/* timeline.h - resident blocks per SM and achieved occupancy from the
 * probe kernel's timeline: one record per block of the SM it ran on and
 * the global time at its start and end. Pure computation. */
#ifndef OCC_TIMELINE_H
#define OCC_TIMELINE_H

#include <stdint.h>

/* Mirrors struct probe_record in src/live/probe.cu. */
typedef struct occ_probe_record {
  unsigned long long start_ns;
  unsigned long long end_ns;
  unsigned int smid;
  unsigned int pad;
} occ_probe_record;

typedef struct occ_residency {
  int min_blocks;   /* over all sm_count SMs: an SM with no block is 0 */
  int max_blocks;
  int sms_seen;     /* SMs with at least one block */
  double achieved;  /* warp-residency time / (SMs x max warps x span) */
} occ_residency;

typedef enum occ_timeline_status {
  OCC_TIMELINE_OK = 0,
  OCC_TIMELINE_NO_RECORD, /* block *bad has no end, or ends before it starts */
  OCC_TIMELINE_NOMEM
} occ_timeline_status;

/* Resident blocks of an SM = the most [start, end) intervals of its blocks
 * that overlap at one time (a block ending when another starts does not
 * overlap it). n >= 1. */
occ_timeline_status occ_timeline_residency(const occ_probe_record *records,
                                           int64_t n, int sm_count,
                                           int warps_per_block,
                                           int max_warps_per_sm,
                                           occ_residency *out, int64_t *bad);

#endif
