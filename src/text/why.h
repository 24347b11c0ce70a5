/* why.h - how a reader says why it refuses its input: printf into the
 * caller's reason buffer (why, size bytes; cut to fit, NUL-terminated when
 * size > 0). In text/, the lowest layer that may include stdio.h
 * (tests/layers/layers.sh keeps it out of the core), so that every reader above
 * it (the database's, the live layer's, the run reports') shares it. It
 * writes to memory only, no I/O. */
#ifndef OCC_TEXT_WHY_H
#define OCC_TEXT_WHY_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

static inline void occ_whyf(char *why, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline void occ_whyf(char *why, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, size, fmt, ap);
  va_end(ap);
}

#endif
