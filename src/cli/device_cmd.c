/* device_cmd.c - --device and verify --sweep (see device_cmd.h). */
#include "cli/device_cmd.h"

#include <stdlib.h>
#include <string.h>

#include "cli/kernel_name.h"
#include "cli/pipeline.h"
#include "live/cluster_sweep.h"
#include "ptxas/demangle.h"
#include "render/report.h"
#include "render/cluster_verify_out.h"
#include "render/verify_out.h"
#include "text/text_safe.h"

/* No probe may hang occcalc: the verification of one device, and a whole
 * sweep, stop at these limits. */
#define DEVICE_TIME_LIMIT_S 60.0
#define SWEEP_TIME_LIMIT_S 600.0

static int gpu_error(const char *what, occ_gpu_status s, const char *err) {
  occ_msg(stderr, "%s: %s", what, err);
  return s == OCC_GPU_ERR_MODULE ? OCC_EXIT_USAGE : OCC_EXIT_DEVICE;
}

static int worst(int a, int b) { return a > b ? a : b; }

/* The CUDA runtime, whose occupancy API verify and --module ask, opened
 * before the driver, so that where it is missing the one line says so. */
static int open_runtime(const char *what) {
  char err[1024];
  occ_gpu_status s = occ_gpu_runtime_open(err, sizeof err);
  return s == OCC_GPU_OK ? OCC_EXIT_OK : gpu_error(what, s, err);
}

/* "all", or one ordinal (its syntax was checked with the options). */
static int device_range(const occ_count_or_all *device, int *first, int *last) {
  char err[512];
  if (device->all) {
    int count;
    occ_gpu_status s = occ_gpu_count(&count, err, sizeof err);
    if (s != OCC_GPU_OK) return gpu_error("--device all", s, err);
    *first = 0;
    *last = count - 1;
    return OCC_EXIT_OK;
  }
  *first = *last = (int)device->count; /* at most the table's 1 << 20 */
  return OCC_EXIT_OK;
}

/* What the live GPU adds to one configuration. */
typedef struct device_run {
  occ_gpu *gpu;
  occ_item item;
  char label[16];
  bool verified, module_checked;
  occ_verify verify;
  bool cluster_verified;
  occ_cluster_verify cluster_verify;
  occ_module_kernel module;
  occ_demangler demangler;
} device_run;

/* --kernel names a module's kernel by its mangled or readable name. */
static bool module_name_accepts(const void *context, const char *mangled) {
  const char *pattern = context;
  occ_demangler demangler = {0};
  bool yes = occ_kernel_name_matches(pattern, mangled,
                                     occ_demangle(&demangler, mangled));
  occ_demangler_free(&demangler);
  return yes;
}

static int run_module(const occ_cli *cli, device_run *run, const char *what) {
  char err[1024];
  occ_kernel *k = &run->item.kernel;
  occ_name_match match = {cli->kernel_name, module_name_accepts, cli->kernel_name};
  occ_gpu_status s = occ_gpu_module_kernel(
      run->gpu, cli->module, &match, (int)occ_block_threads(k),
      k->smem_dynamic_bytes, k->carveout_pct, &run->module, err, sizeof err);
  if (s != OCC_GPU_OK) return gpu_error(what, s, err);
  k->regs_per_thread = run->module.regs_per_thread;
  k->smem_static_bytes = run->module.smem_static_bytes;
  run->module_checked = true;
  run->item.module = &run->module;
  run->item.name = run->module.name;
  run->item.readable = occ_demangle(&run->demangler, run->module.name);
  return OCC_EXIT_OK;
}

static int verify(const occ_cli *cli, device_run *run, const char *what) {
  char err[1024];
  occ_verify_options opt = {cli->counter, occ_gpu_now_s() + DEVICE_TIME_LIMIT_S};
  occ_gpu_status s = occ_verify_kernel(run->gpu, &run->item.kernel, &opt,
                                       &run->verify, err, sizeof err);
  if (s != OCC_GPU_OK) return gpu_error(what, s, err);
  run->verified = true;
  run->item.verify = &run->verify;
  if (!occ_cli_given(cli, OCC_OPT_CLUSTER)) return OCC_EXIT_OK;
  /* --cluster: the same kernel launched in clusters, its own probe. */
  s = occ_verify_cluster(run->gpu, &run->item.kernel, &cli->cluster_shape,
                         &opt, &run->cluster_verify, err, sizeof err);
  if (s != OCC_GPU_OK) return gpu_error(what, s, err);
  run->cluster_verified = true;
  run->item.cluster_verify = &run->cluster_verify;
  return OCC_EXIT_OK;
}

/* The configuration on this device: the block, the module's kernel,
 * the calculation, the verification. */
static int compute(const occ_cli *cli, occ_pipeline *p, device_run *run,
                   const char *what) {
  const occ_device *d = run->item.device;
  int rc = occ_pipeline_check(p, d);
  if (rc == OCC_EXIT_OK) rc = occ_pipeline_block(p, d, &run->item.kernel, NULL);
  if (rc == OCC_EXIT_OK && cli->module) rc = run_module(cli, run, what);
  if (rc != OCC_EXIT_OK) return rc;
  occ_model_section failed;
  occ_status st = occ_pipeline_build(p, &run->item, &failed);
  if (st != OCC_OK)
    return occ_pipeline_build_error(p, &run->item, st, failed);
  /* The module's verdict, decided here once for the writers and the
   * exit status. */
  if (run->module_checked) {
    run->item.verdict = occ_module_agrees(&run->module, &run->item.result)
                            ? OCC_VERDICT_AGREE : OCC_VERDICT_DISAGREE;
    run->module.failed = occ_module_failed(&run->module, &run->item.result);
  }
  rc = cli->no_verify || cli->module ? OCC_EXIT_OK : verify(cli, run, what);
  if (run->verified)
    run->item.verdict = run->verify.agree &&
                                (!run->cluster_verified ||
                                 run->cluster_verify.agree)
                            ? OCC_VERDICT_AGREE : OCC_VERDICT_DISAGREE;
  return rc;
}

static int status_of(const device_run *run) {
  return run->item.verdict == OCC_VERDICT_DISAGREE ? OCC_EXIT_DISAGREE
                                                   : OCC_EXIT_OK;
}

static int one_device(const occ_cli *cli, const occ_gpudb *db, int ordinal,
                      occ_pipeline *p) {
  char what[32], err[1024];
  snprintf(what, sizeof what, "--device %d", ordinal);
  device_run run;
  memset(&run, 0, sizeof run);
  occ_gpu_status s = occ_gpu_open(ordinal, db, &run.gpu, err, sizeof err);
  if (s != OCC_GPU_OK) return gpu_error(what, s, err);
  snprintf(run.label, sizeof run.label, "device%d", ordinal);
  run.item.device = occ_gpu_device(run.gpu);
  run.item.gpu_ordinal = ordinal;
  run.item.label = run.label;
  occ_cli_kernel(cli, &run.item.kernel);
  int rc = compute(cli, p, &run, what);
  if (rc == OCC_EXIT_OK) rc = occ_pipeline_write(p, &run.item);
  free(run.item.sections);
  if (rc == OCC_EXIT_OK) rc = status_of(&run);
  occ_gpu_close(run.gpu);
  occ_demangler_free(&run.demangler);
  return rc;
}

int occ_device_command(const occ_cli *cli, const occ_gpudb *db) {
  bool all = cli->device.all;
  occ_pipeline p;
  int rc = occ_pipeline_init(&p, cli, all, stdout, stderr);
  char what[32];
  if (all)
    snprintf(what, sizeof what, "--device all");
  else
    snprintf(what, sizeof what, "--device %d", (int)cli->device.count);
  if (rc == OCC_EXIT_OK && (cli->module || !cli->no_verify))
    rc = open_runtime(what);
  int first, last;
  if (rc == OCC_EXIT_OK) rc = device_range(&cli->device, &first, &last);
  if (rc != OCC_EXIT_OK) return rc;
  for (int i = first; i <= last; i++) rc = worst(rc, one_device(cli, db, i, &p));
  return worst(rc, occ_pipeline_finish(&p));
}

typedef struct sweep_out {
  cJSON *cases; /* NULL for the human output */
  cJSON *cluster_cases;
  const occ_gpu *gpu;
  bool failed;
} sweep_out;

static void on_case(void *context, int index, const occ_verify *v) {
  sweep_out *out = context;
  if (!out->cases) {
    if (!v->agree) occ_print_sweep_case(stdout, index, v);
    return;
  }
  cJSON *c = occ_json_sweep_case(occ_gpu_ordinal(out->gpu), index, v);
  if (!c || !cJSON_AddItemToArray(out->cases, c)) {
    cJSON_Delete(c);
    out->failed = true;
  }
}

static void on_cluster_case(void *context, int index,
                            const occ_cluster_verify *v) {
  sweep_out *out = context;
  if (!out->cases) {
    if (!v->agree) occ_print_cluster_sweep_case(stdout, index, v);
    return;
  }
  cJSON *c = occ_json_cluster_verify(v);
  if (!c || !cJSON_AddItemToArray(out->cluster_cases, c)) {
    cJSON_Delete(c);
    out->failed = true;
  }
}

/* Takes cases and cluster_cases (root owns them once added). */
static int write_sweep_json(const occ_gpu *gpu, cJSON *cases,
                            cJSON *cluster_cases, const occ_sweep_summary *sum,
                            const occ_cluster_sweep_summary *clusters,
                            uint64_t seed) {
  cJSON *root = occ_json_sweep(occ_gpu_device(gpu), sum, seed);
  /* "cluster": {"summary": {...}, "cases": [...]}, as the kernels' at the
   * top. */
  cJSON *cluster = cJSON_CreateObject();
  if (cluster && !cJSON_AddItemToObject(cluster, "summary",
                                        occ_json_cluster_sweep_summary(clusters))) {
    cJSON_Delete(cluster);
    cluster = NULL;
  }
  bool cases_in = root && cJSON_AddItemToObject(root, "cases", cases);
  if (!cases_in) cJSON_Delete(cases);
  bool clusters_in =
      cluster && cJSON_AddItemToObject(cluster, "cases", cluster_cases);
  if (!clusters_in) cJSON_Delete(cluster_cases);
  bool cluster_in =
      root && clusters_in && cJSON_AddItemToObject(root, "cluster", cluster);
  if (!cluster_in) cJSON_Delete(cluster);
  if (!cases_in || !cluster_in) {
    cJSON_Delete(root);
    root = NULL;
  }
  int rc = occ_exit_of_write(occ_print_json(stdout, root));
  cJSON_Delete(root);
  return rc;
}

int occ_sweep_command(const occ_cli *cli, const occ_gpudb *db) {
  bool given = occ_cli_given(cli, OCC_OPT_DEVICE);
  int ordinal = given ? (int)cli->device.count : 0, rc = OCC_EXIT_OK;
  char what[64], err[1024];
  /* Blame what the user typed: without --device the sweep runs on device
   * 0 by default. */
  if (given)
    snprintf(what, sizeof what, "--device %d", ordinal);
  else
    snprintf(what, sizeof what, "verify: device 0 (the default; --device N for another)");
  if ((rc = open_runtime(what)) != OCC_EXIT_OK) return rc;
  occ_gpu *gpu;
  occ_gpu_status s = occ_gpu_open(ordinal, db, &gpu, err, sizeof err);
  if (s != OCC_GPU_OK) return gpu_error(what, s, err);
  sweep_out out = {cli->json ? cJSON_CreateArray() : NULL,
                   cli->json ? cJSON_CreateArray() : NULL, gpu, false};
  occ_verify_options opt = {cli->counter, occ_gpu_now_s() + SWEEP_TIME_LIMIT_S};
  occ_sweep_summary sum;
  occ_cluster_sweep_summary clusters = {0};
  s = occ_verify_sweep(gpu, (int)cli->sweep, (uint64_t)cli->seed, &opt, on_case, &out, &sum,
                       err, sizeof err);
  /* Clusters (cc 9.0+): cases of their own, counted beside the kernels'. */
  int cluster_n = occ_cluster_sweep_count(occ_gpu_device(gpu), (int)cli->sweep);
  if (s == OCC_GPU_OK && cluster_n > 0)
    s = occ_verify_cluster_sweep(gpu, cluster_n, (uint64_t)cli->seed, &opt,
                                 on_cluster_case, &out, &clusters, err,
                                 sizeof err);
  if (s != OCC_GPU_OK) {
    rc = gpu_error(what, s, err);
  } else if (out.failed || (cli->json && (!out.cases || !out.cluster_cases))) {
    occ_msg(stderr, "out of memory writing JSON");
    rc = OCC_EXIT_FAILURE;
  } else {
    if (cli->json) {
      rc = write_sweep_json(gpu, out.cases, out.cluster_cases, &sum, &clusters,
                            (uint64_t)cli->seed);
      out.cases = out.cluster_cases = NULL;
    } else {
      occ_print_sweep_summary(stdout, occ_gpu_device(gpu), ordinal,
                              (int)cli->sweep, (uint64_t)cli->seed, &sum);
      occ_print_cluster_sweep_summary(stdout, &clusters);
    }
    if (rc == OCC_EXIT_OK &&
        (sum.agree != sum.cases || clusters.agree != clusters.cases))
      rc = OCC_EXIT_DISAGREE;
  }
  cJSON_Delete(out.cases);
  cJSON_Delete(out.cluster_cases);
  occ_gpu_close(gpu);
  return rc;
}
