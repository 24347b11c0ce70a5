/* amd_remarks_fuzz.c - libFuzzer target for the AMD remark reader
 * (src/ptxas/amdgpu_remarks.c): the input in two chunks split where the
 * input says, every kernel's fields checked against their ranges, and the
 * counts kept consistent. `make test-fuzz-amd` runs it for 20 s on the
 * clang-19 logs of tests/amd/data/. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ptxas/amdgpu_remarks.h"
#include "ptxas/log_kind.h"

static int on_kernel(const occ_amdgpu_kernel *k, void *ctx) {
  (void)ctx;
  if (strlen(k->name) > OCC_AMDGPU_LINE_MAX || k->arch[OCC_AMDGPU_ARCH_MAX - 1] != '\0' ||
      k->sgprs < -1 || k->sgprs > 1024 || k->vgprs < -1 || k->vgprs > 1024 ||
      k->agprs < -1 || k->agprs > 1024 || k->occupancy_waves_per_simd < -1 ||
      k->lds_bytes < -1 || k->scratch_bytes_per_lane < -1 ||
      (k->wave_size != 0 && k->wave_size != 32 && k->wave_size != 64))
    abort();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  occ_amdgpu_parser *p = occ_amdgpu_new(on_kernel, NULL);
  if (!p) return 0;
  size_t split = size ? data[0] % (size + 1) : 0;
  occ_amdgpu_feed(p, (const char *)data, split);
  occ_amdgpu_feed(p, (const char *)data + split, size - split);
  occ_amdgpu_finish(p);
  const occ_amdgpu_stats *s = occ_amdgpu_get_stats(p);
  if (s->kernels > s->lines || s->skipped_lines > s->lines ||
      (s->skipped_lines > 0) != (s->first_skipped_line > 0))
    abort();
  occ_log_line_kind((const char *)data, size);
  occ_amdgpu_free(p);
  return 0;
}
