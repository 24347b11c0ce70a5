/* run_index.h - the lookups of `occcalc run`'s report over the records:
 * a launch's counters by (process, correlation id), a process' refusal by
 * its id, a launch configuration's row. Each is a hash map from a 64-bit
 * key to a position (in the records or the rows), so that a run of a
 * million records or tens of thousands of configurations is read in
 * linear time: no scan of earlier records or rows per launch. */
#ifndef OCC_RUN_INDEX_H
#define OCC_RUN_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/launch_record.h"

/* Open addressing, doubled at half full. A key may hold several values
 * (two configurations whose keys collide): a find's match tells them
 * apart. */
typedef struct occ_index {
  struct occ_index_entry *slots;
  size_t capacity, count;
  uint64_t seed; /* per map, so that keys chosen by the program cannot
                    be made to collide in advance */
} occ_index;

#define OCC_INDEX_NONE SIZE_MAX

/* Whether the entry's value is the one looked for (context: the caller's). */
typedef bool (*occ_index_match)(size_t value, const void *context);

/* A hash seed drawn per table, so that keys chosen by a program or a
 * report cannot be made to collide in advance: the kernel's random bytes,
 * else the clock, the process id and salt's address (any pointer of the
 * caller's). Never 0. The seed of every hash table of run and report. */
uint64_t occ_hash_seed(const void *salt);

/* Draws the map's seed: before the first put or key. */
void occ_index_init(occ_index *index);

/* Adds key -> value. Returns 0, or -1 out of memory (index unchanged). */
int occ_index_put(occ_index *index, uint64_t key, size_t value);

/* A value put under key that match accepts (NULL: any), or
 * OCC_INDEX_NONE. */
size_t occ_index_find(const occ_index *index, uint64_t key,
                      occ_index_match match, const void *context);

/* Frees the slots and zeroes index; NULL-safe. */
void occ_index_free(occ_index *index);

/* Two 32-bit halves as one key: (pid, correlation id). */
static inline uint64_t occ_index_pair(int32_t high, uint32_t low) {
  return (uint64_t)(uint32_t)high << 32 | low;
}

/* The key in index of a launch's configuration as a row groups it
 * (everything but the shared memory the driver configured, which the
 * caller compares), slot telling apart rows of the same configuration. */
uint64_t occ_index_config_key(const occ_index *index,
                              const occ_launch_record *launch, int64_t slot);

#endif
