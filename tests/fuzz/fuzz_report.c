/* fuzz_report.c - libFuzzer target for `occcalc report`'s merge,
 * in-process: the reader of run --json reports (db/rank_report.c), the
 * merge (model/run_merge.c, both halves and their sum, as the command
 * merges them) and the writers (render/merge_out.c).
 *
 * The input: byte 0 picks the format (bits 0-1: text, --json, --csv) and
 * whether the reports are merged in two halves (bit 2); the rest is one or
 * more reports, NUL bytes between them (a NUL is no JSON text). With its
 * dictionary (tests/fuzz/report.dict: the keys and values of a run
 * report), the fuzzer reaches the checks of forged fields. Aborts when a
 * refusal gives no reason, a status is not one of the merge's, or an
 * accepted merge's --json does not parse back or holds a null sum. Built
 * and run by `make fuzz-report` (tests/fuzz/fuzz.mk). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "model/run_merge.h"
#include "render/merge_out.h"

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  devnull = fopen("/dev/null", "w");
  if (!devnull) abort();
  return 0;
}

/* Adds text to m; false when refused (the reason checked). */
static bool add(occ_run_merge *m, const char *text, size_t size) {
  char why[512] = "";
  int rc = occ_run_merge_add(m, "r.json", text, size, why, sizeof why);
  if (rc != 0 && rc != -1 && rc != -2) abort();
  if (rc == -1 && !why[0]) abort();
  return rc == 0;
}

/* The merge's --json, parsed back: every sum a number. */
static void check_json(const occ_run_merge *m) {
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  if (!f) return;
  bool written = occ_merge_print(f, OCC_FORMAT_JSON, m);
  fclose(f);
  cJSON *doc = written ? cJSON_Parse(text) : NULL;
  if (written && !doc) abort();
  const cJSON *rows = cJSON_GetObjectItemCaseSensitive(doc, "rows");
  for (const cJSON *row = rows ? rows->child : NULL; row; row = row->next) {
    static const char *const sums[] = {"launch_count", "counter_launch_count",
                                       "total_time_us", "mean_time_us"};
    for (size_t i = 0; i < sizeof sums / sizeof *sums; i++)
      if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(row, sums[i])))
        abort();
  }
  cJSON_Delete(doc);
  free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  static const occ_format formats[] = {OCC_FORMAT_TEXT, OCC_FORMAT_JSON,
                                       OCC_FORMAT_CSV, OCC_FORMAT_JSON};
  occ_format format = formats[data[0] & 3];
  bool halves = data[0] & 4;
  const char *text = (const char *)data + 1, *end = (const char *)data + size;
  size_t reports = 1;
  for (const char *p = text; p < end; p++) reports += *p == '\0';
  occ_run_merge *first = occ_run_merge_new(), *second = occ_run_merge_new();
  if (!first || !second) abort();
  bool ok = true;
  size_t i = 0;
  for (const char *p = text; ok && p <= end; i++) {
    const char *nul = memchr(p, '\0', (size_t)(end - p));
    const char *stop = nul ? nul : end;
    ok = add(halves && 2 * i >= reports ? second : first, p, (size_t)(stop - p));
    p = stop + 1;
  }
  if (ok && halves) {
    char why[512] = "";
    int rc = occ_run_merge_absorb(first, second, why, sizeof why);
    if (rc == -1 && !why[0]) abort();
    ok = rc == 0;
  }
  if (ok) {
    if (!occ_merge_print(devnull, format, first) && format != OCC_FORMAT_JSON)
      abort();
    check_json(first);
  }
  occ_run_merge_free(first);
  occ_run_merge_free(second);
  return 0;
}
