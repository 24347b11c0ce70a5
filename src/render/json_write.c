/* json_write.c - see json_write.h. */
#include "render/json_write.h"

#include <inttypes.h>

#include "core/utf8.h"

cJSON *occ_json_add_int(cJSON *obj, const char *key, int64_t value) {
  char digits[24];
  snprintf(digits, sizeof digits, "%" PRId64, value);
  return cJSON_AddRawToObject(obj, key, digits);
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
