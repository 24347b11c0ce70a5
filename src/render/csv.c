/* csv.c - the one CSV quoting rule (see csv.h). */
#include "render/csv.h"

#include <string.h>

void occ_csv_field(FILE *out, const char *text) {
  if (!text) return;
  if (!strpbrk(text, ",\"\r\n")) {
    fputs(text, out);
    return;
  }
  putc('"', out);
  for (const char *p = text; *p; p++) {
    if (*p == '"') putc('"', out);
    putc(*p, out);
  }
  putc('"', out);
}

void occ_csv_fraction(FILE *out, double value, bool known) {
  if (known) fprintf(out, "%.*f", OCC_CSV_FRACTION_DIGITS, value);
}

void occ_csv_decimal(FILE *out, double value, bool known) {
  if (known) fprintf(out, "%.*f", OCC_CSV_DECIMAL_DIGITS, value);
}
