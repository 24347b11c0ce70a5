/* outfile.c - atomic output files (see outfile.h). */
#include "out/outfile.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "out/text_safe.h"

int occ_outfile_write(const char *path, occ_outfile_fn write,
                      const void *context, FILE *err) {
  char tmp[4200];
  if (snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= (int)sizeof tmp) {
    occ_msg(err, "--svg: '%.60s...': the name is too long", path);
    return 2;
  }
  int fd = mkstemp(tmp);
  /* mkstemp makes the file private; the result gets what a plain fopen
   * would have given it. */
  mode_t mask = umask(0);
  umask(mask);
  if (fd >= 0) fchmod(fd, 0666 & ~mask);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!f) {
    occ_msg(err, "--svg: cannot write '%s': %s", path, strerror(errno));
    if (fd >= 0) close(fd), unlink(tmp);
    return 2;
  }
  write(f, context);
  int failed = fflush(f) != 0 || ferror(f);
  int saved = errno;
  if (fclose(f) != 0 && !failed) failed = 1, saved = errno;
  if (!failed && rename(tmp, path) == 0) return 0;
  if (!failed) saved = errno;
  unlink(tmp);
  occ_msg(err, "--svg: error writing '%s': %s", path, strerror(saved));
  return 1;
}

void occ_outfile_name(char *buf, size_t size, const char *dir, long n,
                      const char *label, const char *ext) {
  char safe[121];
  const char *from = label ? label : "kernel";
  size_t i = 0;
  for (; from[i] && i < sizeof safe - 1; i++) {
    unsigned char c = (unsigned char)from[i];
    safe[i] = isalnum(c) || c == '_' || c == '.' || c == '-' ? (char)c : '_';
  }
  safe[i] = '\0';
  size_t len = strlen(dir);
  snprintf(buf, size, "%s%s%ld-%s%s", dir, len && dir[len - 1] == '/' ? "" : "/",
           n, safe, ext);
}

int occ_outfile_check(const char *path, FILE *err) {
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
    occ_msg(err, "--svg: cannot write '%s': it is a directory", path);
    return 2;
  }
  char dir[4096];
  const char *slash = strrchr(path, '/');
  size_t len = slash ? (size_t)(slash - path) : 0;
  if (len >= sizeof dir) len = sizeof dir - 1;
  memcpy(dir, slash ? path : ".", slash ? len : 1);
  dir[slash ? (len ? len : 1) : 1] = '\0';
  if (slash && len == 0) dir[0] = '/';
  if (access(dir, W_OK | X_OK) == 0) return 0;
  occ_msg(err, "--svg: cannot write '%s': %s", path, strerror(errno));
  return 2;
}
