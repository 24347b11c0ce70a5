/* json_write.h - occcalc's JSON printer, and what the writers add to
 * cJSON: exact integers and printing a document to a stream.
 *
 * The writers build every JSON document with cJSON's own calls
 * (cjson/cJSON.h, included here) and print it here, in cJSON_Print's
 * layout (--json) or cJSON_PrintUnformatted's (--jsonl), straight to the
 * stream: cJSON's printers make the whole text in memory and format every
 * number with sprintf("%1.15g") and a read-back, most of the time of a
 * large --jsonl. Integers are printed as integers, other numbers in the
 * fewest digits that read back exactly (occ_json_number_text); everything
 * else byte for byte as cJSON prints it (tests/json/json_write_test.c).
 * A document has one owner, who frees it with cJSON_Delete. cJSON stays
 * out of the core (tests/layers/layers.sh). */
#ifndef OCC_JSON_WRITE_H
#define OCC_JSON_WRITE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Adds value to obj under key, printed as its decimal digits: a cJSON
 * number up to 2^53 in magnitude, past that a raw value (a cJSON number is
 * a double, exact only up to 2^53, and a timestamp in ns since 1970 is
 * near 2^61). Returns the new item (owned by obj), or
 * NULL when obj is NULL or out of memory. */
cJSON *occ_json_add_int(cJSON *obj, const char *key, int64_t value);

/* Adds value (occ_json_add_int's way, or a cJSON number) under key when
 * known, else null: an unknown value is null, never left out or 0. */
void occ_json_add_int_or_null(cJSON *obj, const char *key, int64_t value,
                              bool known);
void occ_json_add_number_or_null(cJSON *obj, const char *key, double value,
                                 bool known);

/* Write doc as cJSON_PrintUnformatted (compact, --jsonl) or cJSON_Print
 * (formatted, --json) lays it out, numbers as occ_json_number_text writes
 * them, with no newline after it. Each byte of invalid UTF-8 in a string
 * is written as U+FFFD, so the text is always UTF-8 (cJSON copies a
 * string's bytes as they are, and JSON has no escape for a byte). Nothing
 * is allocated. False when doc is NULL or holds what cJSON would not print
 * (a raw value without text); a write error is the stream's (ferror). */
__attribute__((warn_unused_result))
bool occ_json_write_compact(FILE *out, const cJSON *doc);
__attribute__((warn_unused_result))
bool occ_json_write_formatted(FILE *out, const cJSON *doc);

/* Room for any number's text. */
#define OCC_JSON_NUMBER_SIZE 32

/* The JSON text of a number, in buf or a constant: an integer of at most
 * 2^53 in magnitude as its digits (-0 as "-0", as cJSON does); another finite number in
 * the fewest significant digits that strtod reads back as exactly value
 * (%.Ng's form, so "1e+300"); NaN and infinities as null, as
 * cJSON prints them. */
const char *occ_json_number_text(double value, char buf[OCC_JSON_NUMBER_SIZE]);

/* Makes item i of a streamed array (owned by the caller, who frees it),
 * or NULL when out of memory. */
typedef cJSON *occ_json_item_fn(void *context, size_t i);

/* Writes doc as occ_json_write_formatted would if doc's array member key
 * (present and empty in doc) held item(context, 0) .. item(context,
 * count - 1): each item is made, printed and freed before the next, so a
 * document of many rows never holds more than one row's tree (occcalc
 * run's report of 40,000 configurations). The layout is
 * occ_json_write_formatted's of the filled tree. False when an item could
 * not be made (out of memory) or key is not an empty array of doc; what
 * was written stays written. */
__attribute__((warn_unused_result))
bool occ_json_write_streamed(FILE *out, const cJSON *doc, const char *key,
                             occ_json_item_fn *item, void *context,
                             size_t count);

/* --- Writing a document as it is built ---
 *
 * occ_jw describes a document member by member, to one of two sinks: a
 * stream, printed as occ_json_write_compact or _formatted would print the
 * same tree (no tree is built, nothing allocated: --jsonl of a large
 * compiler report), or a cJSON tree for a caller that needs one. One
 * writer function serves both. key is the member's name inside an object
 * and NULL inside an array or at the top. An allocation that fails (the
 * tree sink, or an item the caller made) makes the result a failure; the
 * calls after it are safe. The fields are the writer's own. */
#define OCC_JW_MAX_DEPTH 32
typedef struct occ_jw {
  FILE *out;                  /* the stream; NULL for the tree sink */
  bool formatted;
  bool ok;
  bool capture;               /* into buf only (occ_jw_capture) */
  bool bare;                  /* the next value has no key nor separator */
  int depth;                  /* open containers */
  int base;                   /* the depth the document starts at */
  unsigned members[OCC_JW_MAX_DEPTH];
  bool in_array[OCC_JW_MAX_DEPTH];
  cJSON *tree;                /* the tree sink's document */
  cJSON *open[OCC_JW_MAX_DEPTH];
  /* occ_json_write_streamed's member and its items */
  const cJSON *spliced;
  occ_json_item_fn *item;
  void *context;
  size_t count;
  size_t used;
  char buf[4096];
} occ_jw;

/* Starts a document printed to out (formatted: --json's layout, else
 * --jsonl's), or built as a tree. */
void occ_jw_stream(occ_jw *w, FILE *out, bool formatted);
void occ_jw_tree(occ_jw *w);

/* Ends the document. The stream's: flushes it into out and returns
 * whether every item could be made (a write error is the stream's). The
 * tree's: the document (the caller owns it), or NULL when out of memory. */
bool occ_jw_end_stream(occ_jw *w);
cJSON *occ_jw_end_tree(occ_jw *w);

/* Starts a capture: one value written into the writer's own buffer as it
 * would be printed as a member's value depth containers deep (for text
 * written once and repeated: occ_jw_raw). occ_jw_captured gives the text
 * (len bytes, not terminated, valid until w changes), or NULL when it did
 * not fit. */
void occ_jw_capture(occ_jw *w, bool formatted, int depth);
const char *occ_jw_captured(occ_jw *w, size_t *len);

/* Adds text, a value printed before (occ_jw_capture) in the layout w
 * prints, under key. */
void occ_jw_raw(occ_jw *w, const char *key, const char *text, size_t len);

void occ_jw_object(occ_jw *w, const char *key);
void occ_jw_array(occ_jw *w, const char *key);
void occ_jw_close(occ_jw *w); /* the innermost open object or array */
void occ_jw_int(occ_jw *w, const char *key, int64_t value);
void occ_jw_number(occ_jw *w, const char *key, double value);
void occ_jw_string(occ_jw *w, const char *key, const char *text);
void occ_jw_null(occ_jw *w, const char *key);
void occ_jw_bool(occ_jw *w, const char *key, bool value);
void occ_jw_int_or_null(occ_jw *w, const char *key, int64_t value, bool known);
void occ_jw_number_or_null(occ_jw *w, const char *key, double value,
                           bool known);
/* A string, or null when text is NULL. */
void occ_jw_string_or_null(occ_jw *w, const char *key, const char *text);
void occ_jw_ints(occ_jw *w, const char *key, const int *values, int count);

/* Adds item, which the writer takes (NULL: out of memory): the stream
 * prints and frees it, the tree adopts it. For sections still built as
 * trees (charts, suggestions, explanations, verification). */
void occ_jw_item(occ_jw *w, const char *key, cJSON *item);

#endif
