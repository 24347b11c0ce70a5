/* cupti_client.c - a program with its own CUPTI client, for
 * libocc_preload.so's tests (cpu_test.sh).
 *
 * Usage: cupti_client DIR SCOPE VERSION [TIMES]
 *   DIR      where libcupti_user.so and the fake CUPTIs lie
 *   SCOPE    global | local | beside: libcupti_user.so (and the
 *            program's CUPTI with it) opened RTLD_GLOBAL, or RTLD_LOCAL
 *            as Python opens extension modules; beside: RTLD_LOCAL after
 *            another CUPTI that would accept was opened RTLD_GLOBAL, as
 *            the injection library opens its own (the global scope comes
 *            first, so the call reaches that one)
 *   VERSION  v1 | v2: cuptiSubscribe or cuptiSubscribe_v2
 *   TIMES    subscriptions tried (default 1)
 *   fork     then a child forked, which tries once more
 * Prints the CUptiResult of each, one per line. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void *open_or_die(const char *dir, const char *name, int mode) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  void *h = dlopen(path, mode);
  if (!h) {
    fprintf(stderr, "cupti_client: %s\n", dlerror());
    exit(99);
  }
  return h;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr,
            "usage: cupti_client DIR global|local|beside v1|v2 [TIMES]\n");
    return 2;
  }
  int beside = strcmp(argv[2], "beside") == 0;
  int local = beside || strcmp(argv[2], "local") == 0;
  int v2 = strcmp(argv[3], "v2") == 0;
  int times = argc > 4 ? atoi(argv[4]) : 1;
  if (beside)
    open_or_die(argv[1], "libfakecupti_other.so", RTLD_NOW | RTLD_GLOBAL);
  void *user = open_or_die(argv[1], "libcupti_user.so",
                           RTLD_NOW | (local ? RTLD_LOCAL : RTLD_GLOBAL));
  int (*subscribe)(int) = (int (*)(int))dlsym(user, "user_subscribe");
  if (!subscribe) return 99;
  for (int i = 0; i < times; i++) printf("%d\n", subscribe(v2));
  if (argc > 5 && strcmp(argv[5], "fork") == 0) {
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
      printf("%d\n", subscribe(v2));
      return 0;
    }
    if (child < 0 || waitpid(child, NULL, 0) != child) return 99;
  }
  return 0;
}
