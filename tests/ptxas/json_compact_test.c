/* json_compact_test.c - occ_json_write_compact writes what
 * cJSON_PrintUnformatted writes, byte for byte, for every kind of value
 * and the numbers where "%1.15g" and "%1.17g" differ (Criterion). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out/json_compact.h"

static void same_as(char *(*print)(const cJSON *),
                    void (*write)(FILE *, const cJSON *), const cJSON *item) {
  char *want = print(item);
  cr_assert_not_null(want);
  char *got = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&got, &len);
  cr_assert_not_null(out);
  write(out, item);
  fclose(out);
  cr_assert_str_eq(got, want);
  free(got);
  free(want);
}

/* Both layouts of item against cJSON's own. */
static void same_as_cjson(const cJSON *item) {
  same_as(cJSON_PrintUnformatted, occ_json_write_compact, item);
  same_as(cJSON_Print, occ_json_write_formatted, item);
}

Test(json_compact, numbers) {
  static const double numbers[] = {
      0, 1, -1, 42, 233472, 2147483647.0, 2147483648.0, -2147483649.0,
      1e15 - 1, 1e15, 1e16, 1e20, 123456789012345.0, 0.5, 0.1, 1.0 / 3,
      2.0 / 3, 0.625, 0.30000000000000004, 1e-7, -2.5, 6.02214076e23,
      0.1 + 0.2, 100.0 / 48, 40.0 / 64};
  for (size_t i = 0; i < sizeof numbers / sizeof *numbers; i++) {
    cJSON *n = cJSON_CreateNumber(numbers[i]);
    same_as_cjson(n);
    cJSON_Delete(n);
  }
}

Test(json_compact, strings_and_structure) {
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "plain", "tk<64>(double*)");
  cJSON_AddStringToObject(root, "escapes", "q\"b\\s/\b\f\n\r\t\x01\x1f\x7f\xc3\xa9");
  cJSON_AddStringToObject(root, "", "");
  cJSON_AddNullToObject(root, "null");
  cJSON_AddTrueToObject(root, "yes");
  cJSON_AddFalseToObject(root, "no");
  cJSON_AddItemToObject(root, "empty_object", cJSON_CreateObject());
  cJSON_AddItemToObject(root, "empty_array", cJSON_CreateArray());
  int block[3] = {256, 1, 1};
  cJSON_AddItemToObject(root, "block", cJSON_CreateIntArray(block, 3));
  cJSON *nested = cJSON_AddObjectToObject(root, "nested");
  cJSON_AddNumberToObject(nested, "occupancy", 2.0 / 3);
  cJSON_AddItemToObject(nested, "raw", cJSON_CreateRaw("{\"a\":1}"));
  same_as_cjson(root);
  cJSON_Delete(root);
}

/* Objects inside arrays inside objects: the formatted layout's depth. */
Test(json_compact, nesting) {
  cJSON *root = cJSON_CreateObject();
  cJSON *rows = cJSON_AddArrayToObject(root, "rows");
  for (int i = 0; i < 3; i++) {
    cJSON *row = cJSON_CreateObject();
    cJSON_AddNumberToObject(row, "x", i);
    cJSON *inner = cJSON_AddArrayToObject(row, "inner");
    cJSON_AddItemToArray(inner, cJSON_CreateArray());
    cJSON_AddItemToArray(inner, cJSON_CreateObject());
    cJSON *deep = cJSON_CreateObject();
    cJSON_AddStringToObject(deep, "name", "k");
    cJSON_AddItemToArray(inner, deep);
    cJSON_AddItemToArray(rows, row);
  }
  cJSON *top = cJSON_CreateArray();
  cJSON_AddItemToArray(top, root);
  cJSON_AddItemToArray(top, cJSON_CreateNumber(1));
  same_as_cjson(top);
  cJSON *deep = top;
  for (int i = 0; i < 40; i++) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "d", deep);
    deep = o;
  }
  same_as_cjson(deep);
  cJSON_Delete(deep);
}

/* What occ_json_write_compact writes for a string value. */
static char *compact_string(const char *text) {
  cJSON *s = cJSON_CreateString(text);
  cr_assert_not_null(s);
  char *got = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&got, &len);
  cr_assert_not_null(out);
  occ_json_write_compact(out, s);
  fclose(out);
  cJSON_Delete(s);
  return got;
}

/* Valid UTF-8 of every length, the edges of the ranges included, stays
 * byte for byte what cJSON writes. */
Test(json_compact, valid_utf8_as_cjson) {
  static const char *const texts[] = {
      "\xc2\x80", "\xdf\xbf", "\xe0\xa0\x80", "\xed\x9f\xbf", "\xee\x80\x80",
      "\xef\xbf\xbd", "\xf0\x90\x80\x80", "\xf4\x8f\xbf\xbf",
      "k<\xce\xbb>(\xe2\x80\x94)"};
  for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
    cJSON *s = cJSON_CreateString(texts[i]);
    same_as_cjson(s);
    cJSON_Delete(s);
  }
}

/* Each byte of an invalid sequence becomes U+FFFD: stray continuation
 * bytes, a lead byte cut short, overlong forms, surrogates, past
 * U+10FFFF, bytes never used. */
Test(json_compact, invalid_utf8_replaced) {
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
    char *got = compact_string(cases[i].text);
    cr_assert_str_eq(got, cases[i].want, "case %zu", i);
    free(got);
  }
}
