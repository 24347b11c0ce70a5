/* attribute.h - each launch's achieved occupancy from a GPU's PM samples
 * (`occcalc run --measure sample`): pure, no I/O, unit-tested over
 * synthetic sample streams (tests/run/attribute_unit.c).
 *
 * A launch's value is its warps_active over (its cycles_active x max
 * warps per SM), summed over the samples of its device that overlap its
 * [start, end). A sample that covers that launch alone (one of its own)
 * gives it all its counts (its idle part counts nothing). Samples carry
 * no context: a sample that also covers other launches (shared) is split
 * between them by what their rates expect: launch k gets
 * expected(k) / (the sum of expected(j) over the sample's launches j) of
 * the sample's warps (cycles); by overlap alone where that sum is 0.
 * expected(k) is the sum, over the bins of launch k's time inside the
 * sample, of the bin's rate x its time there. A launch's time falls in
 * bins (the first and last 2, 5, 10 and 20 us, and the middle), and each
 * bin of a kernel and configuration (its launches grouped by length,
 * each group within 1.5x of its shortest) has a warps and a cycles rate
 * per ns, fitted to every sample of the run that covers a launch: the
 * maximum-likelihood rates of counts that are sums of rate x time
 * (Richardson-Lucy rounds). A launch with over a tenth of its time in
 * shared samples and less than OCC_OWN_FRACTION of it in its own is
 * marked (occ_basis), as are launches beside others and in lost samples.
 * A launch whose sums come to more warps than its SMs' cycles hold has
 * no value (OCC_MISS_SPLIT): no SM holds more than its maximum. */
#ifndef OCC_ATTRIBUTE_H
#define OCC_ATTRIBUTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/pm_sample.h"

/* What a launch's value is worth, most serious first where several hold. */
typedef enum occ_basis {
  OCC_BASIS_UNKNOWN = 0,    /* no value: see occ_sample_miss */
  OCC_BASIS_OTHER_PROCESS,  /* ran beside another process' kernel */
  OCC_BASIS_CONCURRENT,     /* ran beside another kernel of its process */
  OCC_BASIS_LOST,           /* over a tenth of it fell in lost samples */
  OCC_BASIS_SHARED,         /* over a tenth of its time in samples that
                               also cover a kernel before or after it:
                               its value holds its share of them, split
                               by the kernels' fitted rates */
  OCC_BASIS_SHORT,          /* shorter than OCC_SHORT_INTERVALS intervals */
  OCC_BASIS_CLEAN           /* its samples cover it alone */
} occ_basis;

/* The part of a launch its own samples must span for it not to be marked
 * shared. */
#define OCC_OWN_FRACTION 0.8

/* Shorter than this many sampling intervals, a launch is marked short. */
#define OCC_SHORT_INTERVALS 2

/* Why a launch has no value. */
typedef enum occ_sample_miss {
  OCC_MISS_NONE = 0,
  OCC_MISS_NOT_SAMPLED,  /* its device was not sampled */
  OCC_MISS_NO_TIMES,     /* its record has no start and end */
  OCC_MISS_OUTSIDE,      /* before the first sample or after the last */
  OCC_MISS_LOST,         /* its samples were lost */
  OCC_MISS_NO_CYCLES,    /* no sample with active cycles covers it */
  OCC_MISS_SPLIT,        /* its part of the samples it shares came to
                            more warps than its SMs' cycles hold */
  OCC_MISS_KINDS         /* how many there are */
} occ_sample_miss;

/* A launch as the attribution sees it: filled by the caller (in), the
 * sums and the verdict by occ_attr_* (out). */
typedef struct occ_sampled_launch {
  int32_t device, pid;      /* in */
  uint32_t stream;          /* in */
  uint64_t start_ns, end_ns;/* in; 0 when unknown */
  size_t kernel;            /* in: 1..count, the same for the launches of
                               one kernel and launch configuration; 0 (or
                               past count): none, its rates its own */
  double warps, cycles;     /* the weighted sums */
  double own_warps, own_cycles; /* the whole counts of the samples that
                                   cover no other launch */
  double own_ns;            /* its time inside those samples */
  double covered_ns;        /* its time inside samples */
  double split_warps, split_cycles; /* its own sums and its shares of the
                                       shared samples: the value's */
  double shared_ns;         /* of it, in samples that cover another launch */
  double lost_ns;           /* its time inside lost samples */
  uint32_t sample_count;    /* samples that overlap it */
  bool beside_same, beside_other; /* overlaps another launch of its
                                     process / of another process */
  bool known;
  double achieved;          /* 0..1 when known */
  occ_basis basis;
  occ_sample_miss miss;
  /* The same in words, decided here so that the writers only copy them:
   * the basis as JSON names it (NULL unless known), and the basis, or
   * why there is no value, in words (NULL when neither is known). */
  const char *basis_key, *reason;
} occ_sampled_launch;

/* A device as sampled. */
typedef struct occ_sampled_device {
  bool sampled;
  int32_t max_warps_per_sm;
  uint64_t interval_ns;
  uint64_t first_ns, last_ns; /* the samples' span; 0 when none */
} occ_sampled_device;

/* One bin of one kernel's launches in the fit (attribute.c). */
typedef struct occ_fit_bin {
  double rate_warps, rate_cycles; /* per ns */
  double ns;                      /* its time inside the samples fitted */
  double alone_warps, alone_cycles; /* the counts of the samples that lie
                                       inside it alone */
  double acc_warps, acc_cycles;   /* a round's sums */
} occ_fit_bin;

typedef struct occ_attribution {
  occ_sampled_launch *launches;
  size_t count;
  size_t *order;          /* launches by (device, start) */
  size_t *profile;        /* per launch: its kernel's rates, 0-based */
  size_t profile_count;
  occ_fit_bin *fit;       /* profile_count x the bins; NULL out of memory */
  size_t fit_rounds;      /* the fit's rounds, once finished */
  /* The samples (not lost) that cover more than one bin of a launch or
   * more than one launch of their device, fitted and split at finish;
   * kept_all false once one could not be kept (out of memory). */
  occ_pm_sample *kept;
  size_t kept_count, kept_capacity;
  bool kept_all;
  /* Per device: its launches in order[begin, end), their longest. */
  struct { size_t begin, end; uint64_t longest_ns; } devices[OCC_SAMPLER_DEVICES_MAX];
} occ_attribution;

/* Prepares the attribution of launches[0..count) (their in fields set;
 * a device outside 0..OCC_SAMPLER_DEVICES_MAX-1 is never sampled) and
 * marks the launches that overlap another on their device. Returns 0, or
 * -1 out of memory. Free with occ_attr_free. */
int occ_attr_init(occ_attribution *a, occ_sampled_launch *launches,
                  size_t count);

/* Adds one sample, in any order: its share by time to each launch it
 * overlaps, and a copy of it for the fit where it covers more than one
 * bin (or only its counts where it lies inside one bin of one launch). */
void occ_attr_add(occ_attribution *a, const occ_pm_sample *sample);

/* Each launch's value, basis or miss, given the devices as sampled
 * (devices[i] is ordinal i; device_count of them): the rates fitted, the
 * shared samples split by them. Returns 0, or -1 out of memory: the
 * values are then made with every shared sample split by time (as
 * occ_attr_add's sums have it). */
int occ_attr_finish(occ_attribution *a, const occ_sampled_device *devices,
                    int device_count);

void occ_attr_free(occ_attribution *a);

/* Sets the launch's basis_key and reason from its known, basis and miss
 * (occ_attr_finish does it for each launch). */
void occ_attr_word(occ_sampled_launch *l);

/* The basis as JSON names it ("clean", "short", ...); NULL for unknown. */
const char *occ_basis_key(occ_basis basis);
/* The basis in words, for the text and the JSON's reason. */
const char *occ_basis_words(occ_basis basis);
/* Why a launch has no value, in words. */
const char *occ_sample_miss_words(occ_sample_miss miss);

#endif
