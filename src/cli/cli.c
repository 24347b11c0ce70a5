/* cli.c - the option table (each row's value parsed by params.c), the
 * rules of which options go together and which vendor's targets take
 * them, and --help. */
#include "cli/cli.h"

#include <fnmatch.h>
#include <getopt.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/chart.h"
#include "text/text_safe.h"

#define AT(field) offsetof(occ_cli, field)
#define CALC OCC_MODE_CALC
#define PTXAS OCC_MODE_PTXAS
#define DEVICE OCC_MODE_DEVICE
#define MODULE OCC_MODE_MODULE
#define SWEEP OCC_MODE_SWEEP
#define CONFIG OCC_MODES_CONFIG
#define ALL OCC_MODES_ALL
#define RUN OCC_MODE_RUN
#define REPORT OCC_MODE_REPORT

#define MAX_BYTES OCC_MAX_SMEM_BYTES

/* --cache-control's words, in occ_cache_control's order. */
static const char *const cache_controls[] = {"all", "none", NULL};
static const char *const measures[] = {"auto", "sample", "replay", "none",
                                       NULL};

static const occ_option options[] = {
    [OCC_OPT_REGS] =
        {"regs", "N", OCC_ARG_COUNT, 0, 255, AT(regs), CALC | DEVICE,
         "registers per thread, 0 to 255 (ptxas -v prints it)", 0,
         OCC_VENDOR_NVIDIA,
         "AMD's registers are --vgprs, --agprs and --sgprs", NULL},
    [OCC_OPT_SMEM] =
        {"smem", "BYTES", OCC_ARG_BYTES, 0, MAX_BYTES, AT(smem), CALC | DEVICE,
         "static shared memory per block (default 0)", 0,
         OCC_VENDOR_ANY, NULL, NULL},
    [OCC_OPT_DYN_SMEM] =
        {"dyn-smem", "BYTES", OCC_ARG_BYTES, 0, MAX_BYTES, AT(dyn_smem), CONFIG,
         "dynamic shared memory per block (default 0)", 0,
         OCC_VENDOR_ANY, NULL, NULL},
    [OCC_OPT_BLOCK] =
        {"block", "X[xY[xZ]]|best", OCC_ARG_BLOCK, 1, INT32_MAX, AT(block), CONFIG,
         "threads per block (128, 40x2), or best", 0,
         OCC_VENDOR_ANY, NULL, NULL},
    [OCC_OPT_MAX_THREADS] =
        {"max-threads", "N", OCC_ARG_COUNT, 1, 1024, AT(max_threads),
         CALC | PTXAS, "the largest block --block best and --suggest try", 0,
         OCC_VENDOR_NVIDIA, "it limits NVIDIA's best-block search", NULL},
    [OCC_OPT_DYN_SMEM_PER_THREAD] =
        {"dyn-smem-per-thread", "BYTES", OCC_ARG_BYTES, 0, MAX_BYTES / 1024,
         AT(dyn_smem_per_thread), CALC | PTXAS,
         "added to --dyn-smem per thread (a reduction: 4)", 0,
         OCC_VENDOR_NVIDIA, "AMD's LDS is --lds and --dyn-smem per workgroup", NULL},
    [OCC_OPT_BARRIERS] =
        {"barriers", "N", OCC_ARG_COUNT, 0, 16, AT(barriers),
         CALC | PTXAS | DEVICE, "barriers the kernel uses, 0 to 16 (default 1)",
         0,
         OCC_VENDOR_NVIDIA,
         "AMD's workgroup slots are counted from the block", NULL},
    [OCC_OPT_CARVEOUT] =
        {"carveout", "PCT", OCC_ARG_COUNT, 0, 100, AT(carveout), CONFIG,
         "shared-memory carveout preference, 0 to 100 percent", 0,
         OCC_VENDOR_NVIDIA,
         "AMD's LDS has no carveout", NULL},
    [OCC_OPT_GRID] =
        {"grid", "X[xY[xZ]]", OCC_ARG_SHAPE, 1, INT32_MAX, AT(grid_shape), CONFIG,
         "blocks in the grid (e.g. 1000 or 64x64): also waves", 0,
         OCC_VENDOR_NVIDIA,
         "waves of a grid are computed for NVIDIA targets only", NULL},
    [OCC_OPT_CLUSTER] =
        {"cluster", "X[xY[xZ]]", OCC_ARG_SHAPE, 1, INT32_MAX, AT(cluster), CONFIG,
         "launch in clusters of X*Y*Z blocks (cc 9.0+)", 0,
         OCC_VENDOR_NVIDIA,
         "thread block clusters are NVIDIA's (compute capability 9.0 and newer)", NULL},
    [OCC_OPT_NON_PORTABLE] =
        {"non-portable", NULL, OCC_ARG_FLAG, 0, 0, AT(non_portable), CONFIG,
         "with --cluster: allow 9 to 16 blocks per cluster", 0,
         OCC_VENDOR_NVIDIA,
         "thread block clusters are NVIDIA's (compute capability 9.0 and newer)", NULL},
    [OCC_OPT_SMS] =
        {"sms", "N", OCC_ARG_COUNT, 1, 100000, AT(sms), CALC | PTXAS,
         "number of SMs (overrides the device's, for --grid)", 0,
         OCC_VENDOR_NVIDIA,
         "waves of a grid are computed for NVIDIA targets only", NULL},
    [OCC_OPT_GPU] =
        {"gpu", "NAME", OCC_ARG_NAME, 0, 0, AT(gpu), CALC | PTXAS,
         "a board from the database, e.g. 'H100 SXM', gtx970", 0,
         OCC_VENDOR_ANY, NULL, NULL},
    [OCC_OPT_ARCH] =
        {"arch", "sm_XY", OCC_ARG_NAME, 0, 0, AT(arch), CALC | PTXAS,
         "the generic device of an architecture, e.g. sm_90", 0,
         OCC_VENDOR_ANY, NULL, NULL},
    [OCC_OPT_CC] =
        {"cc", "X.Y", OCC_ARG_NAME, 0, 0, AT(arch), CALC | PTXAS,
         "the generic device of a compute capability, e.g. 9.0", 0,
         OCC_VENDOR_ANY, NULL, NULL},
    [OCC_OPT_VGPRS] =
        {"vgprs", "N", OCC_ARG_COUNT, 0, 1024, AT(vgprs), CALC,
         "AMD: VGPRs per lane (the compiler's VGPRs / NumVgprs)", 0,
         OCC_VENDOR_AMD,
         "NVIDIA's registers are --regs", NULL},
    [OCC_OPT_AGPRS] =
        {"agprs", "N", OCC_ARG_COUNT, 0, 1024, AT(agprs), CALC,
         "AMD: AGPRs per lane, CDNA (default 0)", 0,
         OCC_VENDOR_AMD,
         "NVIDIA's registers are --regs", NULL},
    [OCC_OPT_SGPRS] =
        {"sgprs", "N", OCC_ARG_COUNT, 0, 1024, AT(sgprs), CALC,
         "AMD: SGPRs per wave (default unknown: no SGPR limit)", 0,
         OCC_VENDOR_AMD,
         "NVIDIA's registers are --regs", NULL},
    [OCC_OPT_LDS] =
        {"lds", "BYTES", OCC_ARG_BYTES, 0, MAX_BYTES, AT(smem), CALC,
         "AMD: static LDS per workgroup (same as --smem)", 0,
         OCC_VENDOR_AMD,
         "NVIDIA's shared memory is --smem", NULL},
    [OCC_OPT_WAVE] =
        {"wave", "32|64", OCC_ARG_COUNT, 32, 64, AT(wave), CALC | PTXAS,
         "AMD: wavefront size (default the architecture's)", 0,
         OCC_VENDOR_AMD,
         "an NVIDIA warp is 32 threads", NULL},
    [OCC_OPT_CU_MODE] =
        {"cu-mode", NULL, OCC_ARG_FLAG, 0, 0, AT(cu_mode), CALC | PTXAS,
         "AMD gfx10+: compiled with -mcumode (no WGP mode)", 0,
         OCC_VENDOR_AMD,
         "an NVIDIA SM has no WGP mode", NULL},
    [OCC_OPT_MAX_BLOCK] =
        {"max-block", "N", OCC_ARG_COUNT, 1, 1024, AT(max_block), CALC | PTXAS,
         "AMD: the compiler's max workgroup size (default 1024)", 0,
         OCC_VENDOR_AMD,
         "NVIDIA's occupancy is computed for the --block given", NULL},
    [OCC_OPT_DATA] =
        {"data", "FILE", OCC_ARG_PATH, 0, 0, AT(data_path), ALL & ~REPORT,
         "read the GPU database from FILE instead", OCC_OPTF_FILE,
         OCC_VENDOR_ANY, NULL, NULL},
    [OCC_OPT_DEVICE] =
        {"device", "N|all", OCC_ARG_COUNT_OR_ALL, 0, 1 << 20, AT(device),
         DEVICE | MODULE | SWEEP | RUN,
         "check against a live GPU (needs a GPU)", OCC_OPTF_LIVE,
         OCC_VENDOR_NVIDIA,
         "occcalc checks NVIDIA GPUs through CUDA", NULL},
    [OCC_OPT_NO_VERIFY] =
        {"no-verify", NULL, OCC_ARG_FLAG, 0, 0, AT(no_verify), DEVICE,
         "with --device: read the GPU and compute only", OCC_OPTF_LIVE,
         OCC_VENDOR_NVIDIA,
         "occcalc checks NVIDIA GPUs through CUDA", NULL},
    [OCC_OPT_COUNTER] =
        {"counter", NULL, OCC_ARG_FLAG, 0, 0, AT(counter), DEVICE | SWEEP,
         "with --device: also read the hardware counter (CUPTI)",
         OCC_OPTF_LIVE,
         OCC_VENDOR_NVIDIA,
         "occcalc checks NVIDIA GPUs through CUDA", NULL},
    [OCC_OPT_MODULE] =
        {"module", "FILE", OCC_ARG_PATH, 0, 0, AT(module), MODULE | PTXAS,
         "a cubin, fatbin or program's kernels (one: --device)",
         OCC_OPTF_FILE,
         OCC_VENDOR_NVIDIA,
         "occcalc checks NVIDIA GPUs through CUDA", NULL},
    [OCC_OPT_KERNEL] =
        {"kernel", "NAME", OCC_ARG_NAME, 0, 0, AT(kernel_name),
         PTXAS | MODULE | RUN,
         "the kernel of --module, or a name filter for --ptxas", 0,
         OCC_VENDOR_ANY, NULL, NULL},
    [OCC_OPT_SWEEP] =
        {"sweep", "N", OCC_ARG_COUNT, 1, 1000000, AT(sweep), SWEEP,
         "verify: check N random configurations on the GPU", 0,
         OCC_VENDOR_NVIDIA,
         "occcalc checks NVIDIA GPUs through CUDA", NULL},
    [OCC_OPT_SEED] =
        {"seed", "S", OCC_ARG_COUNT, 0, INT64_MAX, AT(seed), SWEEP,
         "verify --sweep: the random seed (default 1)", 0,
         OCC_VENDOR_NVIDIA,
         "occcalc checks NVIDIA GPUs through CUDA", NULL},
    [OCC_OPT_PTXAS] =
        {"ptxas", "FILE", OCC_ARG_PATH, 0, 0, AT(ptxas_path), PTXAS,
         "every kernel of ptxas -v or cuobjdump -res-usage output",
         OCC_OPTF_FILE,
         OCC_VENDOR_ANY, NULL, NULL},
    [OCC_OPT_MIN_OCCUPANCY] =
        {"min-occupancy", "PCT", OCC_ARG_PERCENT, 0, 100, AT(min_occupancy_pct),
         CONFIG | RUN, "exit 3 if a kernel's occupancy is below PCT percent",
         0,
         OCC_VENDOR_ANY, NULL, NULL},
    [OCC_OPT_JSON] =
        {"json", NULL, OCC_ARG_FLAG, 0, 0, AT(json), ALL,
         "write JSON (schema 3) instead of the report", 0,
         OCC_VENDOR_ANY, NULL, NULL},
    [OCC_OPT_JSONL] =
        {"jsonl", NULL, OCC_ARG_FLAG, 0, 0, AT(jsonl), CONFIG | RUN,
         "one compact JSON object per line, as computed", 0,
         OCC_VENDOR_ANY, NULL, NULL},
    [OCC_OPT_EXPLAIN] =
        {"explain", NULL, OCC_ARG_FLAG, 0, 0, AT(explain), CONFIG,
         "explain the calculation step by step", 0,
         OCC_VENDOR_ANY, NULL, NULL},
    [OCC_OPT_CHART] =
        {"chart", "KIND", OCC_ARG_CHARTS, 0, 0, AT(charts), CONFIG,
         "chart occupancy by block, regs, smem or all", 0,
         OCC_VENDOR_NVIDIA,
         "charts are drawn for NVIDIA targets only", NULL},
    [OCC_OPT_STEP] =
        {"step", "N", OCC_ARG_COUNT, 1, 1024, AT(chart_step), CONFIG,
         "the block chart's step in threads (default 32)", 0,
         OCC_VENDOR_NVIDIA,
         "charts are drawn for NVIDIA targets only", NULL},
    [OCC_OPT_ASCII] =
        {"ascii", NULL, OCC_ARG_FLAG, 0, 0, AT(ascii), CONFIG,
         "draw terminal charts in plain ASCII", 0,
         OCC_VENDOR_NVIDIA,
         "charts are drawn for NVIDIA targets only", NULL},
    [OCC_OPT_SVG] =
        {"svg", "PATH", OCC_ARG_PATH, 0, 0, AT(svg_path), CONFIG | RUN,
         "SVG charts to a file, '-' or a folder (run: a timeline)",
         OCC_OPTF_FILE,
         OCC_VENDOR_NVIDIA,
         "charts are drawn for NVIDIA targets only", NULL},
    [OCC_OPT_CSV] =
        {"csv", NULL, OCC_ARG_FLAG, 0, 0, AT(csv), CONFIG | RUN | REPORT,
         "write CSV: --ptxas the table, else the charts' points", 0,
         OCC_VENDOR_ANY, NULL, NULL},
    [OCC_OPT_NCU] =
        {"ncu", NULL, OCC_ARG_FLAG, 0, 0, AT(ncu), CONFIG,
         "also what Nsight Compute reports, by its metric names", 0,
         OCC_VENDOR_NVIDIA,
         "Nsight Compute's metrics are NVIDIA's", NULL},
    [OCC_OPT_SUGGEST] =
        {"suggest", NULL, OCC_ARG_FLAG, 0, 0, AT(suggest), CONFIG,
         "what to change: block sizes, registers, carveout", 0,
         OCC_VENDOR_NVIDIA,
         "suggestions are made for NVIDIA targets only", NULL},
    [OCC_OPT_METRICS] =
        {"metrics", "NAME,...", OCC_ARG_NAME, 0, 0, AT(metrics), RUN,
         "run: also read these Perfworks metrics per kernel", 0,
         OCC_VENDOR_NVIDIA,
         "run measures CUDA programs", NULL},
    [OCC_OPT_COUNTER_LAUNCHES] =
        {"counter-launches", "N", OCC_ARG_COUNT_OR_ALL, 1, 1000000,
         AT(counter_launches), RUN,
         "run: profile the first N (3) or all launches per config", 0,
         OCC_VENDOR_NVIDIA,
         "run measures CUDA programs", NULL},
    [OCC_OPT_NO_COUNTERS] =
        {"no-counters", NULL, OCC_ARG_FLAG, 0, 0, AT(no_counters), RUN,
         "run: the same as --measure none", 0,
         OCC_VENDOR_NVIDIA,
         "run measures CUDA programs", NULL},
    [OCC_OPT_MEASURE] =
        {"measure", "auto|sample|replay|none", OCC_ARG_CHOICE, 0, 0,
         AT(measure), RUN,
         "run: achieved occupancy by PM samples or kernel replay", 0,
         OCC_VENDOR_NVIDIA,
         "run measures CUDA programs", measures},
    [OCC_OPT_SAMPLE_INTERVAL] =
        {"sample-interval", "US", OCC_ARG_COUNT, 1, 100000,
         AT(sample_interval_us), RUN,
         "run: the PM sampling interval in microseconds (25)", 0,
         OCC_VENDOR_NVIDIA,
         "run measures CUDA programs", NULL},
    [OCC_OPT_TRACE] =
        {"trace", "FILE", OCC_ARG_PATH, 0, 0, AT(trace_path), RUN,
         "run: also write a Chrome trace of every launch to FILE",
         OCC_OPTF_FILE,
         OCC_VENDOR_NVIDIA,
         "run measures CUDA programs", NULL},
    [OCC_OPT_CACHE_CONTROL] =
        {"cache-control", "all|none", OCC_ARG_CHOICE, 0, 0, AT(cache_control),
         RUN, "run: flush caches before profiled launches (none)",
         0,
         OCC_VENDOR_NVIDIA,
         "run measures CUDA programs", cache_controls},
    [OCC_OPT_OUTPUT] =
        {"output", "FILE", OCC_ARG_PATH, 0, 0, AT(output_path), RUN,
         "run: write the report to FILE (%p %h %q{VAR} %%)",
         OCC_OPTF_FILE,
         OCC_VENDOR_NVIDIA,
         "run measures CUDA programs", NULL},
    [OCC_OPT_LIST_GPUS] =
        {"list-gpus", NULL, OCC_ARG_FLAG, 0, 0, AT(list_gpus), OCC_MODE_LIST,
         "list the boards and architectures known", 0,
         OCC_VENDOR_ANY, NULL, NULL},
    [OCC_OPT_HELP] =
        {"help", NULL, OCC_ARG_FLAG, 0, 0, AT(help), ALL,
         "show this help and exit", 0,
         OCC_VENDOR_ANY, NULL, NULL},
    [OCC_OPT_VERSION] =
        {"version", NULL, OCC_ARG_FLAG, 0, 0, AT(version), ALL,
         "show the version and exit", 0,
         OCC_VENDOR_ANY, NULL, NULL},
    [OCC_OPT_COUNT] = {NULL, NULL, OCC_ARG_FLAG, 0, 0, 0, 0, NULL, 0, 0, NULL, NULL},
};

enum { OPTION_COUNT = OCC_OPT_COUNT };
_Static_assert(sizeof options / sizeof options[0] == OCC_OPT_COUNT + 1,
               "a row for every occ_opt");
_Static_assert(OPTION_COUNT <= 64, "occ_cli.given holds 64 options");

const occ_option *occ_cli_options(void) { return options; }

static const char *const mode_names[OCC_MODE_COUNT] = {
    "the calculator", "--ptxas", "--device", "--module", "verify --sweep",
    "--list-gpus", "run", "report"};

const char *occ_mode_name(occ_mode mode) {
  for (int i = 0; i < OCC_MODE_COUNT; i++)
    if (mode == 1u << i) return mode_names[i];
  return "?";
}

const char *occ_vendor_name(occ_vendor vendor) {
  return vendor == OCC_VENDOR_AMD ? "AMD" : vendor == OCC_VENDOR_NVIDIA ? "NVIDIA" : "any";
}

bool occ_cli_vendor_given(const occ_cli *cli, occ_vendor vendor,
                          const char **first) {
  for (int i = 0; i < OPTION_COUNT; i++)
    if (options[i].vendor == vendor && occ_cli_given(cli, (occ_opt)i)) {
      if (first) *first = options[i].name;
      return true;
    }
  return false;
}

int occ_cli_refuse_vendor(const occ_cli *cli, occ_vendor target_vendor,
                          const char *target_name, FILE *err) {
  for (int i = 0; i < OPTION_COUNT; i++) {
    const occ_option *o = &options[i];
    if (o->vendor == OCC_VENDOR_ANY || o->vendor == target_vendor ||
        !occ_cli_given(cli, (occ_opt)i))
      continue;
    return occ_cli_usage_error(err, "--%s: not for an %s target (%s): %s%s",
                               o->name, occ_vendor_name(target_vendor),
                               target_name, o->vendor_why,
                               o->vendor == OCC_VENDOR_AMD
                                   ? " (an AMD target: --arch gfxNNN or --gpu mi300x)"
                                   : "");
  }
  return OCC_EXIT_OK;
}

bool occ_cli_arch_is_amd(const occ_cli *cli) {
  return occ_target_arch_is_amd(cli->arch);
}

occ_target_query occ_cli_target_query(const occ_cli *cli) {
  return (occ_target_query){.data_path = cli->data_path, .gpu = cli->gpu,
                            .arch = cli->arch, .env_gpu = getenv("OCCCALC_GPU")};
}

bool occ_cli_given(const occ_cli *cli, occ_opt option) {
  return cli->given >> option & 1u;
}

bool occ_cli_block_best(const occ_cli *cli) {
  return occ_cli_given(cli, OCC_OPT_BLOCK) && cli->block.best;
}

void occ_cli_kernel(const occ_cli *cli, occ_kernel *kernel) {
  occ_kernel_init(kernel);
  kernel->regs_per_thread = (int)cli->regs;
  kernel->smem_static_bytes = cli->smem;
  kernel->smem_dynamic_bytes = cli->dyn_smem;
  kernel->smem_dynamic_per_thread_bytes = cli->dyn_smem_per_thread;
  kernel->max_threads_per_block = (int)cli->max_threads;
  kernel->barriers = (int)cli->barriers;
  kernel->carveout_pct = (int)cli->carveout;
}

int occ_cli_usage_error(FILE *err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  occ_vmsg(err, fmt, ap);
  va_end(ap);
  fputs("occcalc: try 'occcalc --help'\n", err);
  return OCC_EXIT_USAGE;
}

/* --block: a shape, or "best" (the shapes' "accepted" list says so). */
static int parse_block_arg(const char *text, int64_t max, occ_shape *shape,
                           char *why, size_t why_size) {
  static const char shapes[] = "N, XxY or XxYxZ)";
  if (strcmp(text, "best") == 0) {
    *shape = (occ_shape){{1, 1, 1}, 1, text, true};
    return 0;
  }
  if (occ_parse_shape(text, max, shape, why, why_size) == 0) return 0;
  char *at = strstr(why, shapes);
  if (at && at[sizeof shapes - 1] == '\0')
    snprintf(at, why_size - (size_t)(at - why), "N, XxY, XxYxZ or best)");
  return -1;
}

/* --block NAME_GLOB=N, split at the last '=' (a C++ name may hold one:
 * operator=). Returns 1 (a rule, not the plain --block), or -1. */
static int parse_block_rule(occ_cli *cli, const char *text, int64_t max,
                            char *why, size_t why_size) {
  const char *eq = strrchr(text, '=');
  size_t len = (size_t)(eq - text);
  if (len == 0 || len >= OCC_BLOCK_GLOB_MAX) {
    snprintf(why, why_size, "'%.40s': the name before '=' must be 1 to %d bytes "
             "(accepted: NAME_GLOB=N, e.g. 'reduce*=256')", text, OCC_BLOCK_GLOB_MAX - 1);
    return -1;
  }
  if (cli->block_rule_count == OCC_BLOCK_RULES_MAX) {
    snprintf(why, why_size, "more than %d NAME_GLOB=N rules", OCC_BLOCK_RULES_MAX);
    return -1;
  }
  occ_block_rule *rule = &cli->block_rules[cli->block_rule_count];
  if (parse_block_arg(eq + 1, max, &rule->shape, why, why_size) != 0) return -1;
  memcpy(rule->glob, text, len);
  rule->glob[len] = '\0';
  cli->block_rule_count++;
  return 1;
}

const occ_shape *occ_cli_block_for(const occ_cli *cli, const char *mangled,
                                   const char *readable) {
  for (int i = 0; i < cli->block_rule_count; i++) {
    const char *glob = cli->block_rules[i].glob;
    if ((mangled && fnmatch(glob, mangled, 0) == 0) ||
        (readable && fnmatch(glob, readable, 0) == 0))
      return &cli->block_rules[i].shape;
  }
  return occ_cli_given(cli, OCC_OPT_BLOCK) ? &cli->block : NULL;
}

/* Stores one option's value where its row says, parsed by its type. */
static int apply_option(occ_cli *cli, const occ_option *o, const char *arg,
                        char *why, size_t why_size) {
  char *at = (char *)cli + o->offset;
  switch (o->type) {
  case OCC_ARG_FLAG: *(bool *)at = true; return 0;
  case OCC_ARG_COUNT:
    return occ_parse_int(arg, o->min, o->max, (int64_t *)at, why, why_size);
  case OCC_ARG_BYTES:
    return occ_parse_bytes(arg, o->max, (int64_t *)at, why, why_size);
  case OCC_ARG_PERCENT: return occ_parse_pct(arg, (double *)at, why, why_size);
  case OCC_ARG_CHARTS:
    return occ_parse_charts(arg, (unsigned *)at, why, why_size);
  case OCC_ARG_SHAPE:
    return occ_parse_shape(arg, o->max, (occ_shape *)at, why, why_size);
  case OCC_ARG_BLOCK:
    if (strchr(arg, '=')) return parse_block_rule(cli, arg, o->max, why, why_size);
    return parse_block_arg(arg, o->max, (occ_shape *)at, why, why_size);
  case OCC_ARG_COUNT_OR_ALL:
    return occ_parse_count_or_all(arg, o->min, o->max, (occ_count_or_all *)at,
                                  why, why_size);
  case OCC_ARG_CHOICE:
    return occ_parse_choice(arg, o->choices, (int *)at, why, why_size);
  case OCC_ARG_NAME:
  case OCC_ARG_PATH:
    if (!*arg) {
      snprintf(why, why_size, "the value is empty (accepted: %s)", o->arg);
      return -1;
    }
    *(const char **)at = arg;
    return 0;
  }
  return 0;
}

/* The mode follows from the sources given; a second source is then an
 * option that does not apply to the mode. */
static occ_mode choose_mode(const occ_cli *cli) {
  if (cli->report_command) return OCC_MODE_REPORT;
  if (cli->run_argv) return OCC_MODE_RUN;
  if (cli->verify_command) return OCC_MODE_SWEEP;
  if (cli->list_gpus) return OCC_MODE_LIST;
  /* --module without --device reads the binary offline, as --ptxas reads
   * a log: every kernel through the same pipeline. */
  if (cli->module && occ_cli_given(cli, OCC_OPT_DEVICE)) return OCC_MODE_MODULE;
  if (cli->module || cli->ptxas_path) return OCC_MODE_PTXAS;
  if (occ_cli_given(cli, OCC_OPT_DEVICE)) return OCC_MODE_DEVICE;
  return OCC_MODE_CALC;
}

static void modes_text(unsigned modes, char *buf, size_t size) {
  size_t n = 0;
  buf[0] = '\0';
  for (int i = 0; i < OCC_MODE_COUNT; i++)
    if (modes >> i & 1u)
      n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s%s",
                            n ? ", " : "", mode_names[i]);
}

static int check_modes(const occ_cli *cli, FILE *err) {
  for (int i = 0; i < OPTION_COUNT; i++) {
    if (!(cli->given >> i & 1u) || (options[i].modes & cli->mode)) continue;
    char modes[160];
    modes_text(options[i].modes, modes, sizeof modes);
    return occ_cli_usage_error(err, "--%s: does not apply to %s (it applies "
                               "to %s)", options[i].name,
                               occ_mode_name(cli->mode), modes);
  }
  return OCC_EXIT_OK;
}

/* The options each mode cannot do without. */
static int check_required(const occ_cli *cli, FILE *err) {
  static const char regs[] = "--regs is required (registers per thread, 0 to 255)";
  static const char block[] = "--block is required (threads per block, e.g. 128 or 40x2)";
  const char *missing = NULL;
  switch (cli->mode) {
  case OCC_MODE_CALC:
    /* A board's name may be AMD's: the calculator asks for --regs or
     * --vgprs once it knows (calculate, amd_cmd.c). */
    missing = !occ_cli_given(cli, OCC_OPT_REGS) && !cli->gpu &&
                      !occ_cli_arch_is_amd(cli) &&
                      !occ_cli_vendor_given(cli, OCC_VENDOR_AMD, NULL)
                  ? regs
              : !occ_cli_given(cli, OCC_OPT_BLOCK) ? block : NULL;
    break;
  case OCC_MODE_DEVICE:
    missing = !occ_cli_given(cli, OCC_OPT_REGS) ? regs
              : !occ_cli_given(cli, OCC_OPT_BLOCK) ? block : NULL;
    break;
  case OCC_MODE_MODULE:
    missing = !occ_cli_given(cli, OCC_OPT_DEVICE) ? "--module: --device N is required (a module is "
                             "checked on a live GPU)"
              : !cli->kernel_name ? "--module: --kernel NAME is required"
              : !occ_cli_given(cli, OCC_OPT_BLOCK) ? block : NULL;
    break;
  case OCC_MODE_SWEEP:
    missing = !cli->sweep ? "verify: --sweep N is required" : NULL;
    break;
  case OCC_MODE_RUN:
    missing = !cli->run_argv[0] ? "run: PROGRAM is required (occcalc run "
                                  "[options] -- PROGRAM [ARGS...])" : NULL;
    break;
  case OCC_MODE_REPORT:
    missing = !cli->report_files[0] ? "report: FILE is required (occcalc report "
                                      "[--json|--csv] FILE..., each an occcalc "
                                      "run --json report)" : NULL;
    break;
  default: break;
  }
  return missing ? occ_cli_usage_error(err, "%s", missing) : OCC_EXIT_OK;
}

/* Options that cannot apply beside another: each pair refused with status
 * 2 and the one line "--OPTION: not with --WITH (WHY)", never accepted and
 * ignored. */
static const struct {
  occ_opt option, with;
  const char *why;
} exclusions[] = {
    {OCC_OPT_NCU, OCC_OPT_JSON, "every JSON report holds the ncu object"},
    {OCC_OPT_NCU, OCC_OPT_JSONL, "every JSON report holds the ncu object"},
    {OCC_OPT_COUNTER, OCC_OPT_NO_VERIFY,
     "the counter is read on the verifier's probe"},
    {OCC_OPT_METRICS, OCC_OPT_NO_COUNTERS, "metrics are read by the counters"},
    {OCC_OPT_COUNTER_LAUNCHES, OCC_OPT_NO_COUNTERS,
     "it chooses the launches whose counters are read"},
    {OCC_OPT_CACHE_CONTROL, OCC_OPT_NO_COUNTERS,
     "the caches are flushed before the launches whose counters are read"},
    {OCC_OPT_LDS, OCC_OPT_SMEM, "they name the same size: give one"},
    {OCC_OPT_MEASURE, OCC_OPT_NO_COUNTERS,
     "--no-counters is --measure none: give one"},
};

/* What --csv and --svg - cannot write beside the charts' points. */
static const occ_opt charts_only_excludes[] = {
    OCC_OPT_JSON, OCC_OPT_JSONL, OCC_OPT_EXPLAIN, OCC_OPT_SUGGEST,
    OCC_OPT_NCU, OCC_OPT_GRID, OCC_OPT_CLUSTER};

static int check_exclusions(const occ_cli *cli, FILE *err) {
  for (size_t i = 0; i < sizeof exclusions / sizeof *exclusions; i++)
    if (occ_cli_given(cli, exclusions[i].option) &&
        occ_cli_given(cli, exclusions[i].with))
      return occ_cli_usage_error(err, "--%s: not with --%s (%s)",
                                 options[exclusions[i].option].name,
                                 options[exclusions[i].with].name,
                                 exclusions[i].why);
  bool svg_stdout = cli->svg_path && strcmp(cli->svg_path, "-") == 0;
  for (size_t i = 0; i < sizeof charts_only_excludes / sizeof *charts_only_excludes; i++)
    if ((cli->csv || svg_stdout) &&
        !(cli->mode & (OCC_MODE_RUN | OCC_MODE_REPORT)) &&
        occ_cli_given(cli, charts_only_excludes[i]))
      return occ_cli_usage_error(
          err, "%s writes only the charts to stdout; drop --json, --jsonl, "
               "--explain, --suggest, --ncu, --grid and --cluster, or give "
               "--svg a file",
          cli->csv ? "--csv" : "--svg -");
  return OCC_EXIT_OK;
}

/* Two options that say the same thing two ways, or outputs that exclude
 * each other. */
static int check_pairs(const occ_cli *cli, FILE *err) {
  int devices = occ_cli_given(cli, OCC_OPT_GPU) + occ_cli_given(cli, OCC_OPT_ARCH) +
                occ_cli_given(cli, OCC_OPT_CC);
  if (devices > 1)
    return occ_cli_usage_error(err, "--gpu, --arch and --cc: give at most one of them");
  bool rows_csv = cli->mode == OCC_MODE_RUN || cli->mode == OCC_MODE_REPORT;
  if (cli->json + cli->jsonl + (rows_csv && cli->csv) > 1)
    return occ_cli_usage_error(err, "--json, --jsonl and --csv: give at most one of them");
  bool run_svg = cli->mode == OCC_MODE_RUN && cli->svg_path;
  if (run_svg && strcmp(cli->svg_path, "-") == 0)
    return occ_cli_usage_error(err, "--svg: run writes its timeline to a "
                               "file, not '-' (accepted: a file name)");
  if (cli->csv && cli->svg_path && !run_svg)
    return occ_cli_usage_error(err, "--csv and --svg: give one of them");
  int rc = check_exclusions(cli, err);
  if (rc != OCC_EXIT_OK) return rc;
  if (cli->mode == OCC_MODE_PTXAS && cli->module && cli->ptxas_path)
    return occ_cli_usage_error(err, "--module and --ptxas: give one of them (a "
                               "binary or a compiler report)");
  bool svg_stdout = cli->svg_path && strcmp(cli->svg_path, "-") == 0;
  bool many = cli->mode == OCC_MODE_PTXAS ||
              (occ_cli_given(cli, OCC_OPT_DEVICE) && cli->device.all);
  if (svg_stdout && many)
    return occ_cli_usage_error(err, "--svg: %s writes a chart per kernel "
                               "configuration; give a directory, not '-'",
                               cli->mode == OCC_MODE_PTXAS ? "--ptxas"
                                                           : "--device all");
  occ_target_query query = occ_cli_target_query(cli);
  occ_target_by by = occ_target_query_by(&query);
  bool board = by == OCC_TARGET_BY_GPU || by == OCC_TARGET_BY_ENV;
  if (cli->mode == OCC_MODE_PTXAS && cli->grid && !board && !cli->sms)
    return occ_cli_usage_error(err, "--grid: with --ptxas give --gpu NAME, "
                               "set OCCCALC_GPU or give --sms N (a report's "
                               "targets are architectures, which have no SM count)");
  if (cli->mode == OCC_MODE_SWEEP && occ_cli_given(cli, OCC_OPT_DEVICE) &&
      cli->device.all)
    return occ_cli_usage_error(err, "verify: --device takes one device (accepted: "
                               "an ordinal, e.g. 0)");
  return OCC_EXIT_OK;
}

/* Options that refine another. */
static int check_refinements(occ_cli *cli, FILE *err) {
  bool any_chart = cli->charts || cli->csv || cli->svg_path;
  if (cli->chart_step && !any_chart)
    return occ_cli_usage_error(err, "--step: needs --chart, --csv or --svg "
                                    "(it sets the block chart's step)");
  if (cli->ascii && (!cli->charts || cli->csv || cli->svg_path || cli->json ||
                     cli->jsonl))
    return occ_cli_usage_error(err, "--ascii: needs --chart drawn on the "
                                    "terminal (not --json, --jsonl, --csv or --svg)");
  /* --csv and --svg draw every chart unless --chart names some; --ptxas
   * --csv without --chart is the table instead. */
  bool ptxas_table = cli->csv && cli->mode == OCC_MODE_PTXAS;
  if ((cli->csv || cli->svg_path) && !cli->charts && !ptxas_table &&
      cli->mode != OCC_MODE_RUN)
    cli->charts = (1u << OCC_CHART_KIND_COUNT) - 1;
  if (cli->block_rule_count && cli->mode != OCC_MODE_PTXAS)
    return occ_cli_usage_error(err, "--block %s=...: a block per kernel name "
                               "applies to --ptxas (give --block N)",
                               cli->block_rules[0].glob);
  if (cli->max_threads && occ_cli_given(cli, OCC_OPT_BLOCK) &&
      !occ_cli_block_best(cli) && !cli->suggest)
    return occ_cli_usage_error(err, "--max-threads: needs --block best, --suggest "
                                    "or --ptxas without --block (it limits the "
                                    "block sizes tried)");
  if (occ_cli_given(cli, OCC_OPT_GRID)) {
    /* CUDA's limits: x up to 2^31 - 1 (the parser's), y and z 65535. */
    if (cli->grid_shape.dim[1] > 65535 || cli->grid_shape.dim[2] > 65535)
      return occ_cli_usage_error(err, "--grid: '%s': y and z must be 1 to 65535 "
                                 "(accepted: X[xY[xZ]], x up to 2147483647)",
                                 cli->grid_shape.text);
  }
  bool cluster = occ_cli_given(cli, OCC_OPT_CLUSTER);
  if (cli->non_portable && !cluster)
    return occ_cli_usage_error(err, "--non-portable: needs --cluster (it "
                                    "allows clusters of 9 to 16 blocks)");
  if (!cluster) return OCC_EXIT_OK;
  memcpy(cli->cluster_shape.dim, cli->cluster.dim, sizeof cli->cluster.dim);
  cli->cluster_shape.non_portable = cli->non_portable;
  char why[256];
  if (occ_cluster_shape_check(&cli->cluster_shape, cli->cluster.text, why,
                              sizeof why) != 0)
    return occ_cli_usage_error(err, "--cluster: %s", why);
  return OCC_EXIT_OK;
}

static void set_defaults(occ_cli *cli) {
  memset(cli, 0, sizeof *cli);
  cli->barriers = 1;
  cli->carveout = OCC_CARVEOUT_DEFAULT;
  cli->seed = 1;
  cli->sgprs = -1; /* OCC_AMD_SGPRS_UNKNOWN */
  cli->cache_control = OCC_CACHE_CONTROL_NONE;
  /* A shape not given is one of each. */
  cli->block = cli->cluster = (occ_shape){{1, 1, 1}, 1, NULL, false};
}

/* A long option getopt_long refused: an abbreviation of several options
 * (getopt_long takes a unique prefix, and an exact name over a longer one)
 * is named with its candidates, anything else is unknown. */
static int refuse_option(const char *arg, FILE *err) {
  size_t len = strncmp(arg, "--", 2) == 0 ? strcspn(arg + 2, "=") : 0;
  if (len == 0) return occ_cli_usage_error(err, "%s: unknown option", arg);
  /* Room for every option's name: the table has at most 64 rows. */
  char candidates[64 * 24] = "";
  size_t n = 0;
  int count = 0;
  const occ_option *exact = NULL, *unique = NULL;
  for (int i = 0; i < OPTION_COUNT; i++) {
    if (strncmp(options[i].name, arg + 2, len) != 0) continue;
    if (strlen(options[i].name) == len) exact = &options[i];
    unique = &options[i];
    count++;
    int wrote = snprintf(candidates + n, sizeof candidates - n, "%s--%s",
                         n ? ", " : "", options[i].name);
    if (wrote < 0 || (size_t)wrote >= sizeof candidates - n) break;
    n += (size_t)wrote;
  }
  /* A flag given a value ("--json=1"): the name alone, or the one option
   * it abbreviates, is known; only the value is wrong. */
  const occ_option *named = exact ? exact : count == 1 ? unique : NULL;
  if (named && !named->arg && arg[2 + len] == '=')
    return occ_cli_usage_error(err, "%s: --%s takes no value", arg, named->name);
  if (count < 2 || exact) return occ_cli_usage_error(err, "%s: unknown option", arg);
  return occ_cli_usage_error(err, "--%.*s: ambiguous option (could be %s)",
                             (int)len, arg + 2, candidates);
}

static int read_options(int argc, char **argv, bool run, occ_cli *cli,
                        FILE *err) {
  struct option longopts[OPTION_COUNT + 1];
  for (int i = 0; i < OPTION_COUNT; i++)
    longopts[i] = (struct option){options[i].name,
                                  options[i].arg ? required_argument : no_argument,
                                  NULL, 256 + i};
  longopts[OPTION_COUNT] = (struct option){NULL, 0, NULL, 0};
  opterr = 0;
  optind = 0; /* glibc: a full restart, a cluster cut short by an error included */
  for (;;) {
    int prev = optind > 0 ? optind : 1; /* 0 until the first call */
    /* run: the options end at "--" or at the program's name. */
    int id = getopt_long(argc, argv, run ? "+:hV" : ":hV", longopts, NULL);
    if (id == -1) break;
    if (id == 'h' || id == 'V') id = 256 + (id == 'h' ? OCC_OPT_HELP : OCC_OPT_VERSION);
    if (id == ':' && optopt >= 256)
      return occ_cli_usage_error(err, "%s: missing value; expected %s, %s", argv[prev],
                                 options[optopt - 256].arg, options[optopt - 256].help);
    if (id == '?' || id == ':') return refuse_option(argv[prev], err);
    const occ_option *o = &options[id - 256];
    char why[256];
    int applied = apply_option(cli, o, optarg, why, sizeof why);
    if (applied < 0)
      return occ_cli_usage_error(err, "--%s: %s", o->name, why);
    /* 1: a value beside the option's own (--block NAME_GLOB=N). */
    if (applied == 0) cli->given |= UINT64_C(1) << (id - 256);
  }
  if (run) {
    cli->run_argv = argv + optind;
    return OCC_EXIT_OK;
  }
  /* report: the operands left after getopt_long's permutation. */
  if (cli->report_command) {
    cli->report_files = argv + optind;
    return OCC_EXIT_OK;
  }
  if (optind < argc)
    return occ_cli_usage_error(err, "%s: unexpected argument (options start with --)",
                               argv[optind]);
  return OCC_EXIT_OK;
}

/* --device with an AMD target: occcalc verifies through CUDA, and no AMD
 * GPU (nor ROCm) is within its reach. A device error, not a usage one. */
static int check_amd_device(const occ_cli *cli, FILE *err) {
  if (!occ_cli_given(cli, OCC_OPT_DEVICE) ||
      (!occ_cli_arch_is_amd(cli) && !occ_cli_vendor_given(cli, OCC_VENDOR_AMD, NULL)))
    return OCC_EXIT_OK;
  occ_msg(err, "--device: no AMD GPU can be verified here (occcalc checks "
               "NVIDIA GPUs through CUDA; drop --device for LLVM's and HIP's rules)");
  return OCC_EXIT_DEVICE;
}

int occ_cli_parse(int argc, char **argv, occ_cli *cli, FILE *err) {
  set_defaults(cli);
  /* The subcommands, "verify", "run" and "report", take the options after
   * them. */
  bool run = argc > 1 && strcmp(argv[1], "run") == 0;
  bool report = argc > 1 && strcmp(argv[1], "report") == 0;
  if (argc > 1 && (run || report || strcmp(argv[1], "verify") == 0)) {
    cli->verify_command = !run && !report;
    cli->report_command = report;
    argc--;
    argv++;
  }
  int rc = read_options(argc, argv, run, cli, err);
  if (rc != OCC_EXIT_OK || cli->help || cli->version) return rc;
  /* The grid's blocks, which the checks below and every source read. */
  if (occ_cli_given(cli, OCC_OPT_GRID)) cli->grid = cli->grid_shape.product;
  cli->mode = choose_mode(cli);
  if ((rc = check_amd_device(cli, err)) != OCC_EXIT_OK) return rc;
  if ((rc = check_modes(cli, err)) != OCC_EXIT_OK) return rc;
  if ((rc = check_required(cli, err)) != OCC_EXIT_OK) return rc;
  if ((rc = check_pairs(cli, err)) != OCC_EXIT_OK) return rc;
  return check_refinements(cli, err);
}

void occ_cli_print_help(FILE *out) {
  fputs("Usage: occcalc --regs N --block X[xY[xZ]] [--smem BYTES] [options]\n"
        "       occcalc --ptxas FILE|- [--block N] [--min-occupancy PCT] [options]\n"
        "       occcalc --regs N --block B --device N|all [--counter] [options]\n"
        "       occcalc --block B --device N --module FILE --kernel NAME [options]\n"
        "       occcalc verify --sweep N [--seed S] [--device N] [--json]\n"
        "       occcalc --gpu mi300x|--arch gfxNNN --vgprs N --block B [options]\n"
        "       occcalc --list-gpus [--json]\n"
        "       occcalc run [--json|--jsonl|--csv] [options] -- PROGRAM [ARGS...]\n"
        "       occcalc report [--json|--csv] FILE...  (run --json reports merged)\n"
        "\n"
        "How many warps of a CUDA kernel fit on one SM, what limits it, and the\n"
        "occupancy, by NVIDIA's rules, for any GPU in the built-in database; on\n"
        "AMD GPUs, wavefronts per SIMD by LLVM's rule and blocks per CU by HIP's.\n"
        "Every output option (--json, --jsonl, --explain, --chart, --svg, --csv,\n"
        "--suggest, --grid, --min-occupancy) applies to every kernel source.\n"
        "\n"
        "Options:\n", out);
  for (const occ_option *o = options; o->name; o++) {
    char left[40];
    snprintf(left, sizeof left, "--%s%s%s", o->name, o->arg ? " " : "",
             o->arg ? o->arg : "");
    /* A name too long for the column gets a line of its own. */
    if (strlen(left) > 22)
      fprintf(out, "  %s\n  %-22s %s\n", left, "", o->help);
    else
      fprintf(out, "  %-22s %s\n", left, o->help);
  }
  fputs("\n"
        "Without --gpu, --arch or --cc the device is $OCCCALC_GPU, else the\n"
        "built-in default (H100 SXM). Sizes are bytes; K and KiB mean 1024.\n"
        "An option may be shortened to a prefix that names it alone (--reg).\n"
        "Exit status: 0 ok, 1 output error, 2 usage error, 3 occupancy gate,\n"
        "4 verification disagrees, 5 CUDA or device error. See occcalc(1).\n",
        out);
}
