/* gpu_probe_main.c - development driver of the verifier: "one REGS BLOCK
 * SMEM CARVEOUT" or "sweep N SEED". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudb.h"
#include "verify.h"

static void on_case(void *ctx, int i, const occ_verify *v) {
  (void)ctx;
  if (!v->agree || i < 5) occ_print_sweep_case(stdout, i, v);
}

int main(int argc, char **argv) {
  char err[512];
  occ_gpudb *db = occ_gpudb_load_builtin(err, sizeof err);
  if (!db) { fprintf(stderr, "db: %s\n", err); return 1; }
  occ_gpu *gpu;
  double t0 = occ_gpu_now_s();
  occ_gpu_status s = occ_gpu_open(0, db, &gpu, err, sizeof err);
  if (s) { fprintf(stderr, "occcalc: device 0: %s\n", err); return 5; }
  printf("open: %.1f ms\n", (occ_gpu_now_s() - t0) * 1e3);
  occ_verify_options opt = {.counter = getenv("NOCOUNTER") == NULL,
                            .deadline_s = occ_gpu_now_s() + 300};
  if (argc >= 6 && !strcmp(argv[1], "one")) {
    occ_kernel k;
    occ_kernel_init(&k);
    k.regs_per_thread = atoi(argv[2]);
    k.block[0] = atoi(argv[3]);
    k.smem_static_bytes = atoi(argv[4]);
    k.carveout_pct = atoi(argv[5]);
    for (int rep = 0; rep < 2; rep++) {
      occ_verify v;
      s = occ_verify_kernel(gpu, &k, &opt, &v, err, sizeof err);
      if (s) { fprintf(stderr, "occcalc: %s\n", err); return 5; }
      occ_print_verify(stdout, gpu, &v);
      char *j = cJSON_PrintUnformatted(occ_json_verify(gpu, &v));
      printf("%s\n", j);
    }
  } else if (argc >= 4 && !strcmp(argv[1], "sweep")) {
    occ_sweep_summary sum;
    int n = atoi(argv[2]);
    s = occ_verify_sweep(gpu, n, strtoull(argv[3], NULL, 10), &opt, on_case,
                         NULL, &sum, err, sizeof err);
    if (s) fprintf(stderr, "occcalc: %s\n", err);
    occ_print_sweep_summary(stdout, gpu, n, strtoull(argv[3], NULL, 10), &sum);
  }
  occ_gpu_close(gpu);
  occ_gpudb_free(db);
  return 0;
}
