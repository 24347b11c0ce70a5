/* fuzz_cli.c - libFuzzer target for the whole program, in-process: the
 * input is a command line, its words separated by NUL bytes; an empty word
 * (two NULs) ends the words and what follows is the content of a file that
 * the value "@" of --ptxas, --data or --svg names. Runs occ_main with
 * stdout and stderr sent to /dev/null and stdin empty.
 *
 * Refused (the input is skipped): the live paths (the options the table,
 * src/cli/cli.c, marks OCC_OPTF_LIVE, the verify command, and the run
 * command, which starts a program and exits with its status), and file
 * options (OCC_OPTF_FILE) whose value is not "@" or "-" (the harness
 * cannot sandbox other paths). Long options are matched as getopt matches
 * them, by any prefix. The harness keeps no list of options of its own. Built and run
 * by `make fuzz-cli` (tests/fuzz/fuzz.mk). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/occcalc.h"

enum { MAX_WORDS = 40 };


static char file_path[64];
static FILE *devnull;

/* True when word is "--X" or "--X=..." with X a prefix of name. */
static bool names(const char *word, const char *name) {
  if (strncmp(word, "--", 2) != 0) return false;
  size_t len = strcspn(word + 2, "=");
  return len > 0 && strncmp(word + 2, name, len) == 0 && len <= strlen(name);
}

/* True when word names an option of the table with one of flags. */
static bool names_any(const char *word, unsigned flags) {
  for (const occ_option *o = occ_cli_options(); o->name; o++)
    if ((o->flags & flags) && names(word, o->name)) return true;
  return false;
}

/* Checks argv (argv[0] excluded) and points each "@" file value at the
 * harness' file. Returns false for a command line it cannot run. */
static bool sandbox(int argc, char **argv) {
  if (argc > 1 && (strcmp(argv[1], "verify") == 0 ||
                   strcmp(argv[1], "run") == 0))
    return false;
  /* report's operands are files: each "@" the harness' file, no other. */
  bool report = argc > 1 && strcmp(argv[1], "report") == 0;
  for (int i = report ? 2 : 1; i < argc; i++) {
    if (report && argv[i][0] != '-') {
      if (strcmp(argv[i], "@") != 0) return false;
      argv[i] = file_path;
      continue;
    }
    if (report && strcmp(argv[i], "--") == 0) return false;
    if (strcmp(argv[i], "--") == 0) return true; /* the rest are not options */
    if (names_any(argv[i], OCC_OPTF_LIVE)) return false;
    if (!names_any(argv[i], OCC_OPTF_FILE)) continue;
    char *eq = strchr(argv[i], '=');
    char **value = eq ? NULL : i + 1 < argc ? &argv[i + 1] : NULL;
    const char *text = eq ? eq + 1 : value ? *value : NULL;
    if (!text) continue; /* "missing value": a usage error to exercise */
    if (strcmp(text, "-") == 0) continue;
    if (strcmp(text, "@") != 0 || eq) return false;
    *value = file_path;
    i++;
  }
  return true;
}

/* The harness' file goes when the fuzzer ends (libFuzzer exits through
 * exit() at -max_total_time or -runs). */
static void remove_file(void) { unlink(file_path); }

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  snprintf(file_path, sizeof file_path, "/tmp/occcalc-fuzz-cli-%ld",
           (long)getpid());
  if (atexit(remove_file) != 0) abort();
  devnull = fopen("/dev/null", "w");
  if (!devnull || !freopen("/dev/null", "r", stdin)) abort();
  unsetenv("OCCCALC_GPU");
  unsetenv("COLUMNS");
  return 0;
}

static bool write_file(const uint8_t *data, size_t size) {
  FILE *f = fopen(file_path, "wb");
  if (!f) return false;
  bool ok = fwrite(data, 1, size, f) == size;
  return fclose(f) == 0 && ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *copy = malloc(size + 1);
  if (!copy) return 0;
  memcpy(copy, data, size);
  copy[size] = '\0';
  char *argv[MAX_WORDS + 2] = {"occcalc"};
  int argc = 1;
  size_t at = 0;
  while (at < size && copy[at] != '\0' && argc <= MAX_WORDS) {
    argv[argc++] = copy + at;
    at += strlen(copy + at) + 1;
  }
  argv[argc] = NULL;
  size_t file_at = at < size ? at + 1 : size;
  if (sandbox(argc, argv) && write_file(data + file_at, size - file_at)) {
    FILE *out = stdout, *err = stderr;
    stdout = stderr = devnull;
    int rc = occ_main(argc, argv);
    fflush(devnull);
    clearerr(devnull);
    stdout = out;
    stderr = err;
    /* The documented statuses, and nothing else. */
    if (rc < 0 || (rc > 5 && rc != 141)) abort();
  }
  free(copy);
  return 0;
}
