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

/* The printer (occ_jw, json_write.h): cJSON_Print's and
 * cJSON_PrintUnformatted's layout, written straight to the stream through
 * a buffer, with no text of the whole document in memory and no
 * allocation. */
typedef occ_jw printer;

/* Empties the buffer into the stream; a capture that fills it fails. */
static void flush(printer *p) {
  if (p->capture) {
    if (p->used == sizeof p->buf) p->ok = false;
    if (!p->ok) p->used = 0;
    return;
  }
  if (p->used) fwrite(p->buf, 1, p->used, p->out);
  p->used = 0;
}

static void put(printer *p, const char *s, size_t n) {
  if (n > sizeof p->buf - p->used) {
    flush(p);
    if (p->capture) {
      p->ok = false;
      return;
    }
    if (n > sizeof p->buf) {
      fwrite(s, 1, n, p->out);
      return;
    }
  }
  memcpy(p->buf + p->used, s, n);
  p->used += n;
}

static void put_char(printer *p, char c) {
  if (p->used == sizeof p->buf) {
    flush(p);
    if (p->capture) return;
  }
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

/* ASCII that a JSON string holds as it is: a table, since every key of
 * every document goes through put_string. */
static const unsigned char plain[256] = {
    0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
    1,1,0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
    1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,1,1,1,
    1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
    /* 0x80 and above: UTF-8, checked */};

/* A string as cJSON escapes it (", \, and control characters; the rest as
 * it is), in quotes; NULL as "". */
static void put_string(printer *p, const char *text) {
  static const char hex[] = "0123456789abcdef";
  const unsigned char *s = (const unsigned char *)(text ? text : "");
  size_t n = 0;
  while (plain[s[n]]) n++;
  if (!s[n] && n + 2 <= sizeof p->buf - p->used) { /* most strings: keys */
    char *to = p->buf + p->used;
    to[0] = '"';
    memcpy(to + 1, s, n);
    to[n + 1] = '"';
    p->used += n + 2;
    return;
  }
  put_char(p, '"');
  const unsigned char *run = s;
  for (;; s++) {
    while (plain[*s]) s++;
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
  occ_jw_stream(&p, out, formatted);
  p.spliced = spliced;
  p.item = item;
  p.context = context;
  p.count = count;
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

/* --- occ_jw: a document written as it is built --- */

static void tree_add(occ_jw *w, const char *key, cJSON *item);
static void put_member(occ_jw *w, const char *key);

void occ_jw_stream(occ_jw *w, FILE *out, bool formatted) {
  w->out = out;
  w->formatted = formatted;
  w->ok = true;
  w->capture = false;
  w->bare = false;
  w->depth = w->base = 0;
  w->tree = NULL;
  w->spliced = NULL;
  w->used = 0;
}

void occ_jw_capture(occ_jw *w, bool formatted, int depth) {
  occ_jw_stream(w, NULL, formatted);
  w->capture = true;
  w->bare = true;
  if (depth < 0 || depth >= OCC_JW_MAX_DEPTH) {
    w->ok = false;
    depth = 0;
  }
  w->depth = w->base = depth;
}

const char *occ_jw_captured(occ_jw *w, size_t *len) {
  if (!w->ok || w->depth != w->base || w->used == sizeof w->buf) return NULL;
  *len = w->used;
  return w->buf;
}

void occ_jw_raw(occ_jw *w, const char *key, const char *text, size_t len) {
  if (!w->out && !w->capture) {
    char *copy = malloc(len + 1);
    if (copy) {
      memcpy(copy, text, len);
      copy[len] = '\0';
    }
    tree_add(w, key, copy ? cJSON_CreateRaw(copy) : NULL);
    free(copy);
    return;
  }
  put_member(w, key);
  put(w, text, len);
}

void occ_jw_tree(occ_jw *w) {
  occ_jw_stream(w, NULL, false);
}

bool occ_jw_end_stream(occ_jw *w) {
  flush(w);
  return w->ok && w->depth == w->base;
}

cJSON *occ_jw_end_tree(occ_jw *w) {
  if (w->ok && w->depth == 0) return w->tree;
  cJSON_Delete(w->tree);
  return NULL;
}

/* The separator and key before a member, as cJSON lays them out. */
static void put_member(occ_jw *w, const char *key) {
  if (w->bare) { /* a capture's value: no key, no separator */
    w->bare = false;
    return;
  }
  if (w->depth == 0) return;
  int d = w->depth - 1;
  if (w->in_array[d]) {
    if (w->members[d]++) put(w, w->formatted ? ", " : ",", w->formatted ? 2 : 1);
    return;
  }
  if (w->members[d]++) {
    put_char(w, ',');
    if (w->formatted) put_char(w, '\n');
  }
  if (w->formatted) put_tabs(w, w->depth);
  put_string(w, key);
  put(w, w->formatted ? ":\t" : ":", w->formatted ? 2 : 1);
}

/* Adds item (owned by the tree from now, or freed) under key in the open
 * container, or makes it the document. */
static void tree_add(occ_jw *w, const char *key, cJSON *item) {
  bool added;
  if (!item) {
    added = false;
  } else if (w->depth == 0) {
    added = !w->tree;
    if (added) w->tree = item;
  } else {
    cJSON *parent = w->open[w->depth - 1];
    added = !parent ? false
          : w->in_array[w->depth - 1] ? cJSON_AddItemToArray(parent, item)
                                      : cJSON_AddItemToObject(parent, key, item);
  }
  if (!added) {
    cJSON_Delete(item);
    w->ok = false;
  }
}

static void open_container(occ_jw *w, const char *key, bool array) {
  if (w->depth == OCC_JW_MAX_DEPTH) { /* a writer's bug: no document */
    w->ok = false;
    return;
  }
  if (w->out || w->capture) {
    put_member(w, key);
    put_char(w, array ? '[' : '{');
    if (!array && w->formatted) put_char(w, '\n');
  } else {
    cJSON *c = array ? cJSON_CreateArray() : cJSON_CreateObject();
    tree_add(w, key, c);
    w->open[w->depth] = w->ok ? c : NULL;
  }
  w->members[w->depth] = 0;
  w->in_array[w->depth] = array;
  w->depth++;
}

void occ_jw_object(occ_jw *w, const char *key) { open_container(w, key, false); }
void occ_jw_array(occ_jw *w, const char *key) { open_container(w, key, true); }

void occ_jw_close(occ_jw *w) {
  if (w->depth == w->base) {
    w->ok = false;
    return;
  }
  w->depth--;
  if (!w->out && !w->capture) return;
  if (w->in_array[w->depth]) {
    put_char(w, ']');
    return;
  }
  if (w->formatted) {
    if (w->members[w->depth]) put_char(w, '\n');
    put_tabs(w, w->depth);
  }
  put_char(w, '}');
}

/* A scalar member: its text to the stream, or its node to the tree. */
static void scalar(occ_jw *w, const char *key, const char *text, size_t len,
                   cJSON *(*make)(const void *), const void *arg) {
  if (w->out || w->capture) {
    put_member(w, key);
    put(w, text, len);
  } else {
    tree_add(w, key, make(arg));
  }
}

static cJSON *make_null(const void *arg) { (void)arg; return cJSON_CreateNull(); }
static cJSON *make_true(const void *arg) { (void)arg; return cJSON_CreateTrue(); }
static cJSON *make_false(const void *arg) { (void)arg; return cJSON_CreateFalse(); }
static cJSON *make_number(const void *arg) {
  return cJSON_CreateNumber(*(const double *)arg);
}
static cJSON *make_raw(const void *arg) { return cJSON_CreateRaw(arg); }

void occ_jw_null(occ_jw *w, const char *key) {
  scalar(w, key, "null", 4, make_null, NULL);
}

void occ_jw_bool(occ_jw *w, const char *key, bool value) {
  scalar(w, key, value ? "true" : "false", value ? 4 : 5,
         value ? make_true : make_false, NULL);
}

void occ_jw_int(occ_jw *w, const char *key, int64_t value) {
  char buf[24];
  const char *digits = decimal(buf, value);
  if (w->out || w->capture || (value >= -(int64_t)EXACT_INTEGER_MAX &&
                 value <= (int64_t)EXACT_INTEGER_MAX)) {
    double d = (double)value;
    scalar(w, key, digits, (size_t)(buf + 23 - digits), make_number, &d);
  } else {
    scalar(w, key, NULL, 0, make_raw, digits); /* exact past 2^53 */
  }
}

void occ_jw_number(occ_jw *w, const char *key, double value) {
  char buf[OCC_JSON_NUMBER_SIZE];
  const char *text = w->out || w->capture ? occ_json_number_text(value, buf) : "";
  scalar(w, key, text, strlen(text), make_number, &value);
}

static cJSON *make_string(const void *arg) { return cJSON_CreateString(arg); }

void occ_jw_string(occ_jw *w, const char *key, const char *text) {
  if (w->out || w->capture) {
    put_member(w, key);
    put_string(w, text);
  } else {
    tree_add(w, key, make_string(text ? text : ""));
  }
}

void occ_jw_int_or_null(occ_jw *w, const char *key, int64_t value, bool known) {
  if (known)
    occ_jw_int(w, key, value);
  else
    occ_jw_null(w, key);
}

void occ_jw_number_or_null(occ_jw *w, const char *key, double value,
                           bool known) {
  if (known)
    occ_jw_number(w, key, value);
  else
    occ_jw_null(w, key);
}

void occ_jw_string_or_null(occ_jw *w, const char *key, const char *text) {
  if (text)
    occ_jw_string(w, key, text);
  else
    occ_jw_null(w, key);
}

void occ_jw_ints(occ_jw *w, const char *key, const int *values, int count) {
  occ_jw_array(w, key);
  for (int i = 0; i < count; i++) occ_jw_int(w, NULL, values[i]);
  occ_jw_close(w);
}

void occ_jw_item(occ_jw *w, const char *key, cJSON *item) {
  if (!w->out && !w->capture) {
    tree_add(w, key, item);
    return;
  }
  if (!item) {
    w->ok = false;
    return;
  }
  put_member(w, key);
  put_value(w, item, w->depth);
  cJSON_Delete(item);
}
