/* records_unit.c - the records' reader (live/records.c) and run's hash
 * index (model/run_index.c) driven directly: the caps that a test through
 * occcalc could reach only with a gigabyte of records, the file reader
 * over holes, the array's geometric growth, colliding keys, and the
 * database's lookup of an absurd compute capability (gpudb.c computed it
 * in int; `make sanitize` runs this under UBSan). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/run_index.h"
#include "db/gpudb.h"
#include "live/records.h"

static void launch_block(unsigned char block[OCC_RECORD_BYTES],
                         unsigned correlation) {
  memset(block, 0, OCC_RECORD_BYTES);
  occ_launch_record r = {.magic = OCC_RECORD_MAGIC,
                         .kind = OCC_RECORD_LAUNCH, .pid = 7,
                         .correlation = correlation, .grid = {1, 1, 1},
                         .block = {32, 1, 1}, .carveout_requested_pct = -1};
  snprintf(r.name, sizeof r.name, "k%u", correlation);
  memcpy(block, &r, sizeof r);
}

/* n launch records, one after another. */
static unsigned char *launches(size_t n) {
  unsigned char *bytes = calloc(n, OCC_RECORD_BYTES);
  for (size_t i = 0; i < n; i++)
    launch_block(bytes + i * OCC_RECORD_BYTES, (unsigned)i + 1);
  return bytes;
}

Test(records, check) {
  unsigned char block[OCC_RECORD_BYTES];
  occ_launch_record r;
  char why[128];
  launch_block(block, 1);
  cr_assert_eq(occ_record_check(block, &r, why, sizeof why), OCC_RECORD_OK);
  /* Bytes after the name's NUL do not survive the copy. */
  block[offsetof(occ_launch_record, name) + 10] = 'z';
  cr_assert_eq(occ_record_check(block, &r, why, sizeof why), OCC_RECORD_OK);
  cr_assert_eq(r.name[10], 0);
  memset(block, 0, sizeof block);
  cr_assert_eq(occ_record_check(block, &r, why, sizeof why), OCC_RECORD_EMPTY);
  block[1000] = 1; /* past the record's fields: not zero, not a record */
  cr_assert_eq(occ_record_check(block, &r, why, sizeof why), OCC_RECORD_BAD);
  cr_assert(strstr(why, "magic"), "%s", why);
}

Test(records, count_cap) {
  unsigned char *bytes = launches(5);
  occ_records set = {.max_records = 3};
  size_t added =
      occ_records_add(&set, bytes, 5 * OCC_RECORD_BYTES, 0, NULL, NULL);
  cr_assert_eq(added, 3);
  cr_assert_eq(set.count, 3);
  cr_assert_str_eq(set.unread_why, "more than 3 records, the rest not read");
  /* Stopped: later reads add nothing. */
  added = occ_records_add(&set, bytes, OCC_RECORD_BYTES, 0, NULL, NULL);
  cr_assert_eq(added, 0);
  occ_records_free(&set);
  /* Exactly the cap: nothing left unread, no note. */
  set = (occ_records){.max_records = 5};
  occ_records_add(&set, bytes, 5 * OCC_RECORD_BYTES, 0, NULL, NULL);
  cr_assert_eq(set.count, 5);
  cr_assert_str_eq(set.unread_why, "");
  occ_records_free(&set);
  free(bytes);
}

Test(records, byte_cap) {
  unsigned char *bytes = launches(4);
  occ_records set = {.max_bytes = 2 * OCC_RECORD_BYTES};
  occ_records_add(&set, bytes, 4 * OCC_RECORD_BYTES, 0, NULL, NULL);
  cr_assert_eq(set.count, 2);
  cr_assert(strstr(set.unread_why, "past"), "%s", set.unread_why);
  occ_records_free(&set);
  /* Only zeros past the cap: nothing unread. */
  memset(bytes + 2 * OCC_RECORD_BYTES, 0, 2 * OCC_RECORD_BYTES);
  set = (occ_records){.max_bytes = 2 * OCC_RECORD_BYTES};
  occ_records_add(&set, bytes, 4 * OCC_RECORD_BYTES, 0, NULL, NULL);
  cr_assert_str_eq(set.unread_why, "");
  occ_records_free(&set);
  free(bytes);
}

/* What the sampling must cover: the latest end of any record, not the
 * last one's; none where records may be missing. */
Test(records, last_end) {
  unsigned char *bytes = launches(3);
  const uint64_t ends[3] = {500, 900, 700};
  for (size_t i = 0; i < 3; i++) {
    occ_launch_record *r = (occ_launch_record *)(bytes + i * OCC_RECORD_BYTES);
    r->start_ns = ends[i] - 100;
    r->end_ns = ends[i];
  }
  occ_records set = {0};
  occ_records_add(&set, bytes, 3 * OCC_RECORD_BYTES, 0, NULL, NULL);
  cr_assert_eq(set.count, 3);
  cr_assert_eq(occ_records_last_end(&set), 900);
  occ_records_free(&set);
  set = (occ_records){.max_records = 2};
  occ_records_add(&set, bytes, 3 * OCC_RECORD_BYTES, 0, NULL, NULL);
  cr_assert_eq(occ_records_last_end(&set), 0);
  occ_records_free(&set);
  cr_assert_eq(occ_records_last_end(&set), 0);
  free(bytes);
}

Test(records, growth_is_geometric) {
  enum { N = 5000 };
  unsigned char *bytes = launches(N);
  occ_records set = {0};
  size_t grown = 0, last = 0;
  for (size_t i = 0; i < N; i++) {
    occ_records_add(&set, bytes + i * OCC_RECORD_BYTES, OCC_RECORD_BYTES,
                    i * OCC_RECORD_BYTES, NULL, NULL);
    if (set.capacity != last) grown++, last = set.capacity;
  }
  cr_assert_eq(set.count, N);
  cr_assert_leq(grown, 8, "%zu reallocations for %d records", grown, N);
  occ_records_free(&set);
  free(bytes);
}

/* A file with a record, a hole of 64 MiB, a record and a partial one. */
Test(records, file_with_hole) {
  char path[] = "/tmp/occcalc-records-unit-XXXXXX";
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  unlink(path);
  unsigned char block[OCC_RECORD_BYTES];
  launch_block(block, 1);
  cr_assert_eq(pwrite(fd, block, sizeof block, 0), (ssize_t)sizeof block);
  launch_block(block, 2);
  off_t second = (off_t)64 << 20;
  cr_assert_eq(pwrite(fd, block, sizeof block, second), (ssize_t)sizeof block);
  cr_assert_eq(pwrite(fd, "xyz", 3, second + OCC_RECORD_BYTES), 3);
  occ_records set = {0};
  uint64_t offset = 0;
  cr_assert_eq(occ_records_read(&set, fd, &offset, NULL, NULL), 2);
  cr_assert_eq(set.at[1].correlation, 2);
  cr_assert_eq(offset, (uint64_t)second + OCC_RECORD_BYTES);
  cr_assert_eq(set.partial_bytes, 3);
  cr_assert_eq(set.partial_offset, (uint64_t)second + OCC_RECORD_BYTES);
  /* The same file under a cap of 1 MiB: the second record is past it. */
  occ_records capped = {.max_bytes = 1 << 20};
  offset = 0;
  cr_assert_eq(occ_records_read(&capped, fd, &offset, NULL, NULL), 1);
  cr_assert(strstr(capped.unread_why, "past 1 MiB"), "%s", capped.unread_why);
  occ_records_free(&capped);
  occ_records_free(&set);
  close(fd);
}

static bool value_is(size_t value, const void *context) {
  return value == *(const size_t *)context;
}

Test(index, many_keys_and_collisions) {
  occ_index index;
  occ_index_init(&index);
  for (size_t i = 0; i < 100000; i++)
    cr_assert_eq(occ_index_put(&index, occ_index_pair((int32_t)i, 5), i), 0);
  for (size_t i = 0; i < 100000; i += 997)
    cr_assert_eq(occ_index_find(&index, occ_index_pair((int32_t)i, 5), NULL,
                                NULL), i);
  cr_assert_eq(occ_index_find(&index, occ_index_pair(1, 6), NULL, NULL),
               OCC_INDEX_NONE);
  /* One key, several values: match tells them apart. */
  for (size_t v = 200000; v < 200010; v++) occ_index_put(&index, 42, v);
  size_t want = 200007;
  cr_assert_eq(occ_index_find(&index, 42, value_is, &want), want);
  want = 1;
  cr_assert_eq(occ_index_find(&index, 42, value_is, &want), OCC_INDEX_NONE);
  occ_index_free(&index);
}

Test(index, config_key) {
  occ_index index;
  occ_index_init(&index);
  occ_launch_record a = {.grid = {1, 1, 1}, .block = {32, 1, 1}};
  snprintf(a.name, sizeof a.name, "kernel");
  occ_launch_record b = a;
  b.smem_executed_bytes = 4096; /* not part of the key */
  b.correlation = 9;
  uint64_t key_a = occ_index_config_key(&index, &a, -1);
  cr_assert_eq(key_a, occ_index_config_key(&index, &b, -1));
  cr_assert_neq(key_a, occ_index_config_key(&index, &a, 0));
  b.grid[0] = 2;
  cr_assert_neq(key_a, occ_index_config_key(&index, &b, -1));
  occ_index_free(&index);
}

/* The nearest capabilities of one no GPU has: no overflow. */
Test(gpudb, absurd_capability) {
  char err[256], near[128];
  occ_gpudb *db = occ_gpudb_load_builtin(err, sizeof err);
  cr_assert_not_null(db, "%s", err);
  occ_device d;
  cr_assert_eq(occ_gpudb_find_cc(db, INT_MAX, INT_MAX, &d, near, sizeof near),
               -1);
  cr_assert_neq(near[0], '\0');
  cr_assert_eq(occ_gpudb_find_cc(db, INT_MIN, INT_MIN, &d, near, sizeof near),
               -1);
  cr_assert_neq(near[0], '\0');
  occ_gpudb_free(db);
}
