/* gpudb_builtin.c - the database compiled in: data/gpus.json, loaded and
 * checked at build time by gpus_gen.c into build/gpus_table.c, so a run
 * parses no JSON. Apart from gpudb_load.c because the generator links the loader
 * before the tables exist. */
#include "db/gpudb.h"

#include "db/gpudb_tables.h"

occ_gpudb *occ_gpudb_load_builtin(char *err, size_t err_size) {
  return occ_gpudb_from_tables(&occ_builtin_gpudb_tables, err, err_size);
}

occ_gpudb *occ_gpudb_load(const char *path, char *err, size_t err_size) {
  return path ? occ_gpudb_load_file(path, err, err_size)
              : occ_gpudb_load_builtin(err, err_size);
}
