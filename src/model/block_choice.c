/* block_choice.c - the block chosen without --block, remembered per
 * kernel shape (see block_choice.h). */
#include "model/block_choice.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#define CHOICE_CACHE_SIZE 1024

typedef struct choice_entry {
  const occ_device *device;
  int cc_major, cc_minor; /* a device slot reused for another target */
  int regs, barriers, max_threads;
  int64_t smem;
  occ_block_choice choice;
  bool used;
} choice_entry;

struct occ_choice_cache {
  choice_entry entries[CHOICE_CACHE_SIZE];
};

occ_choice_cache *occ_choice_cache_new(void) { return calloc(1, sizeof(occ_choice_cache)); }

void occ_choice_cache_free(occ_choice_cache *cache) { free(cache); }

static bool same(const choice_entry *e, const occ_device *d, const occ_kernel *k) {
  return e->used && e->device == d && e->cc_major == d->cc_major &&
         e->cc_minor == d->cc_minor && e->regs == k->regs_per_thread &&
         e->smem == k->smem_static_bytes && e->barriers == k->barriers &&
         e->max_threads == k->max_threads_per_block;
}

occ_status occ_model_choose_block(occ_choice_cache *cache, const occ_device *device,
                                  occ_kernel *kernel, occ_block_choice *choice,
                                  bool best) {
  size_t h = ((size_t)kernel->regs_per_thread * 31u +
              (size_t)kernel->smem_static_bytes * 17u + (size_t)kernel->barriers * 7u +
              (size_t)(uintptr_t)device) %
             CHOICE_CACHE_SIZE;
  choice_entry *e = &cache->entries[h];
  if (same(e, device, kernel)) {
    *choice = e->choice;
  } else {
    occ_status status = occ_best_block_size(device, kernel, choice);
    if (status != OCC_OK) return status;
    *e = (choice_entry){device, device->cc_major, device->cc_minor, kernel->regs_per_thread,
                        kernel->barriers, kernel->max_threads_per_block,
                        kernel->smem_static_bytes, *choice, true};
  }
  if (best) {
    occ_best_block_apply(choice, device, kernel);
    return OCC_OK;
  }
  kernel->block[0] = choice->smallest_block_size > 0 ? choice->smallest_block_size
                                                     : device->warp_size;
  kernel->block[1] = kernel->block[2] = 1;
  return OCC_OK;
}
