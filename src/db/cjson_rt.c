/* cjson_rt.c - see cjson_rt.h. */
#include "db/cjson_rt.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static occ_cjson api;
static const char *open_error = "libcjson.so.1 was not opened"; /* NULL once open */
static char open_error_text[256];
static pthread_once_t opened = PTHREAD_ONCE_INIT;

/* dlsym returns an object pointer; POSIX guarantees it converts to a
 * function pointer, which ISO C spells through memcpy. */
static bool find_call(void *lib, const char *name, void *slot, size_t slot_size) {
  void *p = dlsym(lib, name);
  if (!p) {
    snprintf(open_error_text, sizeof open_error_text,
             "libcjson.so.1 has no %s (cJSON 1.7.13 or later is needed)", name);
    open_error = open_error_text;
    return false;
  }
  memcpy(slot, &p, slot_size);
  return true;
}

static void open_library(void) {
  void *lib = dlopen("libcjson.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    snprintf(open_error_text, sizeof open_error_text,
             "reading JSON needs libcjson.so.1 (Debian's libcjson1): %s", dlerror());
    open_error = open_error_text;
    return;
  }
  if (!find_call(lib, "cJSON_ParseWithLengthOpts", &api.parse, sizeof api.parse) ||
      !find_call(lib, "cJSON_GetErrorPtr", &api.error_at, sizeof api.error_at) ||
      !find_call(lib, "cJSON_Delete", &api.free, sizeof api.free))
    return;
  open_error = NULL;
}

const occ_cjson *occ_cjson_open(char *err, size_t err_size) {
  pthread_once(&opened, open_library);
  if (!open_error) return &api;
  snprintf(err, err_size, "%s", open_error);
  return NULL;
}
