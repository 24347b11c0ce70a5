/* exit.h - occcalc's exit statuses (documented in the man page). */
#ifndef OCC_EXIT_H
#define OCC_EXIT_H

#include <errno.h>
#include <string.h>

enum {
  OCC_EXIT_OK = 0,
  OCC_EXIT_FAILURE = 1,  /* output could not be written, out of memory */
  OCC_EXIT_USAGE = 2,    /* bad option, value, file or input */
  OCC_EXIT_GATE = 3,     /* a kernel is below --min-occupancy */
  OCC_EXIT_DISAGREE = 4, /* the live verification disagrees */
  OCC_EXIT_DEVICE = 5,   /* CUDA or device error */
  /* The reader of stdout went away (EPIPE): stop quietly, with the status
   * a shell gives a process that SIGPIPE killed (128 + 13), whether or
   * not SIGPIPE is ignored. */
  OCC_EXIT_PIPE = 141
};

/* The status after a failed write on a stream, err being the write's
 * errno: OCC_EXIT_PIPE for a closed pipe (nothing to say), else
 * OCC_EXIT_FAILURE (to be reported). */
static inline int occ_exit_of_stream_error(int err) {
  return err == EPIPE ? OCC_EXIT_PIPE : OCC_EXIT_FAILURE;
}

/* A failed open or read of an input, err being its errno: out of memory
 * (ENOMEM: an allocation inside fopen or the reader failed) is an output
 * error, OCC_EXIT_FAILURE, reported as "out of memory"; anything else is
 * the input's fault, OCC_EXIT_USAGE, reported with strerror. */
static inline int occ_exit_of_input_error(int err) {
  return err == ENOMEM ? OCC_EXIT_FAILURE : OCC_EXIT_USAGE;
}
static inline const char *occ_input_strerror(int err) {
  return err == ENOMEM ? "out of memory" : strerror(err);
}

/* The status of a writer's result: 0 is success, anything else means the
 * output could not be written (the writer has said why). */
static inline int occ_exit_of_write(int written) {
  return written == 0 ? OCC_EXIT_OK : OCC_EXIT_FAILURE;
}

#endif
