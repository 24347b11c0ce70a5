/* utf8.h - the one UTF-8 rule of the writers (text and JSON): a sequence
 * is valid when it is the shortest form of a code point up to U+10FFFF
 * that is not a surrogate (RFC 3629). Header-only so that the JSON
 * writer's test links json_write.c alone. */
#ifndef OCC_UTF8_H
#define OCC_UTF8_H

#include <stddef.h>

/* The length (1 to 4) of the valid UTF-8 sequence at p, or 0 when p
 * starts an invalid one (a stray continuation byte, an overlong form, a
 * surrogate, a code point past U+10FFFF, a sequence cut by a NUL). *cp
 * gets the code point. */
static inline size_t occ_utf8_len(const unsigned char *p, unsigned *cp) {
  size_t n = *p < 0x80 ? 1 : *p >= 0xc2 && *p <= 0xdf ? 2
           : *p >= 0xe0 && *p <= 0xef ? 3 : *p >= 0xf0 && *p <= 0xf4 ? 4 : 0;
  if (n <= 1) {
    *cp = *p;
    return n;
  }
  unsigned v = *p & (0x7f >> n);
  for (size_t i = 1; i < n; i++) {
    if ((p[i] & 0xc0) != 0x80) return 0;
    v = v << 6 | (p[i] & 0x3f);
  }
  static const unsigned least[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (v < least[n] || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return 0;
  *cp = v;
  return n;
}

#endif
