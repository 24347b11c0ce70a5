/* json_write.c - see json_write.h. */
#include "render/json_write.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"

/* Writes value's decimal digits into buf (24 bytes) and returns buf:
 * snprintf's format parsing costs more than the digits, and a large
 * report writes millions of integers. */
static char *decimal(char buf[24], int64_t value) {
  char *p = buf + 23;
  uint64_t u = value < 0 ? 0 - (uint64_t)value : (uint64_t)value;
  *p = '\0';
  do {
    *--p = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  if (value < 0) *--p = '-';
  return p;
}

/* Integers up to 2^53 in magnitude are exact as doubles. */
#define EXACT_INTEGER_MAX 9007199254740992.0

cJSON *occ_json_add_int(cJSON *obj, const char *key, int64_t value) {
  if (!obj) return NULL;
  if (value >= -(int64_t)EXACT_INTEGER_MAX && value <= (int64_t)EXACT_INTEGER_MAX)
    return cJSON_AddNumberToObject(obj, key, (double)value);
  char buf[24];
  return cJSON_AddRawToObject(obj, key, decimal(buf, value));
}

void occ_json_add_int_or_null(cJSON *obj, const char *key, int64_t value,
                              bool known) {
  if (known)
    occ_json_add_int(obj, key, value);
  else
    cJSON_AddNullToObject(obj, key);
}

void occ_json_add_number_or_null(cJSON *obj, const char *key, double value,
                                 bool known) {
  if (known)
    cJSON_AddNumberToObject(obj, key, value);
  else
    cJSON_AddNullToObject(obj, key);
}

const char *occ_json_number_text(double value, char buf[OCC_JSON_NUMBER_SIZE]) {
  if (isnan(value) || isinf(value)) return "null"; /* as cJSON prints them */
  if (value == 0 && signbit(value)) return "-0"; /* as cJSON prints it */
  if (value == floor(value) && fabs(value) <= EXACT_INTEGER_MAX) {
    char digits[24];
    const char *d = decimal(digits, (int64_t)value);
    size_t n = strlen(d) + 1;
    memcpy(buf, d, n);
    return buf;
  }
  /* The fewest significant digits that read back as exactly value: each
   * %.Ng is correctly rounded and 17 digits always read back, so the text
   * is exact by construction. A normal double's shortest form has 15 digits
   * or more unless those 15 end in zeros, which %g drops, so 15 is where
   * the search starts; a subnormal has less precision and starts at 1.
   * (cJSON's printer tries 15 digits, then 17, and accepts 15 that read
   * back within an epsilon, not exactly.) */
  for (int digits = fabs(value) < DBL_MIN ? 1 : 15; digits < 17; digits++) {
    snprintf(buf, OCC_JSON_NUMBER_SIZE, "%.*g", digits, value);
    if (strtod(buf, NULL) == value) return buf;
  }
  snprintf(buf, OCC_JSON_NUMBER_SIZE, "%.17g", value);
  return buf;
}

/* The printer: cJSON_Print's and cJSON_PrintUnformatted's layout, written
 * straight to the stream through a buffer, with no text of the whole
 * document in memory and no allocation. */
typedef struct printer {
  FILE *out;
  bool formatted;
  size_t used;
  /* The member whose items come from item(context, 0..count-1) instead
   * (occ_json_write_streamed); NULL when none. */
  const cJSON *spliced;
  occ_json_item_fn *item;
  void *context;
  size_t count;
  bool ok;
  char buf[8192];
} printer;

static void flush(printer *p) {
  if (p->used) fwrite(p->buf, 1, p->used, p->out);
  p->used = 0;
}

static void put(printer *p, const char *s, size_t n) {
  if (n > sizeof p->buf - p->used) {
    flush(p);
    if (n > sizeof p->buf) {
      fwrite(s, 1, n, p->out);
      return;
    }
  }
  memcpy(p->buf + p->used, s, n);
  p->used += n;
}

static void put_char(printer *p, char c) {
  if (p->used == sizeof p->buf) flush(p);
  p->buf[p->used++] = c;
}

static void put_tabs(printer *p, int depth) {
  for (int i = 0; i < depth; i++) put_char(p, '\t');
}

/* Text with each byte that does not start a valid UTF-8 sequence written
 * as U+FFFD: cJSON copies a string's bytes as they are, and JSON has no
 * escape for a byte. */
static void put_utf8(printer *p, const char *text) {
  const unsigned char *s = (const unsigned char *)text, *run = s;
  for (;;) {
    while (*s && *s < 0x80) s++;
    if (!*s) break;
    unsigned cp;
    size_t n = occ_utf8_len(s, &cp);
    if (n > 0) {
      s += n;
      continue;
    }
    put(p, (const char *)run, (size_t)(s - run));
    put(p, "\xef\xbf\xbd", 3);
    run = ++s;
  }
  put(p, (const char *)run, (size_t)(s - run));
}

/* A string as cJSON escapes it (", \, and control characters; the rest as
 * it is), in quotes; NULL as "". */
static void put_string(printer *p, const char *text) {
  static const char hex[] = "0123456789abcdef";
  put_char(p, '"');
  const unsigned char *s = (const unsigned char *)(text ? text : "");
  const unsigned char *run = s;
  for (;; s++) {
    unsigned char c = *s;
    if (c >= 0x80) {
      unsigned cp;
      size_t n = occ_utf8_len(s, &cp);
      put(p, (const char *)run, (size_t)(s - run));
      if (n == 0)
        put(p, "\xef\xbf\xbd", 3);
      else
        put(p, (const char *)s, n), s += n - 1;
      run = s + 1;
      continue;
    }
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    put(p, (const char *)run, (size_t)(s - run));
    if (!c) break;
    run = s + 1;
    char esc[6] = {'\\', 0};
    switch (c) {
    case '"': case '\\': esc[1] = (char)c; break;
    case '\b': esc[1] = 'b'; break;
    case '\f': esc[1] = 'f'; break;
    case '\n': esc[1] = 'n'; break;
    case '\r': esc[1] = 'r'; break;
    case '\t': esc[1] = 't'; break;
    default:
      memcpy(esc + 1, "u00", 3);
      esc[4] = hex[c >> 4];
      esc[5] = hex[c & 15];
      put(p, esc, 6);
      continue;
    }
    put(p, esc, 2);
  }
  put_char(p, '"');
}

static void put_value(printer *p, const cJSON *item, int depth);

/* An array's items; a spliced member's are made, printed and freed one
 * at a time. */
static void put_array(printer *p, const cJSON *array, int depth) {
  put_char(p, '[');
  if (array == p->spliced) {
    for (size_t i = 0; i < p->count; i++) {
      cJSON *made = p->item(p->context, i);
      if (!made) {
        p->ok = false;
        break;
      }
      if (i) put(p, ", ", 2);
      put_value(p, made, depth + 1);
      cJSON_Delete(made);
    }
  } else {
    for (const cJSON *c = array->child; c; c = c->next) {
      put_value(p, c, depth + 1);
      if (c->next) put(p, p->formatted ? ", " : ",", p->formatted ? 2 : 1);
    }
  }
  put_char(p, ']');
}

static void put_object(printer *p, const cJSON *obj, int depth) {
  put_char(p, '{');
  if (p->formatted) put_char(p, '\n');
  for (const cJSON *c = obj->child; c; c = c->next) {
    if (p->formatted) put_tabs(p, depth + 1);
    put_string(p, c->string);
    put(p, p->formatted ? ":\t" : ":", p->formatted ? 2 : 1);
    put_value(p, c, depth + 1);
    if (c->next) put_char(p, ',');
    if (p->formatted) put_char(p, '\n');
  }
  if (p->formatted) put_tabs(p, depth);
  put_char(p, '}');
}

static void put_value(printer *p, const cJSON *item, int depth) {
  char buf[OCC_JSON_NUMBER_SIZE];
  const char *text;
  switch (item->type & 0xff) {
  case cJSON_NULL: put(p, "null", 4); break;
  case cJSON_False: put(p, "false", 5); break;
  case cJSON_True: put(p, "true", 4); break;
  case cJSON_Number:
    text = occ_json_number_text(item->valuedouble, buf);
    put(p, text, strlen(text));
    break;
  case cJSON_Raw:
    if (item->valuestring)
      put_utf8(p, item->valuestring);
    else
      p->ok = false; /* cJSON refuses to print it */
    break;
  case cJSON_String: put_string(p, item->valuestring); break;
  case cJSON_Array: put_array(p, item, depth); break;
  case cJSON_Object: put_object(p, item, depth); break;
  default: p->ok = false; break;
  }
}

static bool write_doc(FILE *out, const cJSON *doc, bool formatted,
                      const cJSON *spliced, occ_json_item_fn *item,
                      void *context, size_t count) {
  if (!doc) return false;
  printer p; /* no allocation: printing never runs out of memory */
  p.out = out;
  p.formatted = formatted;
  p.used = 0;
  p.spliced = spliced;
  p.item = item;
  p.context = context;
  p.count = count;
  p.ok = true;
  put_value(&p, doc, 0);
  flush(&p);
  return p.ok;
}

bool occ_json_write_compact(FILE *out, const cJSON *doc) {
  return write_doc(out, doc, false, NULL, NULL, NULL, 0);
}

bool occ_json_write_formatted(FILE *out, const cJSON *doc) {
  return write_doc(out, doc, true, NULL, NULL, NULL, 0);
}

bool occ_json_write_streamed(FILE *out, const cJSON *doc, const char *key,
                             occ_json_item_fn *item, void *context,
                             size_t count) {
  const cJSON *array = doc ? cJSON_GetObjectItemCaseSensitive(doc, key) : NULL;
  if (!cJSON_IsArray(array) || array->child) return false;
  return write_doc(out, doc, true, array, item, context, count);
}
