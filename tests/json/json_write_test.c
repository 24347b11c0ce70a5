/* json_write_test.c - occcalc's JSON printer (Criterion): integers
 * printed exactly past 2^53, other numbers in the fewest digits that read
 * back exactly, each byte of invalid UTF-8 written as U+FFFD, and
 * everything else exactly as cJSON_PrintUnformatted and cJSON_Print write
 * it. */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/json_write.h"
#include "json_parsed.h"

/* doc through occ_json_write_compact and _formatted is cJSON's own text. */
static void same_as_cjson(const cJSON *doc) {
  char *want = cJSON_PrintUnformatted(doc);
  char *got = json_printed(occ_json_write_compact, doc);
  cr_assert_not_null(got);
  cr_expect_str_eq(got, want);
  cJSON_free(want);
  free(got);
  want = cJSON_Print(doc);
  got = json_printed(occ_json_write_formatted, doc);
  cr_assert_not_null(got);
  cr_expect_str_eq(got, want);
  cJSON_free(want);
  free(got);
}

/* Every kind of value, nesting, escapes and valid UTF-8 of every length
 * (the edges of the ranges included) pass through unchanged. */
Test(json_write, as_cjson_prints) {
  static const char *const texts[] = {
      "\xc2\x80", "\xdf\xbf", "\xe0\xa0\x80", "\xed\x9f\xbf", "\xee\x80\x80",
      "\xef\xbf\xbd", "\xf0\x90\x80\x80", "\xf4\x8f\xbf\xbf",
      "k<\xce\xbb>(\xe2\x80\x94)", "tab\t\"q\" \\ \x01"};
  int block[3] = {128, 2, 1};
  cJSON *doc = cJSON_CreateObject();
  cJSON *strings = cJSON_AddArrayToObject(doc, "strings");
  for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
    cr_assert(cJSON_AddItemToArray(strings, cJSON_CreateString(texts[i])));
  cr_assert_not_null(cJSON_AddStringToObject(doc, "\xce\xbb key", "v"));
  /* Numbers cJSON's 15 digits print exactly. */
  cr_assert_not_null(cJSON_AddNumberToObject(doc, "tenth", 0.1));
  cr_assert_not_null(cJSON_AddNumberToObject(doc, "big", 1e300));
  cr_assert_not_null(cJSON_AddNumberToObject(doc, "negative", -2147483648.0));
  cr_assert_not_null(cJSON_AddNumberToObject(doc, "large", 4294967296.0 * 1000));
  cr_assert_not_null(cJSON_AddNumberToObject(doc, "negative_zero", -0.0));
  cr_assert_not_null(cJSON_AddNullToObject(doc, "none"));
  cr_assert_not_null(cJSON_AddBoolToObject(doc, "yes", 1));
  cr_assert(cJSON_AddItemToObject(doc, "block", cJSON_CreateIntArray(block, 3)));
  cJSON *inner = cJSON_AddObjectToObject(cJSON_AddObjectToObject(doc, "a"), "b");
  cr_assert_not_null(cJSON_AddArrayToObject(inner, "empty"));
  cr_assert_not_null(cJSON_AddObjectToObject(inner, "empty_object"));
  /* Objects in arrays in objects in arrays: the depth of each tab. */
  cJSON *rows = cJSON_AddArrayToObject(inner, "rows");
  for (int i = 0; i < 3; i++) {
    cJSON *row = cJSON_CreateObject();
    cr_assert(cJSON_AddItemToArray(rows, row));
    cr_assert_not_null(cJSON_AddNumberToObject(row, "i", i));
    cJSON *nested = cJSON_AddArrayToObject(row, "nested");
    for (int j = 0; j < i; j++) {
      cJSON *o = cJSON_CreateObject();
      cr_assert(cJSON_AddItemToArray(nested, o));
      cr_assert(cJSON_AddItemToObject(o, "dims", cJSON_CreateIntArray(block, 3)));
      cr_assert_not_null(cJSON_AddArrayToObject(o, "empty"));
    }
  }
  cr_assert(cJSON_AddItemToArray(rows, cJSON_CreateArray()));
  same_as_cjson(doc);
  cJSON_Delete(doc);
}

/* The text of one number as the printer writes it. */
static char *number_printed(double value) {
  cJSON *n = cJSON_CreateNumber(value);
  cr_assert_not_null(n);
  char *got = json_printed(occ_json_write_compact, n);
  cr_assert_not_null(got);
  cJSON_Delete(n);
  return got;
}

/* Integers as their digits up to 2^53; other numbers in the fewest
 * significant digits that strtod reads back exactly (where
 * cJSON wrote 17, or 15 that read back within an epsilon only); NaN and
 * infinities as cJSON writes them (null). */
Test(json_write, numbers_shortest_exact) {
  static const struct { double value; const char *want; } cases[] = {
      {1.0 / 3, "0.3333333333333333"},        /* cJSON: 0.33333333333333331 */
      {2.0 / 3, "0.6666666666666666"},
      {0.43939393939393939, "0.4393939393939394"},
      {21.969696969696969, "21.96969696969697"},
      {0.1 + 0.2, "0.30000000000000004"},     /* 17 digits are needed */
      {1e15, "1000000000000000"},             /* cJSON: 1e+15 */
      {9007199254740992.0, "9007199254740992"},
      {9007199254740994.0, "9007199254740994"},
      {5e-324, "5e-324"},                     /* cJSON: 4.9406564584124654e-324 */
      {2.2250738585072014e-308, "2.2250738585072014e-308"},
      {DBL_MAX, "1.7976931348623157e+308"},
      {-1.5, "-1.5"},
      {NAN, "null"},
      {INFINITY, "null"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char *got = number_printed(cases[i].value);
    cr_expect_str_eq(got, cases[i].want, "case %zu", i);
    free(got);
  }
  /* Many values, subnormals among them: the text reads back as exactly
   * the value, and no shorter %.Ng does. */
  uint64_t state = 0x9e3779b97f4a7c15u;
  for (int i = 0; i < 20000; i++) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    double v;
    if (i % 2) {
      uint64_t bits = state >> 1; /* any positive finite double */
      memcpy(&v, &bits, sizeof v);
      if (!isfinite(v)) continue;
    } else {
      v = (double)(state >> 40) / (double)((state & 0xffff) + 1);
    }
    char *got = number_printed(v);
    cr_expect_eq(strtod(got, NULL), v, "%s does not read back", got);
    if (v != floor(v) || v > 9007199254740992.0) {
      char shorter[40];
      size_t digits = strlen(got);
      for (int n = 1; n < 15; n++) {
        snprintf(shorter, sizeof shorter, "%.*g", n, v);
        cr_expect(strtod(shorter, NULL) != v || strlen(shorter) >= digits,
                  "%s is shorter than %s", shorter, got);
      }
    }
    free(got);
  }
}

/* What occ_json_write_compact writes for {"KEY": "TEXT"}'s key and value. */
static char *compact_member(const char *key, const char *text) {
  cJSON *o = cJSON_CreateObject();
  cr_assert_not_null(cJSON_AddStringToObject(o, key, text));
  char *got = json_printed(occ_json_write_compact, o);
  cr_assert_not_null(got);
  cJSON_Delete(o);
  return got;
}

/* Each byte of an invalid sequence becomes U+FFFD, in a value and in a
 * key: stray continuation bytes, a lead byte cut short, overlong forms,
 * surrogates, past U+10FFFF, bytes never used. */
Test(json_write, invalid_utf8_replaced) {
  static const struct { const char *text, *want; } cases[] = {
      {"a\xff" "b", "\"a\xef\xbf\xbd" "b\""},
      {"\x80", "\"\xef\xbf\xbd\""},
      {"\xc3", "\"\xef\xbf\xbd\""},
      {"\xc3(", "\"\xef\xbf\xbd(\""},
      {"\xc0\xaf", "\"\xef\xbf\xbd\xef\xbf\xbd\""},
      {"\xe0\x80\xaf", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""},
      {"\xed\xa0\x80", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""},
      {"\xf4\x90\x80\x80", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""},
      {"\xf5", "\"\xef\xbf\xbd\""},
      {"k\x1b]0;x\x07\xfe", "\"k\\u001b]0;x\\u0007\xef\xbf\xbd\""},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char want[96];
    snprintf(want, sizeof want, "{\"k\":%s}", cases[i].want);
    char *got = compact_member("k", cases[i].text);
    cr_expect_str_eq(got, want, "value, case %zu", i);
    free(got);
    snprintf(want, sizeof want, "{%s:\"v\"}", cases[i].want);
    got = compact_member(cases[i].text, "v");
    cr_expect_str_eq(got, want, "key, case %zu", i);
    free(got);
  }
}

/* occ_json_add_int prints every int64_t exactly, where a double would
 * round (a timestamp in ns is near 2^61), and reads back as a number;
 * small ones as cJSON prints the number. */
Test(json_write, integers_exact) {
  static const struct { int64_t value; const char *want; } cases[] = {
      {0, "{\"n\":0}"},
      {-1, "{\"n\":-1}"},
      {233472, "{\"n\":233472}"},
      {9007199254740993, "{\"n\":9007199254740993}"}, /* 2^53 + 1 */
      {1795279669160074501, "{\"n\":1795279669160074501}"},
      {INT64_MAX, "{\"n\":9223372036854775807}"},
      {INT64_MIN, "{\"n\":-9223372036854775808}"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    cJSON *o = cJSON_CreateObject();
    cr_assert_not_null(occ_json_add_int(o, "n", cases[i].value));
    char *got = json_printed(occ_json_write_compact, o);
    cr_expect_str_eq(got, cases[i].want, "case %zu", i);
    cJSON *back = cJSON_Parse(got);
    cr_expect(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(back, "n")), "case %zu", i);
    cJSON_Delete(back);
    free(got);
    cJSON_Delete(o);
  }
  cJSON *same = cJSON_CreateObject();
  cJSON_AddNumberToObject(same, "n", 233472);
  char *want = cJSON_PrintUnformatted(same);
  cr_expect_str_eq(want, cases[2].want);
  cJSON_free(want);
  cJSON_Delete(same);
  cr_expect_null(occ_json_add_int(NULL, "n", 1));
}

/* No document: false, and nothing written. */
Test(json_write, null_document) {
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  cr_assert_not_null(out);
  cr_expect_not(occ_json_write_compact(out, NULL));
  cr_expect_not(occ_json_write_formatted(out, NULL));
  fclose(out);
  cr_expect_eq(len, 0);
  free(text);
}

/* Item i of the streamed rows: nested objects and arrays, an empty one,
 * strings with escapes, as run's rows have. */
static cJSON *stream_row(void *context, size_t i) {
  (void)context;
  cJSON *row = cJSON_CreateObject();
  cJSON_AddNumberToObject(row, "index", (double)i);
  /* Numbers the writer may print as digits itself, and those it must not. */
  cJSON_AddNumberToObject(row, "negative", -(double)i * 1000003);
  cJSON_AddNumberToObject(row, "fraction", (double)i / 3);
  cJSON_AddNumberToObject(row, "near_1e15", 1e15 - 1 + (double)i);
  cJSON_AddNumberToObject(row, "negative_zero", i % 2 ? -0.0 : 0.0);
  cJSON_AddNumberToObject(row, "huge", 1e300 * (double)(i + 1));
  cJSON_AddStringToObject(row, "name", i % 2 ? "k<\xce\xbb>\n\"x\"" : "plain");
  cJSON *launches = cJSON_AddArrayToObject(row, "launches");
  for (size_t j = 0; j < i % 3; j++) {
    cJSON *l = cJSON_CreateObject();
    cJSON_AddNumberToObject(l, "j", (double)j);
    cJSON_AddItemToObject(l, "metrics", cJSON_CreateObject());
    cJSON_AddItemToArray(launches, l);
  }
  cJSON_AddItemToObject(row, "dims", cJSON_CreateIntArray((int[]){1, 2, 3}, 3));
  return row;
}

/* The document a streamed write stands for: rows filled in the tree. */
static cJSON *stream_doc(size_t count, bool filled) {
  cJSON *doc = cJSON_CreateObject();
  cJSON_AddNumberToObject(doc, "schema", 3);
  cJSON *rows = cJSON_AddArrayToObject(doc, "rows");
  for (size_t i = 0; filled && i < count; i++)
    cJSON_AddItemToArray(rows, stream_row(NULL, i));
  cJSON_AddNullToObject(doc, "note");
  cJSON_AddItemToObject(doc, "after", cJSON_CreateIntArray((int[]){4, 5}, 2));
  return doc;
}

/* Streamed rows are laid out as the whole tree is (as_cjson_prints: as
 * cJSON_Print lays it out), for no row, one and several. */
Test(json_write, streamed_as_cjson_prints) {
  for (size_t count = 0; count <= 5; count++) {
    cJSON *whole = stream_doc(count, true), *shell = stream_doc(count, false);
    char *want = json_printed(occ_json_write_formatted, whole), *got = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&got, &size);
    cr_assert_not_null(f);
    cr_assert(occ_json_write_streamed(f, shell, "rows", stream_row, NULL, count));
    fclose(f);
    cr_expect_str_eq(got, want, "%zu rows", count);
    free(got);
    free(want);
    cJSON_Delete(whole);
    cJSON_Delete(shell);
  }
}

/* A key that is not an empty array of the document is refused, nothing
 * written. */
Test(json_write, streamed_refuses_other_members) {
  cJSON *doc = stream_doc(1, true);
  char *got = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&got, &size);
  cr_assert(!occ_json_write_streamed(f, doc, "rows", stream_row, NULL, 1));
  cr_assert(!occ_json_write_streamed(f, doc, "note", stream_row, NULL, 1));
  cr_assert(!occ_json_write_streamed(f, doc, "missing", stream_row, NULL, 1));
  fclose(f);
  cr_expect_eq(size, 0);
  free(got);
  cJSON_Delete(doc);
}

/* One description of a document: nested objects and arrays, empty ones,
 * every kind of value, a tree item, and a captured value repeated. */
static void describe(occ_jw *w) {
  occ_jw_object(w, NULL);
  occ_jw_int(w, "schema", 3);
  occ_jw_int(w, "big", 1795279669160074501);
  occ_jw_number(w, "third", 1.0 / 3);
  occ_jw_number_or_null(w, "unknown", 0, false);
  occ_jw_string(w, "name", "k<\xce\xbb>\n\"x\"\xff");
  occ_jw_string_or_null(w, "none", NULL);
  occ_jw_bool(w, "yes", true);
  occ_jw_bool(w, "no", false);
  occ_jw_ints(w, "block", (int[]){128, 2, 1}, 3);
  occ_jw_object(w, "empty_object");
  occ_jw_close(w);
  occ_jw_array(w, "empty_array");
  occ_jw_close(w);
  occ_jw_array(w, "rows");
  for (int i = 0; i < 3; i++) {
    occ_jw_object(w, NULL);
    occ_jw_int(w, "i", i);
    occ_jw_array(w, "nested");
    for (int j = 0; j < i; j++) occ_jw_ints(w, NULL, (int[]){j, j}, 2);
    occ_jw_close(w);
    occ_jw_close(w);
  }
  occ_jw_close(w);
  cJSON *tree = cJSON_CreateObject();
  cJSON_AddItemToObject(tree, "dims", cJSON_CreateIntArray((int[]){1, 2, 3}, 3));
  cJSON_AddNumberToObject(tree, "n", 0.5);
  occ_jw_item(w, "tree", tree);
  occ_jw_close(w);
}

/* The same document, its "repeated" member captured once then written
 * raw twice (as a device object is). */
static void describe_with_capture(occ_jw *w) {
  occ_jw capture;
  occ_jw_capture(&capture, w->formatted, 1);
  occ_jw_object(&capture, NULL);
  occ_jw_string(&capture, "name", "H100");
  occ_jw_ints(&capture, "dims", (int[]){1024, 1024, 64}, 3);
  occ_jw_close(&capture);
  size_t len;
  const char *text = occ_jw_captured(&capture, &len);
  cr_assert_not_null(text);
  occ_jw_object(w, NULL);
  occ_jw_raw(w, "first", text, len);
  occ_jw_raw(w, "second", text, len);
  occ_jw_close(w);
}

static void describe_written(occ_jw *w) {
  occ_jw_object(w, NULL);
  for (int i = 0; i < 2; i++) {
    occ_jw_object(w, i ? "second" : "first");
    occ_jw_string(w, "name", "H100");
    occ_jw_ints(w, "dims", (int[]){1024, 1024, 64}, 3);
    occ_jw_close(w);
  }
  occ_jw_close(w);
}

static char *streamed(void (*fn)(occ_jw *), bool formatted) {
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  cr_assert_not_null(out);
  occ_jw w;
  occ_jw_stream(&w, out, formatted);
  fn(&w);
  cr_assert(occ_jw_end_stream(&w));
  fclose(out);
  return text;
}

/* The stream prints what the tree sink builds, as the tree printer
 * prints it (as_cjson_prints: cJSON's layout), in both layouts; a
 * captured value written raw is the value written in place. */
Test(json_write, writer_stream_is_tree) {
  occ_jw w;
  occ_jw_tree(&w);
  describe(&w);
  cJSON *tree = occ_jw_end_tree(&w);
  cr_assert_not_null(tree);
  for (int formatted = 0; formatted < 2; formatted++) {
    char *want = json_printed(formatted ? occ_json_write_formatted
                                        : occ_json_write_compact, tree);
    char *got = streamed(describe, formatted);
    cr_expect_str_eq(got, want, "formatted %d", formatted);
    free(got);
    free(want);
    want = streamed(describe_written, formatted);
    got = streamed(describe_with_capture, formatted);
    cr_expect_str_eq(got, want, "captured, formatted %d", formatted);
    free(got);
    free(want);
  }
  cJSON *big = cJSON_GetObjectItemCaseSensitive(tree, "big");
  cr_expect(cJSON_IsRaw(big) && !strcmp(big->valuestring, "1795279669160074501"));
  cJSON_Delete(tree);
}

/* An unbalanced description, or an item that could not be made (NULL), is
 * a failure of both sinks. */
Test(json_write, writer_failures) {
  occ_jw w;
  occ_jw_tree(&w);
  occ_jw_object(&w, NULL);
  cr_expect_null(occ_jw_end_tree(&w));
  occ_jw_tree(&w);
  occ_jw_object(&w, NULL);
  occ_jw_item(&w, "x", NULL);
  occ_jw_close(&w);
  cr_expect_null(occ_jw_end_tree(&w));
  FILE *out = fopen("/dev/null", "w");
  cr_assert_not_null(out);
  occ_jw_stream(&w, out, false);
  occ_jw_object(&w, NULL);
  occ_jw_item(&w, "x", NULL);
  occ_jw_close(&w);
  cr_expect_not(occ_jw_end_stream(&w));
  occ_jw_stream(&w, out, false);
  occ_jw_close(&w);
  cr_expect_not(occ_jw_end_stream(&w));
  fclose(out);
}
