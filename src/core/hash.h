/* hash.h - the 64-bit mixer of occcalc's hash tables (run's indexes and
 * the report merge's), kept in one place. */
#ifndef OCC_HASH_H
#define OCC_HASH_H

#include <stdint.h>

/* splitmix64's finalizer: every bit of x moves every bit of the result,
 * so the low bits of a hash are fit to pick a slot. */
static inline uint64_t occ_hash_mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

#endif
