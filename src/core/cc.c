/* cc.c - compute capabilities' names (see cc.h). */
#include "core/cc.h"

#include <stdbool.h>
#include <string.h>

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

int occ_parse_cc(const char *text, occ_cc_form form, int *major, int *minor) {
  const char *p = text;
  bool prefixed = form == OCC_CC_NAME && (strncmp(p, "sm_", 3) == 0 ||
                                          strncmp(p, "compute_", 8) == 0);
  if (prefixed) p = strchr(p, '_') + 1;
  /* A major of one or two digits, the first not 0, then with a dot
   * unprefixed ("9.0", "10.0") or without one after sm_ or compute_
   * ("90", "100"), then one digit of minor. */
  if (p[0] < '1' || p[0] > '9') return -1;
  bool dotted = !prefixed;
  bool two = is_digit(p[1]) && (dotted ? p[2] == '.' : is_digit(p[2]));
  int value = two ? (p[0] - '0') * 10 + (p[1] - '0') : p[0] - '0';
  if (value > (form == OCC_CC_NAME ? 19 : 99)) return -1;
  const char *minor_at = p + (two ? 2 : 1);
  if (dotted && *minor_at++ != '.') return -1;
  if (!is_digit(*minor_at)) return -1;
  const char *end = minor_at + 1;
  if (prefixed && (*end == 'a' || *end == 'f')) end++;
  if (*end != '\0') return -1;
  *major = value;
  *minor = *minor_at - '0';
  return 0;
}
