/* demangle.h - readable C++ names of kernels (`tk<64>(double*)` for
 * `_Z2tkILi64EEvPd`). */
#ifndef OCC_DEMANGLE_H
#define OCC_DEMANGLE_H

#include <stddef.h>

/* Holds the buffer the demangler reuses between names. Zero-initialise
 * it (OCC_DEMANGLER_INIT) and release with occ_demangler_free. */
typedef struct occ_demangler {
  char *buf;
  size_t cap;
  size_t over_budget; /* names left mangled: longer than the budget */
} occ_demangler;

#define OCC_DEMANGLER_INIT {NULL, 0, 0}

/* The longest demangled name, in bytes. A name can demangle to
 * exponentially more text than it has (demangle.c); real kernels, CUTLASS
 * and Thrust included, stay under a few KiB. */
#define OCC_DEMANGLE_BUDGET 65536

/* Returns the readable form of name, or name itself when it is not a
 * mangled C++ name (extern "C" kernels), does not demangle, or would
 * demangle to more than OCC_DEMANGLE_BUDGET bytes (then d->over_budget
 * counts it, for the caller to say so). The result lives until the next
 * call on d or occ_demangler_free. */
const char *occ_demangle(occ_demangler *d, const char *name);

void occ_demangler_free(occ_demangler *d);

#endif
