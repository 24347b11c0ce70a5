/* params.h - the value parsers of the option table (cli.c), one per value
 * type, and the checks of a parsed value against a device. Every option's
 * value is parsed here once, into the type occ_cli holds; nothing
 * downstream reads an option's text again.
 *
 * Each parser takes the whole text and refuses, with the accepted range
 * or forms in why, anything else: numbers are decimal digits only (no
 * sign, no white space, no "0x", no exponent), range-checked in 64 bits
 * before they are narrowed to the type that holds them. */
#ifndef OCC_PARAMS_H
#define OCC_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cluster.h"
#include "core/occ.h"

/* A shape as given: a block (--block) or a cluster (--cluster), "N",
 * "XxY" or "XxYxZ". */
typedef struct occ_shape {
  int dim[3];       /* x, y, z; 1 where not given */
  int64_t product;  /* dim[0] * dim[1] * dim[2]: threads, or blocks */
  const char *text; /* as given (argv's), for messages; NULL: not given */
  bool best;        /* --block best: the size is chosen (dim 1x1x1 until
                       then) */
} occ_shape;

/* A count or the word "all" (--device N|all, --counter-launches N|all). */
typedef struct occ_count_or_all {
  bool all;
  int64_t count; /* when not all */
} occ_count_or_all;

/* A decimal integer in [min, max] (min >= 0). */
int occ_parse_int(const char *text, int64_t min, int64_t max, int64_t *value,
                  char *why, size_t why_size);

/* A size in bytes, at most max: digits with an optional K, KB, KiB, k
 * (x1024) or M, MB, MiB (x1048576) suffix. */
int occ_parse_bytes(const char *text, int64_t max, int64_t *value, char *why,
                    size_t why_size);

/* A percentage, 0 to 100 with an optional fraction ("62.5"). */
int occ_parse_pct(const char *text, double *value, char *why, size_t why_size);

/* A shape: each size 1 to max (at most INT32_MAX), at most 3 of them. */
int occ_parse_shape(const char *text, int64_t max, occ_shape *shape, char *why,
                    size_t why_size);

/* A count in [min, max] or "all". */
int occ_parse_count_or_all(const char *text, int64_t min, int64_t max,
                           occ_count_or_all *value, char *why,
                           size_t why_size);

/* One of choices (a NULL-terminated list), by its index. */
int occ_parse_choice(const char *text, const char *const *choices, int *index,
                     char *why, size_t why_size);

/* A --chart value ("block", "regs", "smem", "all", or a comma list of
 * them), its kinds ORed into *charts (bit 1 << occ_chart_kind). */
int occ_parse_charts(const char *text, unsigned *charts, char *why,
                     size_t why_size);

/* Checks a block shape against a device's limits (each dimension and the
 * threads per block) and copies its dimensions into block. Returns 0, or
 * -1 with the reason, naming the device's limits, in why. */
int occ_block_check(const occ_shape *shape, const occ_device *device,
                    int block[3], char *why, size_t why_size);

/* Checks a cluster against the rule of every device (at most 8 blocks, 16
 * with non_portable); the device's own (compute capability 9.0 or newer)
 * and the grid's (a whole number of clusters: along each dimension of a
 * shaped grid, XxY[xZ], else of grid_blocks; 0: none
 * given) with occ_cluster_device_check once the device is known. Return 0,
 * or -1 with the reason in why. */
int occ_cluster_shape_check(const occ_cluster *cluster, const char *text,
                            char *why, size_t why_size);
int occ_cluster_device_check(const occ_cluster *cluster,
                             const occ_device *device, const occ_shape *grid,
                             int64_t grid_blocks,
                             char *why, size_t why_size);

#endif
