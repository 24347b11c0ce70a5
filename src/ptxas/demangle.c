/* demangle.c - C++ names through the C++ runtime's own demangler.
 *
 * libstdc++'s __cxa_demangle (the Itanium C++ ABI entry point, C linkage)
 * is the demangler GCC, c++filt and gdb share; nvcc mangles kernels by the
 * same ABI, so every name nvcc prints demangles as c++filt shows it. A
 * hand-written demangler would trail that code on templates, lambdas and
 * ABI tags. The cost is linking -lstdc++, present wherever nvcc works. */
#include "ptxas/demangle.h"

#include <stdlib.h>
#include <string.h>

/* Declared by <cxxabi.h>, a C++ header; the symbol has C linkage. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len,
                            int *status);

/* Names longer than this are shown mangled: the demangler recurses per
 * nesting level, and no real kernel name comes near. */
#define DEMANGLE_NAME_MAX 16384

/* CUDA 2.x prefixed kernels with "__globfunc_" before the mangled name. */
static const char *strip_old_prefix(const char *name) {
  static const char prefix[] = "__globfunc_";
  if (strncmp(name, prefix, sizeof prefix - 1) == 0)
    return name + sizeof prefix - 1;
  return name;
}

const char *occ_demangle(occ_demangler *d, const char *name) {
  const char *mangled = strip_old_prefix(name);
  if (strncmp(mangled, "_Z", 2) != 0 ||
      strlen(mangled) > DEMANGLE_NAME_MAX)
    return name;
  int status = 0;
  size_t len = d->cap;
  char *out = __cxa_demangle(mangled, d->buf, &len, &status);
  if (status != 0 || out == NULL) return name;
  /* __cxa_demangle may have realloc'ed the buffer; len is its size. */
  if (out != d->buf) {
    d->buf = out;
    d->cap = len;
  }
  /* A kernel always returns void; the demangler spells the return type of
   * template functions, which only lengthens every template kernel. */
  if (strncmp(out, "void ", 5) == 0) return out + 5;
  return out;
}

void occ_demangler_free(occ_demangler *d) {
  free(d->buf);
  d->buf = NULL;
  d->cap = 0;
}
