/* demangle.c - C++ names through the C++ runtime's own demangler.
 *
 * libstdc++'s demangler (cp-demangle.c, behind __cxa_demangle) is the one
 * GCC, c++filt and gdb share; nvcc mangles kernels by the same Itanium
 * ABI, so every name nvcc prints demangles as c++filt shows it. A
 * hand-written demangler would trail that code on templates, lambdas and
 * ABI tags. The cost is linking libstdc++ statically (below).
 *
 * A name's demangled form can be exponentially longer than the name:
 * each substitution (S_, S0_, ...) repeats a whole earlier type, so a
 * type built from two copies of the previous one doubles per 10 bytes of
 * input, and 314 bytes demangle to about 2^39 bytes. __cxa_demangle builds
 * the whole string in memory, so the demangler is driven through its
 * callback form instead, which hands the text out in pieces from buffers
 * on the stack: the callback counts them, and past OCC_DEMANGLE_BUDGET
 * it leaves the demangler with longjmp. That is safe because the callback
 * form allocates nothing on the heap (its components and its print state
 * are arrays on the stack) and is C code, with no destructor to skip. */
#include "ptxas/demangle.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

/* The callback form of __cxa_demangle, with the same parse as
 * __cxa_demangle (DMGL_PARAMS | DMGL_TYPES). Returns 0 when the name
 * demangled, -2 when it is not a valid name, -3 for bad arguments.
 * Exported by libstdc++.a but not by libstdc++.so, hence every program
 * that links this file links the C++ runtime statically (the Makefile's
 * LIBS, and -l:libstdc++.a in the test and fuzzer links). */
extern int __gcclibcxx_demangle_callback(const char *mangled,
                                         void (*callback)(const char *,
                                                          size_t, void *),
                                         void *opaque);

/* Names longer than this are shown mangled: the demangler recurses per
 * nesting level, and no real kernel name comes near. */
#define DEMANGLE_NAME_MAX 16384

/* One demangling in progress: the text so far, in d's buffer. */
typedef struct sink {
  occ_demangler *d;
  size_t len;
  int failed;        /* out of memory */
  jmp_buf over;      /* taken when the text passes the budget */
} sink;

static void append(const char *piece, size_t n, void *opaque) {
  sink *s = opaque;
  if (s->failed) return;
  if (n > OCC_DEMANGLE_BUDGET - s->len) longjmp(s->over, 1);
  occ_demangler *d = s->d;
  if (s->len + n + 1 > d->cap) {
    size_t cap = d->cap ? d->cap : 256;
    while (cap < s->len + n + 1) cap *= 2;
    char *grown = realloc(d->buf, cap);
    if (!grown) {
      s->failed = 1;
      return;
    }
    d->buf = grown;
    d->cap = cap;
  }
  memcpy(d->buf + s->len, piece, n);
  s->len += n;
  d->buf[s->len] = '\0';
}

/* CUDA 2.x prefixed kernels with "__globfunc_" before the mangled name. */
static const char *strip_old_prefix(const char *name) {
  static const char prefix[] = "__globfunc_";
  if (strncmp(name, prefix, sizeof prefix - 1) == 0)
    return name + sizeof prefix - 1;
  return name;
}

/* Demangles into s: 0 when done, 1 past the budget, -1 for a name that
 * does not demangle. Nothing here is read after the longjmp but s. */
static int demangle_into(sink *s, const char *mangled) {
  if (setjmp(s->over) != 0) return 1;
  return __gcclibcxx_demangle_callback(mangled, append, s) == 0 ? 0 : -1;
}

const char *occ_demangle(occ_demangler *d, const char *name) {
  const char *mangled = strip_old_prefix(name);
  if (strncmp(mangled, "_Z", 2) != 0 ||
      strlen(mangled) > DEMANGLE_NAME_MAX)
    return name;
  sink s = {.d = d};
  int rc = demangle_into(&s, mangled);
  if (rc == 1) d->over_budget++;
  if (rc != 0 || s.failed || s.len == 0) return name;
  /* A kernel always returns void; the demangler spells the return type of
   * template functions, which only lengthens every template kernel. */
  if (strncmp(d->buf, "void ", 5) == 0) return d->buf + 5;
  return d->buf;
}

void occ_demangler_free(occ_demangler *d) {
  free(d->buf);
  d->buf = NULL;
  d->cap = 0;
}
