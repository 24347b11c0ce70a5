/* run.c - the launcher of `occcalc run` (see run.h). */
/* realpath and pipe2 are beyond POSIX.1-2008's base. */
#define _GNU_SOURCE
#include "live/run.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* How often a streamed run looks for new records. */
#define POLL_NS 20000000L

/* Where the library may be, relative to the binary's folder. */
static const char *const inject_places[] = {
    "libocc_inject.so", "build/libocc_inject.so",
    "../lib/occcalc/libocc_inject.so"};

const char *occ_run_find_injection(char *buf, size_t size) {
  const char *forced = getenv("OCCCALC_INJECT");
  char real[PATH_MAX];
  if (forced && *forced)
    return realpath(forced, real) && access(real, R_OK) == 0 &&
                   snprintf(buf, size, "%s", real) < (int)size ? buf : NULL;
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return NULL;
  exe[n] = '\0';
  char *slash = strrchr(exe, '/');
  if (slash) *slash = '\0';
  for (size_t i = 0; i < sizeof inject_places / sizeof *inject_places; i++) {
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", exe, inject_places[i]);
    if (realpath(path, real) && access(real, R_OK) == 0 &&
        snprintf(buf, size, "%s", real) < (int)size)
      return buf;
  }
  return NULL;
}

/* occcalc's own SIGINT and SIGQUIT dispositions, which the program gets
 * back (SIG_IGN under nohup stays ignored). */
static struct sigaction saved_int, saved_quit;

/* In the child: the environment the library reads, then exec. On failure
 * the errno goes back through report_fd (closed on a successful exec). */
static void child(const occ_run_spec *spec, const char *out_path,
                  int report_fd) {
  sigaction(SIGINT, &saved_int, NULL);
  sigaction(SIGQUIT, &saved_quit, NULL);
  if (spec->inject_path) {
    setenv("CUDA_INJECTION64_PATH", spec->inject_path, 1);
    setenv(OCC_ENV_OUT, out_path, 1);
    setenv(OCC_ENV_COUNTERS, spec->counters ? "1" : "0", 1);
    if (spec->metrics) setenv(OCC_ENV_METRICS, spec->metrics, 1);
    char launches[24];
    snprintf(launches, sizeof launches, "%lld",
             (long long)spec->counter_launches);
    setenv(OCC_ENV_COUNTER_LAUNCHES, launches, 1);
    if (spec->stream) setenv(OCC_ENV_FLUSH_MS, "100", 1);
  }
  execvp(spec->argv[0], spec->argv);
  int e = errno;
  ssize_t n = write(report_fd, &e, sizeof e);
  (void)n;
  _exit(e == ENOENT ? 127 : 126);
}

/* Appends the records of fd from *offset on to result (live/records.h:
 * each one checked, holes skipped, the file's size capped). Never fails:
 * running out of memory, a cap or a read error stop the reading and stay
 * in result->records for the report. */
static int read_records(int fd, off_t *offset, occ_run_result *result,
                        const occ_run_spec *spec) {
  uint64_t at = (uint64_t)*offset;
  occ_records_read(&result->records, fd, &at, spec->stream, spec->context);
  *offset = (off_t)at;
  return 0;
}

static int status_of(int wstatus) {
  if (WIFEXITED(wstatus)) return WEXITSTATUS(wstatus);
  if (WIFSIGNALED(wstatus)) return 128 + WTERMSIG(wstatus);
  return 1;
}

/* Waits for pid, reading records as they come when streaming. */
static int wait_program(pid_t pid, int fd, off_t *offset,
                        occ_run_result *result, const occ_run_spec *spec) {
  int wstatus = 0;
  for (;;) {
    pid_t done = waitpid(pid, &wstatus, spec->stream ? WNOHANG : 0);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) return -1;
    if (spec->stream) {
      if (read_records(fd, offset, result, spec) != 0) return -1;
      nanosleep(&(struct timespec){0, POLL_NS}, NULL);
    }
  }
  result->status = status_of(wstatus);
  return 0;
}

static int make_output(char *path, size_t size, char *why, size_t why_size) {
  const char *dir = getenv("TMPDIR");
  snprintf(path, size, "%s/occcalc-run-XXXXXX", dir && *dir ? dir : "/tmp");
  int fd = mkstemp(path);
  if (fd < 0)
    snprintf(why, why_size, "%s: cannot create the records' file: %s", path,
             strerror(errno));
  return fd;
}

/* Forks and execs; the parent learns of a failed exec through a pipe
 * closed by a successful one. */
static pid_t start(const occ_run_spec *spec, const char *out_path,
                   int *exec_errno, char *why, size_t why_size) {
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) {
    snprintf(why, why_size, "pipe: %s", strerror(errno));
    return -1;
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) child(spec, out_path, report[1]);
  close(report[1]);
  if (pid < 0) snprintf(why, why_size, "fork: %s", strerror(errno));
  if (pid > 0 && read(report[0], exec_errno, sizeof *exec_errno) <= 0)
    *exec_errno = 0;
  close(report[0]);
  return pid;
}

int occ_run_program(const occ_run_spec *spec, occ_run_result *result,
                    char *why, size_t why_size) {
  memset(result, 0, sizeof *result);
  char out_path[PATH_MAX];
  int fd = make_output(out_path, sizeof out_path, why, why_size);
  if (fd < 0) return -1;
  struct sigaction ignore = {.sa_handler = SIG_IGN};
  sigaction(SIGINT, &ignore, &saved_int);
  sigaction(SIGQUIT, &ignore, &saved_quit);
  off_t offset = 0;
  pid_t pid = start(spec, out_path, &result->exec_errno, why, why_size);
  int rc = pid < 0 ? -1 : wait_program(pid, fd, &offset, result, spec);
  sigaction(SIGINT, &saved_int, NULL);
  sigaction(SIGQUIT, &saved_quit, NULL);
  if (rc == 0 && read_records(fd, &offset, result, spec) != 0) rc = -1;
  if (rc != 0 && pid >= 0) snprintf(why, why_size, "out of memory");
  close(fd);
  unlink(out_path);
  return rc;
}

void occ_run_result_free(occ_run_result *result) {
  occ_records_free(&result->records);
}
