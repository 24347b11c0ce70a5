/* lib_test.c - a program of its own that includes libocc.h alone and
 * links build/libocc.a alone (no command line, no CUDA): the library's
 * boundary holds. It computes one configuration through the model and
 * renders it as JSON; exits 0 when the document is schema 3 and the
 * occupancy is the calculator's (H100, 48 registers, 4 KiB, 128 threads:
 * 0.625). */
#include <stdio.h>
#include <stdlib.h>

#include "libocc.h"

int main(void) {
  char err[256];
  occ_gpudb *db = occ_gpudb_load_builtin(err, sizeof err);
  occ_device device;
  if (!db || occ_gpudb_find_gpu(db, "h100", &device, err, sizeof err) != 0) {
    fprintf(stderr, "lib_test: %s\n", err);
    return 1;
  }
  occ_item item = {.device = &device, .name = "k"};
  occ_kernel_init(&item.kernel);
  item.kernel.block[0] = 128;
  item.kernel.regs_per_thread = 48;
  item.kernel.smem_static_bytes = 4096;
  occ_model_request request = {.grid_blocks = 1000, .explain = true};
  occ_model_section failed;
  if (occ_model_build(&item, &request, &failed) != OCC_OK) return 1;
  occ_report rep = {.device = item.device,
                    .kernel = &item.kernel,
                    .kernel_name = item.name,
                    .result = &item.result,
                    .waves = &item.waves,
                    .ncu = item.has_ncu ? &item.ncu : NULL,
                    .steps = item.explanation->steps,
                    .step_count = item.explanation->count,
                    .waves_without_clusters = &item.waves};
  cJSON *doc = occ_json_report(&rep);
  const cJSON *schema = cJSON_GetObjectItemCaseSensitive(doc, "schema");
  const cJSON *occ = cJSON_GetObjectItemCaseSensitive(doc, "occupancy");
  int ok = cJSON_IsNumber(schema) && schema->valueint == OCC_JSON_SCHEMA &&
           OCC_JSON_SCHEMA == 3 && cJSON_IsNumber(occ) &&
           occ->valuedouble == 0.625 && item.explanation->count > 10;
  cJSON_Delete(doc);
  free(item.sections);
  occ_gpudb_free(db);
  printf("lib_test: %s\n", ok ? "libocc.h and libocc.a alone compute and "
                                "render a configuration" : "FAILED");
  return !ok;
}
