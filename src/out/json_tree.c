/* json_tree.c - see json_tree.h. The printed text must stay identical to
 * cJSON_PrintUnformatted's and cJSON_Print's; tests/ptxas/json_tree_test.c
 * compares them.
 * Text goes through a local buffer: stdio's per-character locking cost
 * more than the formatting. */
#include "out/json_tree.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "out/utf8.h"

typedef enum jtype { J_NULL, J_FALSE, J_TRUE, J_NUMBER, J_INT, J_STRING, J_ARRAY, J_OBJECT } jtype;

/* A value; a string's text is allocated with its node. Containers keep
 * their last child so that appending is O(1). */
struct occ_jnode {
  occ_jnode *next;
  occ_jnode *child, *last;
  char *key; /* the member's name (its own allocation), NULL in an array */
  const char *text;
  double number;
  int64_t integer;
  jtype type;
};

static occ_jnode *new_node(jtype type, size_t extra) {
  occ_jnode *n = calloc(1, sizeof *n + extra);
  if (n) n->type = type;
  return n;
}

occ_jnode *occ_jobject(void) { return new_node(J_OBJECT, 0); }
occ_jnode *occ_jarray(void) { return new_node(J_ARRAY, 0); }
occ_jnode *occ_jnull(void) { return new_node(J_NULL, 0); }
occ_jnode *occ_jbool(bool value) { return new_node(value ? J_TRUE : J_FALSE, 0); }

occ_jnode *occ_jnumber(double value) {
  occ_jnode *n = new_node(J_NUMBER, 0);
  if (n) n->number = value;
  return n;
}

occ_jnode *occ_jint(int64_t value) {
  occ_jnode *n = new_node(J_INT, 0);
  if (n) n->integer = value;
  return n;
}

occ_jnode *occ_jstring(const char *text) {
  if (!text) text = "";
  size_t len = strlen(text);
  occ_jnode *n = new_node(J_STRING, len + 1);
  if (!n) return NULL;
  char *copy = (char *)(n + 1);
  memcpy(copy, text, len + 1);
  n->text = copy;
  return n;
}

bool occ_jappend(occ_jnode *array, occ_jnode *item) {
  if (!array || !item || item == array) return false;
  if (array->last)
    array->last->next = item;
  else
    array->child = item;
  array->last = item;
  return true;
}

bool occ_jadd(occ_jnode *obj, const char *key, occ_jnode *item) {
  if (!obj || !item || !key) return false;
  char *copy = strdup(key);
  if (!copy) return false;
  free(item->key);
  item->key = copy;
  return occ_jappend(obj, item);
}

/* Adds a value made by the caller, freeing it if it cannot be added. */
static occ_jnode *add_new(occ_jnode *obj, const char *key, occ_jnode *item) {
  if (occ_jadd(obj, key, item)) return item;
  occ_jfree(item);
  return NULL;
}

occ_jnode *occ_jadd_null(occ_jnode *obj, const char *key) {
  return obj ? add_new(obj, key, occ_jnull()) : NULL;
}

occ_jnode *occ_jadd_bool(occ_jnode *obj, const char *key, bool value) {
  return obj ? add_new(obj, key, occ_jbool(value)) : NULL;
}

occ_jnode *occ_jadd_number(occ_jnode *obj, const char *key, double value) {
  return obj ? add_new(obj, key, occ_jnumber(value)) : NULL;
}

occ_jnode *occ_jadd_int(occ_jnode *obj, const char *key, int64_t value) {
  return obj ? add_new(obj, key, occ_jint(value)) : NULL;
}

occ_jnode *occ_jadd_string(occ_jnode *obj, const char *key, const char *text) {
  return obj ? add_new(obj, key, occ_jstring(text)) : NULL;
}

occ_jnode *occ_jadd_object(occ_jnode *obj, const char *key) {
  return obj ? add_new(obj, key, occ_jobject()) : NULL;
}

occ_jnode *occ_jadd_array(occ_jnode *obj, const char *key) {
  return obj ? add_new(obj, key, occ_jarray()) : NULL;
}

/* An array of count numbers, value(values, i) each; NULL when out of
 * memory. */
static occ_jnode *number_array(const void *values, int count,
                               double (*value)(const void *, int)) {
  occ_jnode *a = occ_jarray();
  for (int i = 0; a && i < count; i++) {
    occ_jnode *n = occ_jnumber(value(values, i));
    if (!occ_jappend(a, n)) {
      occ_jfree(n);
      occ_jfree(a);
      a = NULL;
    }
  }
  return a;
}

static double int_at(const void *values, int i) { return ((const int *)values)[i]; }
static double double_at(const void *values, int i) { return ((const double *)values)[i]; }

occ_jnode *occ_jint_array(const int *values, int count) {
  return number_array(values, count, int_at);
}

occ_jnode *occ_jdouble_array(const double *values, int count) {
  return number_array(values, count, double_at);
}

occ_jnode *occ_jget(const occ_jnode *obj, const char *key) {
  if (!obj || obj->type != J_OBJECT || !key) return NULL;
  for (occ_jnode *c = obj->child; c; c = c->next)
    if (strcmp(c->key, key) == 0) return c;
  return NULL;
}

bool occ_jreplace(occ_jnode *obj, const char *key, occ_jnode *item) {
  if (!obj || obj->type != J_OBJECT || !item || !key) return false;
  occ_jnode **link = &obj->child;
  while (*link && strcmp((*link)->key, key) != 0) link = &(*link)->next;
  occ_jnode *old = *link;
  if (!old) return false;
  free(item->key); /* the member's name passes to item: nothing to allocate */
  item->key = old->key;
  old->key = NULL;
  item->next = old->next;
  *link = item;
  if (obj->last == old) obj->last = item;
  old->next = NULL;
  occ_jfree(old);
  return true;
}

void occ_jfree(occ_jnode *node) {
  while (node) {
    occ_jnode *next = node->next;
    occ_jfree(node->child);
    free(node->key);
    free(node);
    node = next;
  }
}

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
static void write_int(sink *s, int64_t v) {
  char buf[24], *p = buf + sizeof buf;
  uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
  *--p = '\0';
  do *--p = (char)('0' + u % 10); while ((u /= 10) > 0);
  if (v < 0) *--p = '-';
  put_text(s, p);
}

static void write_number(sink *s, double d) {
  if (isnan(d) || isinf(d)) {
    put_text(s, "null");
    return;
  }
  char buf[32];
  if (d == floor(d) && fabs(d) < 1e15) {
    write_int(s, (int64_t)d);
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
static void write_item(sink *s, const occ_jnode *item, bool format, int depth) {
  switch (item->type) {
  case J_NULL: put_text(s, "null"); return;
  case J_FALSE: put_text(s, "false"); return;
  case J_TRUE: put_text(s, "true"); return;
  case J_NUMBER: write_number(s, item->number); return;
  case J_INT: write_int(s, item->integer); return;
  case J_STRING: write_string(s, item->text); return;
  case J_ARRAY:
  case J_OBJECT: {
    bool object = item->type == J_OBJECT;
    put_char(s, object ? '{' : '[');
    if (object && format) put_char(s, '\n');
    for (const occ_jnode *c = item->child; c; c = c->next) {
      if (object) {
        if (format) put_tabs(s, depth + 1);
        write_string(s, c->key);
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
  }
}

static void write_document(FILE *out, const occ_jnode *item, bool format) {
  sink s;
  s.out = out;
  s.len = 0;
  write_item(&s, item, format, 0);
  fwrite(s.buf, 1, s.len, out);
}

void occ_json_write_compact(FILE *out, const occ_jnode *item) {
  write_document(out, item, false);
}

void occ_json_write_formatted(FILE *out, const occ_jnode *item) {
  write_document(out, item, true);
}
