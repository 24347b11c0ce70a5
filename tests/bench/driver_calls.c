/* driver_calls.c - a library for LD_PRELOAD that logs a process's calls
 * into the NVIDIA kernel driver (tests/bench/driver_calls.py reads the
 * logs). The driver takes turns between processes on one GPU: a call of
 * one process can wait for another's. Logging each call's start and
 * duration shows whose work a program waits behind, which no CUDA or
 * CUPTI interface reports.
 *
 * Each call to ioctl on the resource manager (/dev/nvidia*, ioctl type
 * 'F') or on the unified memory driver (/dev/nvidia-uvm, small request
 * numbers) is one line of $OCC_DRIVER_LOG/PID.log:
 *   START_NS DURATION_NS rm|uvm NUMBER COMMAND OPS
 * with START_NS on CLOCK_MONOTONIC, NUMBER the driver's escape or UVM
 * request number, COMMAND the resource manager's control command or
 * allocated class where the call has one (else 0), and OPS the number of
 * register operations a profiler's EXEC_REG_OPS carries (else 0). The
 * first line names the process: "exe PATH". */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

/* The resource manager's escapes whose parameters name a command or a
 * class (nv_escape.h): NV_ESC_RM_CONTROL's NVOS54_PARAMETERS has the
 * command at its third word, NV_ESC_RM_ALLOC's NVOS21/NVOS64_PARAMETERS
 * the class at its fourth. */
#define ESC_RM_CONTROL 0x2a
#define ESC_RM_ALLOC 0x2b
/* NVB0CC_CTRL_CMD_EXEC_REG_OPS (ctrlb0ccprofiler.h): its parameters,
 * found through NVOS54_PARAMETERS' pointer at byte 16, begin with the
 * count of register operations (at most 124 a call). */
#define CMD_EXEC_REG_OPS 0xb0cc010au

typedef int (*ioctl_fn)(int, unsigned long, void *);

static ioctl_fn real_ioctl;
static int log_fd = -1;
static pid_t log_pid;

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* One write per line, O_APPEND: lines of the threads of one process
 * never interleave. A failed write loses a line, never the program; a
 * line longer than its buffer is cut where snprintf cut it. */
static void put(const char *line, int n, size_t size) {
  if (n <= 0) return;
  size_t len = (size_t)n < size ? (size_t)n : size - 1;
  if (write(log_fd, line, len) < 0) return;
}

/* Opened again in a forked child, whose calls go to a log of its own. */
static void open_log(void) {
  const char *dir = getenv("OCC_DRIVER_LOG");
  pid_t pid = getpid();
  if (!dir || pid == log_pid) return;
  if (log_fd >= 0) close(log_fd);
  log_pid = pid;
  char path[4096];
  snprintf(path, sizeof path, "%s/%d.log", dir, (int)pid);
  log_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0) return;
  char exe[1024];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[len > 0 ? len : 0] = '\0';
  char line[1100];
  put(line, snprintf(line, sizeof line, "exe %s\n", exe), sizeof line);
}

static uint32_t command_of(unsigned nr, const void *arg) {
  const uint32_t *words = arg;
  if (!arg) return 0;
  if (nr == ESC_RM_CONTROL) return words[2];
  if (nr == ESC_RM_ALLOC) return words[3];
  return 0;
}

static uint32_t reg_ops_of(uint32_t command, const void *arg) {
  if (command != CMD_EXEC_REG_OPS) return 0;
  uint64_t params;
  memcpy(&params, (const char *)arg + 16, sizeof params);
  return params ? *(const uint32_t *)(uintptr_t)params : 0;
}

int ioctl(int fd, unsigned long request, ...) {
  va_list ap;
  va_start(ap, request);
  void *arg = va_arg(ap, void *);
  va_end(ap);
  if (!real_ioctl) {
    *(void **)&real_ioctl = dlsym(RTLD_NEXT, "ioctl");
    if (!real_ioctl) return -1;
  }
  unsigned type = (unsigned)(request >> 8) & 0xffu;
  unsigned nr = (unsigned)request & 0xffu;
  const char *kind = type == 'F' ? "rm" : request < 256 ? "uvm" : NULL;
  if (!kind) return real_ioctl(fd, request, arg);
  open_log();
  uint64_t start = now_ns();
  int rc = real_ioctl(fd, request, arg);
  uint64_t took = now_ns() - start;
  if (log_fd >= 0) {
    uint32_t command = command_of(nr, arg);
    char line[128];
    put(line,
        snprintf(line, sizeof line, "%llu %llu %s 0x%02x 0x%08x %u\n",
                 (unsigned long long)start, (unsigned long long)took, kind, nr,
                 command, reg_ops_of(command, arg)),
        sizeof line);
  }
  return rc;
}
