/* sample_file.h - the reader of the sampler's file (model/pm_sample.h):
 * fixed-size samples, each checked before it is used, read in chunks so
 * that occcalc's memory stays bounded whatever the file's size. */
#ifndef OCC_SAMPLE_FILE_H
#define OCC_SAMPLE_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "model/pm_sample.h"

typedef void occ_sample_fn(const occ_pm_sample *sample, void *context);

typedef struct occ_sample_read {
  uint64_t accepted;      /* samples handed to the callback */
  uint64_t skipped;       /* refused: bad magic, device, time or value */
  size_t partial_bytes;   /* an incomplete sample at the end */
  int read_errno;         /* a read error stopped the reading, or 0 */
} occ_sample_read;

/* Reads fd from its current offset to its end, or for at most limit
 * bytes (UINT64_MAX: no limit), calling fn with each valid sample. Never
 * fails: what was refused is counted in *out. */
void occ_samples_read(int fd, uint64_t limit, occ_sample_fn *fn,
                      void *context, occ_sample_read *out);

/* Whether s is a sample occcalc accepts. */
int occ_sample_valid(const occ_pm_sample *s);

#endif
