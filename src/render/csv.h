/* csv.h - the one CSV rule of every CSV writer (the charts' points, run's
 * rows): RFC 4180. */
#ifndef OCC_CSV_H
#define OCC_CSV_H

#include <stdbool.h>
#include <stdio.h>

/* Writes text as one field: as it is, or quoted with its quotes doubled
 * when it holds a comma, a quote or a line break (C++ names hold
 * commas). NULL and "" are an empty field. */
void occ_csv_field(FILE *out, const char *text);

/* The numbers of the charts' and the --ptxas table's CSV, one format per
 * kind of quantity, never with binary noise such as 0.65000000000000002:
 * a fraction (an occupancy) with 4 decimals ("0.6250"); a time in
 * microseconds or a count of waves with 3 ("12.500"); counts and sizes
 * are integers. Unknown is an empty field. (run's and report's CSV keep
 * more digits: their tests hold them equal to the JSON within 1e-5.) */
#define OCC_CSV_FRACTION_DIGITS 4
#define OCC_CSV_DECIMAL_DIGITS 3
void occ_csv_fraction(FILE *out, double value, bool known);
void occ_csv_decimal(FILE *out, double value, bool known);

#endif
