/* run_index.c - hash maps for run's report and the report merge (see
 * run_index.h). */
/* getrandom is beyond POSIX. */
#define _GNU_SOURCE
#include "model/run_index.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "core/hash.h"

struct occ_index_entry {
  uint64_t key;
  size_t value;
  bool used;
};

uint64_t occ_hash_seed(const void *salt) {
  uint64_t seed = 0;
  if (getrandom(&seed, sizeof seed, GRND_NONBLOCK) != (ssize_t)sizeof seed) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    seed = (uint64_t)t.tv_nsec ^ (uint64_t)getpid() << 32 ^
           (uint64_t)(uintptr_t)salt;
  }
  return seed | 1;
}

void occ_index_init(occ_index *index) {
  memset(index, 0, sizeof *index);
  index->seed = occ_hash_seed(index);
}

static size_t slot_of(const occ_index *index, uint64_t key) {
  return (size_t)occ_hash_mix(key ^ index->seed) & (index->capacity - 1);
}

/* Puts without growing: there is a free slot. */
static void place(occ_index *index, uint64_t key, size_t value) {
  size_t i = slot_of(index, key);
  while (index->slots[i].used) i = (i + 1) & (index->capacity - 1);
  index->slots[i] = (struct occ_index_entry){key, value, true};
  index->count++;
}

static int grow(occ_index *index) {
  size_t capacity = index->capacity ? 2 * index->capacity : 64;
  struct occ_index_entry *slots = calloc(capacity, sizeof *slots);
  if (!slots) return -1;
  struct occ_index_entry *old = index->slots;
  size_t old_capacity = index->capacity;
  index->slots = slots;
  index->capacity = capacity;
  index->count = 0;
  for (size_t i = 0; i < old_capacity; i++)
    if (old[i].used) place(index, old[i].key, old[i].value);
  free(old);
  return 0;
}

int occ_index_put(occ_index *index, uint64_t key, size_t value) {
  if (2 * (index->count + 1) > index->capacity && grow(index) != 0)
    return -1;
  place(index, key, value);
  return 0;
}

size_t occ_index_find(const occ_index *index, uint64_t key,
                      occ_index_match match, const void *context) {
  if (!index->capacity) return OCC_INDEX_NONE;
  for (size_t i = slot_of(index, key); index->slots[i].used;
       i = (i + 1) & (index->capacity - 1))
    if (index->slots[i].key == key &&
        (!match || match(index->slots[i].value, context)))
      return index->slots[i].value;
  return OCC_INDEX_NONE;
}

void occ_index_free(occ_index *index) {
  if (!index) return;
  free(index->slots);
  memset(index, 0, sizeof *index);
}

static uint64_t fold(uint64_t h, uint64_t word) {
  return occ_hash_mix(h ^ word) + 0x9e3779b97f4a7c15ull;
}

uint64_t occ_index_config_key(const occ_index *index,
                              const occ_launch_record *l, int64_t slot) {
  uint64_t h = index->seed;
  const int32_t fields[] = {l->device, l->grid[0], l->grid[1], l->grid[2],
                            l->block[0], l->block[1], l->block[2],
                            l->cluster[0], l->cluster[1], l->cluster[2],
                            l->regs_per_thread, l->smem_static_bytes,
                            l->smem_dynamic_bytes, l->carveout_requested_pct,
                            l->launch_type};
  for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
    h = fold(h, (uint64_t)(uint32_t)fields[i]);
  h = fold(h, (uint64_t)slot);
  size_t n = strnlen(l->name, sizeof l->name);
  for (size_t i = 0; i < n; i += 8) {
    uint64_t word = 0;
    memcpy(&word, l->name + i, n - i < 8 ? n - i : 8);
    h = fold(h, word);
  }
  return fold(h, n);
}
