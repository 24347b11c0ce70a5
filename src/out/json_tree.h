/* json_tree.h - the JSON documents occcalc writes: a tree built by the
 * writers and printed in one pass.
 *
 * Why not cJSON's tree: cJSON is a shared library (Debian packages no
 * static one) and mapping it costs every process about 40-60 us, the
 * whole margin of a report over the least C program that answers the
 * same question (BENCHMARKS.md). So the writers build this tree, no run
 * that writes loads cJSON, and cJSON is opened only to read JSON (--data,
 * src/db/cjson_rt.c).
 *
 * The calls keep cJSON's contracts, so that a writer reads as it would
 * with cJSON: a constructor returns NULL when out of memory; an add
 * returns NULL (or false) when the parent is NULL or memory runs out, and
 * then the item stays the caller's; a document has one owner, who frees it
 * with occ_jfree. The printers write cJSON_Print's and
 * cJSON_PrintUnformatted's layouts byte for byte
 * (tests/ptxas/json_tree_test.c compares them with cJSON's own). */
#ifndef OCC_JSON_TREE_H
#define OCC_JSON_TREE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct occ_jnode occ_jnode;

occ_jnode *occ_jobject(void);
occ_jnode *occ_jarray(void);
occ_jnode *occ_jnull(void);
occ_jnode *occ_jbool(bool value);
/* NaN and infinities print as null, as in cJSON. */
occ_jnode *occ_jnumber(double value);
/* An integer printed exactly: doubles hold integers exactly only up to
 * 2^53, and a timestamp in ns since 1970 is near 2^61. */
occ_jnode *occ_jint(int64_t value);
/* Copies text; NULL prints as "". */
occ_jnode *occ_jstring(const char *text);
occ_jnode *occ_jint_array(const int *values, int count);
occ_jnode *occ_jdouble_array(const double *values, int count);

/* Appends item to obj under a copy of key. False (item still the
 * caller's) when obj or item is NULL or out of memory. */
bool occ_jadd(occ_jnode *obj, const char *key, occ_jnode *item);
/* Appends item to array; false as occ_jadd. */
bool occ_jappend(occ_jnode *array, occ_jnode *item);

/* Each appends a new value to obj under key and returns it (owned by obj),
 * or NULL when obj is NULL or out of memory. */
occ_jnode *occ_jadd_null(occ_jnode *obj, const char *key);
occ_jnode *occ_jadd_bool(occ_jnode *obj, const char *key, bool value);
occ_jnode *occ_jadd_number(occ_jnode *obj, const char *key, double value);
occ_jnode *occ_jadd_int(occ_jnode *obj, const char *key, int64_t value);
occ_jnode *occ_jadd_string(occ_jnode *obj, const char *key, const char *text);
occ_jnode *occ_jadd_object(occ_jnode *obj, const char *key);
occ_jnode *occ_jadd_array(occ_jnode *obj, const char *key);

/* The first member of obj named key, or NULL. */
occ_jnode *occ_jget(const occ_jnode *obj, const char *key);

/* Puts item in place of obj's first member named key and frees that
 * member. False (item still the caller's) when there is none. */
bool occ_jreplace(occ_jnode *obj, const char *key, occ_jnode *item);

/* Frees node and everything under it; NULL is ignored. */
void occ_jfree(occ_jnode *node);

/* Writes node as cJSON_PrintUnformatted would (--jsonl), no newline. */
void occ_json_write_compact(FILE *out, const occ_jnode *node);

/* Writes node as cJSON_Print would (--json), no newline. */
void occ_json_write_formatted(FILE *out, const occ_jnode *node);

#endif
