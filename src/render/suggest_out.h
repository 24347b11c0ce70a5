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

#endif
