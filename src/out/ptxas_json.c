/* ptxas_json.c - the JSON object of one kernel read by --ptxas: the
 * calculator's object (schema 2), its `kernel` the same launch
 * configuration as from any source, with `compiler` carrying what the
 * compiler reported and `block_choice` how the block was chosen. A field
 * the report did not carry is null, never left out. */
#include "out/ptxas_out.h"

static void add_bytes_or_null(occ_jnode *obj, const char *key, int64_t bytes) {
  if (bytes == OCC_PTXAS_UNKNOWN)
    occ_jadd_null(obj, key);
  else
    occ_jadd_number(obj, key, (double)bytes);
}

static occ_jnode *compiler(const occ_ptxas_row *row) {
  const occ_ptxas_kernel *k = row->kernel;
  occ_jnode *kernel = occ_jobject();
  if (!kernel) return NULL;
  occ_jadd_string(kernel, "demangled", row->demangled);
  if (k->arch[0])
    occ_jadd_string(kernel, "arch", k->arch);
  else
    occ_jadd_null(kernel, "arch");
  occ_jadd_string(kernel, "source",
                          k->source == OCC_PTXAS_FROM_PTXAS ? "ptxas"
                                                             : "cuobjdump");
  occ_jadd_number(kernel, "line", (double)k->line);
  add_bytes_or_null(kernel, "stack_bytes", k->stack_bytes);
  add_bytes_or_null(kernel, "local_bytes", k->local_bytes);
  add_bytes_or_null(kernel, "spill_stores_bytes", k->spill_stores_bytes);
  add_bytes_or_null(kernel, "spill_loads_bytes", k->spill_loads_bytes);
  add_bytes_or_null(kernel, "cmem_bytes", k->cmem_bytes);
  occ_jadd_bool(kernel, "barriers_reported", k->barriers != OCC_PTXAS_UNKNOWN);
  return kernel;
}

/* How the block size was chosen without --block: both answers, since
 * they differ (the smallest is shown; the CUDA runtime picks the
 * largest). */
static occ_jnode *block_choice(const occ_block_choice *c) {
  occ_jnode *obj = occ_jobject();
  occ_jadd_string(obj, "rule", "smallest block size reaching the "
                                       "highest occupancy");
  occ_jadd_number(obj, "smallest_best_block_size", c->smallest_block_size);
  occ_jadd_number(obj, "max_potential_block_size", c->block_size);
  return obj;
}

occ_jnode *occ_ptxas_json(const occ_ptxas_row *row) {
  occ_jnode *root = occ_json_report(row->report);
  if (!root) return NULL;
  occ_jnode *from = compiler(row);
  occ_jnode *choice = row->choice ? block_choice(row->choice) : occ_jnull();
  bool ok = from && choice && occ_jget(from, "barriers_reported");
  /* A key whose allocation failed is missing: report whole or not at all. */
  if (ok) ok = occ_jreplace(root, "compiler", from);
  if (ok) from = NULL;
  if (ok) ok = occ_jreplace(root, "block_choice", choice);
  if (ok) return root;
  occ_jfree(from);
  occ_jfree(choice);
  occ_jfree(root);
  return NULL;
}
