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

/* path, if it is a readable regular file, into buf; else why. */
static const char *usable(const char *path, char *buf, size_t size,
                          char *why, size_t why_size) {
  char real[PATH_MAX];
  struct stat st;
  if (!realpath(path, real) || stat(real, &st) != 0 ||
      access(real, R_OK) != 0) {
    snprintf(why, why_size, "%s", strerror(errno));
    return NULL;
  }
  if (!S_ISREG(st.st_mode)) {
    snprintf(why, why_size, "not a regular file");
    return NULL;
  }
  if (snprintf(buf, size, "%s", real) >= (int)size) {
    snprintf(why, why_size, "%s", strerror(ENAMETOOLONG));
    return NULL;
  }
  return buf;
}

const char *occ_run_find_injection(char *buf, size_t size, char *why,
                                   size_t why_size) {
  const char *forced = getenv("OCCCALC_INJECT");
  char reason[128];
  if (forced && *forced) {
    if (usable(forced, buf, size, reason, sizeof reason)) return buf;
    snprintf(why, why_size, "OCCCALC_INJECT: '%s': %s (accepted: the path "
             "of libocc_inject.so)", forced, reason);
    return NULL;
  }
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash) *slash = '\0';
    for (size_t i = 0; i < sizeof inject_places / sizeof *inject_places;
         i++) {
      char path[PATH_MAX + 64];
      snprintf(path, sizeof path, "%s/%s", exe, inject_places[i]);
      if (usable(path, buf, size, reason, sizeof reason)) return buf;
    }
  }
  snprintf(why, why_size, "libocc_inject.so not found beside occcalc nor in "
           "../lib/occcalc (reinstall, or set OCCCALC_INJECT)");
  return NULL;
}

/* --- signals while the program runs ---
 * SIGINT and SIGQUIT are ignored, as a shell running a command ignores
 * them: the terminal sends them to the program too, which ends, and
 * occcalc reports. SIGTERM, SIGHUP and SIGPIPE are forwarded to the
 * program, as timeout(1) forwards them; occcalc waits for it, removes
 * its files, and then dies of the same signal (occ_run_reraise). A
 * disposition that was SIG_IGN when occcalc started (nohup) is kept. */
enum { SIG_CHLD, SIG_INT, SIG_QUIT, SIG_TERM, SIG_HUP, SIG_PIPE,
       SIG_COUNT };
static const int handled[SIG_COUNT] = {SIGCHLD, SIGINT, SIGQUIT, SIGTERM,
                                       SIGHUP, SIGPIPE};
/* occcalc's own dispositions, which the program gets back. */
static struct sigaction saved[SIG_COUNT];
static volatile sig_atomic_t received;  /* the first forwarded signal */
static volatile sig_atomic_t running;   /* the program's pid, or 0 */

static void forward(int sig) {
  if (!received) received = sig;
  if (running > 0) kill((pid_t)running, sig);
}

void occ_run_interrupt(int sig) { forward(sig); }

void occ_run_reraise(int sig) {
  signal(sig, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  sigprocmask(SIG_UNBLOCK, &set, NULL);
  raise(sig);
  /* Still here: the signal was ignored when occcalc started (SIGPIPE
   * under some parents); the status a shell gives its death. */
  _exit(128 + sig);
}

static void block_forwarded(int how, sigset_t *old) {
  sigset_t set;
  sigemptyset(&set);
  for (int i = SIG_TERM; i < SIG_COUNT; i++) sigaddset(&set, handled[i]);
  sigprocmask(how, &set, old);
}

static void take_signals(void) {
  received = 0;
  struct sigaction ignore = {.sa_handler = SIG_IGN};
  /* SIGCHLD ignored by occcalc's parent would reap the program unseen. */
  struct sigaction deflt = {.sa_handler = SIG_DFL};
  struct sigaction relay = {.sa_handler = forward, .sa_flags = SA_RESTART};
  sigemptyset(&relay.sa_mask);
  for (int i = 0; i < SIG_COUNT; i++) {
    sigaction(handled[i], NULL, &saved[i]);
    if (i == SIG_CHLD) sigaction(SIGCHLD, &deflt, NULL);
    if (i == SIG_CHLD || saved[i].sa_handler == SIG_IGN) continue;
    sigaction(handled[i], i < SIG_TERM ? &ignore : &relay, NULL);
  }
}

static void give_back_signals(void) {
  for (int i = 0; i < SIG_COUNT; i++) sigaction(handled[i], &saved[i], NULL);
}

/* name=VALUE before the variable's value, a list split at colons (so
 * that the program's own entries, later, win where they repeat). */
static void put_first(const char *name, const char *value) {
  const char *old = getenv(name);
  if (!old || !*old) {
    setenv(name, value, 1);
    return;
  }
  size_t size = strlen(value) + strlen(old) + 2;
  char *both = malloc(size);
  if (!both) return;
  snprintf(both, size, "%s:%s", value, old);
  setenv(name, both, 1);
  free(both);
}

/* libocc_preload.so, where it lies beside the injection library, first in
 * the program's LD_PRELOAD (which ld.so splits at spaces and colons: a
 * path holding one is left out, and the refusal it would tell of goes
 * unreported). A program built with AddressSanitizer refuses to start
 * when a library is preloaded before its runtime, unless ASAN_OPTIONS
 * says verify_asan_link_order=0: said first, so that the program's own
 * setting wins. In the child, before exec. */
static void preload(const char *inject_path) {
  const char *slash = strrchr(inject_path, '/');
  if (!slash) return;
  char path[PATH_MAX + 32];
  snprintf(path, sizeof path, "%.*s/libocc_preload.so",
           (int)(slash - inject_path), inject_path);
  if (strpbrk(path, " :") || access(path, R_OK) != 0) return;
  put_first("LD_PRELOAD", path);
  put_first("ASAN_OPTIONS", "verify_asan_link_order=0");
}

/* In the child: occcalc's dispositions and mask, the environment the
 * library reads, then exec. On failure the errno goes back through
 * report_fd (closed on a successful exec). */
static void child(const occ_run_spec *spec, const char *out_path,
                  int report_fd, const sigset_t *mask) {
  give_back_signals();
  sigprocmask(SIG_SETMASK, mask, NULL);
  /* The report owns stdout: the program's output goes to stderr. */
  if (spec->stdout_to_stderr && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
    _exit(126);
  if (spec->inject_path) {
    setenv("CUDA_INJECTION64_PATH", spec->inject_path, 1);
    preload(spec->inject_path);
    setenv(OCC_ENV_OUT, out_path, 1);
    setenv(OCC_ENV_COUNTERS, spec->counters ? "1" : "0", 1);
    if (spec->metrics) setenv(OCC_ENV_METRICS, spec->metrics, 1);
    char launches[24];
    snprintf(launches, sizeof launches, "%lld",
             (long long)spec->counter_launches);
    setenv(OCC_ENV_COUNTER_LAUNCHES, launches, 1);
    if (spec->stream) setenv(OCC_ENV_FLUSH_MS, "100", 1);
    if (spec->flush_caches) setenv(OCC_ENV_CACHE_CONTROL, "all", 1);
    else unsetenv(OCC_ENV_CACHE_CONTROL);
    if (spec->gate) setenv(OCC_ENV_GATE, spec->gate, 1);
    else unsetenv(OCC_ENV_GATE);
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
static void read_records(int fd, off_t *offset, occ_run_result *result,
                         const occ_run_spec *spec) {
  uint64_t at = (uint64_t)*offset;
  occ_records_read(&result->records, fd, &at, spec->stream, spec->context);
  *offset = (off_t)at;
}

static int status_of(int wstatus) {
  if (WIFEXITED(wstatus)) return WEXITSTATUS(wstatus);
  if (WIFSIGNALED(wstatus)) return 128 + WTERMSIG(wstatus);
  return 1;
}

/* Waits for pid to end, reading records as they come when streaming:
 * 0, or -1 when waiting failed (errno). Running out of memory for the
 * records is flagged in result->records, not here. A
 * program that stops (SIGSTOP, SIGTSTP, ...) is continued and counted:
 * nothing else would ever continue it, and occcalc would wait forever.
 * The end is learnt without reaping (WNOWAIT), so that the forwarding
 * handler never signals a pid the system has given to another process. */
static int wait_program(pid_t pid, int fd, off_t *offset,
                        occ_run_result *result, const occ_run_spec *spec) {
  for (;;) {
    siginfo_t info = {0};
    int flags = WEXITED | WSTOPPED | WNOWAIT | (spec->stream ? WNOHANG : 0);
    if (waitid(P_PID, (id_t)pid, &info, flags) != 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (info.si_pid == pid && (info.si_code == CLD_STOPPED ||
                               info.si_code == CLD_TRAPPED)) {
      /* Reap the stop report, then let it run on. */
      waitpid(pid, &(int){0}, WUNTRACED | WNOHANG);
      result->stop_count++;
      result->stop_signal = info.si_status;
      kill(pid, SIGCONT);
      continue;
    }
    if (info.si_pid == pid) break;
    read_records(fd, offset, result, spec);
    nanosleep(&(struct timespec){0, POLL_NS}, NULL);
  }
  running = 0;
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0)
    if (errno != EINTR) return -1;
  result->status = status_of(wstatus);
  return 0;
}

/* The records' file, created private, close-on-exec (the program finds it
 * by its path, never by an inherited descriptor) and at an absolute path,
 * so that a program that changes directory still finds it under a
 * relative TMPDIR. */
static int make_output(char *path, size_t size, char *why, size_t why_size) {
  const char *dir = getenv("TMPDIR");
  if (!dir || !*dir) dir = "/tmp";
  char abs[PATH_MAX];
  if (!realpath(dir, abs)) {
    snprintf(why, why_size, "TMPDIR: '%s': %s", dir, strerror(errno));
    return -1;
  }
  if (snprintf(path, size, "%s/occcalc-run-XXXXXX", abs) >= (int)size) {
    snprintf(why, why_size, "TMPDIR: '%s': %s", dir, strerror(ENAMETOOLONG));
    return -1;
  }
  int fd = mkostemp(path, O_CLOEXEC);
  if (fd < 0)
    snprintf(why, why_size, "%s: cannot create the records' file: %s", path,
             strerror(errno));
  return fd;
}

/* Forks and execs; the parent learns of a failed exec through a pipe
 * closed by a successful one. The forwarded signals are blocked across
 * the fork, so that one arriving now finds the program's pid. */
static pid_t start(const occ_run_spec *spec, const char *out_path,
                   int *exec_errno, char *why, size_t why_size) {
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) {
    snprintf(why, why_size, "pipe: %s", strerror(errno));
    return -1;
  }
  fflush(NULL);
  sigset_t mask;
  block_forwarded(SIG_BLOCK, &mask);
  pid_t pid = fork();
  if (pid == 0) child(spec, out_path, report[1], &mask);
  if (pid > 0) running = pid;
  /* A signal that came before the fork, while no program was there. */
  if (pid > 0 && received) kill(pid, received);
  sigprocmask(SIG_SETMASK, &mask, NULL);
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
  /* The counters' turns of the program's processes (inject_turns.h);
   * without the file they profile as if each were alone. */
  char lock_path[PATH_MAX + 8];
  snprintf(lock_path, sizeof lock_path, "%s.lock", out_path);
  int lock_fd = open(lock_path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
                     O_CLOEXEC, 0600);
  if (lock_fd >= 0) close(lock_fd);
  take_signals();
  off_t offset = 0;
  pid_t pid = start(spec, out_path, &result->exec_errno, why, why_size);
  int rc = pid < 0 ? -1 : wait_program(pid, fd, &offset, result, spec);
  if (rc == -1 && pid >= 0)
    snprintf(why, why_size, "waitid: %s", strerror(errno));
  /* The program is gone: nobody needs the name any more. */
  unlink(out_path);
  if (lock_fd >= 0) unlink(lock_path);
  if (rc == 0) read_records(fd, &offset, result, spec);
  running = 0;
  give_back_signals();
  result->signal = received;
  close(fd);
  return rc;
}

void occ_run_result_free(occ_run_result *result) {
  occ_records_free(&result->records);
}
