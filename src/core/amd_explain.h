/* amd_explain.h - the derivation of one AMD result (core/amd.h) as data:
 * the same steps (core/explain.h's occ_step) as NVIDIA's explanation, so
 * that one writer (render/explain*.c) prints both as text and JSON. Every
 * number is read from the result, the kernel or the architecture; where a
 * step shows a rounded count the result holds only as a quotient, the
 * rounding is the rule's own (amd.c), restated once here. */
#ifndef OCC_AMD_EXPLAIN_H
#define OCC_AMD_EXPLAIN_H

#include <stddef.h>

#include "core/amd.h"
#include "core/explain.h"

/* Derives the steps of result (occ_amd_compute's for kernel on arch) into
 * steps[0..max-1]. Returns the number the derivation has: more than max
 * means the list was cut. */
size_t occ_amd_explain(const occ_amd_arch *arch, const occ_amd_kernel *kernel,
                       const occ_amd_result *result, occ_step *steps, size_t max);

/* The title of an AMD explanation's section 1..9, or NULL. */
static inline const char *occ_amd_explain_section_title(int section) {
  static const char *const titles[] = {
      "Wavefronts per workgroup",
      "Wave slots",
      "VGPRs (vector registers: one per lane)",
      "SGPRs (scalar registers: one set per wavefront)",
      "LDS (local data share: CUDA's shared memory)",
      "Workgroup slots",
      "The compiler's occupancy (LLVM's rule, for --max-block)",
      "The launch's occupancy (HIP's rule)",
      "The two rules"};
  int n = (int)(sizeof titles / sizeof titles[0]);
  return section >= 1 && section <= n ? titles[section - 1] : NULL;
}

#endif
