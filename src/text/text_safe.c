/* text_safe.c - see text_safe.h. */
#include "text/text_safe.h"

#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

#include "core/utf8.h"

/* Code points that reorder or split a line though they print nothing. */
static bool is_invisible_control(unsigned cp) {
  return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x2028 && cp <= 0x202e) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

/* The escape of the character at p into esc; returns the bytes of text
 * it stands for (*esc_len 0: the character is written as it is). */
static size_t escape_one(const unsigned char *p, char esc[8], size_t *esc_len) {
  unsigned cp;
  size_t n = occ_utf8_len(p, &cp);
  *esc_len = 0;
  if (n == 0 || cp < 0x20 || cp == 0x7f) {
    const char *named = *p == '\n' ? "\\n" : *p == '\r' ? "\\r"
                        : *p == '\t' ? "\\t" : NULL;
    *esc_len = (size_t)(named ? snprintf(esc, 8, "%s", named)
                              : snprintf(esc, 8, "\\x%02x", *p));
    return 1;
  }
  if (is_invisible_control(cp))
    *esc_len = (size_t)snprintf(esc, 8, "\\u%04x", cp);
  return n;
}

const char *occ_text_safe(const char *text, char *buf, size_t size) {
  const unsigned char *p = (const unsigned char *)(text ? text : "");
  size_t used = 0;
  while (*p) {
    char esc[8];
    size_t esc_len;
    size_t n = escape_one(p, esc, &esc_len);
    const char *piece = esc_len ? esc : (const char *)p;
    size_t len = esc_len ? esc_len : n;
    /* Room for this piece and, if more follows, "..." and the NUL. */
    size_t after = p[n] ? 4 : 1;
    if (used + len + after > size) {
      memcpy(buf + used, "...", 4); /* the previous piece left room */
      return buf;
    }
    memcpy(buf + used, piece, len);
    used += len;
    p += n;
  }
  buf[used] = '\0';
  return buf;
}

void occ_vmsg(FILE *err, const char *fmt, va_list ap) {
  char raw[2048], safe[2048];
  vsnprintf(raw, sizeof raw, fmt, ap);
  fprintf(err, "occcalc: %s\n", occ_text_safe(raw, safe, sizeof safe));
}

void occ_msg(FILE *err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  occ_vmsg(err, fmt, ap);
  va_end(ap);
}
