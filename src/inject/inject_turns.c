/* inject_turns.c - the counters' turns (see inject_turns.h). */
#include "inject/inject_turns.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int occ_turns_open(const char *records_path) {
  char path[4096];
  if (!records_path || !*records_path ||
      snprintf(path, sizeof path, "%s.lock", records_path) >= (int)sizeof path)
    return -1;
  /* occcalc made it beside the records' file, which is in a shared
   * temporary directory: never a link someone put there. */
  return open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
}

uint64_t occ_turns_key(int pci_domain, int pci_bus, int pci_device) {
  return (uint64_t)(uint32_t)pci_domain << 16 |
         (uint64_t)(pci_bus & 0xff) << 8 | (uint64_t)(pci_device & 0xff);
}

/* The turn's byte and, beside it, the byte of those who want it. */
static off_t turn_byte(uint64_t key) { return (off_t)(key * 2); }
static off_t want_byte(uint64_t key) { return (off_t)(key * 2 + 1); }

static int lock(int fd, int cmd, short type, off_t at) {
  struct flock l;
  memset(&l, 0, sizeof l);
  l.l_type = type;
  l.l_whence = SEEK_SET;
  l.l_start = at;
  l.l_len = 1;
  int rc;
  do
    rc = fcntl(fd, cmd, &l);
  while (rc != 0 && errno == EINTR);
  return rc;
}

bool occ_turns_try(int fd, uint64_t key) {
  if (fd < 0)
    return true;
  if (lock(fd, F_SETLK, F_WRLCK, turn_byte(key)) == 0) {
    lock(fd, F_SETLK, F_UNLCK, want_byte(key));
    return true;
  }
  lock(fd, F_SETLK, F_RDLCK, want_byte(key));
  return false;
}

bool occ_turns_wanted(int fd, uint64_t key) {
  if (fd < 0)
    return false;
  struct flock l;
  memset(&l, 0, sizeof l);
  l.l_type = F_WRLCK;
  l.l_whence = SEEK_SET;
  l.l_start = want_byte(key);
  l.l_len = 1;
  return fcntl(fd, F_GETLK, &l) == 0 && l.l_type != F_UNLCK;
}

void occ_turns_give(int fd, uint64_t key) {
  if (fd >= 0)
    lock(fd, F_SETLK, F_UNLCK, turn_byte(key));
}
