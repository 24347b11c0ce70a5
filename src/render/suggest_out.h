/* suggest_out.h - the writers of what occ_suggest filled: text
 * (suggest_text.c) and JSON (suggest_json.c). */
#ifndef OCC_SUGGEST_OUT_H
#define OCC_SUGGEST_OUT_H

#include "render/json_write.h"
#include <stdio.h>

#include "core/suggest.h"

/* Writes the suggestions for a person (fits 80 columns). */
void occ_suggest_print(FILE *out, const occ_device *device,
                       const occ_suggestion *suggestion);

/* Builds the "suggest" JSON object (keys documented in man/occcalc.1);
 * the caller owns it (cJSON_Delete). NULL when out of memory. */
cJSON *occ_suggest_json(const occ_suggestion *suggestion);

/* Writes "block_choice", how the block was chosen (--block best, or
 * --ptxas without --block), null when choice is NULL: rule,
 * smallest_best_block_size, max_potential_block_size (the runtime's
 * answer), max_threads_per_block (the largest size tried),
 * min_grid_blocks (null when no size launches or the SM count is
 * unknown). best: the block is max_potential_block_size, as --block best
 * asked; else the smallest. */
void occ_jw_block_choice(occ_jw *w, const occ_block_choice *choice, bool best);

/* Says which block --block best chose and the grid that fills the device,
 * for a person. */
void occ_block_choice_print(FILE *out, const occ_device *device,
                            const occ_block_choice *choice);

#endif
