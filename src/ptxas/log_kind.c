/* log_kind.c - which reader a line calls for (see log_kind.h). */
#include "ptxas/log_kind.h"

#include <stdbool.h>
#include <string.h>

static bool is_space(char c) { return c == ' ' || c == '\t'; }

static const char *find(const char *s, size_t len, const char *needle) {
  size_t n = strlen(needle);
  for (size_t i = 0; n <= len && i <= len - n; i++)
    if (s[i] == needle[0] && memcmp(s + i, needle, n) == 0) return s + i;
  return NULL;
}

/* After MSBuild's "N>" prefix and blanks: "ptxas" and one of its message
 * kinds before a colon (the ptxas reader's own test, ptxas.c), or
 * cuobjdump's "REG:" and a digit. */
static bool nvidia_line(const char *s, const char *end) {
  const char *q = s;
  while (q < end && *q >= '0' && *q <= '9') q++;
  if (q > s && q < end && *q == '>') s = q + 1;
  while (s < end && is_space(*s)) s++;
  if ((size_t)(end - s) > 4 && memcmp(s, "REG:", 4) == 0)
    return s[4] >= '0' && s[4] <= '9';
  if ((size_t)(end - s) < 6 || memcmp(s, "ptxas", 5) != 0 || !is_space(s[5])) return false;
  s += 6;
  while (s < end && is_space(*s)) s++;
  static const char *const kinds[] = {"info", "warning", "error", "fatal"};
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
    size_t n = strlen(kinds[i]);
    if ((size_t)(end - s) < n || memcmp(s, kinds[i], n) != 0) continue;
    const char *c = s + n;
    while (c < end && is_space(*c)) c++;
    return c < end && *c == ':';
  }
  return false;
}

occ_log_kind occ_log_line_kind(const char *s, size_t len) {
  const char *end = s + len;
  if (len && end[-1] == '\r') end--;
  if (nvidia_line(s, end)) return OCC_LOG_NVIDIA;
  /* clang's remark, colour codes or not: the tag ends it. */
  if (find(s, (size_t)(end - s), "[-Rpass-analysis=kernel-resource-usage]") &&
      find(s, (size_t)(end - s), "remark"))
    return OCC_LOG_AMD;
  return OCC_LOG_UNDECIDED;
}

const char *occ_log_kind_words(occ_log_kind kind) {
  switch (kind) {
  case OCC_LOG_NVIDIA: return "NVIDIA's (ptxas or cuobjdump)";
  case OCC_LOG_AMD: return "AMD's (clang's kernel-resource-usage remarks)";
  case OCC_LOG_UNDECIDED: break;
  }
  return "a log of neither kind";
}
