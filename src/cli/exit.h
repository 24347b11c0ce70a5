/* exit.h - occcalc's exit statuses (documented in the man page). */
#ifndef OCC_EXIT_H
#define OCC_EXIT_H

enum {
  OCC_EXIT_OK = 0,
  OCC_EXIT_FAILURE = 1,  /* output could not be written, out of memory */
  OCC_EXIT_USAGE = 2,    /* bad option, value, file or input */
  OCC_EXIT_GATE = 3,     /* a kernel is below --min-occupancy */
  OCC_EXIT_DISAGREE = 4, /* the live verification disagrees */
  OCC_EXIT_DEVICE = 5    /* CUDA or device error */
};

/* The status of a writer's result: 0 is success, anything else means the
 * output could not be written (the writer has said why). */
static inline int occ_exit_of_write(int written) {
  return written == 0 ? OCC_EXIT_OK : OCC_EXIT_FAILURE;
}

#endif
