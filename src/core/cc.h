/* cc.h - the one parser of a compute capability's name: what --arch and
 * --cc take, the targets of compiler reports (ptxas's and cuobjdump's
 * "sm_90a") and the database's "cc" ("9.0"). Pure: no I/O. */
#ifndef OCC_CC_H
#define OCC_CC_H

/* The names a caller takes. */
typedef enum occ_cc_form {
  /* sm_XY or compute_XY (each with an optional a or f) or X.Y, with a
   * major from 1 to 19 ("sm_90a", "sm_100", "9.0", "10.0"): the options
   * and the compiler reports' targets. */
  OCC_CC_NAME,
  /* X.Y only, with a major from 1 to 99 (the core's range) and no
   * leading zero ("9.0", "12.1"): the database's "cc". */
  OCC_CC_DOTTED
} occ_cc_form;

/* Parses text as form: returns 0 with major and minor, or -1 if the text
 * is not one. The minor is always one digit. */
int occ_parse_cc(const char *text, occ_cc_form form, int *major, int *minor);

#endif
