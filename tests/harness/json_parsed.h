/* json_parsed.h - a writer's document as a JSON reader sees it: its text,
 * and that text parsed back with cJSON, so that a test checks what a script
 * would get. */
#ifndef OCC_TESTS_JSON_PARSED_H
#define OCC_TESTS_JSON_PARSED_H

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

#include "render/json_write.h"

/* The text write (occ_json_write_compact or _formatted) gives doc, in a
 * string the caller frees; NULL when out of memory. */
static inline char *json_printed(bool (*write)(FILE *, const cJSON *),
                                 const cJSON *doc) {
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  if (!out) return NULL;
  bool written = doc && write(out, doc);
  fclose(out);
  if (!written) {
    free(text);
    return NULL;
  }
  return text;
}

/* doc printed by occcalc's printer (--json's layout) and parsed with
 * cJSON; frees doc. NULL if cJSON refuses the text; the caller frees the
 * result with cJSON_Delete. */
static inline cJSON *json_parsed(cJSON *doc) {
  char *text = json_printed(occ_json_write_formatted, doc);
  cJSON_Delete(doc);
  cJSON *parsed = text ? cJSON_Parse(text) : NULL;
  free(text);
  return parsed;
}

#endif
