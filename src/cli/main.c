/* main.c - occcalc's entry point: the program is occ_main (occcalc.c), so
 * that a fuzzer can run it in-process. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "core/exit.h"

#include "cli/occcalc.h"

/* A closed standard descriptor is reopened on /dev/null, as a shell or
 * timeout does: otherwise the next file occcalc opens (run's records file,
 * an output file) takes its number, and a program under `occcalc run`
 * would read that file as its stdin or write its output into it. Read
 * only, so that a write to a closed stdout still fails (EBADF) and the
 * report is not lost with status 0: `occcalc report F >&-` exits 1. */
static int open_standard_fds(void) {
  for (int fd = 0; fd < 3; fd++) {
    if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    /* open takes the lowest free number: fd itself. */
    if (open("/dev/null", O_RDONLY) != fd) return -1;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (open_standard_fds() != 0) {
    fprintf(stderr, "occcalc: /dev/null: %s (needed in place of a closed "
            "standard descriptor)\n", strerror(errno));
    return OCC_EXIT_FAILURE;
  }
  return occ_main(argc, argv);
}
