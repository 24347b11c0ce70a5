/* pm_cache_unit.c - the sampler's kept availability image
 * (src/live/pm_cache.c): read back whole, refused when not whole. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live/pm_cache.h"

static char dir[] = "/tmp/occ-pm-cache-XXXXXX";
static char path[PATH_MAX];
static uint8_t image[3000];

static void set_up(void) {
  cr_assert_not_null(mkdtemp(dir));
  cr_assert_eq(occ_pm_cache_path(path, sizeof path, dir, "GH100", 130000,
                                 13000), 0);
  for (size_t i = 0; i < sizeof image; i++) image[i] = (uint8_t)(i * 7 + 1);
}

static void tear_down(void) {
  unlink(path);
  rmdir(dir);
}

TestSuite(pm_cache, .init = set_up, .fini = tear_down);

Test(pm_cache, an_image_reads_back_whole) {
  cr_assert_eq(occ_pm_cache_write(path, image, sizeof image), 0);
  size_t size = 0;
  uint8_t *back = occ_pm_cache_read(path, &size);
  cr_assert_not_null(back);
  cr_expect_eq(size, sizeof image);
  cr_expect_eq(memcmp(back, image, sizeof image), 0);
  free(back);
}

Test(pm_cache, the_name_holds_chip_and_versions) {
  cr_expect(strstr(path, "GH100") && strstr(path, "cupti130000") &&
            strstr(path, "driver13000"), "%s", path);
  char other[PATH_MAX];
  occ_pm_cache_path(other, sizeof other, dir, "GH100", 130000, 13010);
  cr_expect_str_neq(path, other, "another driver, another file");
}

Test(pm_cache, a_chip_name_that_is_not_a_plain_word_is_refused) {
  char p[PATH_MAX];
  cr_expect_eq(occ_pm_cache_path(p, sizeof p, dir, "../GH100", 1, 1), -1);
  cr_expect_eq(occ_pm_cache_path(p, sizeof p, dir, "", 1, 1), -1);
  cr_expect_eq(occ_pm_cache_path(p, 20, dir, "GH100", 1, 1), -1,
               "a path that does not fit");
}

static void damage(off_t at, uint8_t byte) {
  int fd = open(path, O_WRONLY);
  cr_assert(fd >= 0);
  cr_assert_eq(pwrite(fd, &byte, 1, at), 1);
  close(fd);
}

Test(pm_cache, a_changed_byte_is_refused) {
  cr_assert_eq(occ_pm_cache_write(path, image, sizeof image), 0);
  damage(24 + 100, 0xff);
  size_t size = 0;
  cr_expect_null(occ_pm_cache_read(path, &size));
}

Test(pm_cache, a_changed_magic_is_refused) {
  cr_assert_eq(occ_pm_cache_write(path, image, sizeof image), 0);
  damage(0, 'X');
  size_t size = 0;
  cr_expect_null(occ_pm_cache_read(path, &size));
}

Test(pm_cache, a_cut_file_is_refused) {
  cr_assert_eq(occ_pm_cache_write(path, image, sizeof image), 0);
  cr_assert_eq(truncate(path, 24 + sizeof image - 1), 0);
  size_t size = 0;
  cr_expect_null(occ_pm_cache_read(path, &size));
  cr_assert_eq(truncate(path, 10), 0);
  cr_expect_null(occ_pm_cache_read(path, &size));
}

Test(pm_cache, no_file_is_no_image) {
  size_t size = 0;
  cr_expect_null(occ_pm_cache_read(path, &size));
}

Test(pm_cache, the_directory_follows_xdg_and_is_made) {
  char want[PATH_MAX], got[PATH_MAX];
  snprintf(want, sizeof want, "%s/occcalc", dir);
  setenv("XDG_CACHE_HOME", dir, 1);
  cr_assert_eq(occ_pm_cache_dir(got, sizeof got), 0);
  cr_expect_str_eq(got, want);
  struct stat st;
  cr_expect_eq(stat(got, &st), 0);
  cr_expect(S_ISDIR(st.st_mode));
  rmdir(got);
  setenv("XDG_CACHE_HOME", "relative/not/used", 1);
  setenv("HOME", dir, 1);
  cr_assert_eq(occ_pm_cache_dir(got, sizeof got), 0);
  snprintf(want, sizeof want, "%s/.cache/occcalc", dir);
  cr_expect_str_eq(got, want);
  rmdir(got);
  snprintf(want, sizeof want, "%s/.cache", dir);
  rmdir(want);
}
