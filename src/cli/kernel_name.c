/* kernel_name.c - --kernel's matching (see kernel_name.h). */
#include "cli/kernel_name.h"

#include <fnmatch.h>
#include <string.h>

static bool matches(const char *pattern, const char *name) {
  if (strpbrk(pattern, "*?["))
    return fnmatch(pattern, name, 0) == 0;
  return strstr(name, pattern) != NULL;
}

bool occ_kernel_name_matches(const char *pattern, const char *mangled,
                             const char *readable) {
  return matches(pattern, mangled) || (readable && matches(pattern, readable));
}
