/* json_compact.c - see json_compact.h. The output must stay identical to
 * cJSON_PrintUnformatted's and cJSON_Print's; tests/ptxas/json_compact_test.c
 * compares them.
 * Text goes through a local buffer: stdio's per-character locking cost
 * more than the formatting. */
#include "out/json_compact.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "out/utf8.h"

typedef struct sink {
  FILE *out;
  size_t len;
  char buf[4096];
} sink;

static void flush(sink *s) {
  fwrite(s->buf, 1, s->len, s->out);
  s->len = 0;
}

static void put_bytes(sink *s, const char *p, size_t n) {
  if (n > sizeof s->buf - s->len) {
    flush(s);
    if (n > sizeof s->buf) {
      fwrite(p, 1, n, s->out);
      return;
    }
  }
  memcpy(s->buf + s->len, p, n);
  s->len += n;
}

static void put_text(sink *s, const char *text) { put_bytes(s, text, strlen(text)); }

static inline void put_char(sink *s, char c) {
  if (s->len == sizeof s->buf) flush(s);
  s->buf[s->len++] = c;
}

/* cJSON's escaping: the two JSON specials, five short escapes, other
 * control bytes as \u00XX; valid UTF-8 as it is. Unlike cJSON, each byte
 * of an invalid UTF-8 sequence becomes U+FFFD, so that the document is
 * always UTF-8 (JSON has no escape for a byte). */
static void write_string(sink *s, const char *text) {
  put_char(s, '"');
  const unsigned char *p = (const unsigned char *)(text ? text : "");
  while (*p) {
    const unsigned char *run = p;
    unsigned cp;
    size_t n = 1;
    while ((*p >= 32 && *p < 0x80 && *p != '"' && *p != '\\') ||
           (*p >= 0x80 && (n = occ_utf8_len(p, &cp)) > 0))
      p += *p < 0x80 ? 1 : n;
    put_bytes(s, (const char *)run, (size_t)(p - run));
    if (!*p) break;
    char esc[8];
    switch (*p) {
    case '"': put_text(s, "\\\""); break;
    case '\\': put_text(s, "\\\\"); break;
    case '\b': put_text(s, "\\b"); break;
    case '\f': put_text(s, "\\f"); break;
    case '\n': put_text(s, "\\n"); break;
    case '\r': put_text(s, "\\r"); break;
    case '\t': put_text(s, "\\t"); break;
    default:
      if (*p >= 0x80) {
        put_text(s, "\xef\xbf\xbd"); /* U+FFFD */
        break;
      }
      snprintf(esc, sizeof esc, "\\u%04x", *p);
      put_text(s, esc);
    }
    p++;
  }
  put_char(s, '"');
}

/* Integers below 1e15 print the same with "%1.15g" as in decimal; others
 * go the way cJSON goes: 15 digits if they read back within an epsilon
 * (its compare_double), else 17. */
static void write_number(sink *s, double d) {
  if (isnan(d) || isinf(d)) {
    put_text(s, "null");
    return;
  }
  char buf[32];
  if (d == floor(d) && fabs(d) < 1e15) {
    char *p = buf + sizeof buf;
    int64_t v = (int64_t)fabs(d);
    *--p = '\0';
    do *--p = (char)('0' + v % 10); while ((v /= 10) > 0);
    if (d < 0) *--p = '-';
    put_text(s, p);
    return;
  }
  snprintf(buf, sizeof buf, "%1.15g", d);
  double back = strtod(buf, NULL);
  double larger = fabs(back) > fabs(d) ? fabs(back) : fabs(d);
  if (!(fabs(back - d) <= larger * DBL_EPSILON))
    snprintf(buf, sizeof buf, "%1.17g", d);
  put_text(s, buf);
}

static void put_tabs(sink *s, int n) {
  while (n-- > 0) put_char(s, '\t');
}

/* cJSON's layouts: compact, or formatted (an object's members one per
 * line, indented by tabs, "key":<TAB>value; an array's elements on one
 * line after ", "). depth counts the enclosing containers. */
static void write_item(sink *s, const cJSON *item, bool format, int depth) {
  switch (item->type & 0xFF) {
  case cJSON_NULL: put_text(s, "null"); return;
  case cJSON_False: put_text(s, "false"); return;
  case cJSON_True: put_text(s, "true"); return;
  case cJSON_Number: write_number(s, item->valuedouble); return;
  case cJSON_Raw: put_text(s, item->valuestring ? item->valuestring : ""); return;
  case cJSON_String: write_string(s, item->valuestring); return;
  case cJSON_Array:
  case cJSON_Object: {
    bool object = (item->type & 0xFF) == cJSON_Object;
    put_char(s, object ? '{' : '[');
    if (object && format) put_char(s, '\n');
    for (const cJSON *c = item->child; c; c = c->next) {
      if (object) {
        if (format) put_tabs(s, depth + 1);
        write_string(s, c->string);
        put_char(s, ':');
        if (format) put_char(s, '\t');
      }
      write_item(s, c, format, depth + 1);
      if (c->next) put_char(s, ',');
      if (c->next && format && !object) put_char(s, ' ');
      if (object && format) put_char(s, '\n');
    }
    if (object && format) put_tabs(s, depth);
    put_char(s, object ? '}' : ']');
    return;
  }
  default: put_text(s, "null"); return;
  }
}

static void write_document(FILE *out, const cJSON *item, bool format) {
  sink s;
  s.out = out;
  s.len = 0;
  write_item(&s, item, format, 0);
  fwrite(s.buf, 1, s.len, out);
}

void occ_json_write_compact(FILE *out, const cJSON *item) {
  write_document(out, item, false);
}

void occ_json_write_formatted(FILE *out, const cJSON *item) {
  write_document(out, item, true);
}
