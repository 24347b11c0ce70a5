/* kernel_name.h - how --kernel names a kernel: by its mangled or its
 * readable (demangled) name, the same for compiler reports and modules. */
#ifndef OCC_KERNEL_NAME_H
#define OCC_KERNEL_NAME_H

#include <stdbool.h>

/* True when pattern names the kernel: a shell glob when it holds *, ? or
 * [, else a substring, of either name (readable may be NULL). */
bool occ_kernel_name_matches(const char *pattern, const char *mangled,
                             const char *readable);

#endif
