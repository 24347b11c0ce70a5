/* cjson_rt.h - cJSON's parser, opened at run time, and the reads of its
 * public tree that the database loader needs.
 *
 * Only --data (and the build's generator) read JSON, so occcalc does not
 * link libcjson: a shared library costs every process 40-60 us to map
 * (BENCHMARKS.md), and Debian packages no static one. The first parse
 * opens libcjson.so.1 with dlopen; cJSON 1's tree (cJSON.h) is its ABI. */
#ifndef OCC_CJSON_RT_H
#define OCC_CJSON_RT_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* The three calls occcalc makes into libcjson. */
typedef struct occ_cjson {
  cJSON *(*parse)(const char *text, size_t len, const char **end,
                  cJSON_bool require_null_terminated); /* cJSON_ParseWithLengthOpts */
  const char *(*error_at)(void);                      /* cJSON_GetErrorPtr */
  void (*free)(cJSON *item);                          /* cJSON_Delete */
} occ_cjson;

/* libcjson's calls, opened once (thread-safe); NULL with why in err when
 * libcjson.so.1 or one of its calls cannot be found. */
const occ_cjson *occ_cjson_open(char *err, size_t err_size);

/* The tree's reads, on cJSON.h's public fields (no call into the
 * library); each is false or NULL for a NULL item. */
static inline bool occ_cjson_is(const cJSON *item, int type) {
  return item && (item->type & 0xFF) == type;
}

static inline int occ_cjson_size(const cJSON *array) {
  int n = 0;
  for (const cJSON *c = array ? array->child : NULL; c; c = c->next) n++;
  return n;
}

/* The first member of obj named key, compared case-sensitively. */
static inline const cJSON *occ_cjson_get(const cJSON *obj, const char *key) {
  if (!occ_cjson_is(obj, cJSON_Object)) return NULL;
  for (const cJSON *c = obj->child; c; c = c->next)
    if (c->string && strcmp(c->string, key) == 0) return c;
  return NULL;
}

#endif
