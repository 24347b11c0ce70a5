/* arith.h - the integer rounding every rule rounds by (NVIDIA's
 * allocation units and AMD's granules alike), kept in one place. */
#ifndef OCC_ARITH_H
#define OCC_ARITH_H

#include <stdint.h>

/* a / b rounded up, for a >= 0 and b > 0. */
static inline int64_t occ_ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* a rounded up to a multiple of unit; a itself when unit is not positive
 * (no granule). */
static inline int64_t occ_round_up(int64_t a, int64_t unit) {
  return unit > 0 ? occ_ceil_div(a, unit) * unit : a;
}

#endif
