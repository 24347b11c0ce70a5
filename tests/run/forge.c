/* forge.c - forged launch records for `occcalc run`'s tests: a program
 * that writes what it is told into $OCCCALC_RUN_OUT (or -o FILE) as the
 * injection library would, or as a hostile program could. The records are
 * built with the library's own layout (model/launch_record.h), so a case
 * names fields, not offsets.
 *
 * Usage: forge [-o FILE] WORD...  Words, in order:
 *   launch | counters | refusal | summary
 *                                 start a record of that kind (the one
 *                                 before is written); valid defaults
 *   FIELD=VALUE                   set a field of the current record:
 *     magic kind pid device sm_count context stream correlation
 *     runtime_correlation graph_id regs smem_static smem_dynamic local
 *     carveout smem_executed launch_type start_ns end_ns value_count
 *     at_launch_known carveout_preferred max_dynamic_smem
 *     cluster_non_portable cluster_policy
 *     (integers; 0x for hex), cc=M.m, grid=X[xY[xZ]], block=, cluster=,
 *     values=V,V,... (doubles; nan, inf), name=TEXT, why=TEXT,
 *     device_name=TEXT (\xHH, \n,
 *     \t, \\ escapes; "fill:C" fills the whole field with C, no NUL)
 *   @OFFSET=HEX                   raw bytes in the record's 1024-byte block
 *   times=N                       the current record N times, the
 *                                 correlation id one more each time
 *   distinct=N                    the same, the grid's x 1..N: N
 *                                 configurations
 *   hole=BYTES                    the file grows by a hole of BYTES
 *   stray=N                       N bytes that are no record ('x')
 *   zero=N                        N blocks of zero bytes
 *   exit=N                        the status forge exits with (default 0)
 * Defaults: a launch of "_Z6kernelv" on device 0 (cc 9.0, 132 SMs), grid
 * 1024, block 256, 32 registers, a correlation id one more than the last
 * launch's; counters of the last launch (50 %, 20 us); a refusal of the
 * process' counters; a summary of the library's cost (0.5 s, 0.25 s of
 * it starting the profiler, 2 launches profiled, none flushed). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/launch_record.h"

#define EPOCH_NS 1795279669160074501ull

static int out_fd = -1;
static unsigned char block[OCC_RECORD_BYTES];
static int pending;
static unsigned next_correlation = 1;

static occ_launch_record *rec(void) { return (occ_launch_record *)block; }

static void die(const char *what, const char *arg) {
  fprintf(stderr, "forge: %s: '%s'\n", what, arg);
  exit(99);
}

static void put_bytes(const void *p, size_t n) {
  if (write(out_fd, p, n) != (ssize_t)n) die("write", strerror(errno));
}

static void flush(void) {
  if (pending) put_bytes(block, sizeof block);
  pending = 0;
}

static void start(occ_record_kind kind) {
  flush();
  memset(block, 0, sizeof block);
  occ_launch_record *r = rec();
  r->magic = OCC_RECORD_MAGIC;
  r->kind = (uint32_t)kind;
  r->pid = (int32_t)getpid();
  r->carveout_requested_pct = -1;
  if (kind == OCC_RECORD_LAUNCH) {
    r->correlation = next_correlation++;
    r->cc_major = 9;
    r->sm_count = 132;
    r->grid[0] = 1024, r->grid[1] = r->grid[2] = 1;
    r->block[0] = 256, r->block[1] = r->block[2] = 1;
    r->cluster[0] = r->cluster[1] = r->cluster[2] = 1;
    r->regs_per_thread = 32;
    r->start_ns = EPOCH_NS + 1000000ull * r->correlation;
    r->end_ns = r->start_ns + 20000;
    snprintf(r->name, sizeof r->name, "_Z6kernelv");
  } else if (kind == OCC_RECORD_COUNTERS) {
    r->correlation = next_correlation - 1;
    r->value_count = 2;
    r->values[0] = 50;
    r->values[1] = 20000;
  } else if (kind == OCC_RECORD_SUMMARY) {
    r->value_count = OCC_SUMMARY_VALUES;
    r->values[OCC_SUMMARY_SECONDS] = 0.5;
    r->values[OCC_SUMMARY_PROFILER_SECONDS] = 0.25;
    r->values[OCC_SUMMARY_PROFILED] = 2;
  } else {
    snprintf(r->why, sizeof r->why, "forged: no counters");
  }
  pending = 1;
}

static long long integer(const char *text) {
  char *end;
  errno = 0;
  long long v = strtoll(text, &end, 0);
  if (errno || end == text || *end) die("not an integer", text);
  return v;
}

static void dims(const char *text, int32_t d[3]) {
  d[0] = d[1] = d[2] = 1;
  char *end;
  for (int i = 0; i < 3; i++) {
    d[i] = (int32_t)strtoll(text, &end, 0);
    if (end == text) die("not dimensions", text);
    if (!*end) return;
    if (*end != 'x') die("not dimensions", text);
    text = end + 1;
  }
  die("not dimensions", text);
}

/* TEXT with escapes into a field of size bytes (NUL-terminated when it
 * fits), or "fill:C". */
static void text(char *field, size_t size, const char *value) {
  memset(field, 0, size);
  if (strncmp(value, "fill:", 5) == 0 && value[5]) {
    memset(field, value[5], size);
    return;
  }
  size_t n = 0;
  for (const char *p = value; *p && n < size; p++) {
    char c = *p;
    if (c == '\\' && p[1]) {
      p++;
      if (*p == 'x' && p[1] && p[2]) {
        char hex[3] = {p[1], p[2], 0};
        c = (char)strtol(hex, NULL, 16);
        p += 2;
      } else {
        c = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p == 'r' ? '\r' : *p;
      }
    }
    field[n++] = c;
  }
}

static void values(const char *list) {
  occ_launch_record *r = rec();
  char *copy = strdup(list), *save = NULL;
  int n = 0;
  for (char *v = strtok_r(copy, ",", &save); v; v = strtok_r(NULL, ",", &save)) {
    if (n == OCC_RECORD_FIRST_METRIC + OCC_RECORD_METRICS_MAX)
      die("too many values", list);
    r->values[n++] = strtod(v, NULL);
  }
  r->value_count = n;
  free(copy);
}

static void raw(const char *where, const char *hex) {
  long long offset = integer(where);
  size_t n = strlen(hex);
  if (offset < 0 || n % 2 || (size_t)offset + n / 2 > sizeof block)
    die("raw bytes outside the block", where);
  for (size_t i = 0; i < n; i += 2) {
    char two[3] = {hex[i], hex[i + 1], 0};
    block[offset + (long long)i / 2] = (unsigned char)strtol(two, NULL, 16);
  }
}

/* The current record n times; distinct: grid x 1..n. */
static void repeat(long long n, int distinct) {
  if (!pending) die("no record to repeat", "");
  occ_launch_record *r = rec();
  unsigned correlation = r->correlation;
  for (long long i = 0; i < n; i++) {
    r->correlation = correlation + (unsigned)i;
    if (distinct) r->grid[0] = (int32_t)(i + 1);
    put_bytes(block, sizeof block);
  }
  if (r->kind == OCC_RECORD_LAUNCH) next_correlation = correlation + (unsigned)n;
  pending = 0;
}

static void hole(long long bytes) {
  flush();
  struct stat st;
  if (fstat(out_fd, &st) != 0 || ftruncate(out_fd, st.st_size + bytes) != 0)
    die("hole", strerror(errno));
}

static void stray(long long n) {
  flush();
  for (long long i = 0; i < n; i++) put_bytes("x", 1);
}

static void zero(long long n) {
  static const unsigned char zeros[OCC_RECORD_BYTES];
  flush();
  for (long long i = 0; i < n; i++) put_bytes(zeros, sizeof zeros);
}

/* name=value on the current record. */
static int field(const char *name, const char *value) {
  occ_launch_record *r = rec();
  struct { const char *name; void *at; int bytes; } ints[] = {
      {"magic", &r->magic, 4}, {"kind", &r->kind, 4}, {"pid", &r->pid, 4},
      {"device", &r->device, 4}, {"sm_count", &r->sm_count, 4},
      {"context", &r->context, 4}, {"stream", &r->stream, 4},
      {"correlation", &r->correlation, 4},
      {"runtime_correlation", &r->runtime_correlation, 4},
      {"graph_id", &r->graph_id, 4}, {"regs", &r->regs_per_thread, 4},
      {"smem_static", &r->smem_static_bytes, 4},
      {"smem_dynamic", &r->smem_dynamic_bytes, 4},
      {"local", &r->local_bytes_per_thread, 4},
      {"carveout", &r->carveout_requested_pct, 4},
      {"smem_executed", &r->smem_executed_bytes, 4},
      {"launch_type", &r->launch_type, 4}, {"start_ns", &r->start_ns, 8},
      {"end_ns", &r->end_ns, 8}, {"value_count", &r->value_count, 4},
      {"at_launch_known", &r->at_launch_known, 4},
      {"carveout_preferred", &r->carveout_preferred_pct, 4},
      {"max_dynamic_smem", &r->max_dynamic_smem_bytes, 4},
      {"cluster_non_portable", &r->cluster_non_portable, 4},
      {"cluster_policy", &r->cluster_policy, 4}};
  for (size_t i = 0; i < sizeof ints / sizeof *ints; i++) {
    if (strcmp(name, ints[i].name) != 0) continue;
    long long v = integer(value);
    if (ints[i].bytes == 8)
      memcpy(ints[i].at, &v, 8);
    else
      *(int32_t *)ints[i].at = (int32_t)v;
    if (strcmp(name, "correlation") == 0 && r->kind == OCC_RECORD_LAUNCH)
      next_correlation = (unsigned)v + 1;
    return 1;
  }
  if (strcmp(name, "cc") == 0) {
    if (sscanf(value, "%d.%d", &r->cc_major, &r->cc_minor) != 2)
      die("not a compute capability", value);
  } else if (strcmp(name, "grid") == 0) {
    dims(value, r->grid);
  } else if (strcmp(name, "block") == 0) {
    dims(value, r->block);
  } else if (strcmp(name, "cluster") == 0) {
    dims(value, r->cluster);
  } else if (strcmp(name, "values") == 0) {
    values(value);
  } else if (strcmp(name, "name") == 0) {
    text(r->name, sizeof r->name, value);
  } else if (strcmp(name, "why") == 0) {
    text(r->why, sizeof r->why, value);
  } else if (strcmp(name, "device_name") == 0) {
    text(r->device_name, sizeof r->device_name, value);
  } else {
    return 0;
  }
  return 1;
}

int main(int argc, char **argv) {
  int first = 1, status = 0;
  if (argc > 2 && strcmp(argv[1], "-o") == 0) {
    out_fd = open(argv[2], O_WRONLY | O_APPEND | O_CREAT, 0600);
    first = 3;
  } else if (getenv(OCC_ENV_OUT)) {
    out_fd = open(getenv(OCC_ENV_OUT), O_WRONLY | O_APPEND);
  }
  if (out_fd < 0) die("no output (-o FILE or $" OCC_ENV_OUT ")", "");
  for (int i = first; i < argc; i++) {
    char *word = argv[i], *eq = strchr(word, '=');
    if (strcmp(word, "launch") == 0) {
      start(OCC_RECORD_LAUNCH);
      continue;
    }
    if (strcmp(word, "counters") == 0) {
      start(OCC_RECORD_COUNTERS);
      continue;
    }
    if (strcmp(word, "refusal") == 0) {
      start(OCC_RECORD_NO_COUNTERS);
      continue;
    }
    if (strcmp(word, "summary") == 0) {
      start(OCC_RECORD_SUMMARY);
      continue;
    }
    if (!eq) die("unknown word", word);
    *eq = '\0';
    const char *value = eq + 1;
    if (word[0] == '@') {
      if (!pending) die("no record for", word);
      raw(word + 1, value);
    } else if (strcmp(word, "times") == 0) {
      repeat(integer(value), 0);
    } else if (strcmp(word, "distinct") == 0) {
      repeat(integer(value), 1);
    } else if (strcmp(word, "hole") == 0) {
      hole(integer(value));
    } else if (strcmp(word, "stray") == 0) {
      stray(integer(value));
    } else if (strcmp(word, "zero") == 0) {
      zero(integer(value));
    } else if (strcmp(word, "exit") == 0) {
      status = (int)integer(value);
    } else if (!pending || !field(word, value)) {
      die(pending ? "unknown field" : "no record for", word);
    }
  }
  flush();
  return status;
}
