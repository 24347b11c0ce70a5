/* json_write.c - see json_write.h. */
#include "render/json_write.h"

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

cJSON *occ_json_add_int(cJSON *obj, const char *key, int64_t value) {
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

/* Writes text, each byte that does not start a valid UTF-8 sequence
 * replaced by U+FFFD. JSON's own syntax is ASCII, so such a byte can only
 * be in a string, and a sequence never spans a string's end. */
static void write_utf8(FILE *out, const char *text) {
  const unsigned char *p = (const unsigned char *)text, *run = p;
  for (;;) {
    while (*p && *p < 0x80) p++;
    if (!*p) break;
    unsigned cp;
    size_t n = occ_utf8_len(p, &cp);
    if (n > 0) {
      p += n;
      continue;
    }
    fwrite(run, 1, (size_t)(p - run), out);
    fputs("\xef\xbf\xbd", out);
    run = ++p;
  }
  fwrite(run, 1, (size_t)(p - run), out);
}

static bool write_doc(FILE *out, const cJSON *doc, bool formatted) {
  char *text = !doc ? NULL : formatted ? cJSON_Print(doc) : cJSON_PrintUnformatted(doc);
  if (!text) return false;
  write_utf8(out, text);
  cJSON_free(text);
  return true;
}

bool occ_json_write_compact(FILE *out, const cJSON *doc) {
  return write_doc(out, doc, false);
}

bool occ_json_write_formatted(FILE *out, const cJSON *doc) {
  return write_doc(out, doc, true);
}

/* Writes text (cJSON_Print's layout of an item at the top level) as it
 * would be laid out depth tabs deep: cJSON indents each line of a nested
 * item by its depth, and a string never holds a raw newline (JSON escapes
 * it), so every newline is the layout's own. text is cut in place while
 * written and left as it was. */
static void write_indented(FILE *out, char *text, int depth) {
  for (char *nl; (nl = strchr(text, '\n')); text = nl + 1) {
    *nl = '\0';
    write_utf8(out, text);
    *nl = '\n';
    fputc('\n', out);
    for (int d = 0; d < depth; d++) fputc('\t', out);
  }
  write_utf8(out, text);
}

/* Turns each number of item that cJSON_Print would write as plain
 * digits (integral, below 10^15 in magnitude, not -0) into those digits as
 * a raw value: cJSON 1.7 prints every number with sprintf("%1.15g") and
 * reads it back with sscanf, most of the time of a large report, where an
 * integer's digits cost a tenth of that. The text is the same. */
static void integers_raw(cJSON *item) {
  for (; item; item = item->next) {
    if (item->child) integers_raw(item->child);
    double v = item->valuedouble;
    if (!cJSON_IsNumber(item) || v != floor(v) || fabs(v) >= 1e15 ||
        (v == 0 && signbit(v)))
      continue;
    char buf[24];
    const char *digits = decimal(buf, (int64_t)v);
    size_t size = strlen(digits) + 1;
    char *copy = malloc(size);
    if (!copy) return; /* left a number: printed as it would have been */
    memcpy(copy, digits, size);
    item->type = cJSON_Raw;
    item->valuestring = copy;
  }
}

bool occ_json_write_streamed(FILE *out, const cJSON *doc, const char *key,
                             occ_json_item_fn *item, void *context,
                             size_t count) {
  const cJSON *array = doc ? cJSON_GetObjectItemCaseSensitive(doc, key) : NULL;
  if (!cJSON_IsArray(array) || array->child) return false;
  char *text = cJSON_Print(doc);
  if (!text) return false;
  /* The member as cJSON_Print lays it out: a tab-indented key, a tab,
   * then "[]" for the empty array. Keys are unique in occcalc's
   * documents, so the first match is the member. */
  char marker[128];
  snprintf(marker, sizeof marker, "\"%s\":\t[]", key);
  char *at = strstr(text, marker);
  if (!at) {
    cJSON_free(text);
    return false;
  }
  int depth = 1; /* the array's items sit one level below its member */
  for (const char *p = at; p > text && p[-1] == '\t'; p--) depth++;
  char *open = at + strlen(marker) - 1; /* the ']' */
  *open = '\0';
  write_utf8(out, text);
  bool ok = true;
  for (size_t i = 0; ok && i < count; i++) {
    cJSON *one = item(context, i);
    if (one) integers_raw(one->child);
    char *one_text = one ? cJSON_Print(one) : NULL;
    cJSON_Delete(one);
    if (!one_text) {
      ok = false;
      break;
    }
    if (i) fputs(", ", out);
    write_indented(out, one_text, depth);
    cJSON_free(one_text);
  }
  *open = ']';
  if (ok) write_utf8(out, open);
  cJSON_free(text);
  return ok;
}
