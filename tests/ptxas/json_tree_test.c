/* json_tree_test.c - occcalc's JSON tree (out/json_tree.h) printed by its
 * printers is what cJSON_PrintUnformatted and cJSON_Print write for the
 * same document, byte for byte: every kind of value, the numbers where
 * "%1.15g" and "%1.17g" differ, nesting, and the tree's own edits
 * (Criterion). cJSON builds each reference document; from_cjson copies it
 * through the tree's calls. */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out/json_tree.h"
#include "../json_parsed.h"

/* The same document built with out/json_tree.h's calls. */
static occ_jnode *from_cjson(const cJSON *item) {
  switch (item->type & 0xFF) {
  case cJSON_NULL: return occ_jnull();
  case cJSON_False: return occ_jbool(false);
  case cJSON_True: return occ_jbool(true);
  case cJSON_Number: return occ_jnumber(item->valuedouble);
  case cJSON_String: return occ_jstring(item->valuestring);
  case cJSON_Array:
  case cJSON_Object: {
    bool object = (item->type & 0xFF) == cJSON_Object;
    occ_jnode *n = object ? occ_jobject() : occ_jarray();
    for (const cJSON *c = item->child; c; c = c->next) {
      occ_jnode *child = from_cjson(c);
      cr_assert(object ? occ_jadd(n, c->string, child) : occ_jappend(n, child));
    }
    return n;
  }
  }
  cr_assert_fail("type %d", item->type);
  return NULL;
}

static char *printed(void (*write)(FILE *, const occ_jnode *), const occ_jnode *node) {
  char *got = json_printed(write, node);
  cr_assert_not_null(got);
  return got;
}

static void same_text(char *want, char *got) {
  cr_assert_not_null(want);
  cr_assert_str_eq(got, want);
  free(got);
  free(want);
}

/* node in both layouts against cJSON's own printing of item. */
static void prints_as(const occ_jnode *node, const cJSON *item) {
  same_text(cJSON_PrintUnformatted(item), printed(occ_json_write_compact, node));
  same_text(cJSON_Print(item), printed(occ_json_write_formatted, node));
}

static void same_as_cjson(const cJSON *item) {
  occ_jnode *node = from_cjson(item);
  cr_assert_not_null(node);
  prints_as(node, item);
  occ_jfree(node);
}

Test(json_tree, numbers) {
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

Test(json_tree, strings_and_structure) {
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
  same_as_cjson(root);
  cJSON_Delete(root);
}

/* Objects inside arrays inside objects: the formatted layout's depth. */
Test(json_tree, nesting) {
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
  occ_jnode *s = occ_jstring(text);
  cr_assert_not_null(s);
  char *got = printed(occ_json_write_compact, s);
  occ_jfree(s);
  return got;
}

/* The tree's own calls against cJSON's: the typed adds, the number
 * arrays, a replaced member (the last one too, and adding after it), a
 * lookup, and the refusals that leave the item the caller's. */
Test(json_tree, edits_as_cjson) {
  cJSON *want = cJSON_CreateObject();
  occ_jnode *got = occ_jobject();
  int block[3] = {128, 2, 1};
  double values[2] = {0.5, 1.0 / 3};
  cJSON_AddNumberToObject(want, "schema", 2);
  cr_assert_not_null(occ_jadd_number(got, "schema", 2));
  cJSON_AddStringToObject(want, "name", "k");
  cr_assert_not_null(occ_jadd_string(got, "name", "k"));
  cJSON_AddBoolToObject(want, "launchable", 1);
  cr_assert_not_null(occ_jadd_bool(got, "launchable", true));
  cJSON_AddItemToObject(want, "block", cJSON_CreateIntArray(block, 3));
  cr_assert(occ_jadd(got, "block", occ_jint_array(block, 3)));
  cJSON_AddItemToObject(want, "values", cJSON_CreateDoubleArray(values, 2));
  cr_assert(occ_jadd(got, "values", occ_jdouble_array(values, 2)));
  cJSON_AddObjectToObject(want, "waves");
  cr_assert_not_null(occ_jadd_object(got, "waves"));
  cJSON_AddArrayToObject(want, "steps");
  cr_assert_not_null(occ_jadd_array(got, "steps"));
  cJSON_AddNullToObject(want, "choice");
  cr_assert_not_null(occ_jadd_null(got, "choice"));
  cJSON_ReplaceItemInObjectCaseSensitive(want, "name", cJSON_CreateNumber(7));
  cr_assert(occ_jreplace(got, "name", occ_jnumber(7)));
  cJSON_ReplaceItemInObjectCaseSensitive(want, "choice", cJSON_CreateString("last"));
  cr_assert(occ_jreplace(got, "choice", occ_jstring("last")));
  cJSON_AddNumberToObject(want, "after", 1);
  cr_assert_not_null(occ_jadd_number(got, "after", 1));
  prints_as(got, want);
  cr_expect_null(occ_jget(got, "missing"));
  cr_expect_not_null(occ_jget(got, "block"));

  occ_jnode *item = occ_jnumber(1);
  cr_expect_not(occ_jreplace(got, "missing", item));
  cr_expect_not(occ_jadd(NULL, "x", item));
  cr_expect_not(occ_jappend(NULL, item));
  cr_expect_null(occ_jadd_number(NULL, "x", 1));
  cr_expect_not(occ_jadd(got, "x", NULL));
  occ_jfree(item); /* still the caller's: ASan finds a double free or leak */
  prints_as(got, want);
  occ_jfree(got);
  cJSON_Delete(want);
}

/* Valid UTF-8 of every length, the edges of the ranges included, stays
 * byte for byte what cJSON writes. */
Test(json_tree, valid_utf8_as_cjson) {
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
Test(json_tree, invalid_utf8_replaced) {
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

/* occ_jint prints every int64_t exactly, where a double would round (a
 * timestamp in ns is near 2^61); small ones as cJSON prints the number. */
Test(json_tree, integers_exact) {
  static const struct { int64_t value; const char *want; } cases[] = {
      {0, "0"},
      {-1, "-1"},
      {9007199254740993, "9007199254740993"}, /* 2^53 + 1 */
      {1795279669160074501, "1795279669160074501"},
      {INT64_MAX, "9223372036854775807"},
      {INT64_MIN, "-9223372036854775808"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    occ_jnode *n = occ_jint(cases[i].value);
    char *got = printed(occ_json_write_compact, n);
    cr_expect_str_eq(got, cases[i].want, "case %zu", i);
    free(got);
    occ_jfree(n);
  }
  occ_jnode *small = occ_jint(233472);
  cJSON *same = cJSON_CreateNumber(233472);
  prints_as(small, same);
  occ_jfree(small);
  cJSON_Delete(same);
}
