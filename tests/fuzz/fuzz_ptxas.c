/* fuzz.c - libFuzzer target for the ptxas reader: feeds the input in two
 * chunks split at a point the input chooses (so lines cross chunk
 * boundaries), demangles every name found, and checks the counts stay
 * consistent. Built and run by `make fuzz`. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ptxas/demangle.h"
#include "ptxas/ptxas.h"

static int on_kernel(const occ_ptxas_kernel *k, void *ctx) {
  occ_demangler *d = ctx;
  const char *readable = occ_demangle(d, k->name);
  if (strlen(k->name) >= OCC_PTXAS_LINE_MAX || readable == NULL ||
      k->regs_per_thread < 0 || k->regs_per_thread > 1024 ||
      k->smem_static_bytes < 0 || k->arch[OCC_PTXAS_ARCH_MAX - 1] != '\0')
    abort();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  occ_demangler d = OCC_DEMANGLER_INIT;
  occ_ptxas_parser *p = occ_ptxas_new(on_kernel, &d);
  if (!p) return 0;
  size_t split = size ? data[0] % (size + 1) : 0;
  occ_ptxas_feed(p, (const char *)data, split);
  occ_ptxas_feed(p, (const char *)data + split, size - split);
  occ_ptxas_finish(p);
  const occ_ptxas_stats *s = occ_ptxas_get_stats(p);
  if (s->kernels > s->lines || s->skipped_lines > s->lines ||
      (s->skipped_lines > 0) != (s->first_skipped_line > 0))
    abort();
  occ_ptxas_free(p);
  occ_demangler_free(&d);
  return 0;
}
