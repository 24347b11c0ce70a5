/* ncu_rows.h - the Nsight Compute section (core/ncu.h) described once, as
 * rows of key, unit and getter, in the manner of curl's variables[]: the
 * text writer (--ncu) and the JSON writer (the "ncu" object) both walk
 * these rows, so they cannot disagree on a name, a value or what is not
 * known. */
#ifndef OCC_NCU_ROWS_H
#define OCC_NCU_ROWS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/ncu.h"

typedef struct occ_ncu_value {
  const char *key;   /* ncu's metric name */
  const char *unit;  /* "blocks", "registers", "bytes", "percent", "waves" */
  int decimals;      /* 0: an integer */
  bool known;        /* false: null in JSON */
  double value;
  const char *words; /* when not known, what the text says instead; NULL:
                        the text leaves the row out */
  bool assumed;      /* a known figure no survey backs on this
                        architecture (the SM's configuration and what it
                        gives): the text marks it, JSON lists it */
} occ_ncu_value;

enum { OCC_NCU_ROW_COUNT = 15 };

/* Fills values[0..OCC_NCU_ROW_COUNT-1] from n, in ncu's order. */
void occ_ncu_values_rows(const occ_ncu *n,
                         occ_ncu_value values[OCC_NCU_ROW_COUNT]);

#endif
