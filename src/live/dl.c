/* dl.c - shared libraries opened with dlopen (see dl.h). */
#include "live/dl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static void *try_open(const char *file, int flags, char *opened,
                      size_t opened_size) {
  void *handle = dlopen(file, flags);
  if (handle && opened) snprintf(opened, opened_size, "%s", file);
  return handle;
}

/* The list as "a or b or c" into out (cut at size). */
static void join(const char *const *list, char *out, size_t size) {
  size_t used = 0;
  out[0] = '\0';
  for (size_t i = 0; list[i] && used < size; i++) {
    int n = snprintf(out + used, size - used, "%s%s", i ? " or " : "",
                     list[i]);
    if (n < 0) return;
    used += (size_t)n;
  }
}

static void *open_in_dirs(const occ_dl_library *lib, char *opened,
                          size_t opened_size) {
  char path[4096];
  for (size_t d = 0; lib->dirs[d]; d++)
    for (size_t n = 0; lib->names[n]; n++) {
      snprintf(path, sizeof path, "%s/%s", lib->dirs[d], lib->names[n]);
      void *handle = try_open(path, lib->flags, opened, opened_size);
      if (handle) return handle;
    }
  return NULL;
}

void *occ_dl_open_at(const occ_dl_library *lib, const char *file, int line,
                     char *opened, size_t opened_size, char *err,
                     size_t err_size) {
  const char *forced = lib->env ? getenv(lib->env) : NULL;
  if (forced && forced[0]) {
    void *handle = try_open(forced, lib->flags, opened, opened_size);
    if (!handle)
      snprintf(err, err_size, "dlopen (%s:%d): no %s: %s: %s", file, line,
               lib->what, lib->env, dlerror());
    return handle;
  }
  for (size_t n = 0; lib->names[n]; n++) {
    void *handle = try_open(lib->names[n], lib->flags, opened, opened_size);
    if (handle) return handle;
  }
  if (!lib->dirs) {
    snprintf(err, err_size, "dlopen (%s:%d): no %s: %s", file, line,
             lib->what, dlerror());
    return NULL;
  }
  void *handle = open_in_dirs(lib, opened, opened_size);
  if (handle) return handle;
  char names[256], dirs[1024];
  join(lib->names, names, sizeof names);
  join(lib->dirs, dirs, sizeof dirs);
  snprintf(err, err_size, "dlopen (%s:%d): no %s: %s is neither on the "
           "loader's path nor in %s%s%s%s", file, line, lib->what, names,
           dirs, lib->hint ? " (" : "", lib->hint ? lib->hint : "",
           lib->hint ? ")" : "");
  return NULL;
}
