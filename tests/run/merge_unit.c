/* merge_unit.c - `occcalc report`'s merge of run --json reports
 * (src/model/run_merge.c over src/db/rank_report.c, written by
 * src/render/merge_out.c): rows summed across ranks, achieved occupancy
 * and metrics weighted by each rank's measured launches, the per-rank
 * breakdown, one clear reason for each kind of bad file, forged fields
 * refused, and sums at the extremes. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/run_merge.h"
#include "render/merge_out.h"

#include <cjson/cJSON.h>

/* A run --json report of one row, in schema 3's vocabulary: the mangled
 * name in the kernel object, device_ordinal the number, device the
 * device's object (null: unread). */
static const char *report(char *buf, size_t size, const char *name, int device,
                          int launches, int measured, const char *achieved,
                          const char *theoretical, const char *metric) {
  snprintf(buf, size,
           "{\"schema\": 3, \"program\": \"train.py\", \"exit_status\": 0, "
           "\"launch_count\": %d, \"rows\": [{\"kernel\": {\"name\": \"%s()\", "
           "\"mangled_name\": \"_Z%zu%sv\", \"block\": [256, 1, 1]}, "
           "\"device_ordinal\": %d, \"device\": null, "
           "\"grid\": [1024, 1, 1], \"cluster\": [1, 1, 1], "
           "\"launch_type\": \"regular\", \"smem_executed_bytes\": 233472, "
           "\"launch_count\": %d, \"counter_launch_count\": %d, "
           "\"total_time_us\": %d, \"mean_time_us\": 10, "
           "\"theoretical_occupancy\": %s, \"achieved_occupancy\": %s, "
           "\"metrics\": {\"m1\": %s}, \"launches\": []}]}",
           launches, name, strlen(name), name, device, launches, measured,
           10 * launches, theoretical, achieved, metric);
  return buf;
}

static void add(occ_run_merge *m, const char *label, const char *text) {
  char why[200] = "";
  cr_assert_eq(occ_run_merge_add(m, label, text, strlen(text), why, sizeof why),
               0, "%s: %s", label, why);
}

/* The merged report as --json writes it, parsed back. */
static cJSON *occ_run_merge_result(const occ_run_merge *m) {
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  cr_assert(f);
  cr_assert(occ_merge_print(f, OCC_FORMAT_JSON, m));
  fclose(f);
  cJSON *doc = cJSON_Parse(text);
  cr_assert(doc, "the JSON does not parse: %.200s", text);
  free(text);
  return doc;
}

static double num(const cJSON *o, const char *name) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
  cr_assert(cJSON_IsNumber(v), "%s is not a number", name);
  return v->valuedouble;
}

Test(merge, rows_summed_across_ranks_with_breakdown) {
  char a[2048], b[2048];
  occ_run_merge *m = occ_run_merge_new();
  add(m, "r0.json", report(a, sizeof a, "k", 0, 3, 2, "0.5", "1", "10"));
  add(m, "r1.json", report(b, sizeof b, "k", 1, 1, 1, "0.8", "1", "40"));
  cJSON *doc = occ_run_merge_result(m);
  cr_assert(doc);
  cr_assert_eq(num(doc, "launch_count"), 4);
  const cJSON *rows = cJSON_GetObjectItemCaseSensitive(doc, "rows");
  cr_assert_eq(cJSON_GetArraySize(rows), 1, "one configuration, two ranks");
  const cJSON *row = rows->child;
  cr_assert_eq(num(row, "launch_count"), 4);
  cr_assert_eq(num(row, "counter_launch_count"), 3);
  cr_assert_eq(num(row, "total_time_us"), 40);
  cr_assert_eq(num(row, "mean_time_us"), 10);
  /* (0.5 x 2 + 0.8 x 1) / 3 measured launches */
  cr_assert_float_eq(num(row, "achieved_occupancy"), 0.6, 1e-12);
  cr_assert_float_eq(
      num(cJSON_GetObjectItemCaseSensitive(row, "metrics"), "m1"), 20, 1e-12);
  cr_assert_null(cJSON_GetObjectItemCaseSensitive(row, "launches"));
  const cJSON *ranks = cJSON_GetObjectItemCaseSensitive(row, "ranks");
  cr_assert_eq(cJSON_GetArraySize(ranks), 2);
  cr_assert_str_eq(
      cJSON_GetObjectItemCaseSensitive(ranks->child, "report")->valuestring,
      "r0.json");
  cr_assert_eq(num(ranks->child->next, "device_ordinal"), 1);
  cr_assert_null(cJSON_GetObjectItemCaseSensitive(row, "device_ordinal"),
                 "the merged row kept one rank's device");
  cr_assert_float_eq(num(ranks->child->next, "achieved_occupancy"), 0.8, 1e-12);
  const cJSON *merged = cJSON_GetObjectItemCaseSensitive(doc, "merged_reports");
  cr_assert_eq(cJSON_GetArraySize(merged), 2);
  cJSON_Delete(doc);
  occ_run_merge_free(m);
}

Test(merge, configurations_apart_in_first_met_order) {
  char a[2048], b[2048], c[2048];
  occ_run_merge *m = occ_run_merge_new();
  add(m, "a", report(a, sizeof a, "k", 0, 1, 0, "null", "1", "null"));
  add(m, "b", report(b, sizeof b, "other", 0, 2, 0, "null", "1", "null"));
  /* The same kernel where theoretical occupancy differs: another GPU. */
  add(m, "c", report(c, sizeof c, "k", 0, 5, 0, "null", "0.5", "null"));
  cJSON *doc = occ_run_merge_result(m);
  const cJSON *rows = cJSON_GetObjectItemCaseSensitive(doc, "rows");
  cr_assert_eq(cJSON_GetArraySize(rows), 3);
  cr_assert_eq(num(rows->child, "launch_count"), 1);
  cr_assert_eq(num(rows->child->next, "launch_count"), 2);
  cr_assert_eq(num(rows->child->next->next, "launch_count"), 5);
  /* Nothing measured: null, never 0. */
  cr_assert(cJSON_IsNull(
      cJSON_GetObjectItemCaseSensitive(rows->child, "achieved_occupancy")));
  cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(rows->child, "metrics"), "m1")));
  cJSON_Delete(doc);
  occ_run_merge_free(m);
}

Test(merge, a_report_without_rows_is_merged_as_nothing) {
  const char *empty_run = "{\"schema\": 3, \"program\": \"p\", "
                          "\"exit_status\": 1, \"launch_count\": 0, "
                          "\"rows\": []}";
  char a[2048];
  occ_run_merge *m = occ_run_merge_new();
  add(m, "none", empty_run);
  add(m, "a", report(a, sizeof a, "k", 0, 1, 1, "0.25", "1", "1"));
  cJSON *doc = occ_run_merge_result(m);
  cr_assert_eq(
      cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "rows")), 1);
  cr_assert_eq(cJSON_GetArraySize(
                   cJSON_GetObjectItemCaseSensitive(doc, "merged_reports")),
               2);
  cJSON_Delete(doc);
  occ_run_merge_free(m);
}

static void refused(const char *text, const char *why_has) {
  occ_run_merge *m = occ_run_merge_new();
  char why[300] = "";
  cr_assert_eq(
      occ_run_merge_add(m, "bad.json", text, strlen(text), why, sizeof why), -1,
      "accepted: %s", text);
  cr_assert(strstr(why, why_has), "why '%s' lacks '%s'", why, why_has);
  occ_run_merge_free(m);
}

Test(merge, bad_files_each_with_one_reason) {
  char a[2048];
  report(a, sizeof a, "k", 0, 3, 2, "0.5", "1", "10");
  refused("", "empty");
  char truncated[2048];
  snprintf(truncated, sizeof truncated, "%.*s", (int)strlen(a) / 2, a);
  refused(truncated, "not JSON (invalid or cut short at byte");
  refused("{\"schema\": 3,, }", "not JSON (invalid or cut short at byte 1");
  refused("[1, 2]", "not an object");
  refused("{\"rows\": []}", "no schema");
  refused("{\"schema\": 1, \"rows\": [], \"launch_count\": 0}",
          "schema 1, not 3");
  /* A report of an occcalc before schema 3 (the mangled name beside the
   * kernel, device the ordinal). */
  refused("{\"schema\": 2, \"rows\": [], \"launch_count\": 0}",
          "schema 2, not 3");
  refused("{\"schema\": 3, \"launch_count\": 0}", "no rows");
  refused("{\"schema\": 3, \"launch_count\": 1, \"rows\": [{\"kernel\": "
          "{\"name\": \"k()\"}, \"mangled_name\": \"_Z1kv\"}]}",
          "rows[0].kernel.mangled_name");
  char stream[4200];
  snprintf(stream, sizeof stream, "%s\n%s\n", a, a);
  refused(stream, "not one JSON document");
  char bad[2048];
  report(bad, sizeof bad, "k", 0, 0, 0, "null", "1", "null");
  refused(bad, "rows[0].launch_count");
  report(bad, sizeof bad, "k", 0, 1, 2, "0.5", "1", "1");
  refused(bad, "rows[0].counter_launch_count");
  report(bad, sizeof bad, "k", 0, 1, 1, "1.5", "1", "1");
  refused(bad, "rows[0].achieved_occupancy");
  report(bad, sizeof bad, "k", 0, 1, 1, "0.5", "\"x\"", "1");
  refused(bad, "rows[0].theoretical_occupancy");
  report(bad, sizeof bad, "k", 0, 1, 1, "0.5", "1", "\"x\"");
  refused(bad, "rows[0].metrics.m1");
}

/* Forged fields: whatever the merge trusts, it checks. */
Test(merge, forged_fields_refused) {
  char a[2048], forged[4096];
  report(a, sizeof a, "k", 0, 3, 2, "0.5", "1", "10");
  /* A key given twice: cJSON keeps both, and a lookup finds one of them. */
  char *at = strstr(a, "\"achieved_occupancy\": 0.5");
  cr_assert(at);
  snprintf(forged, sizeof forged, "%.*s\"achieved_occupancy\": 0.5, %s",
           (int)(at - a), a, at + strlen("\"achieved_occupancy\": 0.5, "));
  snprintf(forged, sizeof forged, "%.*s\"achieved_occupancy\": 0.5, "
           "\"achieved_occupancy\": 7, %s", (int)(at - a), a,
           at + strlen("\"achieved_occupancy\": 0.5, "));
  refused(forged, "rows[0]: \"achieved_occupancy\" is given twice");
  /* Twice deep inside (the kernel object), and at the top level. */
  at = strstr(a, "\"block\"");
  snprintf(forged, sizeof forged, "%.*s\"block\": [1, 1, 1], %s",
           (int)(at - a), a, at);
  refused(forged, "rows[0].kernel: \"block\" is given twice");
  snprintf(forged, sizeof forged, "{\"schema\": 3, %s", a + 1);
  refused(forged, "\"schema\" is given twice");
  /* A second "rows". */
  snprintf(forged, sizeof forged, "%.*s, \"rows\": []}",
           (int)strlen(a) - 1, a);
  refused(forged, "\"rows\" is given twice");
  /* A launch_count its rows contradict. */
  snprintf(forged, sizeof forged, "%s", a);
  at = strstr(forged, "\"launch_count\": 3");
  memcpy(at, "\"launch_count\": 9", 17);
  refused(forged, "launch_count 9, but its rows' launch counts sum to 3");
  /* A row's "ranks": a merged report's field. */
  at = strstr(a, "\"launches\"");
  snprintf(forged, sizeof forged, "%.*s\"ranks\": [], %s", (int)(at - a), a,
           at);
  refused(forged, "rows[0].ranks");
  /* A merged report given as a run report. */
  refused("{\"schema\": 3, \"merged_reports\": [], \"launch_count\": 0, "
          "\"rows\": []}", "a merged report");
  /* One configuration twice in one report. */
  const char *row = strstr(a, "{\"kernel\"");
  size_t row_len = strlen(row) - 2; /* without "]}" */
  snprintf(forged, sizeof forged,
           "{\"schema\": 3, \"launch_count\": 6, \"rows\": [%.*s, %.*s]}",
           (int)row_len, row, (int)row_len, row);
  refused(forged, "rows[1] repeats an earlier row's configuration");
  /* An infinite time (1e999 parses as inf). */
  report(forged, sizeof forged, "k", 0, 1, 1, "0.5", "1", "1e999");
  refused(forged, "rows[0].metrics.m1 is not a finite number");
}

/* Nested values at the top level (a future report's sections) are read
 * and checked, not refused: only what the merge reads must be there. */
Test(merge, nested_top_level_values_accepted) {
  char a[2048], nested[2300];
  report(a, sizeof a, "k", 0, 1, 1, "0.5", "1", "1");
  snprintf(nested, sizeof nested,
           "{\"note\": {\"a\": {\"b\": {\"c\": [{\"d\": {}}]}}}, %s", a + 1);
  occ_run_merge *m = occ_run_merge_new();
  add(m, "nested.json", nested);
  occ_run_merge_free(m);
  snprintf(nested, sizeof nested,
           "{\"note\": {\"a\": {\"b\": {\"c\": [{\"d\": 1, \"d\": 2}]}}}, %s",
           a + 1);
  refused(nested, "note.a.b.c[0]: \"d\" is given twice");
}

/* The ranks of a row are the reports that have it, never a field. */
Test(merge, ranks_counted_from_the_reports) {
  char a[2048], b[2048];
  occ_run_merge *m = occ_run_merge_new();
  add(m, "r0.json", report(a, sizeof a, "k", 0, 1, 1, "0.5", "1", "1"));
  add(m, "r1.json", report(b, sizeof b, "k", 1, 1, 1, "0.5", "1", "1"));
  cr_assert_eq(m->row_count, 1);
  cr_assert_eq(m->rows[0].rank_count, 2);
  cr_assert_eq(m->report_count, 2);
  occ_run_merge_free(m);
}

/* Sums at the extremes: refused past 2^53, never inf or null. */
Test(merge, extremes) {
  char a[2048], b[2048], why[300] = "";
  /* A metric near the largest double, measured in two reports: its mean
   * is that value, not inf (JSON null: "not measured"). */
  occ_run_merge *m = occ_run_merge_new();
  add(m, "r0.json", report(a, sizeof a, "k", 0, 1, 1, "0.5", "1", "1.7e308"));
  add(m, "r1.json", report(b, sizeof b, "k", 1, 1, 1, "0.5", "1", "1.7e308"));
  cJSON *doc = occ_run_merge_result(m);
  const cJSON *metrics = cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(doc, "rows")->child, "metrics");
  cr_assert_float_eq(num(metrics, "m1"), 1.7e308, 1e294);
  cJSON_Delete(doc);
  occ_run_merge_free(m);
  /* A total time past 2^53 us over two reports is refused, with why. */
  char big[2048];
  report(big, sizeof big, "k", 0, 1, 1, "0.5", "1", "1");
  char *at = strstr(big, "\"total_time_us\": 10");
  char forged[2100];
  snprintf(forged, sizeof forged, "%.*s\"total_time_us\": 5e15%s",
           (int)(at - big), big, at + strlen("\"total_time_us\": 10"));
  m = occ_run_merge_new();
  add(m, "r0.json", forged);
  cr_assert_eq(occ_run_merge_add(m, "r1.json", forged, strlen(forged), why,
                                 sizeof why), -1);
  cr_assert(strstr(why, "passes 9007199254740992"), "why: %s", why);
  occ_run_merge_free(m);
  /* One row of 1e300 us is refused, not printed with wrong digits. */
  snprintf(forged, sizeof forged, "%.*s\"total_time_us\": 1e300%s",
           (int)(at - big), big, at + strlen("\"total_time_us\": 10"));
  refused(forged, "rows[0].total_time_us is missing or out of range");
}

/* Two halves merged apart and then together give the merge of all the
 * reports in order: the same rows in the same order, the same figures. */
Test(merge, halves_absorbed_as_one) {
  char t[6][2048];
  const char *names[] = {"a", "b", "a", "c", "b", "a"};
  occ_run_merge *one = occ_run_merge_new(), *first = occ_run_merge_new(),
                *second = occ_run_merge_new();
  for (int i = 0; i < 6; i++) {
    char metric[16];
    snprintf(metric, sizeof metric, "%d.25", i * 7);
    report(t[i], sizeof t[i], names[i], i, i + 1, i, i % 2 ? "0.3" : "0.7",
           "1", metric);
    char label[16];
    snprintf(label, sizeof label, "r%d", i);
    add(one, label, t[i]);
    add(i < 3 ? first : second, label, t[i]);
  }
  char why[200];
  cr_assert_eq(occ_run_merge_absorb(first, second, why, sizeof why), 0);
  occ_run_merge_free(second);
  cJSON *a = occ_run_merge_result(one), *b = occ_run_merge_result(first);
  char *ta = cJSON_Print(a), *tb = cJSON_Print(b);
  cr_assert_str_eq(ta, tb);
  free(ta);
  free(tb);
  cJSON_Delete(a);
  cJSON_Delete(b);
  occ_run_merge_free(one);
  occ_run_merge_free(first);
}
