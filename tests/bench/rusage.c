/* rusage.c - runs a command with stdout to /dev/null and prints
 * "wall_s=S cpu_s=S maxrss_kib=N status=N": the benchmark's clocks (wall,
 * and the user plus system CPU time the command used) and peak memory,
 * without depending on GNU time being installed. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: rusage COMMAND [ARG...]\n");
    return 2;
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  pid_t pid = fork();
  if (pid < 0) return 2;
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    if (null < 0 || dup2(null, 1) < 0) _exit(127);
    execvp(argv[1], argv + 1);
    _exit(127);
  }
  int status;
  struct rusage ru;
  if (wait4(pid, &status, 0, &ru) < 0) return 2;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double wall = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
  double cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
               (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  printf("wall_s=%.3f cpu_s=%.3f maxrss_kib=%ld status=%d\n", wall, cpu,
         ru.ru_maxrss,
         WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
  return 0;
}
