/* ptxas_json.c - the JSON object of one kernel read by --ptxas: the
 * calculator's object (schema 3), its `kernel` the same launch
 * configuration as from any source, with `compiler` carrying what the
 * compiler reported and `block_choice` how the block was chosen. A field
 * the report did not carry is null, never left out. */
#include "render/ptxas_out.h"
#include "render/suggest_out.h"

static void add_bytes_or_null(cJSON *obj, const char *key, int64_t bytes) {
  if (bytes == OCC_PTXAS_UNKNOWN)
    cJSON_AddNullToObject(obj, key);
  else
    cJSON_AddNumberToObject(obj, key, (double)bytes);
}

static cJSON *compiler(const occ_ptxas_row *row) {
  const occ_ptxas_kernel *k = row->kernel;
  cJSON *kernel = cJSON_CreateObject();
  if (!kernel) return NULL;
  cJSON_AddStringToObject(kernel, "demangled", row->demangled);
  if (k->arch[0])
    cJSON_AddStringToObject(kernel, "arch", k->arch);
  else
    cJSON_AddNullToObject(kernel, "arch");
  cJSON_AddStringToObject(kernel, "source",
                          k->source == OCC_PTXAS_FROM_PTXAS ? "ptxas"
                                                             : "cuobjdump");
  cJSON_AddNumberToObject(kernel, "line", (double)k->line);
  add_bytes_or_null(kernel, "stack_bytes", k->stack_bytes);
  add_bytes_or_null(kernel, "local_bytes", k->local_bytes);
  add_bytes_or_null(kernel, "spill_stores_bytes", k->spill_stores_bytes);
  add_bytes_or_null(kernel, "spill_loads_bytes", k->spill_loads_bytes);
  add_bytes_or_null(kernel, "cmem_bytes", k->cmem_bytes);
  cJSON_AddBoolToObject(kernel, "barriers_reported", k->barriers != OCC_PTXAS_UNKNOWN);
  return kernel;
}

cJSON *occ_ptxas_json(const occ_ptxas_row *row) {
  cJSON *root = occ_json_report(row->report);
  if (!root) return NULL;
  cJSON *from = compiler(row);
  cJSON *choice = row->choice ? occ_json_block_choice(row->choice, row->block_best)
                              : cJSON_CreateNull();
  bool ok = from && choice && cJSON_GetObjectItemCaseSensitive(from, "barriers_reported");
  /* A key whose allocation failed is missing: report whole or not at all. */
  if (ok) ok = cJSON_ReplaceItemInObjectCaseSensitive(root, "compiler", from);
  if (ok) from = NULL;
  if (ok) ok = cJSON_ReplaceItemInObjectCaseSensitive(root, "block_choice", choice);
  if (ok) return root;
  cJSON_Delete(from);
  cJSON_Delete(choice);
  cJSON_Delete(root);
  return NULL;
}
