/* json_parsed.h - a writer's document as a JSON reader sees it: its text,
 * and that text parsed back with cJSON, so that a test checks what a script
 * would get. */
#ifndef OCC_TESTS_JSON_PARSED_H
#define OCC_TESTS_JSON_PARSED_H

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

#include "out/json_tree.h"

/* The text write (occ_json_write_compact or _formatted) gives doc, in a
 * string the caller frees; NULL when out of memory. */
static inline char *json_printed(void (*write)(FILE *, const occ_jnode *),
                                 const occ_jnode *doc) {
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  if (!out) return NULL;
  if (doc) write(out, doc);
  fclose(out);
  return text;
}

/* doc printed by occcalc's printer (--json's layout) and parsed with
 * cJSON; frees doc. NULL if cJSON refuses the text; the caller frees the
 * result with cJSON_Delete. */
static inline cJSON *json_parsed(occ_jnode *doc) {
  char *text = json_printed(occ_json_write_formatted, doc);
  occ_jfree(doc);
  cJSON *parsed = text ? cJSON_Parse(text) : NULL;
  free(text);
  return parsed;
}

#endif
