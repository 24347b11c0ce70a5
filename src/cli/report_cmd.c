/* report_cmd.c - `occcalc report FILE...`: reads each run --json report,
 * merges them (src/db/run_merge.c) and writes the merged report (see
 * report_cmd.h). */
#include "cli/report_cmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "db/run_merge.h"
#include "cli/pipeline.h"
#include "render/merge_out.h"
#include "text/text_safe.h"

/* A report larger than this is refused rather than read: run --json of
 * 40,000 configurations is about 100 MB (BENCHMARKS.md). */
#define REPORT_MAX_BYTES (INT64_C(1) << 30)

/* Reads the whole file into *text (malloc'd, *size bytes). Returns 0, or
 * -1 with why. */
static int read_file(const char *path, char **text, size_t *size, char *why,
                     size_t why_size) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(why, why_size, "cannot open: %s", strerror(errno));
    return -1;
  }
  /* A file or a pipe (a shell's <(...)); a device such as /dev/zero would
   * be read up to the limit for nothing. */
  struct stat st;
  if (fstat(fileno(f), &st) != 0 || (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))) {
    snprintf(why, why_size, "not a regular file (accepted: an occcalc run "
                            "--json report)");
    fclose(f);
    return -1;
  }
  size_t cap = 65536, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    if (n == cap) {
      if ((int64_t)cap >= REPORT_MAX_BYTES) {
        snprintf(why, why_size, "larger than %lld bytes: not a run report",
                 (long long)REPORT_MAX_BYTES);
        free(buf);
        fclose(f);
        return -1;
      }
      char *grown = realloc(buf, 2 * cap);
      if (!grown) break;
      buf = grown;
      cap *= 2;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
  }
  if (!buf) {
    fclose(f);
    snprintf(why, why_size, "out of memory");
    return -1;
  }
  if (ferror(f)) {
    snprintf(why, why_size, "cannot read: %s", strerror(errno ? errno : EIO));
    free(buf);
    fclose(f);
    return -1;
  }
  fclose(f);
  *text = buf;
  *size = n;
  return 0;
}

int occ_report_command(const occ_cli *cli) {
  occ_run_merge *merge = occ_run_merge_new();
  if (!merge) {
    occ_msg(stderr, "report: out of memory");
    return OCC_EXIT_FAILURE;
  }
  int rc = OCC_EXIT_OK;
  for (char **file = cli->report_files; *file && rc == OCC_EXIT_OK; file++) {
    char why[512];
    char *text = NULL;
    size_t size = 0;
    if (read_file(*file, &text, &size, why, sizeof why) != 0) {
      occ_msg(stderr, "report: %s: %s", *file, why);
      rc = OCC_EXIT_USAGE;
      break;
    }
    int added = occ_run_merge_add(merge, *file, text, size, why, sizeof why);
    free(text);
    if (added == -2) {
      occ_msg(stderr, "report: %s: out of memory", *file);
      rc = OCC_EXIT_FAILURE;
    } else if (added != 0) {
      occ_msg(stderr, "report: %s: %s", *file, why);
      rc = OCC_EXIT_USAGE;
    }
  }
  cJSON *doc = rc == OCC_EXIT_OK ? occ_run_merge_result(merge) : NULL;
  occ_run_merge_free(merge);
  if (rc != OCC_EXIT_OK) return rc;
  if (!doc) {
    occ_msg(stderr, "report: out of memory");
    return OCC_EXIT_FAILURE;
  }
  if (!occ_merge_print(stdout, occ_pipeline_format(cli), doc)) {
    occ_msg(stderr, "report: out of memory writing JSON");
    rc = OCC_EXIT_FAILURE;
  }
  cJSON_Delete(doc);
  return rc;
}
