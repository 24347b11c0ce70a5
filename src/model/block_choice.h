/* block_choice.h - the block a kernel is computed at when none is given
 * (occcalc --ptxas without --block): the smallest size reaching the
 * kernel's highest occupancy, or a warp when no size can launch, so that
 * the result still says why. Chosen by occ_model_build (model.h) when the
 * request carries a cache: the kernels of one build log share a handful of
 * (registers, shared memory, barriers) tuples, and remembering each
 * tuple's choice saves the 32 evaluations a search costs. */
#ifndef OCC_BLOCK_CHOICE_H
#define OCC_BLOCK_CHOICE_H

#include "core/occ.h"

typedef struct occ_choice_cache occ_choice_cache;

/* A cache for one run; NULL when out of memory. Free with
 * occ_choice_cache_free (NULL-safe). The devices it sees must outlive it
 * at fixed addresses. */
occ_choice_cache *occ_choice_cache_new(void);
void occ_choice_cache_free(occ_choice_cache *cache);

/* Chooses kernel->block on device into *choice (cudaOccupancyMaxPotential
 * BlockSize's answer and the smallest size reaching the same occupancy):
 * the smallest, or with best (--block best) the runtime's.
 * Returns the core's status (kernel untouched unless OCC_OK). */
occ_status occ_model_choose_block(occ_choice_cache *cache, const occ_device *device,
                                  occ_kernel *kernel, occ_block_choice *choice,
                                  bool best);

#endif
