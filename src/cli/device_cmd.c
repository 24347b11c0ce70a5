/* device_cmd.c - --device and verify --sweep (see device_cmd.h). */
#include "cli/device_cmd.h"

#include <stdlib.h>
#include <string.h>

#include "out/report.h"
#include "out/verify_out.h"

/* No probe may hang occcalc: the verification of one device, and a whole
 * sweep, stop at these limits. */
#define DEVICE_TIME_LIMIT_S 60.0
#define SWEEP_TIME_LIMIT_S 600.0

static int gpu_error(const char *what, occ_gpu_status s, const char *err) {
  fprintf(stderr, "occcalc: %s: %s\n", what, err);
  return s == OCC_GPU_ERR_MODULE ? OCC_EXIT_USAGE : OCC_EXIT_DEVICE;
}

static int worst(int a, int b) { return a > b ? a : b; }

/* "all", or one ordinal. */
static int device_range(const char *text, int *first, int *last) {
  char err[512], why[160];
  if (strcmp(text, "all") == 0) {
    int count;
    occ_gpu_status s = occ_gpu_count(&count, err, sizeof err);
    if (s != OCC_GPU_OK) return gpu_error("--device all", s, err);
    *first = 0;
    *last = count - 1;
    return OCC_EXIT_OK;
  }
  int64_t v;
  if (occ_parse_int(text, 0, 1 << 20, &v, why, sizeof why) != 0)
    return occ_cli_usage_error(stderr, "--device: %s or 'all'", why);
  *first = *last = (int)v;
  return OCC_EXIT_OK;
}

/* What one device produced, for the writers. */
typedef struct device_run {
  occ_gpu *gpu;
  occ_kernel kernel;
  occ_result result;
  occ_waves waves;
  bool verified, module_checked;
  occ_verify verify;
  occ_module_kernel module;
} device_run;

static int run_module(const occ_cli *cli, device_run *run, char *what) {
  char err[1024];
  occ_kernel *k = &run->kernel;
  occ_gpu_status s = occ_gpu_module_kernel(
      run->gpu, cli->module, cli->kernel_name,
      k->block[0] * k->block[1] * k->block[2], k->smem_dynamic_bytes,
      k->carveout_pct, &run->module, err, sizeof err);
  if (s != OCC_GPU_OK) return gpu_error(what, s, err);
  k->regs_per_thread = run->module.regs_per_thread;
  k->smem_static_bytes = run->module.smem_static_bytes;
  run->module_checked = true;
  return OCC_EXIT_OK;
}

static int compute(const occ_cli *cli, device_run *run, char *what) {
  const occ_device *d = occ_gpu_device(run->gpu);
  char why[256], err[1024];
  if (occ_parse_block(cli->block_text, d, run->kernel.block, why, sizeof why))
    return occ_cli_usage_error(stderr, "--block: %s", why);
  if (cli->module) {
    int rc = run_module(cli, run, what);
    if (rc != OCC_EXIT_OK) return rc;
  }
  occ_status st = occ_compute(d, &run->kernel, &run->result);
  if (st != OCC_OK) {
    fprintf(stderr, "occcalc: %s: %s\n", d->name, occ_strerror(st));
    return OCC_EXIT_USAGE;
  }
  if (cli->grid_blocks > 0)
    occ_waves_compute(d, &run->result, cli->grid_blocks, &run->waves);
  if (cli->no_verify || cli->module) return OCC_EXIT_OK;
  occ_verify_options opt = {cli->counter, occ_gpu_now_s() + DEVICE_TIME_LIMIT_S};
  occ_gpu_status s = occ_verify_kernel(run->gpu, &run->kernel, &opt,
                                       &run->verify, err, sizeof err);
  if (s != OCC_GPU_OK) return gpu_error(what, s, err);
  run->verified = true;
  return OCC_EXIT_OK;
}

static int status_of(const device_run *run) {
  if (run->verified) return run->verify.agree ? OCC_EXIT_OK : OCC_EXIT_DISAGREE;
  if (run->module_checked)
    return run->module.api_blocks_per_sm == run->result.active_blocks_per_sm
               ? OCC_EXIT_OK
               : OCC_EXIT_DISAGREE;
  return OCC_EXIT_OK;
}

static void print_run(const occ_cli *cli, const device_run *run,
                      const occ_report *rep) {
  (cli->explain ? occ_print_explain : occ_print_report)(stdout, rep);
  if (run->verified) {
    fputc('\n', stdout);
    occ_print_verify(stdout, run->gpu, &run->verify);
  } else if (run->module_checked) {
    fputc('\n', stdout);
    occ_print_module_check(stdout, &run->module, &run->result);
  }
}

static cJSON *json_run(const device_run *run, const occ_report *rep) {
  cJSON *obj = occ_json_report(rep);
  if (!obj) return NULL;
  cJSON *v = NULL;
  if (run->verified)
    v = occ_json_verify(run->gpu, &run->verify);
  else if (run->module_checked)
    v = occ_json_module_check(&run->module, &run->result);
  else
    v = cJSON_CreateNull();
  if (!v || !cJSON_AddItemToObject(obj, "verify", v)) {
    cJSON_Delete(v);
    cJSON_Delete(obj);
    return NULL;
  }
  return obj;
}

static int one_device(const occ_cli *cli, const occ_gpudb *db, int ordinal,
                      cJSON *array, bool first) {
  char what[32], err[1024];
  snprintf(what, sizeof what, "--device %d", ordinal);
  device_run run;
  memset(&run, 0, sizeof run);
  run.kernel = cli->kernel;
  occ_gpu_status s = occ_gpu_open(ordinal, db, &run.gpu, err, sizeof err);
  if (s != OCC_GPU_OK) return gpu_error(what, s, err);
  int rc = compute(cli, &run, what);
  if (rc == OCC_EXIT_OK) {
    occ_report rep = {occ_gpu_device(run.gpu), &run.kernel, cli->kernel_name,
                      &run.result, cli->grid_blocks > 0 ? &run.waves : NULL};
    if (!cli->json) {
      if (!first) fputc('\n', stdout);
      print_run(cli, &run, &rep);
    } else {
      cJSON *obj = json_run(&run, &rep);
      if (!obj || !cJSON_AddItemToArray(array, obj)) {
        cJSON_Delete(obj);
        fprintf(stderr, "occcalc: out of memory writing JSON\n");
        rc = OCC_EXIT_FAILURE;
      }
    }
    if (rc == OCC_EXIT_OK) rc = status_of(&run);
  }
  occ_gpu_close(run.gpu);
  return rc;
}

/* Writes one object for one device, an array for --device all. */
static int write_json(cJSON *array, bool all) {
  cJSON *root = all ? array : cJSON_DetachItemFromArray(array, 0);
  int rc = occ_exit_of_write(occ_print_json(stdout, root));
  if (!all) cJSON_Delete(root);
  return rc;
}

int occ_device_command(const occ_cli *cli, const occ_gpudb *db) {
  if (!cli->block_given || (!cli->regs_given && !cli->module))
    return occ_cli_usage_error(stderr, "%s is required with --device",
                               cli->block_given ? "--regs" : "--block");
  int first, last;
  int rc = device_range(cli->device, &first, &last);
  if (rc != OCC_EXIT_OK) return rc;
  cJSON *array = cli->json ? cJSON_CreateArray() : NULL;
  if (cli->json && !array) return OCC_EXIT_FAILURE;
  int written = 0;
  for (int i = first; i <= last; i++) {
    int one = one_device(cli, db, i, array, i == first);
    written += one == OCC_EXIT_OK || one == OCC_EXIT_DISAGREE;
    rc = worst(rc, one);
  }
  if (cli->json && written > 0)
    rc = worst(rc, write_json(array, strcmp(cli->device, "all") == 0));
  cJSON_Delete(array);
  return rc;
}

typedef struct sweep_out {
  cJSON *cases; /* NULL for the human output */
  const occ_gpu *gpu;
  bool failed;
} sweep_out;

static cJSON *json_case(const occ_gpu *gpu, int index, const occ_verify *v) {
  cJSON *c = cJSON_CreateObject();
  cJSON *req = cJSON_CreateObject();
  cJSON *ver = occ_json_verify(gpu, v);
  if (!c || !req || !ver) {
    cJSON_Delete(c), cJSON_Delete(req), cJSON_Delete(ver);
    return NULL;
  }
  const occ_kernel *k = &v->requested;
  cJSON_AddNumberToObject(c, "index", index);
  cJSON_AddNumberToObject(req, "regs_per_thread", k->regs_per_thread);
  cJSON_AddNumberToObject(req, "block", k->block[0]);
  cJSON_AddNumberToObject(req, "smem_static_bytes", (double)k->smem_static_bytes);
  cJSON_AddNumberToObject(req, "smem_dynamic_bytes", (double)k->smem_dynamic_bytes);
  if (k->carveout_pct == OCC_CARVEOUT_DEFAULT)
    cJSON_AddNullToObject(req, "carveout_pct");
  else
    cJSON_AddNumberToObject(req, "carveout_pct", k->carveout_pct);
  cJSON_AddItemToObject(c, "kernel", req);
  cJSON_AddItemToObject(c, "verify", ver);
  return c;
}

static void on_case(void *context, int index, const occ_verify *v) {
  sweep_out *out = context;
  if (!out->cases) {
    if (!v->agree) occ_print_sweep_case(stdout, index, v);
    return;
  }
  cJSON *c = json_case(out->gpu, index, v);
  if (!c || !cJSON_AddItemToArray(out->cases, c)) {
    cJSON_Delete(c);
    out->failed = true;
  }
}

static int write_sweep_json(const occ_gpu *gpu, cJSON *cases,
                            const occ_sweep_summary *sum, uint64_t seed) {
  cJSON *root = cJSON_CreateObject();
  cJSON *dev = occ_json_device(occ_gpu_device(gpu));
  cJSON *summary = occ_json_sweep_summary(sum, seed);
  int rc = OCC_EXIT_FAILURE;
  if (root && dev && summary) {
    cJSON_AddNumberToObject(root, "schema", 1);
    cJSON_AddItemToObject(root, "device", dev);
    cJSON_AddItemToObject(root, "summary", summary);
    cJSON_AddItemReferenceToObject(root, "cases", cases);
    rc = occ_exit_of_write(occ_print_json(stdout, root));
  } else {
    cJSON_Delete(dev);
    cJSON_Delete(summary);
    rc = occ_exit_of_write(occ_print_json(stdout, NULL));
  }
  cJSON_Delete(root);
  return rc;
}

int occ_sweep_command(const occ_cli *cli, const occ_gpudb *db) {
  const char *device = cli->device ? cli->device : "0";
  if (strcmp(device, "all") == 0)
    return occ_cli_usage_error(stderr, "verify: --device takes one device");
  int ordinal, last, rc = device_range(device, &ordinal, &last);
  if (rc != OCC_EXIT_OK) return rc;
  char what[32], err[1024];
  snprintf(what, sizeof what, "--device %d", ordinal);
  occ_gpu *gpu;
  occ_gpu_status s = occ_gpu_open(ordinal, db, &gpu, err, sizeof err);
  if (s != OCC_GPU_OK) return gpu_error(what, s, err);
  sweep_out out = {cli->json ? cJSON_CreateArray() : NULL, gpu, false};
  occ_verify_options opt = {cli->counter, occ_gpu_now_s() + SWEEP_TIME_LIMIT_S};
  occ_sweep_summary sum;
  s = occ_verify_sweep(gpu, cli->sweep, cli->seed, &opt, on_case, &out, &sum,
                       err, sizeof err);
  if (s != OCC_GPU_OK) {
    rc = gpu_error(what, s, err);
  } else if (out.failed || (cli->json && !out.cases)) {
    fprintf(stderr, "occcalc: out of memory writing JSON\n");
    rc = OCC_EXIT_FAILURE;
  } else {
    if (cli->json)
      rc = write_sweep_json(gpu, out.cases, &sum, cli->seed);
    else
      occ_print_sweep_summary(stdout, gpu, cli->sweep, cli->seed, &sum);
    if (rc == OCC_EXIT_OK && sum.agree != sum.cases) rc = OCC_EXIT_DISAGREE;
  }
  cJSON_Delete(out.cases);
  occ_gpu_close(gpu);
  return rc;
}
