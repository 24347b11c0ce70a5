/* ptxas_json.c - the JSON object of one kernel read by --ptxas: the
 * calculator's object (schema 3), its `kernel` the same launch
 * configuration as from any source, with `compiler` carrying what the
 * compiler reported and `block_choice` how the block was chosen. A field
 * the report did not carry is null, never left out. */
#include "render/ptxas_out.h"
#include "render/suggest_out.h"

static void bytes_or_null(occ_jw *w, const char *key, int64_t bytes) {
  occ_jw_int_or_null(w, key, bytes, bytes != OCC_PTXAS_UNKNOWN);
}

static void compiler(occ_jw *w, const occ_ptxas_row *row) {
  const occ_ptxas_kernel *k = row->kernel;
  occ_jw_object(w, "compiler");
  occ_jw_string(w, "demangled", row->demangled);
  occ_jw_string_or_null(w, "arch", k->arch[0] ? k->arch : NULL);
  occ_jw_string(w, "source", k->source == OCC_PTXAS_FROM_PTXAS      ? "ptxas"
                             : k->source == OCC_PTXAS_FROM_BINARY ? "binary"
                                                                  : "cuobjdump");
  /* a binary has no lines */
  if (k->source == OCC_PTXAS_FROM_BINARY) occ_jw_null(w, "line");
  else occ_jw_int(w, "line", k->line);
  bytes_or_null(w, "stack_bytes", k->stack_bytes);
  bytes_or_null(w, "local_bytes", k->local_bytes);
  bytes_or_null(w, "spill_stores_bytes", k->spill_stores_bytes);
  bytes_or_null(w, "spill_loads_bytes", k->spill_loads_bytes);
  bytes_or_null(w, "cmem_bytes", k->cmem_bytes);
  /* The functions ptxas reports after the kernel: its callees (ptxas.h). */
  occ_jw_int(w, "callees", k->callees);
  bytes_or_null(w, "callee_stack_bytes", k->callee_stack_bytes);
  bytes_or_null(w, "callee_spill_stores_bytes", k->callee_spill_stores_bytes);
  bytes_or_null(w, "callee_spill_loads_bytes", k->callee_spill_loads_bytes);
  occ_jw_bool(w, "barriers_reported", k->barriers != OCC_PTXAS_UNKNOWN);
  occ_jw_close(w);
}

void occ_jw_ptxas_members(occ_jw *w, const occ_ptxas_row *row) {
  compiler(w, row);
  occ_jw_block_choice(w, row->choice, row->block_best);
}

cJSON *occ_ptxas_json(const occ_ptxas_row *row) {
  occ_jw w;
  occ_jw_tree(&w);
  occ_jw_object(&w, NULL);
  occ_jw_report_members(&w, row->report, NULL);
  occ_jw_ptxas_members(&w, row);
  occ_jw_close(&w);
  return occ_jw_end_tree(&w);
}
