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
} occ_demangler;

#define OCC_DEMANGLER_INIT {NULL, 0}

/* Returns the readable form of name, or name itself when it is not a
 * mangled C++ name (extern "C" kernels) or does not demangle. The result
 * lives until the next call on d or occ_demangler_free. */
const char *occ_demangle(occ_demangler *d, const char *name);

void occ_demangler_free(occ_demangler *d);

#endif
