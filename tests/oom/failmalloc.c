/* failmalloc.c - LD_PRELOAD shim: malloc, calloc and realloc fail (NULL,
 * errno ENOMEM) from call number $FAILMALLOC_AFTER on, counting from 0
 * (unset: never), as when memory runs out (tests/oom/alloc_fail.sh), in
 * the process that loads it only. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static long after = -2, calls;

static int fail_now(void) {
  if (after == -2) {
    const char *e = getenv("FAILMALLOC_AFTER");
    after = e ? atol(e) : -1;
  }
  if (calls++ < after || after < 0) return 0;
  errno = ENOMEM;
  return 1;
}

void *malloc(size_t n) { return fail_now() ? NULL : __libc_malloc(n); }
void *calloc(size_t a, size_t b) { return fail_now() ? NULL : __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { return fail_now() ? NULL : __libc_realloc(p, n); }

/* Only occcalc's own allocations fail: a program it runs (occcalc run)
 * is started without the shim, so that its crash is never taken for
 * occcalc's. */
__attribute__((constructor)) static void only_here(void) {
  unsetenv("LD_PRELOAD");
}

/* With $FAILMALLOC_COUNT set to a file, the number of calls is written
 * there at exit: how many allocations a command makes. */
__attribute__((destructor)) static void count_out(void) {
  const char *path = getenv("FAILMALLOC_COUNT");
  if (!path) return;
  FILE *f = fopen(path, "w");
  if (f) {
    fprintf(f, "%ld\n", calls);
    fclose(f);
  }
}
