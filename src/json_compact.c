/* json_compact.c - see json_compact.h. The output must stay identical to
 * cJSON_PrintUnformatted's; tests/ptxas/json_compact_test.c compares them
 * on every kernel of the stored reports. */
#include "json_compact.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

/* cJSON's escaping: the two JSON specials, five short escapes, other
 * control bytes as \u00XX; bytes >= 0x80 as they are. */
static void write_string(FILE *out, const char *s) {
  putc('"', out);
  for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
    switch (*p) {
    case '"': fputs("\\\"", out); break;
    case '\\': fputs("\\\\", out); break;
    case '\b': fputs("\\b", out); break;
    case '\f': fputs("\\f", out); break;
    case '\n': fputs("\\n", out); break;
    case '\r': fputs("\\r", out); break;
    case '\t': fputs("\\t", out); break;
    default:
      if (*p < 32)
        fprintf(out, "\\u%04x", *p);
      else
        putc(*p, out);
    }
  }
  putc('"', out);
}

/* Integers below 1e15 print the same with "%1.15g" as in decimal; others
 * go the way cJSON goes: 15 digits if they read back within an epsilon
 * (its compare_double), else 17. */
static void write_number(FILE *out, double d) {
  if (isnan(d) || isinf(d)) {
    fputs("null", out);
    return;
  }
  if (d == floor(d) && fabs(d) < 1e15) {
    char buf[24], *p = buf + sizeof buf;
    int64_t v = (int64_t)fabs(d);
    *--p = '\0';
    do *--p = (char)('0' + v % 10); while ((v /= 10) > 0);
    if (d < 0) *--p = '-';
    fputs(p, out);
    return;
  }
  char buf[32];
  snprintf(buf, sizeof buf, "%1.15g", d);
  double back = strtod(buf, NULL);
  double larger = fabs(back) > fabs(d) ? fabs(back) : fabs(d);
  if (!(fabs(back - d) <= larger * DBL_EPSILON))
    snprintf(buf, sizeof buf, "%1.17g", d);
  fputs(buf, out);
}

void occ_json_write_compact(FILE *out, const cJSON *item) {
  switch (item->type & 0xFF) {
  case cJSON_NULL: fputs("null", out); return;
  case cJSON_False: fputs("false", out); return;
  case cJSON_True: fputs("true", out); return;
  case cJSON_Number: write_number(out, item->valuedouble); return;
  case cJSON_Raw: fputs(item->valuestring ? item->valuestring : "", out); return;
  case cJSON_String: write_string(out, item->valuestring); return;
  case cJSON_Array:
  case cJSON_Object: {
    bool object = (item->type & 0xFF) == cJSON_Object;
    putc(object ? '{' : '[', out);
    for (const cJSON *c = item->child; c; c = c->next) {
      if (object) {
        write_string(out, c->string);
        putc(':', out);
      }
      occ_json_write_compact(out, c);
      if (c->next) putc(',', out);
    }
    putc(object ? '}' : ']', out);
    return;
  }
  default: fputs("null", out); return;
  }
}
