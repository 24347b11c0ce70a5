/* sample_file.c - the sampler's file read back (see sample_file.h). */
#include "live/sample_file.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

/* Samples read at once: 2 MiB. */
#define CHUNK 65536

int occ_sample_valid(const occ_pm_sample *s) {
  if (s->magic != OCC_SAMPLE_MAGIC || (s->flags & ~OCC_SAMPLE_LOST) ||
      s->device >= OCC_SAMPLER_DEVICES_MAX || s->duration_ns == 0 ||
      s->start_ns == 0 || s->start_ns > UINT64_MAX - s->duration_ns)
    return 0;
  if (!isfinite(s->warps_active) || !isfinite(s->cycles_active) ||
      s->warps_active < 0 || s->cycles_active < 0)
    return 0;
  return 1;
}

void occ_samples_read(int fd, uint64_t limit, occ_sample_fn *fn,
                      void *context, occ_sample_read *out) {
  static occ_pm_sample chunk[CHUNK];
  memset(out, 0, sizeof *out);
  size_t have = 0; /* bytes in chunk */
  for (;;) {
    size_t want = sizeof chunk - have;
    if (want > limit) want = (size_t)limit;
    if (want == 0) break;
    ssize_t n = read(fd, (char *)chunk + have, want);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      out->read_errno = errno;
      break;
    }
    if (n == 0) break;
    limit -= (uint64_t)n;
    have += (size_t)n;
    size_t whole = have / sizeof *chunk;
    for (size_t i = 0; i < whole; i++) {
      if (occ_sample_valid(&chunk[i])) {
        out->accepted++;
        fn(&chunk[i], context);
      } else {
        out->skipped++;
      }
    }
    size_t rest = have - whole * sizeof *chunk;
    memmove(chunk, (char *)chunk + whole * sizeof *chunk, rest);
    have = rest;
  }
  out->partial_bytes = have;
}
