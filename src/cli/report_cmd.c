/* report_cmd.c - `occcalc report FILE...`: reads each run --json report,
 * folds it into the merge (src/model/run_merge.c) a row at a time and
 * frees it before the next, then writes the merged report (see
 * report_cmd.h).
 *
 * A job's reports are merged in two consecutive halves, each by its own
 * thread where occcalc has two processors; the second half's merge is
 * then added to the first's, which gives the rows and figures of one
 * merge in file order. Parsing JSON is most of the work, and two threads
 * take about half the time. */
/* sched_getaffinity is GNU's. */
#define _GNU_SOURCE
#include "cli/report_cmd.h"

#include <sched.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/pipeline.h"
#include "db/rank_report.h"
#include "model/run_merge.h"
#include "render/merge_out.h"
#include "text/text_safe.h"

/* A report larger than this is refused rather than read: run --json of
 * 40,000 configurations is about 100 MB (BENCHMARKS.md). */
#define REPORT_MAX_BYTES (INT64_C(1) << 30)

/* A read buffer, kept from one file to the next: a fresh one of 25 MB
 * costs 6,000 page faults. */
typedef struct buffer {
  char *bytes;
  size_t capacity;
} buffer;

/* Makes b hold at least want bytes (its content kept). */
static bool reserve(buffer *b, size_t want) {
  if (b->capacity >= want) return true;
  char *grown = realloc(b->bytes, want);
  if (!grown) return false;
  b->bytes = grown;
  b->capacity = want;
  return true;
}

/* Reads the whole file into b (*size bytes). Returns 0, -1 with why, or
 * -2 out of memory (an output error, not the file's). */
static int read_file(const char *path, buffer *b, size_t *size, char *why,
                     size_t why_size) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(why, why_size, "cannot open: %s", strerror(errno));
    return errno == ENOMEM ? -2 : -1;
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
  /* A regular file's size plus one byte, to see that it did not grow. */
  size_t want = S_ISREG(st.st_mode) && st.st_size < REPORT_MAX_BYTES
                    ? (size_t)st.st_size + 1 : 65536;
  size_t n = 0;
  bool ok = reserve(b, want);
  while (ok) {
    if (n == b->capacity) {
      if ((int64_t)n >= REPORT_MAX_BYTES) {
        snprintf(why, why_size, "larger than %lld bytes: not a run report",
                 (long long)REPORT_MAX_BYTES);
        fclose(f);
        return -1;
      }
      if (!(ok = reserve(b, 2 * n))) break;
    }
    size_t got = fread(b->bytes + n, 1, b->capacity - n, f);
    n += got;
    if (got == 0) break;
  }
  if (!ok) {
    fclose(f);
    return -2;
  }
  if (ferror(f)) {
    snprintf(why, why_size, "cannot read: %s", strerror(errno ? errno : EIO));
    fclose(f);
    return -1;
  }
  fclose(f);
  *size = n;
  return 0;
}

/* A file's identity: the same report named twice, or through a link,
 * would count its rank twice. */
typedef struct identity {
  dev_t dev;
  ino_t ino;
  size_t index;
} identity;

static int by_identity(const void *a, const void *b) {
  const identity *x = a, *y = b;
  if (x->dev != y->dev) return x->dev < y->dev ? -1 : 1;
  if (x->ino != y->ino) return x->ino < y->ino ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* The index of the first file that is one named before it (its first
 * name into *before), or count when none is. Files that cannot be
 * stat'ed are left to their read, which says why. -1 out of memory. */
static long first_repeat(char **files, size_t count, size_t *before) {
  identity *ids = malloc((count ? count : 1) * sizeof *ids);
  if (!ids) return -1;
  size_t n = 0;
  for (size_t i = 0; i < count; i++) {
    struct stat st;
    if (stat(files[i], &st) == 0) ids[n++] = (identity){st.st_dev, st.st_ino, i};
  }
  qsort(ids, n, sizeof *ids, by_identity);
  size_t repeat = count;
  for (size_t i = 1; i < n; i++)
    if (ids[i].dev == ids[i - 1].dev && ids[i].ino == ids[i - 1].ino &&
        ids[i].index < repeat) {
      repeat = ids[i].index;
      /* The group's first is the earliest name of that file. */
      size_t g = i - 1;
      while (g > 0 && ids[g - 1].dev == ids[i].dev && ids[g - 1].ino == ids[i].ino)
        g--;
      *before = ids[g].index;
    }
  free(ids);
  return (long)repeat;
}

/* A consecutive part of the files, merged by one thread. */
typedef struct part {
  char **files;
  size_t first, end;
  occ_run_merge *merge;
  size_t failed_at; /* the file refused, or SIZE_MAX */
  int rc;           /* its exit status */
  char why[600];    /* its one line, without "occcalc: " */
  atomic_bool *earlier_failed; /* set by the part before: this one stops */
  atomic_bool *failed;         /* set by this part */
} part;

static void fail(part *p, size_t i, int rc, const char *fmt, const char *a,
                 const char *b) {
  p->failed_at = i;
  p->rc = rc;
  snprintf(p->why, sizeof p->why, fmt, a, b);
  if (p->failed) atomic_store(p->failed, true);
}

static void *merge_part(void *arg) {
  part *p = arg;
  buffer b = {0};
  for (size_t i = p->first; i < p->end; i++) {
    if (p->earlier_failed && atomic_load(p->earlier_failed)) break;
    const char *file = p->files[i];
    char why[512];
    size_t size = 0;
    int read = read_file(file, &b, &size, why, sizeof why);
    if (read != 0) {
      fail(p, i, read == -2 ? OCC_EXIT_FAILURE : OCC_EXIT_USAGE,
           "report: %s: %s", file, read == -2 ? "out of memory" : why);
      break;
    }
    int added = occ_run_merge_add(p->merge, file, b.bytes, size, why, sizeof why);
    if (added == -2) {
      fail(p, i, OCC_EXIT_FAILURE, "report: %s: %s", file, "out of memory");
      break;
    }
    if (added != 0) {
      fail(p, i, OCC_EXIT_USAGE, "report: %s: %s", file, why);
      break;
    }
  }
  free(b.bytes);
  return NULL;
}

/* Whether occcalc may run on two processors (taskset -c 0 says no). */
static bool two_processors(void) {
  cpu_set_t cpus;
  return sched_getaffinity(0, sizeof cpus, &cpus) == 0 && CPU_COUNT(&cpus) >= 2;
}

/* Merges files[0..count) into *out. Returns OCC_EXIT_OK, or a status
 * after one line on stderr (*out NULL). */
static int merge_files(char **files, size_t count, occ_run_merge **out) {
  *out = NULL;
  part parts[2];
  atomic_bool failed0 = false;
  /* Two halves whatever the processors, each on its own thread where
   * there are two: a mean's last digit depends on the order of its sums,
   * and the same files give the same report on any machine. */
  size_t threads = count >= 2 ? 2 : 1;
  for (size_t t = 0; t < threads; t++)
    parts[t] = (part){.files = files,
                      .first = count * t / threads,
                      .end = count * (t + 1) / threads,
                      .merge = occ_run_merge_new(),
                      .failed_at = SIZE_MAX,
                      .earlier_failed = t ? &failed0 : NULL,
                      .failed = t ? NULL : &failed0};
  int rc = OCC_EXIT_OK;
  for (size_t t = 0; t < threads; t++)
    if (!parts[t].merge) rc = OCC_EXIT_FAILURE;
  pthread_t second;
  bool started = false;
  if (rc == OCC_EXIT_OK && threads == 2 && two_processors()) {
    occ_rank_report_hold_hooks(true);
    started = pthread_create(&second, NULL, merge_part, &parts[1]) == 0;
    if (!started) occ_rank_report_hold_hooks(false);
  }
  if (rc == OCC_EXIT_OK) merge_part(&parts[0]);
  if (started) {
    pthread_join(second, NULL);
    occ_rank_report_hold_hooks(false);
  } else if (rc == OCC_EXIT_OK && threads == 2) {
    merge_part(&parts[1]);
  }
  if (rc != OCC_EXIT_OK) {
    occ_msg(stderr, "report: out of memory");
  } else {
    /* The first file refused, in the order given. */
    for (size_t t = 0; t < threads && rc == OCC_EXIT_OK; t++)
      if (parts[t].failed_at != SIZE_MAX) {
        occ_msg(stderr, "%s", parts[t].why);
        rc = parts[t].rc;
      }
  }
  if (rc == OCC_EXIT_OK && threads == 2) {
    char why[512];
    int added = occ_run_merge_absorb(parts[0].merge, parts[1].merge, why,
                                     sizeof why);
    /* A sum that passes the limit only once the halves meet: the second
     * half's files are what pushed it. */
    if (added != 0) {
      const part *p = &parts[1];
      occ_msg(stderr, "report: %s%s: %s", files[p->first],
              p->end - p->first > 1 ? " and the files after it" : "",
              added == -2 ? "out of memory" : why);
      rc = added == -2 ? OCC_EXIT_FAILURE : OCC_EXIT_USAGE;
    }
  }
  for (size_t t = 1; t < threads; t++) occ_run_merge_free(parts[t].merge);
  if (rc != OCC_EXIT_OK) {
    occ_run_merge_free(parts[0].merge);
    return rc;
  }
  *out = parts[0].merge;
  return OCC_EXIT_OK;
}

int occ_report_command(const occ_cli *cli) {
  char **files = cli->report_files;
  size_t count = 0;
  while (files[count]) count++;
  size_t before = 0;
  long repeat = first_repeat(files, count, &before);
  if (repeat < 0) {
    occ_msg(stderr, "report: out of memory");
    return OCC_EXIT_FAILURE;
  }
  /* The files before the repeated one are read first: a bad one among
   * them is the first to say. */
  occ_run_merge *merge;
  int rc = merge_files(files, (size_t)repeat, &merge);
  if (rc != OCC_EXIT_OK) return rc;
  if ((size_t)repeat < count) {
    occ_msg(stderr, "report: %s: the same file as %s (each rank's report is "
            "merged once)", files[repeat], files[before]);
    occ_run_merge_free(merge);
    return OCC_EXIT_USAGE;
  }
  if (!occ_merge_print(stdout, occ_pipeline_format(cli), merge)) {
    occ_msg(stderr, "report: out of memory writing JSON");
    rc = OCC_EXIT_FAILURE;
  }
  occ_run_merge_free(merge);
  return rc;
}
