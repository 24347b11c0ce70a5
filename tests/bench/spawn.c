/* bench_spawn.c - whole-process wall time of a few commands, run in turn
 * in one loop (so each sees the same machine) with stdout to /dev/null:
 * from posix_spawn to the end of waitpid, on CLOCK_MONOTONIC. Prints each
 * command's median in microseconds as "LABEL MEDIAN_US"; fails if any run
 * exits non-zero. A timer in C, because timing with date(1) would add a
 * process of its own to every figure.
 *
 * usage: bench_spawn RUNS LABEL CMD [ARG...] [-- LABEL CMD [ARG...]]... */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#define MAX_COMMANDS 8

extern char **environ;

typedef struct command {
  const char *label;
  char **argv; /* NULL-terminated in place of the "--" that ended it */
  double *us;
} command;

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* One run of c; its wall time in microseconds, or -1 on failure. */
static double run_once(const command *c, const posix_spawn_file_actions_t *fa) {
  double start = now_us();
  pid_t pid;
  if (posix_spawn(&pid, c->argv[0], fa, NULL, c->argv, environ) != 0) return -1;
  int status;
  if (waitpid(pid, &status, 0) != pid) return -1;
  double end = now_us();
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? end - start : -1;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Splits argv at "--" into label-command groups; returns how many, or -1
 * if a group lacks its command or there are over MAX_COMMANDS. */
static int parse_commands(int argc, char **argv, command *cmds) {
  int n = 0;
  for (int i = 0; i < argc;) {
    if (i + 1 >= argc || n == MAX_COMMANDS) return -1;
    cmds[n].label = argv[i];
    cmds[n].argv = &argv[i + 1];
    int j = i + 1;
    while (j < argc && strcmp(argv[j], "--") != 0) j++;
    if (j < argc) argv[j] = NULL;
    n++;
    i = j + 1;
  }
  return n;
}

int main(int argc, char **argv) {
  command cmds[MAX_COMMANDS];
  int runs = argc > 1 ? atoi(argv[1]) : 0;
  int n = runs > 0 ? parse_commands(argc - 2, argv + 2, cmds) : -1;
  if (n <= 0) {
    fputs("usage: bench_spawn RUNS LABEL CMD [ARG...] [-- LABEL CMD...]...\n", stderr);
    return 2;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  for (int c = 0; c < n; c++)
    if (!(cmds[c].us = malloc(runs * sizeof *cmds[c].us))) return 1;
  for (int r = 0; r < runs; r++) {
    for (int c = 0; c < n; c++) {
      cmds[c].us[r] = run_once(&cmds[c], &fa);
      if (cmds[c].us[r] < 0) {
        fprintf(stderr, "bench_spawn: %s failed\n", cmds[c].argv[0]);
        return 1;
      }
    }
  }
  for (int c = 0; c < n; c++) {
    qsort(cmds[c].us, runs, sizeof *cmds[c].us, by_value);
    printf("%s %.1f\n", cmds[c].label, cmds[c].us[runs / 2]);
    free(cmds[c].us);
  }
  posix_spawn_file_actions_destroy(&fa);
  return 0;
}
