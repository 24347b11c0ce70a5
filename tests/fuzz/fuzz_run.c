/* fuzz_run.c - libFuzzer target for `occcalc run`'s records and report,
 * in-process: the records' reader (live/records.c) over a file the input
 * fills, then the whole report (cli/run_cmd.c's indexing and rows, and
 * render/run_out.c's text, JSON, CSV or --jsonl lines).
 *
 * The input: byte 0 picks the options (bits 0-1 the format: text, --json,
 * --csv, --jsonl; then --metrics, --kernel, --device 0, --no-counters,
 * --counter-launches all, --min-occupancy 60); byte 1 where the file is
 * read in two steps, as while the program runs and after it (its top bit:
 * a hole of 1 MiB between the two parts); byte 2 the timeline's writers
 * (bit 0 --trace, bit 1 --svg, both to /dev/null, written in place); the
 * rest is the records' file, a memfd read with occ_records_read. stdout and stderr go to /dev/null.
 * A status other than run's documented ones (0-3 here: the "program"
 * exits 0) aborts. Built and run by `make fuzz-run` (tests/fuzz/fuzz.mk). */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/run_cmd.h"
#include "db/gpudb.h"
#include "live/run.h"

static occ_gpudb *db;
static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  char err[256];
  db = occ_gpudb_load_builtin(err, sizeof err);
  devnull = fopen("/dev/null", "w");
  if (!db || !devnull || !freopen("/dev/null", "r", stdin)) abort();
  return 0;
}

/* The command line bytes pick; NULL-terminated in argv. */
static int command_line(uint8_t pick, uint8_t timeline, char **argv) {
  static char *const formats[] = {NULL, "--json", "--csv", "--jsonl"};
  int argc = 0;
  argv[argc++] = "occcalc";
  argv[argc++] = "run";
  if (formats[pick & 3]) argv[argc++] = formats[pick & 3];
  if (pick & 4) argv[argc++] = "--metrics", argv[argc++] = "m1,m2,m3";
  if (pick & 8) argv[argc++] = "--kernel", argv[argc++] = "k";
  if (pick & 16) argv[argc++] = "--device", argv[argc++] = "0";
  if (pick & 32) argv[argc++] = "--no-counters";
  if (pick & 64) argv[argc++] = "--counter-launches", argv[argc++] = "all";
  if (pick & 128) argv[argc++] = "--min-occupancy", argv[argc++] = "60";
  if (timeline & 1) argv[argc++] = "--trace", argv[argc++] = "/dev/null";
  if (timeline & 2) argv[argc++] = "--svg", argv[argc++] = "/dev/null";
  argv[argc++] = "--";
  argv[argc++] = "program";
  argv[argc] = NULL;
  return argc;
}

static bool put(int fd, const uint8_t *data, size_t size, off_t at) {
  return pwrite(fd, data, size, at) == (ssize_t)size;
}

/* The file: the first part, read; a hole maybe; the rest, read. */
static bool read_file(occ_run_result *result, uint8_t split,
                      const uint8_t *data, size_t size) {
  int fd = memfd_create("occcalc-fuzz-run", MFD_CLOEXEC);
  if (fd < 0) return false;
  size_t first = size * (split & 127) / 127;
  uint64_t offset = 0;
  bool ok = put(fd, data, first, 0);
  occ_records_read(&result->records, fd, &offset, NULL, NULL);
  off_t rest_at = (off_t)first + (split & 128 ? 1 << 20 : 0);
  ok = ok && put(fd, data + first, size - first, rest_at);
  occ_records_read(&result->records, fd, &offset, NULL, NULL);
  close(fd);
  return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 3) return 0;
  char *argv[28];
  int argc = command_line(data[0], data[2], argv);
  occ_cli cli;
  if (occ_cli_parse(argc, argv, &cli, devnull) != 0) return 0;
  occ_run_result result = {0};
  if (!read_file(&result, data[1], data + 3, size - 3)) {
    occ_run_result_free(&result);
    return 0;
  }
  FILE *out = stdout, *err = stderr;
  stdout = stderr = devnull;
  int rc = occ_run_report_records(&cli, db, &result);
  fflush(devnull);
  clearerr(devnull);
  stdout = out;
  stderr = err;
  occ_run_result_free(&result);
  if (rc < 0 || rc > 3) abort();
  return 0;
}
