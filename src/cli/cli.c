/* cli.c - option table, strict number parsing, --help. */
#include "cli/cli.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli/explore.h"
#include "out/report.h"

enum {
  OPT_REGS = 256, OPT_SMEM, OPT_DYN_SMEM, OPT_BLOCK, OPT_BARRIERS,
  OPT_CARVEOUT, OPT_GRID, OPT_SMS, OPT_GPU, OPT_ARCH, OPT_CC, OPT_DATA,
  OPT_DEVICE, OPT_NO_VERIFY, OPT_COUNTER, OPT_MODULE, OPT_KERNEL, OPT_SWEEP,
  OPT_SEED, OPT_JSON, OPT_EXPLAIN, OPT_LIST_GPUS, OPT_HELP, OPT_VERSION,
  OPT_PTXAS, OPT_JSONL, OPT_MIN_OCCUPANCY,
  OPT_CHART, OPT_STEP, OPT_ASCII, OPT_SVG, OPT_CSV, OPT_SUGGEST
};

static const occ_option options[] = {
    {"regs", "N", OPT_REGS, "registers per thread, 0 to 255 (ptxas -v prints it)"},
    {"smem", "BYTES", OPT_SMEM, "static shared memory per block (default 0)"},
    {"dyn-smem", "BYTES", OPT_DYN_SMEM, "dynamic shared memory per block (default 0)"},
    {"block", "X[xY[xZ]]", OPT_BLOCK, "threads per block, e.g. 128 or 40x2"},
    {"barriers", "N", OPT_BARRIERS, "barriers the kernel uses, 0 to 16 (default 1)"},
    {"carveout", "PCT", OPT_CARVEOUT, "shared-memory carveout preference, 0 to 100 percent"},
    {"grid", "BLOCKS", OPT_GRID, "blocks in the grid: also report waves"},
    {"sms", "N", OPT_SMS, "number of SMs (overrides the device's, for --grid)"},
    {"gpu", "NAME", OPT_GPU, "a board from the database, e.g. 'H100 SXM', gtx970"},
    {"arch", "sm_XY", OPT_ARCH, "the generic device of an architecture, e.g. sm_90"},
    {"cc", "X.Y", OPT_CC, "the generic device of a compute capability, e.g. 9.0"},
    {"data", "FILE", OPT_DATA, "read the GPU database from FILE instead"},
    {"device", "N|all", OPT_DEVICE, "check against a live GPU (needs a GPU)"},
    {"no-verify", NULL, OPT_NO_VERIFY, "with --device: read the GPU and compute only"},
    {"counter", NULL, OPT_COUNTER, "with --device: also read the hardware counter (CUPTI)"},
    {"module", "FILE", OPT_MODULE, "with --device: a kernel's cubin, fatbin or PTX file"},
    {"kernel", "NAME", OPT_KERNEL, "with --module: the kernel; with --ptxas: a name filter"},
    {"sweep", "N", OPT_SWEEP, "verify: check N random configurations on the GPU"},
    {"seed", "S", OPT_SEED, "verify --sweep: the random seed (default 1)"},
    {"ptxas", "FILE", OPT_PTXAS, "every kernel of ptxas -v or cuobjdump -res-usage output"},
    {"min-occupancy", "PCT", OPT_MIN_OCCUPANCY, "exit 3 if a kernel's occupancy is below PCT"},
    {"json", NULL, OPT_JSON, "write JSON (schema 1) instead of the report"},
    {"jsonl", NULL, OPT_JSONL, "with --ptxas: one JSON object per line, as read"},
    {"explain", NULL, OPT_EXPLAIN, "explain the calculation step by step"},
    {"chart", "KIND", OPT_CHART, "chart occupancy by block, regs, smem or all"},
    {"step", "N", OPT_STEP, "the block chart's step in threads (default 32)"},
    {"ascii", NULL, OPT_ASCII, "draw charts in plain ASCII"},
    {"svg", "FILE", OPT_SVG, "write the charts as SVG to FILE ('-': stdout)"},
    {"csv", NULL, OPT_CSV, "write the charts' points as CSV instead"},
    {"suggest", NULL, OPT_SUGGEST, "what to change: block sizes, registers, carveout"},
    {"list-gpus", NULL, OPT_LIST_GPUS, "list the boards and architectures known"},
    {"help", NULL, OPT_HELP, "show this help and exit"},
    {"version", NULL, OPT_VERSION, "show the version and exit"},
    {NULL, NULL, 0, NULL},
};

const occ_option *occ_cli_options(void) { return options; }

static const occ_option *find_option(int id) {
  for (const occ_option *o = options; o->name; o++)
    if (o->id == id) return o;
  return NULL;
}

int occ_cli_usage_error(FILE *err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("occcalc: ", err);
  vfprintf(err, fmt, ap);
  va_end(ap);
  fputs("\nocccalc: try 'occcalc --help'\n", err);
  return OCC_EXIT_USAGE;
}

int occ_parse_int(const char *text, int64_t min, int64_t max, int64_t *value,
                  char *why, size_t why_size) {
  const char *p = text;
  while (isspace((unsigned char)*p)) p++;
  if (*p == '-' && isdigit((unsigned char)p[1])) {
    snprintf(why, why_size, "'%s' is negative (accepted: %" PRId64 " to %" PRId64 ")",
             text, min, max);
    return -1;
  }
  if (!isdigit((unsigned char)*p)) {
    snprintf(why, why_size, "'%s' is not a number (accepted: %" PRId64 " to %" PRId64 ")",
             text, min, max);
    return -1;
  }
  char *end;
  errno = 0;
  unsigned long long v = strtoull(p, &end, 10);
  if (*end != '\0') {
    snprintf(why, why_size, "'%s' is not a number (accepted: %" PRId64 " to %" PRId64 ")",
             text, min, max);
    return -1;
  }
  if (errno == ERANGE || v > (unsigned long long)max || (int64_t)v < min) {
    snprintf(why, why_size, "'%s' is out of range (accepted: %" PRId64 " to %" PRId64 ")",
             text, min, max);
    return -1;
  }
  *value = (int64_t)v;
  return 0;
}

int occ_parse_bytes(const char *text, int64_t max, int64_t *value, char *why,
                    size_t why_size) {
  static const struct { const char *suffix; int64_t scale; } units[] = {
      {"", 1}, {"K", 1024}, {"KB", 1024}, {"KiB", 1024},
      {"k", 1024}, {"M", 1 << 20}, {"MB", 1 << 20}, {"MiB", 1 << 20}};
  char digits[32];
  size_t n = 0;
  while (text[n] && (isdigit((unsigned char)text[n]) || text[n] == '-') &&
         n + 1 < sizeof digits)
    n++;
  memcpy(digits, text, n);
  digits[n] = '\0';
  const char *suffix = text + n;
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
    if (strcmp(suffix, units[i].suffix) != 0) continue;
    int64_t v;
    char inner[128];
    if (occ_parse_int(n ? digits : text, 0, max / units[i].scale, &v, inner,
                      sizeof inner) != 0) {
      snprintf(why, why_size,
               "'%s' is %s (accepted: 0 to %" PRId64 " bytes; suffixes K, KiB, M, MiB)",
               text, strstr(inner, "negative") ? "negative"
                     : strstr(inner, "range") ? "out of range" : "not a size",
               max);
      return -1;
    }
    *value = v * units[i].scale;
    return 0;
  }
  snprintf(why, why_size,
           "'%s' has an unknown size suffix (accepted: none, K, KB, KiB, M, MB, MiB)",
           text);
  return -1;
}

int occ_parse_pct(const char *text, double *value, char *why,
                  size_t why_size) {
  /* Digits with an optional fraction: strtod alone would also take
   * "1e2", "inf", "0x10" and leading spaces. */
  const char *p = text;
  while (isdigit((unsigned char)*p)) p++;
  if (p > text && *p == '.' && isdigit((unsigned char)p[1]))
    for (p++; isdigit((unsigned char)*p); p++) {}
  char *end;
  errno = 0;
  double v = p > text && *p == '\0' ? strtod(text, &end) : -1;
  if (v < 0 || v > 100 || errno == ERANGE) {
    snprintf(why, why_size, "'%s' is not a percentage (accepted: 0 to 100, e.g. 50 or 62.5)",
             text);
    return -1;
  }
  *value = v;
  return 0;
}

int occ_parse_block(const char *text, const occ_device *device, int block[3],
                    char *why, size_t why_size) {
  static const char axes[] = "xyz";
  char copy[64];
  if (snprintf(copy, sizeof copy, "%s", text) >= (int)sizeof copy) {
    snprintf(why, why_size, "'%.20s...' is too long (accepted: N, XxY or XxYxZ)", text);
    return -1;
  }
  block[0] = block[1] = block[2] = 1;
  int dims = 0;
  char *save = NULL;
  for (char *part = strtok_r(copy, "x", &save); part;
       part = strtok_r(NULL, "x", &save)) {
    int64_t v;
    char inner[128];
    if (dims == 3 || occ_parse_int(part, 1, device->max_block_dim[dims], &v,
                                   inner, sizeof inner) != 0) {
      if (dims == 3)
        snprintf(why, why_size, "'%s' has more than 3 dimensions (accepted: N, XxY or XxYxZ)", text);
      else
        snprintf(why, why_size,
                 "'%s': %c must be 1 to %d (accepted: N, XxY or XxYxZ with "
                 "x <= %d, y <= %d, z <= %d, at most %d threads)",
                 text, axes[dims], device->max_block_dim[dims],
                 device->max_block_dim[0], device->max_block_dim[1],
                 device->max_block_dim[2], device->max_threads_per_block);
      return -1;
    }
    block[dims++] = (int)v;
  }
  size_t len = strlen(text);
  if (dims == 0 || text[0] == 'x' || (len && text[len - 1] == 'x') ||
      strstr(text, "xx")) {
    snprintf(why, why_size, "'%s' is not a block shape (accepted: N, XxY or XxYxZ)", text);
    return -1;
  }
  int64_t threads = (int64_t)block[0] * block[1] * block[2];
  if (threads > device->max_threads_per_block) {
    snprintf(why, why_size,
             "'%s' is %" PRId64 " threads (accepted: 1 to %d threads per block)",
             text, threads, device->max_threads_per_block);
    return -1;
  }
  return 0;
}

void occ_cli_print_help(FILE *out) {
  fputs("Usage: occcalc --regs N --block X[xY[xZ]] [--smem BYTES] [options]\n"
        "       occcalc --ptxas FILE|- [--block N] [--min-occupancy PCT] [options]\n"
        "       occcalc --list-gpus [--json]\n"
        "       occcalc --regs N --block B --device N|all [--counter] [--json]\n"
        "       occcalc --block B --device N --module FILE --kernel NAME\n"
        "       occcalc verify --sweep N [--seed S] [--device N] [--json]\n"
        "\n"
        "How many warps of a CUDA kernel fit on one SM, what limits it, and the\n"
        "occupancy, by NVIDIA's rules, for any GPU in the built-in database.\n"
        "\n"
        "Options:\n", out);
  for (const occ_option *o = options; o->name; o++) {
    char left[40];
    snprintf(left, sizeof left, "--%s%s%s", o->name, o->arg ? " " : "",
             o->arg ? o->arg : "");
    fprintf(out, "  %-22s %s\n", left, o->help);
  }
  fputs("\n"
        "Without --gpu, --arch or --cc the device is $OCCCALC_GPU, else the\n"
        "built-in default (H100 SXM). Sizes are bytes; K and KiB mean 1024.\n"
        "Exit status: 0 ok, 1 output error, 2 usage error, 3 occupancy gate,\n"
        "4 verification disagrees, 5 CUDA or device error. See occcalc(1).\n",
        out);
}

static int option_error(FILE *err, int id, const char *why) {
  const occ_option *o = find_option(id);
  return occ_cli_usage_error(err, "--%s: %s", o ? o->name : "?", why);
}

/* Applies one parsed option to cli. */
static int apply_option(occ_cli *cli, int id, const char *arg, FILE *err) {
  char why[256];
  int64_t v = 0;
  int rc = 0;
  switch (id) {
  case OPT_REGS:
    rc = occ_parse_int(arg, 0, 255, &v, why, sizeof why);
    cli->kernel.regs_per_thread = (int)v;
    cli->regs_given = true;
    break;
  case OPT_SMEM:
    rc = occ_parse_bytes(arg, 1 << 30, &v, why, sizeof why);
    cli->kernel.smem_static_bytes = v;
    break;
  case OPT_DYN_SMEM:
    rc = occ_parse_bytes(arg, 1 << 30, &v, why, sizeof why);
    cli->kernel.smem_dynamic_bytes = v;
    break;
  case OPT_BLOCK: cli->block_text = arg; cli->block_given = true; break;
  case OPT_BARRIERS:
    rc = occ_parse_int(arg, 0, 16, &v, why, sizeof why);
    cli->kernel.barriers = (int)v;
    break;
  case OPT_CARVEOUT:
    rc = occ_parse_int(arg, 0, 100, &v, why, sizeof why);
    cli->kernel.carveout_pct = (int)v;
    break;
  case OPT_GRID:
    rc = occ_parse_int(arg, 1, INT32_MAX, &v, why, sizeof why);
    cli->grid_blocks = v;
    break;
  case OPT_SMS:
    rc = occ_parse_int(arg, 1, 100000, &v, why, sizeof why);
    cli->sm_count = (int)v;
    break;
  case OPT_GPU: cli->gpu = arg; break;
  case OPT_ARCH: case OPT_CC: cli->arch = arg; break;
  case OPT_DATA: cli->data_path = arg; break;
  case OPT_DEVICE: cli->device = arg; break;
  case OPT_NO_VERIFY: cli->no_verify = true; break;
  case OPT_COUNTER: cli->counter = true; break;
  case OPT_MODULE: cli->module = arg; break;
  case OPT_KERNEL: cli->kernel_name = arg; break;
  case OPT_SWEEP:
    rc = occ_parse_int(arg, 1, 1000000, &v, why, sizeof why);
    cli->sweep = (int)v;
    break;
  case OPT_SEED:
    rc = occ_parse_int(arg, 0, INT64_MAX, &v, why, sizeof why);
    cli->seed = (uint64_t)v;
    cli->seed_given = true;
    break;
  case OPT_JSON: cli->json = true; break;
  case OPT_EXPLAIN: cli->explain = true; break;
  case OPT_LIST_GPUS: cli->list_gpus = true; break;
  case OPT_PTXAS: cli->ptxas_path = arg; break;
  case OPT_JSONL: cli->jsonl = true; break;
  case OPT_MIN_OCCUPANCY:
    rc = occ_parse_pct(arg, &cli->min_occupancy_pct, why, sizeof why);
    cli->min_occupancy_given = true;
    break;
  case OPT_HELP: cli->help = true; break;
  case OPT_VERSION: cli->version = true; break;
  case OPT_CHART: rc = occ_parse_charts(arg, &cli->charts, why, sizeof why); break;
  case OPT_STEP:
    /* 1024 threads is every architecture's block limit; a database
     * device's own is checked once it is known. */
    rc = occ_parse_int(arg, 1, 1024, &v, why, sizeof why);
    cli->chart_step = (int)v;
    break;
  case OPT_ASCII: cli->ascii = true; break;
  case OPT_SVG: cli->svg_path = arg; break;
  case OPT_CSV: cli->csv = true; break;
  case OPT_SUGGEST: cli->suggest = true; break;
  }
  return rc == 0 ? OCC_EXIT_OK : option_error(err, id, why);
}

/* The live verifier's options only make sense together. */
static int check_verifier_options(const occ_cli *cli, int device_options,
                                  FILE *err) {
  if (cli->verify_command && !cli->sweep)
    return occ_cli_usage_error(err, "verify: --sweep N is required");
  if (!cli->verify_command && (cli->sweep || cli->seed_given))
    return occ_cli_usage_error(err, "--sweep and --seed: only with 'occcalc verify'");
  if ((cli->device || cli->verify_command) && device_options)
    return occ_cli_usage_error(err, "--device: the device is the live GPU; "
                               "drop --gpu, --arch or --cc");
  if (!cli->device && !cli->verify_command &&
      (cli->no_verify || cli->counter || cli->module))
    return occ_cli_usage_error(err, "%s: only with --device N",
                               cli->module ? "--module"
                               : cli->counter ? "--counter" : "--no-verify");
  if (cli->module && !cli->kernel_name)
    return occ_cli_usage_error(err, "--module: --kernel NAME is required");
  if (cli->kernel_name && !cli->module && !cli->ptxas_path)
    return occ_cli_usage_error(err, "--kernel: needs --module FILE or --ptxas FILE");
  return OCC_EXIT_OK;
}

int occ_cli_parse(int argc, char **argv, occ_cli *cli, FILE *err) {
  memset(cli, 0, sizeof *cli);
  occ_kernel_init(&cli->kernel);
  cli->seed = 1;
  /* The one subcommand: "verify" takes the options after it. */
  if (argc > 1 && strcmp(argv[1], "verify") == 0) {
    cli->verify_command = true;
    argc--;
    argv++;
  }
  struct option longopts[sizeof options / sizeof options[0]];
  size_t n = 0;
  for (const occ_option *o = options; o->name; o++, n++)
    longopts[n] = (struct option){o->name, o->arg ? required_argument : no_argument,
                                  NULL, o->id};
  longopts[n] = (struct option){NULL, 0, NULL, 0};

  int device_options = 0;
  opterr = 0;
  optind = 1;
  for (;;) {
    int prev = optind;
    int id = getopt_long(argc, argv, ":hV", longopts, NULL);
    if (id == 'h') id = OPT_HELP;
    if (id == 'V') id = OPT_VERSION;
    if (id == -1) break;
    if (id == ':')
      return occ_cli_usage_error(err, "%s: missing value; expected %s, %s", argv[prev],
                                 find_option(optopt) ? find_option(optopt)->arg : "a value",
                                 find_option(optopt) ? find_option(optopt)->help : "");
    if (id == '?')
      return occ_cli_usage_error(err, "%s: unknown option", argv[prev]);
    device_options += id == OPT_GPU || id == OPT_ARCH || id == OPT_CC;
    int rc = apply_option(cli, id, optarg, err);
    if (rc != OCC_EXIT_OK) return rc;
  }
  if (optind < argc)
    return occ_cli_usage_error(err, "%s: unexpected argument (options start with --)",
                               argv[optind]);
  if (device_options > 1)
    return occ_cli_usage_error(err, "--gpu, --arch and --cc: give at most one of them");
  int rc = check_verifier_options(cli, device_options, err);
  if (rc != OCC_EXIT_OK) return rc;
  if (!cli->ptxas_path && (cli->jsonl || cli->min_occupancy_given))
    return occ_cli_usage_error(err, "%s: needs --ptxas FILE (a ptxas -v or cuobjdump report)",
                               cli->jsonl ? "--jsonl" : "--min-occupancy");
  if (cli->ptxas_path && (cli->device || cli->verify_command || cli->module))
    return occ_cli_usage_error(err, "--ptxas: not with --device, --module or verify");
  if (cli->ptxas_path && (cli->regs_given || cli->kernel.smem_static_bytes || cli->explain ||
                          cli->grid_blocks))
    return occ_cli_usage_error(err, "%s: not with --ptxas (the report gives each kernel's "
                               "registers and shared memory; --ptxas writes a table or JSON)",
                               cli->regs_given ? "--regs" : cli->explain ? "--explain"
                               : cli->grid_blocks ? "--grid" : "--smem");
  if (cli->json && cli->jsonl)
    return occ_cli_usage_error(err, "--json and --jsonl: give at most one of them");
  if (cli->ptxas_path && (cli->charts || cli->csv || cli->svg_path || cli->suggest ||
                          cli->chart_step))
    return occ_cli_usage_error(err, "%s: not with --ptxas (charts and suggestions are for "
                               "one configuration)",
                               cli->suggest ? "--suggest" : cli->csv ? "--csv"
                               : cli->svg_path ? "--svg" : cli->chart_step ? "--step"
                               : "--chart");
  return occ_check_explore_options(cli, err);
}
