/* gpudb_impl.h - what the database's loader (gpudb_load.c) and its
 * look-ups (gpudb_lookup.c) share: the database's layout and the rules
 * both apply (a name's match key, an architecture by capability or
 * target). Internal to src/db/; the contract is gpudb.h. */
#ifndef OCC_GPUDB_IMPL_H
#define OCC_GPUDB_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "db/gpudb.h"
#include "db/gpudb_tables.h"

#define ALIAS_MAX OCC_GPUDB_ALIAS_MAX
#define NORM_MAX 64
#define FAMILY_MAX 31 /* bytes of a family name */
#define SOURCE_MAX 1024
#define EMPTY_STRING 0 /* a parsed pool starts with "" */
/* Entries a database may have: a lookup compares a name with every
 * board's keys (an edit distance each for the nearest names), so a file
 * of many thousands would make a mistyped --gpu slow. */
#define ARCH_MAX 128
#define GPU_MAX 256
#define DB_FILE_MAX (1 << 20) /* bytes */

typedef occ_gpudb_entry entry;

/* A parsed database owns its entries and its string pool (owned_*, pool);
 * one over compiled-in tables owns neither (they are NULL). */
struct occ_gpudb {
  occ_gpudb_tables t;
  entry *owned_archs, *owned_gpus;
  occ_gpudb_amd_entry *owned_amd_archs, *owned_amd_gpus;
  char *pool;
  size_t pool_cap;
};

/* A name's match key: lower-case letters and digits only, vendor and
 * brand words dropped (at most NORM_MAX bytes with the NUL). */
void occ_gpudb_normalize(const char *in, char out[NORM_MAX]);

/* The architecture of a compute capability, or of an AMD target name;
 * NULL when the tables have none. */
const entry *occ_gpudb_find_arch_entry(const occ_gpudb_tables *t, int major,
                                       int minor);
const occ_gpudb_amd_entry *occ_gpudb_find_amd_entry(const occ_gpudb_tables *t,
                                                    const char *gfx);

#endif
