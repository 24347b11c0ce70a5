/* cli.h - occcalc's command line. One table of options (cli.c) drives
 * parsing, --help, the man-page check and the rules of which options go
 * together: each row names its value type, its range, where the value
 * goes, the modes (kinds of run) and the vendor's targets it applies to.
 * Adding an option is adding a row (and its occ_opt, a field of occ_cli
 * of its type, and its lines in man/occcalc.1): the parser, --help, the
 * mode and vendor refusals and their tests follow from the row. */
#ifndef OCC_CLI_H
#define OCC_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/exit.h"
#include "core/cluster.h"
#include "core/occ.h"
#include "cli/params.h"
#include "db/select.h"

/* The largest shared-memory size accepted, alone and as a block's sum
 * with the device's reserve: above every SM's shared memory, and the
 * bound of the calculator (kernel_valid in src/core/occ.c). */
#define OCC_MAX_SMEM_BYTES (INT64_C(1) << 30)

/* What a command line runs. Exactly one mode per run; an option that does
 * not apply to the run's mode is a usage error. */
typedef enum occ_mode {
  OCC_MODE_CALC = 1u << 0,   /* typed numbers: --regs, --block, ... */
  OCC_MODE_PTXAS = 1u << 1,  /* every kernel of a compiler report */
  OCC_MODE_DEVICE = 1u << 2, /* typed numbers checked on a live GPU */
  OCC_MODE_MODULE = 1u << 3, /* a module's kernel on a live GPU */
  OCC_MODE_SWEEP = 1u << 4,  /* verify --sweep N */
  OCC_MODE_LIST = 1u << 5,   /* --list-gpus */
  OCC_MODE_RUN = 1u << 6,    /* run [options] -- PROGRAM [ARGS...] */
  OCC_MODE_REPORT = 1u << 7  /* report [--json|--csv] FILE... */
} occ_mode;

#define OCC_MODE_COUNT 8
/* The modes that run kernel configurations through the pipeline. */
#define OCC_MODES_CONFIG \
  (OCC_MODE_CALC | OCC_MODE_PTXAS | OCC_MODE_DEVICE | OCC_MODE_MODULE)
#define OCC_MODES_ALL ((1u << OCC_MODE_COUNT) - 1)

/* The value types; each has one parser in params.c, and the type occ_cli
 * holds it in. */
typedef enum occ_arg_type {
  OCC_ARG_FLAG,    /* no value: sets a bool */
  OCC_ARG_COUNT,   /* an integer in [min, max] into an int64_t */
  OCC_ARG_BYTES,   /* a size with K/KiB/M/MiB, at most max, into int64_t */
  OCC_ARG_SHAPE,   /* N, XxY or XxYxZ, each 1 to max, into an occ_shape */
  OCC_ARG_BLOCK,   /* a shape or "best" (occ_shape.best), into an occ_shape */
  OCC_ARG_PERCENT, /* 0 to 100 with an optional fraction, into a double */
  OCC_ARG_NAME,    /* a name, kept as text */
  OCC_ARG_PATH,    /* a file ("-": standard input or output), as text */
  OCC_ARG_CHARTS,  /* block, regs, smem, all or a comma list, into bits */
  OCC_ARG_COUNT_OR_ALL, /* [min, max] or "all", into an occ_count_or_all */
  OCC_ARG_CHOICE   /* one of the row's choices, into an int (its index) */
} occ_arg_type;

/* Which vendor's targets an option applies to: an option of one vendor
 * given with the other's target is refused, never ignored
 * (occ_cli_refuse_vendor). Every row says, so that a new option cannot be
 * forgotten (tests/cli/test_cli.c walks the table). */
typedef enum occ_vendor {
  OCC_VENDOR_UNSET = 0, /* a row that has not said: a test failure */
  OCC_VENDOR_ANY,       /* both vendors, or no target at all */
  OCC_VENDOR_NVIDIA,
  OCC_VENDOR_AMD
} occ_vendor;

/* The name of a vendor as the messages say it ("NVIDIA", "AMD"). */
const char *occ_vendor_name(occ_vendor vendor);

/* The options, one identifier per row of the table (cli.c), so that a
 * misspelt option is a compile error, not a lookup that silently fails. */
typedef enum occ_opt {
  OCC_OPT_REGS,
  OCC_OPT_SMEM,
  OCC_OPT_DYN_SMEM,
  OCC_OPT_BLOCK,
  OCC_OPT_MAX_THREADS,
  OCC_OPT_DYN_SMEM_PER_THREAD,
  OCC_OPT_BARRIERS,
  OCC_OPT_CARVEOUT,
  OCC_OPT_GRID,
  OCC_OPT_CLUSTER,
  OCC_OPT_NON_PORTABLE,
  OCC_OPT_SMS,
  OCC_OPT_GPU,
  OCC_OPT_ARCH,
  OCC_OPT_CC,
  OCC_OPT_VGPRS,
  OCC_OPT_AGPRS,
  OCC_OPT_SGPRS,
  OCC_OPT_LDS,
  OCC_OPT_WAVE,
  OCC_OPT_CU_MODE,
  OCC_OPT_MAX_BLOCK,
  OCC_OPT_DATA,
  OCC_OPT_DEVICE,
  OCC_OPT_NO_VERIFY,
  OCC_OPT_COUNTER,
  OCC_OPT_MODULE,
  OCC_OPT_KERNEL,
  OCC_OPT_SWEEP,
  OCC_OPT_SEED,
  OCC_OPT_PTXAS,
  OCC_OPT_MIN_OCCUPANCY,
  OCC_OPT_JSON,
  OCC_OPT_JSONL,
  OCC_OPT_EXPLAIN,
  OCC_OPT_CHART,
  OCC_OPT_STEP,
  OCC_OPT_ASCII,
  OCC_OPT_SVG,
  OCC_OPT_CSV,
  OCC_OPT_NCU,
  OCC_OPT_SUGGEST,
  OCC_OPT_METRICS,
  OCC_OPT_COUNTER_LAUNCHES,
  OCC_OPT_NO_COUNTERS,
  OCC_OPT_MEASURE,
  OCC_OPT_SAMPLE_INTERVAL,
  OCC_OPT_TRACE,
  OCC_OPT_CACHE_CONTROL,
  OCC_OPT_OUTPUT,
  OCC_OPT_LIST_GPUS,
  OCC_OPT_HELP,
  OCC_OPT_VERSION,
  OCC_OPT_COUNT
} occ_opt;

/* What an option does beyond its value, for the programs that read the
 * table (tests/fuzz/fuzz_cli.c): it needs a live GPU, or it names a file
 * occcalc reads or writes. */
enum {
  OCC_OPTF_LIVE = 1u << 0,
  OCC_OPTF_FILE = 1u << 1
};

typedef struct occ_option {
  const char *name;  /* long name, without "--" */
  const char *arg;   /* the value's name in --help, NULL for a flag */
  occ_arg_type type;
  int64_t min, max;  /* the accepted range (COUNT; max for BYTES) */
  size_t offset;     /* where the value goes in occ_cli */
  unsigned modes;    /* occ_mode bits this option applies to */
  const char *help;  /* one line for --help */
  unsigned flags;    /* OCC_OPTF_ bits */
  occ_vendor vendor; /* the targets it applies to */
  const char *vendor_why; /* why the other vendor's targets refuse it */
  const char *const *choices; /* OCC_ARG_CHOICE: the words, NULL-ended */
} occ_option;

/* The table, row i the option occ_opt i, ending with a row whose name is
 * NULL. */
const occ_option *occ_cli_options(void);

/* The name of a mode as a user says it ("--ptxas", "verify --sweep"). */
const char *occ_mode_name(occ_mode mode);

/* --cache-control's choices, in the order of the table's words. */
typedef enum occ_cache_control {
  OCC_CACHE_CONTROL_ALL,
  OCC_CACHE_CONTROL_NONE
} occ_cache_control;

/* --measure's choices, in the order of the table's words. */
typedef enum occ_measure_choice {
  OCC_MEASURE_CHOICE_AUTO,
  OCC_MEASURE_CHOICE_SAMPLE,
  OCC_MEASURE_CHOICE_REPLAY,
  OCC_MEASURE_CHOICE_NONE
} occ_measure_choice;

/* --block NAME_GLOB=N: the block of the kernels whose mangled or
 * demangled name the glob (fnmatch) matches. */
#define OCC_BLOCK_RULES_MAX 32
#define OCC_BLOCK_GLOB_MAX 256
typedef struct occ_block_rule {
  char glob[OCC_BLOCK_GLOB_MAX];
  occ_shape shape;           /* a shape, or best */
} occ_block_rule;

/* What the command line asked for, each value parsed once into its type
 * (params.h). Strings point into argv. Numbers are as given; 0 (or NULL)
 * when an option was not given, unless a default is noted; occ_cli_given
 * says whether it was. */
typedef struct occ_cli {
  occ_mode mode;
  uint64_t given;            /* bit i: the option of table row i given */
  /* the kernel */
  int64_t regs, smem, dyn_smem;
  int64_t dyn_smem_per_thread; /* --dyn-smem-per-thread: added per thread */
  int64_t max_threads;       /* --max-threads: 0 when not given */
  int64_t barriers;          /* default 1 */
  int64_t carveout;          /* OCC_CARVEOUT_DEFAULT when not given */
  occ_block_rule block_rules[OCC_BLOCK_RULES_MAX]; /* --block NAME_GLOB=N,
                                in the order given (the first match wins) */
  int block_rule_count;
  occ_shape block;           /* checked against the device once known
                                (occ_block_check) */
  occ_shape grid_shape;      /* --grid X[xY[xZ]] as given */
  int64_t grid;              /* its blocks (x * y * z); 0 when not given */
  int64_t sms;
  /* an AMD kernel (--vgprs ...; LDS is smem and dyn_smem) */
  int64_t vgprs, agprs;
  int64_t sgprs;             /* OCC_AMD_SGPRS_UNKNOWN (-1) when not given */
  int64_t wave;              /* 0: the architecture's default */
  int64_t max_block;         /* 0: the architecture's maximum (HIP's 1024) */
  bool cu_mode;
  occ_shape cluster;         /* --cluster X[xYxZ] as given */
  bool non_portable;         /* --non-portable: sizes 9 to 16 allowed */
  occ_cluster cluster_shape; /* --cluster with --non-portable, checked
                                against every device's rule (dims 0 when
                                not given) */
  /* the device */
  const char *gpu, *arch, *data_path;
  occ_count_or_all device;   /* --device N|all */
  bool no_verify, counter;
  /* sources */
  const char *module, *kernel_name, *ptxas_path;
  bool verify_command, list_gpus;
  int64_t sweep;
  int64_t seed;              /* default 1 */
  /* output */
  bool json, jsonl, explain, ascii, csv, suggest, ncu, help, version;
  double min_occupancy_pct;
  unsigned charts;           /* bit (1 << occ_chart_kind) per --chart */
  int64_t chart_step;
  const char *svg_path;      /* "-" for stdout */
  /* run */
  char **run_argv;           /* PROGRAM ARGS... NULL-terminated (argv's) */
  const char *metrics;       /* --metrics: a comma list */
  occ_count_or_all counter_launches; /* --counter-launches N|all */
  int cache_control;         /* --cache-control: an occ_cache_control
                                (default none) */
  const char *output_path;   /* --output FILE */
  bool no_counters;          /* --measure none's older name */
  int measure;               /* --measure: an occ_measure_choice */
  int64_t sample_interval_us; /* --sample-interval */
  const char *trace_path;    /* --trace FILE */
  /* report */
  bool report_command;
  char **report_files;       /* FILE... NULL-terminated (argv's) */
} occ_cli;

/* True when an option that only vendor's targets take was given; the
 * name of the first in *first when first is not NULL. */
bool occ_cli_vendor_given(const occ_cli *cli, occ_vendor vendor,
                          const char **first);

/* Refuses, in one line (status 2), the first option given that the target
 * (of vendor target_vendor, named target_name in the message) does not
 * take: "--OPTION: not for an AMD target (gfx942): WHY". Returns
 * OCC_EXIT_OK when there is none. */
int occ_cli_refuse_vendor(const occ_cli *cli, occ_vendor target_vendor,
                          const char *target_name, FILE *err);

/* True when --arch names an AMD target ("gfx" followed by anything). */
bool occ_cli_arch_is_amd(const occ_cli *cli);

/* What the command line asks the database for: --data, --gpu, --arch or
 * --cc, and $OCCCALC_GPU (read here, the one place that reads it). The
 * strings are the command line's and the environment's. */
occ_target_query occ_cli_target_query(const occ_cli *cli);

/* True when option was given. */
bool occ_cli_given(const occ_cli *cli, occ_opt option);

/* True when --block best asks for cudaOccupancyMaxPotentialBlockSize's
 * block. */
bool occ_cli_block_best(const occ_cli *cli);

/* The block --block gives a kernel of these names (readable may be NULL):
 * the first NAME_GLOB=N rule that matches either name, else the plain
 * --block (best included), else NULL (no block known). */
const occ_shape *occ_cli_block_for(const occ_cli *cli, const char *mangled,
                                   const char *readable);

/* The kernel the options describe (block left 1x1x1: it depends on the
 * device, see occ_block_check). */
void occ_cli_kernel(const occ_cli *cli, occ_kernel *kernel);

/* Parses argv into *cli and checks the options against each other and
 * the mode. On a usage error prints the one-line diagnostic and the
 * --help hint to err and returns OCC_EXIT_USAGE; else OCC_EXIT_OK. No file
 * is opened and no device touched. */
int occ_cli_parse(int argc, char **argv, occ_cli *cli, FILE *err);

/* Writes --help. */
void occ_cli_print_help(FILE *out);

/* Reports a usage error: "occcalc: <message>" and the --help hint. Returns
 * OCC_EXIT_USAGE. */
int occ_cli_usage_error(FILE *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
