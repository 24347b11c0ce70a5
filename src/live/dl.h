/* dl.h - a shared library opened with dlopen, by one rule for every
 * library occcalc opens (the driver, the CUDA runtime, nvJitLink, CUPTI):
 * the file an environment variable names, when set; else each name on the
 * loader's path; else each name in each of a list of directories. A
 * failure is one message of one shape,
 *   dlopen (FILE:LINE): no WHAT: why
 * naming the caller's file and line, where why is dlerror()'s text when a
 * single file was tried (the variable's, or one name with no directory),
 * else which names were looked for where. */
#ifndef OCC_DL_H
#define OCC_DL_H

#include <stddef.h>

typedef struct occ_dl_library {
  const char *what;          /* the message's "no WHAT": "CUDA runtime" */
  const char *env;           /* names the file to open instead, or NULL */
  const char *const *names;  /* tried in order; NULL-terminated */
  const char *const *dirs;   /* then names in these; NULL-terminated, or
                                NULL for the loader's path only */
  const char *hint;          /* appended in parentheses when nothing was
                                found in dirs, or NULL */
  int flags;                 /* dlopen's: RTLD_NOW | RTLD_LOCAL, ... */
} occ_dl_library;

/* Opens lib: its handle, with the file as it was given to dlopen in
 * opened (for messages; may be NULL), or NULL with err set. file and
 * line are the caller's (occ_dl_open passes them). */
void *occ_dl_open_at(const occ_dl_library *lib, const char *file, int line,
                     char *opened, size_t opened_size, char *err,
                     size_t err_size);

#define occ_dl_open(lib, opened, opened_size, err, err_size)                 \
  occ_dl_open_at(lib, __FILE__, __LINE__, opened, opened_size, err, err_size)

#endif
