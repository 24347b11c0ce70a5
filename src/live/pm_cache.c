/* pm_cache.c - the counter availability image kept between runs (see
 * pm_cache.h). */
#include "live/pm_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/hash.h"

#define MAGIC "OCCPMAV1"
/* No image is larger (an H100's is a few KB). */
#define IMAGE_MAX (16u << 20)

typedef struct header {
  char magic[8];
  uint64_t size;
  uint64_t checksum;
} header;

static uint64_t checksum(const uint8_t *p, size_t n) {
  uint64_t h = occ_hash_mix(n);
  for (size_t i = 0; i < n; i++) h = occ_hash_mix(h ^ p[i]) + i;
  return h;
}

int occ_pm_cache_path(char *path, size_t size, const char *dir,
                      const char *chip, uint32_t cupti_version,
                      int driver_version) {
  if (!*chip) return -1;
  for (const char *c = chip; *c; c++)
    if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
          (*c >= '0' && *c <= '9') || *c == '-' || *c == '_'))
      return -1;
  int n = snprintf(path, size, "%s/pm-availability-%s-cupti%u-driver%d.bin",
                   dir, chip, cupti_version, driver_version);
  return n > 0 && (size_t)n < size ? 0 : -1;
}

int occ_pm_cache_dir(char *dir, size_t size) {
  const char *xdg = getenv("XDG_CACHE_HOME");
  const char *home = getenv("HOME");
  int n;
  if (xdg && *xdg == '/') n = snprintf(dir, size, "%s/occcalc", xdg);
  else if (home && *home == '/') n = snprintf(dir, size, "%s/.cache/occcalc", home);
  else return -1;
  if (n <= 0 || (size_t)n >= size) return -1;
  /* The parent first ($HOME/.cache may be missing too). */
  char *slash = strrchr(dir, '/');
  *slash = '\0';
  mkdir(dir, 0700);
  *slash = '/';
  if (mkdir(dir, 0700) != 0 && errno != EEXIST) return -1;
  return 0;
}

uint8_t *occ_pm_cache_read(const char *path, size_t *size) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return NULL;
  header h;
  uint8_t *image = NULL;
  struct stat st;
  if (fstat(fd, &st) != 0 || read(fd, &h, sizeof h) != (ssize_t)sizeof h ||
      memcmp(h.magic, MAGIC, sizeof h.magic) != 0 || h.size == 0 ||
      h.size > IMAGE_MAX || (uint64_t)st.st_size != sizeof h + h.size)
    goto out;
  image = malloc(h.size + 1);
  if (!image) goto out;
  if (read(fd, image, h.size) != (ssize_t)h.size ||
      checksum(image, h.size) != h.checksum) {
    free(image);
    image = NULL;
    goto out;
  }
  *size = h.size;
out:
  close(fd);
  return image;
}

int occ_pm_cache_write(const char *path, const uint8_t *image, size_t size) {
  if (size == 0 || size > IMAGE_MAX) return -1;
  char tmp[4096 + 32];
  if (snprintf(tmp, sizeof tmp, "%s.%ld", path, (long)getpid()) >=
      (int)sizeof tmp)
    return -1;
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  header h = {.size = size, .checksum = checksum(image, size)};
  memcpy(h.magic, MAGIC, sizeof h.magic);
  int ok = write(fd, &h, sizeof h) == (ssize_t)sizeof h &&
           write(fd, image, size) == (ssize_t)size;
  ok = close(fd) == 0 && ok;
  if (ok && rename(tmp, path) == 0) return 0;
  unlink(tmp);
  return -1;
}
