/* json_parsed.h - a writer's document as a JSON reader sees it: printed by
 * occcalc's printer (--json's layout) and parsed back with cJSON, so a test
 * checks the text a script would get. Frees doc; NULL if cJSON refuses the
 * text. The caller frees the result with cJSON_Delete. */
#ifndef OCC_TESTS_JSON_PARSED_H
#define OCC_TESTS_JSON_PARSED_H

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

#include "out/json_tree.h"

static inline cJSON *json_parsed(occ_jnode *doc) {
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  if (!out) {
    occ_jfree(doc);
    return NULL;
  }
  if (doc) occ_json_write_formatted(out, doc);
  fclose(out);
  occ_jfree(doc);
  cJSON *parsed = cJSON_Parse(text);
  free(text);
  return parsed;
}

#endif
