/* outfile.c - output files (see outfile.h). */
/* realpath and fchown's uses are XSI. */
#define _XOPEN_SOURCE 700
#include "render/outfile.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "text/text_safe.h"

static int refuse(FILE *err, const char *option, const char *path,
                  const char *why) {
  occ_msg(err, "%s: cannot write '%s': %s", option, path, why);
  return 2;
}

/* The descriptor that /dev/stdout, /dev/stderr, /dev/stdin, /dev/fd/N or
 * /proc/self/fd/N stands for, or -1 for any other path. Writing to a
 * duplicate of it, rather than opening the name, keeps the stream's
 * offset and never touches the /dev entry itself. */
static int fd_alias(const char *path) {
  static const char *const names[] = {"/dev/stdin", "/dev/stdout",
                                      "/dev/stderr"};
  for (int i = 0; i < 3; i++)
    if (strcmp(path, names[i]) == 0) return i;
  const char *num = NULL;
  if (strncmp(path, "/dev/fd/", 8) == 0) num = path + 8;
  if (strncmp(path, "/proc/self/fd/", 14) == 0) num = path + 14;
  if (!num || !isdigit((unsigned char)*num)) return -1;
  char *end;
  errno = 0;
  long n = strtol(num, &end, 10);
  return *end || errno || n > INT_MAX ? -1 : (int)n;
}

/* What path is: a descriptor's name (*alias >= 0), a stream opened in
 * place (*in_place: a character device or a FIFO), or a regular file,
 * existing or not, whose real path goes to target. Returns 0, or 2 after
 * the message. */
static int resolve(const char *path, const char *option, char *target,
                   size_t size, int *alias, bool *in_place, FILE *err) {
  *in_place = false;
  *alias = fd_alias(path);
  if (*alias >= 0)
    return fcntl(*alias, F_GETFD) == -1
               ? refuse(err, option, path, strerror(errno)) : 0;
  size_t len = strlen(path);
  if (len == 0 || path[len - 1] == '/')
    return refuse(err, option, path, "a file name cannot end in '/'");
  struct stat st;
  if (stat(path, &st) != 0) {
    if (errno != ENOENT) return refuse(err, option, path, strerror(errno));
    if (lstat(path, &st) == 0)
      return refuse(err, option, path, "a symbolic link to a missing file");
    if (len >= size) return refuse(err, option, path, strerror(ENAMETOOLONG));
    memcpy(target, path, len + 1);
    return 0;
  }
  if (S_ISDIR(st.st_mode))
    return refuse(err, option, path, "it is a directory");
  *in_place = S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode);
  if (!*in_place && !S_ISREG(st.st_mode))
    return refuse(err, option, path, "not a regular file, a character "
                  "device or a FIFO (a socket or a block device)");
  char real[PATH_MAX];
  if (!realpath(path, real) || strlen(real) >= size)
    return refuse(err, option, path, strerror(errno ? errno : ENAMETOOLONG));
  memcpy(target, real, strlen(real) + 1);
  return 0;
}

/* The temporary file beside o->target, with the old file's mode (and
 * owner, where occcalc may set it), or what a plain open would give a new
 * file. Its name is of fixed length in the target's folder
 * (".occcalc-XXXXXX"), not the target's name lengthened: every name the
 * file system takes, up to its 255 bytes, is written. Returns its
 * descriptor, or -1 with errno. */
static int make_temp(occ_outfile *o) {
  const char *slash = strrchr(o->target, '/');
  int dir_len = slash ? (int)(slash - o->target) + 1 : 0;
  if (snprintf(o->tmp, sizeof o->tmp, "%.*s.occcalc-XXXXXX", dir_len,
               o->target) >= (int)sizeof o->tmp) {
    o->tmp[0] = '\0';
    errno = ENAMETOOLONG;
    return -1;
  }
  int fd = mkstemp(o->tmp);
  if (fd < 0) {
    o->tmp[0] = '\0';
    return -1;
  }
  fcntl(fd, F_SETFD, FD_CLOEXEC);
  struct stat st;
  if (lstat(o->target, &st) == 0 && S_ISREG(st.st_mode)) {
    if (geteuid() == 0 && fchown(fd, st.st_uid, st.st_gid) != 0) {
      /* keeping the owner is best effort (a file system without owners) */
    }
    fchmod(fd, st.st_mode & 07777);
  } else {
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
  }
  return fd;
}

int occ_outfile_prepare(occ_outfile *o, const char *path,
                        const char *option, FILE *err) {
  *o = (occ_outfile){.option = option, .given = path};
  int rc = resolve(path, option, o->target, sizeof o->target, &o->alias,
                   &o->in_place, err);
  if (rc != 0 || o->alias >= 0) return rc;
  /* A FIFO is not opened: that would wait for its reader. */
  if (o->in_place)
    return access(o->target, W_OK) == 0
               ? 0 : refuse(err, option, path, strerror(errno));
  int fd = make_temp(o);
  if (fd < 0) return refuse(err, option, path, strerror(errno));
  close(fd);
  unlink(o->tmp);
  o->tmp[0] = '\0';
  return 0;
}

int occ_outfile_start(occ_outfile *o, FILE *err) {
  /* The target was resolved by occ_outfile_prepare: a symbolic link put
   * in its place since is not followed (O_NOFOLLOW; rename replaces the
   * link itself, and mkstemp never follows one). */
  int fd = o->alias >= 0 ? fcntl(o->alias, F_DUPFD_CLOEXEC, 3)
           : o->in_place ? open(o->target, O_WRONLY | O_NOCTTY | O_CLOEXEC |
                                               O_NOFOLLOW)
                         : make_temp(o);
  if (fd >= 0 && (o->f = fdopen(fd, "w")) != NULL) return 0;
  int saved = errno;
  if (fd >= 0) close(fd);
  if (o->tmp[0]) unlink(o->tmp);
  o->tmp[0] = '\0';
  return refuse(err, o->option, o->given, strerror(saved));
}

int occ_outfile_open(occ_outfile *o, const char *path, const char *option,
                     FILE *err) {
  int rc = occ_outfile_prepare(o, path, option, err);
  return rc != 0 ? rc : occ_outfile_start(o, err);
}

int occ_outfile_commit(occ_outfile *o, FILE *err) {
  errno = 0;
  bool failed = fflush(o->f) != 0 || ferror(o->f);
  int saved = errno;
  if (fclose(o->f) != 0 && !failed) failed = true, saved = errno;
  o->f = NULL;
  if (!failed && (!o->tmp[0] || rename(o->tmp, o->target) == 0)) return 0;
  if (!failed) saved = errno;
  if (o->tmp[0]) unlink(o->tmp);
  occ_msg(err, "%s: error writing '%s': %s", o->option, o->given,
          saved ? strerror(saved) : "a write failed");
  return 1;
}

void occ_outfile_discard(occ_outfile *o) {
  if (o->f) fclose(o->f);
  o->f = NULL;
  if (o->tmp[0]) unlink(o->tmp);
  o->tmp[0] = '\0';
}

int occ_outfile_write(const char *path, const char *option,
                      occ_outfile_fn write, const void *context, FILE *err) {
  occ_outfile o;
  int rc = occ_outfile_open(&o, path, option, err);
  if (rc != 0) return rc;
  write(o.f, context);
  return occ_outfile_commit(&o, err);
}

int occ_outfile_check(const char *path, const char *option, FILE *err) {
  occ_outfile o;
  return occ_outfile_prepare(&o, path, option, err);
}

int occ_outfile_mkdir(const char *path, const char *option, FILE *err) {
  size_t len = strlen(path);
  if (len < 2 || path[len - 1] != '/' || mkdir(path, 0777) == 0 ||
      errno == EEXIST)
    return 0;
  occ_msg(err, "%s: cannot create the directory '%s': %s", option, path,
          strerror(errno));
  return 2;
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
