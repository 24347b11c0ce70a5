/* records.c - the reader of `occcalc run`'s records' file (see records.h). */
/* SEEK_DATA is beyond POSIX.1-2008's base. */
#define _GNU_SOURCE
#include "live/records.h"

#include "text/why.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RECORD OCC_RECORD_BYTES
/* One read: 256 records. */
#define READ_BYTES (256 * RECORD)
#define SIZE_FIELD_MAX OCC_RECORD_SIZE_MAX

static uint64_t max_bytes(const occ_records *set) {
  return set->max_bytes ? set->max_bytes : OCC_RECORDS_MAX_BYTES;
}

static size_t max_records(const occ_records *set) {
  return set->max_records ? set->max_records : OCC_RECORDS_MAX;
}

static bool stopped(const occ_records *set) {
  return set->out_of_memory || set->unread_why[0];
}

static bool all_zero(const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i]) return false;
  return true;
}

/* Writes why a record is refused; the verdict. */
#define bad(why, size, ...) (occ_whyf(why, size, __VA_ARGS__), OCC_RECORD_BAD)

/* A string field of n bytes: true when its NUL is inside, the bytes after
 * it then zeroed (so that nothing past the string survives the copy). */
static bool terminated(char *field, size_t n) {
  char *nul = memchr(field, '\0', n);
  if (!nul) return false;
  memset(nul, 0, n - (size_t)(nul - field));
  return true;
}

static bool in(int64_t v, int64_t lo, int64_t hi) { return v >= lo && v <= hi; }

/* Three dimensions, x in lo..x_max, y and z in lo..yz_max. */
static bool dims_in(const int32_t d[3], int32_t lo, int32_t x_max,
                    int32_t yz_max) {
  return in(d[0], lo, x_max) && in(d[1], lo, yz_max) && in(d[2], lo, yz_max);
}

/* One at-launch field: in lo..hi when its bit says it was read, else 0. */
static bool at_launch_in(const occ_launch_record *r, int bit, int32_t v,
                         int32_t lo, int32_t hi) {
  return (r->at_launch_known & bit) ? in(v, lo, hi) : v == 0;
}

/* The attributes read at launch (inject_attrs.c): a carveout of -1 (no
 * preference) to 100 %, a maximum dynamic shared memory of 0 to
 * SIZE_FIELD_MAX, a flag of 0 or 1, a cluster policy of 0 to 2; each 0
 * when not read. */
static occ_record_verdict check_at_launch(const occ_launch_record *r,
                                          char *why, size_t size) {
  if (!in(r->at_launch_known, 0, OCC_AT_LAUNCH_ALL))
    return bad(why, size, "at-launch flags %d are not 0 to %d",
               r->at_launch_known, OCC_AT_LAUNCH_ALL);
  if (!at_launch_in(r, OCC_AT_LAUNCH_CARVEOUT, r->carveout_preferred_pct, -1,
                    100))
    return bad(why, size, "preferred carveout %d%% is not -1 to 100 (0 when "
               "not read)", r->carveout_preferred_pct);
  if (!at_launch_in(r, OCC_AT_LAUNCH_MAX_DYNAMIC_SMEM,
                    r->max_dynamic_smem_bytes, 0, SIZE_FIELD_MAX))
    return bad(why, size, "a maximum dynamic shared memory of %d bytes is "
               "not 0 to %d (0 when not read)", r->max_dynamic_smem_bytes,
               SIZE_FIELD_MAX);
  if (!at_launch_in(r, OCC_AT_LAUNCH_NON_PORTABLE, r->cluster_non_portable, 0,
                    1))
    return bad(why, size, "non-portable cluster flag %d is not 0 or 1",
               r->cluster_non_portable);
  if (!at_launch_in(r, OCC_AT_LAUNCH_POLICY, r->cluster_policy, 0,
                    OCC_CLUSTER_POLICY_LOAD_BALANCING))
    return bad(why, size, "cluster scheduling policy %d is not 0 to 2 (0 "
               "when not read)", r->cluster_policy);
  return OCC_RECORD_OK;
}

/* CUDA's limits, with room: grid 2^31-1 x 65535 x 65535, block 1024 x
 * 1024 x 64, clusters (0 or 1 when none) of at most 1024 blocks a side. */
static occ_record_verdict check_launch(const occ_launch_record *r, char *why,
                                       size_t size) {
  if (!r->name[0]) return bad(why, size, "a launch without a kernel name");
  if (!(r->cc_major == 0 && r->cc_minor == 0) &&
      !(in(r->cc_major, 1, 99) && in(r->cc_minor, 0, 9)))
    return bad(why, size, "compute capability %d.%d is not 1.0 to 99.9 "
               "(or 0.0, unknown)", r->cc_major, r->cc_minor);
  bool cc_known = r->cc_major != 0;
  if (!in(r->sm_count, cc_known, cc_known ? 100000 : 0))
    return bad(why, size, "SM count %d is not %s", r->sm_count,
               cc_known ? "1 to 100000" : "0 (the capability unknown)");
  if (!dims_in(r->grid, 1, INT32_MAX, 65535))
    return bad(why, size, "grid %dx%dx%d is not 1 to 2147483647 x 65535 x "
               "65535", r->grid[0], r->grid[1], r->grid[2]);
  if (!in(r->block[0], 1, 1024) || !in(r->block[1], 1, 1024) ||
      !in(r->block[2], 1, 64))
    return bad(why, size, "block %dx%dx%d is not 1 to 1024 x 1024 x 64",
               r->block[0], r->block[1], r->block[2]);
  if (!dims_in(r->cluster, 0, 1024, 1024))
    return bad(why, size, "cluster %dx%dx%d is not 0 to 1024 a side",
               r->cluster[0], r->cluster[1], r->cluster[2]);
  if (!in(r->regs_per_thread, 0, 255))
    return bad(why, size, "%d registers per thread is not 0 to 255",
               r->regs_per_thread);
  const int32_t sizes[] = {r->smem_static_bytes, r->smem_dynamic_bytes,
                           r->local_bytes_per_thread, r->smem_executed_bytes};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
    if (!in(sizes[i], 0, SIZE_FIELD_MAX))
      return bad(why, size, "a memory size of %d bytes is not 0 to %d",
                 sizes[i], SIZE_FIELD_MAX);
  if (!in(r->carveout_requested_pct, -1, 100))
    return bad(why, size, "carveout %d%% is not 0 to 100 (or -1, none)",
               r->carveout_requested_pct);
  if (!in(r->launch_type, OCC_LAUNCH_REGULAR, OCC_LAUNCH_CLUSTER))
    return bad(why, size, "launch type %d is not 0 to 3", r->launch_type);
  if (r->end_ns < r->start_ns)
    return bad(why, size, "a launch that ends before it starts");
  return check_at_launch(r, why, size);
}

/* Achieved occupancy (a percentage), the kernel's time in ns, then the
 * --metrics: every value a finite number. */
static occ_record_verdict check_counters(const occ_launch_record *r,
                                         char *why, size_t size) {
  int most = OCC_RECORD_FIRST_METRIC + OCC_RECORD_METRICS_MAX;
  if (!in(r->value_count, OCC_RECORD_FIRST_METRIC, most))
    return bad(why, size, "%d counter values is not %d to %d",
               r->value_count, OCC_RECORD_FIRST_METRIC, most);
  for (int i = 0; i < r->value_count; i++)
    if (!isfinite(r->values[i]))
      return bad(why, size, "counter value %d is not a finite number", i);
  if (!(r->values[0] >= 0 && r->values[0] <= 100))
    return bad(why, size, "achieved occupancy %g%% is not 0 to 100",
               r->values[0]);
  if (r->values[1] < 0)
    return bad(why, size, "a kernel time of %g ns", r->values[1]);
  return OCC_RECORD_OK;
}

/* What the library cost a process: seconds and counts, each finite, not
 * negative and below a year or 2^53. */
static occ_record_verdict check_summary(const occ_launch_record *r,
                                        char *why, size_t size) {
  if (r->value_count != OCC_SUMMARY_VALUES)
    return bad(why, size, "a summary of %d values, not %d", r->value_count,
               OCC_SUMMARY_VALUES);
  const double most[OCC_SUMMARY_VALUES] = {
      [OCC_SUMMARY_SECONDS] = 3.2e7, [OCC_SUMMARY_PROFILER_SECONDS] = 3.2e7,
      [OCC_SUMMARY_PROFILED] = 9007199254740992.0,
      [OCC_SUMMARY_FLUSHED] = 9007199254740992.0};
  for (int i = 0; i < OCC_SUMMARY_VALUES; i++)
    if (!(r->values[i] >= 0 && r->values[i] <= most[i]))
      return bad(why, size, "summary value %d (%g) is not 0 to %g", i,
                 r->values[i], most[i]);
  return OCC_RECORD_OK;
}

occ_record_verdict occ_record_check(const unsigned char *block,
                                    occ_launch_record *out, char *why,
                                    size_t why_size) {
  memcpy(out, block, sizeof *out);
  if (out->magic != OCC_RECORD_MAGIC)
    return all_zero(block, RECORD)
               ? OCC_RECORD_EMPTY
               : bad(why, why_size, "not a record (no OCR1 magic)");
  if (!terminated(out->name, sizeof out->name))
    return bad(why, why_size, "a name without its NUL in %d bytes",
               OCC_RECORD_NAME_MAX);
  if (!terminated(out->why, sizeof out->why))
    return bad(why, why_size, "a reason without its NUL in %d bytes",
               OCC_RECORD_WHY_MAX);
  if (!terminated(out->device_name, sizeof out->device_name))
    return bad(why, why_size, "a device name without its NUL in %d bytes",
               OCC_RECORD_DEVICE_NAME_MAX);
  if (out->pid <= 0)
    return bad(why, why_size, "process id %d is not positive", out->pid);
  if (!in(out->device, 0, OCC_RECORD_DEVICES - 1))
    return bad(why, why_size, "device %d is not 0 to %d", out->device,
               OCC_RECORD_DEVICES - 1);
  switch (out->kind) {
  case OCC_RECORD_LAUNCH:
    return check_launch(out, why, why_size);
  case OCC_RECORD_COUNTERS:
    return check_counters(out, why, why_size);
  case OCC_RECORD_NO_COUNTERS:
    return out->why[0] ? OCC_RECORD_OK
                       : bad(why, why_size, "no counters, without a reason");
  case OCC_RECORD_SUMMARY:
    return check_summary(out, why, why_size);
  case OCC_RECORD_CLIENT_REFUSED:
    return out->name[0] && out->why[0]
               ? OCC_RECORD_OK
               : bad(why, why_size, "a refused CUPTI client without its "
                     "call or error");
  default:
    return bad(why, why_size, "kind %u is not 1 to 5", out->kind);
  }
}

/* Room for one more record: the array doubles. */
static bool grow(occ_records *set) {
  if (set->count < set->capacity) return true;
  size_t capacity = set->capacity ? 2 * set->capacity : 64;
  if (capacity > max_records(set)) capacity = max_records(set);
  occ_launch_record *grown = realloc(set->at, capacity * sizeof *grown);
  if (!grown) return false;
  set->at = grown;
  set->capacity = capacity;
  return true;
}

static void past_bytes_cap(occ_records *set) {
  snprintf(set->unread_why, sizeof set->unread_why,
           "the records' file holds data past %llu MiB, not read",
           (unsigned long long)(max_bytes(set) >> 20));
}

/* One block at offset: kept, skipped or counted. False when reading
 * stops (a cap or no memory). */
static bool add_one(occ_records *set, const unsigned char *block,
                    uint64_t offset, occ_record_fn fn, void *context,
                    size_t *added) {
  occ_launch_record r;
  char why[sizeof set->first_skipped_why];
  occ_record_verdict v = occ_record_check(block, &r, why, sizeof why);
  if (v == OCC_RECORD_EMPTY) return true;
  if (v == OCC_RECORD_BAD) {
    if (set->skipped_count++ == 0) {
      set->first_skipped_offset = offset;
      memcpy(set->first_skipped_why, why, sizeof why);
    }
    return true;
  }
  if (set->count == max_records(set)) {
    snprintf(set->unread_why, sizeof set->unread_why,
             "more than %zu records, the rest not read", max_records(set));
    return false;
  }
  if (!grow(set)) {
    set->out_of_memory = true;
    return false;
  }
  set->at[set->count++] = r;
  (*added)++;
  if (fn) fn(&set->at[set->count - 1], context);
  return true;
}

size_t occ_records_add(occ_records *set, const unsigned char *bytes,
                       size_t size, uint64_t offset, occ_record_fn fn,
                       void *context) {
  size_t added = 0;
  size_t whole = size / RECORD * RECORD;
  for (size_t i = 0; i < whole && !stopped(set); i += RECORD) {
    if (offset + i >= max_bytes(set)) {
      if (!all_zero(bytes + i, size - i)) past_bytes_cap(set);
      return added;
    }
    if (!add_one(set, bytes + i, offset + i, fn, context, &added))
      return added;
  }
  if (!stopped(set)) {
    set->partial_bytes = size - whole;
    set->partial_offset = offset + whole;
  }
  return added;
}

/* Whether fd holds a byte that is not a hole at or past offset. */
static bool data_from(int fd, uint64_t offset) {
  off_t data = lseek(fd, (off_t)offset, SEEK_DATA);
  if (data >= 0) return true;
  if (errno == ENXIO) return false;
  unsigned char byte; /* no SEEK_DATA here: read */
  return pread(fd, &byte, 1, (off_t)offset) == 1;
}

size_t occ_records_read(occ_records *set, int fd, uint64_t *offset,
                        occ_record_fn fn, void *context) {
  if (stopped(set)) return 0;
  if (!set->buffer && !(set->buffer = malloc(READ_BYTES))) {
    set->out_of_memory = true;
    return 0;
  }
  size_t added = 0;
  for (;;) {
    uint64_t at = *offset;
    /* Past a hole: data begins on a file-system block, a whole number of
     * records from the start (records are whole writes with O_APPEND). */
    off_t data = lseek(fd, (off_t)at, SEEK_DATA);
    if (data < 0 && errno == ENXIO) { /* only holes from here on */
      set->partial_bytes = 0;
      break;
    }
    if (data > (off_t)at) at = (uint64_t)data / RECORD * RECORD;
    if (at >= max_bytes(set)) {
      if (data_from(fd, at)) past_bytes_cap(set);
      break;
    }
    size_t want = READ_BYTES;
    if (max_bytes(set) - at < want) want = (size_t)(max_bytes(set) - at);
    ssize_t n = pread(fd, set->buffer, want, (off_t)at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      snprintf(set->unread_why, sizeof set->unread_why,
               "reading the records' file: %s", strerror(errno));
      break;
    }
    set->partial_bytes = 0;
    if (n == 0) break;
    added += occ_records_add(set, set->buffer, (size_t)n, at, fn, context);
    *offset = at + (uint64_t)n / RECORD * RECORD;
    if (stopped(set) || (size_t)n < want || n % RECORD) break;
  }
  return added;
}

uint64_t occ_records_last_end(const occ_records *set) {
  if (set->unread_why[0] || set->out_of_memory) return 0;
  uint64_t last = 0;
  for (size_t i = 0; i < set->count; i++)
    if (set->at[i].end_ns > last) last = set->at[i].end_ns;
  return last;
}

void occ_records_free(occ_records *set) {
  if (!set) return;
  free(set->at);
  free(set->buffer);
  memset(set, 0, sizeof *set);
}
