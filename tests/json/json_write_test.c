/* json_write_test.c - what render/json_write.h adds to cJSON (Criterion):
 * integers printed exactly past 2^53, each byte of invalid UTF-8 written as
 * U+FFFD, and everything else exactly as cJSON_PrintUnformatted and
 * cJSON_Print write it. */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
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
  cr_assert_not_null(cJSON_AddNumberToObject(doc, "third", 1.0 / 3));
  cr_assert_not_null(cJSON_AddNumberToObject(doc, "big", 1e300));
  cr_assert_not_null(cJSON_AddNullToObject(doc, "none"));
  cr_assert_not_null(cJSON_AddBoolToObject(doc, "yes", 1));
  cr_assert(cJSON_AddItemToObject(doc, "block", cJSON_CreateIntArray(block, 3)));
  cJSON *inner = cJSON_AddObjectToObject(cJSON_AddObjectToObject(doc, "a"), "b");
  cr_assert_not_null(cJSON_AddArrayToObject(inner, "empty"));
  cr_assert_not_null(cJSON_AddObjectToObject(inner, "empty_object"));
  same_as_cjson(doc);
  cJSON_Delete(doc);
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

/* Streamed rows are laid out as cJSON_Print lays out the whole tree, for
 * no row, one and several. */
Test(json_write, streamed_as_cjson_prints) {
  for (size_t count = 0; count <= 5; count++) {
    cJSON *whole = stream_doc(count, true), *shell = stream_doc(count, false);
    char *want = cJSON_Print(whole), *got = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&got, &size);
    cr_assert_not_null(f);
    cr_assert(occ_json_write_streamed(f, shell, "rows", stream_row, NULL, count));
    fclose(f);
    cr_expect_str_eq(got, want, "%zu rows", count);
    free(got);
    cJSON_free(want);
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
