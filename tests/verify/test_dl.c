/* Unit tests of the one rule by which occcalc opens a shared library
 * (src/live/dl.h): the variable's file, else the names on the loader's
 * path, else the names in the directories; and the one message shape,
 * "dlopen (FILE:LINE): no WHAT: why", naming the caller's file. */
#define _GNU_SOURCE /* dladdr */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live/dl.h"

static const char *const missing[] = {"libocc-no-such-library.so.1", NULL};

Test(dl, the_variable_names_the_file_and_its_failure) {
  setenv("OCC_TEST_DL", "/nonexistent/libx.so", 1);
  occ_dl_library lib = {.what = "test library", .env = "OCC_TEST_DL",
                        .names = missing, .flags = RTLD_NOW | RTLD_LOCAL};
  char err[512];
  cr_assert_null(occ_dl_open(&lib, NULL, 0, err, sizeof err));
  cr_assert(strstr(err, "dlopen (tests/verify/test_dl.c:") == err, "%s", err);
  cr_assert(strstr(err, "): no test library: OCC_TEST_DL: /nonexistent/libx.so: "),
            "%s", err);
}

Test(dl, a_name_on_the_loader_path_is_opened) {
  const char *const names[] = {"libocc-no-such-library.so.1", "libm.so.6", NULL};
  occ_dl_library lib = {.what = "libm", .names = names,
                        .flags = RTLD_NOW | RTLD_LOCAL};
  char opened[64], err[512] = "";
  void *h = occ_dl_open(&lib, opened, sizeof opened, err, sizeof err);
  cr_assert_not_null(h, "%s", err);
  cr_assert_str_eq(opened, "libm.so.6");
  dlclose(h);
}

Test(dl, without_directories_the_message_is_dlerror) {
  occ_dl_library lib = {.what = "NVIDIA driver", .names = missing,
                        .flags = RTLD_NOW | RTLD_LOCAL};
  char err[512];
  cr_assert_null(occ_dl_open(&lib, NULL, 0, err, sizeof err));
  cr_assert(strstr(err, "): no NVIDIA driver: libocc-no-such-library.so.1: cannot open"),
            "%s", err);
}

Test(dl, the_directories_are_searched_and_named) {
  /* libm's own file, as a directory and a name with a slash (so that the
   * loader's path cannot find it): /lib + x86_64-linux-gnu/libm.so.6. */
  Dl_info info;
  cr_assert(dladdr((void *)cos, &info) && info.dli_fname[0] == '/');
  char dir[512];
  snprintf(dir, sizeof dir, "%s", info.dli_fname);
  char *cut = strchr(dir + 1, '/');
  cr_assert_not_null(cut);
  *cut = '\0';
  const char *const names[] = {"libocc-no-such-library.so.1", cut + 1, NULL};
  const char *const dirs[] = {"/nonexistent", dir, NULL};
  occ_dl_library lib = {.what = "libm", .names = names, .dirs = dirs,
                        .flags = RTLD_NOW | RTLD_LOCAL};
  char opened[512], err[512] = "";
  void *h = occ_dl_open(&lib, opened, sizeof opened, err, sizeof err);
  cr_assert_not_null(h, "%s", err);
  cr_assert_str_eq(opened, info.dli_fname);
  dlclose(h);

  const char *const none[] = {"/nonexistent", "/nonexistent2", NULL};
  lib.dirs = none;
  lib.names = missing;
  lib.hint = "install it";
  cr_assert_null(occ_dl_open(&lib, opened, sizeof opened, err, sizeof err));
  cr_assert(strstr(err, "): no libm: libocc-no-such-library.so.1 is neither on "
                        "the loader's path nor in /nonexistent or "
                        "/nonexistent2 (install it)"),
            "%s", err);
}
