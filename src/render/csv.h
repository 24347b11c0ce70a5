/* csv.h - the one CSV rule of every CSV writer (the charts' points, run's
 * rows): RFC 4180. */
#ifndef OCC_CSV_H
#define OCC_CSV_H

#include <stdio.h>

/* Writes text as one field: as it is, or quoted with its quotes doubled
 * when it holds a comma, a quote or a line break (C++ names hold
 * commas). NULL and "" are an empty field. */
void occ_csv_field(FILE *out, const char *text);

#endif
