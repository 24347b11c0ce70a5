/* cli.h - occcalc's command line: one option table drives parsing, --help
 * and the check that the man page names the same options. */
#ifndef OCC_CLI_H
#define OCC_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/exit.h"
#include "core/occ.h"

typedef struct occ_option {
  const char *name;     /* long name, without "--" */
  const char *arg;      /* argument's name in --help, NULL for a flag */
  int id;               /* value getopt_long returns */
  const char *help;     /* one line for --help */
} occ_option;

/* The table, ending with a row whose name is NULL. */
const occ_option *occ_cli_options(void);

/* What the command line asked for. Strings point into argv. */
typedef struct occ_cli {
  occ_kernel kernel;
  bool regs_given, block_given;
  const char *block_text;  /* checked against the device once it is known */
  const char *gpu;         /* --gpu */
  const char *arch;        /* --arch or --cc, as given */
  const char *data_path;   /* --data */
  const char *device;      /* --device (the live verifier) */
  bool no_verify;          /* --no-verify: read the device, compute only */
  bool counter;            /* --counter: also the hardware counter (CUPTI) */
  const char *module;      /* --module FILE: a cubin, fatbin or PTX file */
  const char *kernel_name; /* --kernel: with --module the kernel to check,
                              with --ptxas a name filter (glob or substring) */
  bool verify_command;     /* "occcalc verify ..." */
  int sweep;               /* verify --sweep N, 0 when not given */
  uint64_t seed;           /* verify --seed S, default 1 */
  bool seed_given;
  int64_t grid_blocks;     /* --grid, 0 when not given */
  int sm_count;            /* --sms, 0 when not given */
  bool json, explain, list_gpus, help, version;
  /* Reading the compiler's reports (ptxas_run.h). */
  const char *ptxas_path;     /* --ptxas FILE, "-" for stdin */
  bool jsonl;                 /* --jsonl */
  bool min_occupancy_given;
  double min_occupancy_pct;   /* --min-occupancy, 0 to 100 */
  /* The explore options (src/explore.c writes what they ask for). */
  unsigned charts;         /* bit (1 << occ_chart_kind) per --chart */
  int chart_step;          /* --step, 0 when not given */
  bool ascii, csv, suggest;
  const char *svg_path;    /* --svg FILE, "-" for stdout */
} occ_cli;

/* Parses argv into *cli. On a usage error prints the one-line diagnostic
 * and the --help hint to err and returns OCC_EXIT_USAGE; else OCC_EXIT_OK. */
int occ_cli_parse(int argc, char **argv, occ_cli *cli, FILE *err);

/* Writes --help. */
void occ_cli_print_help(FILE *out);

/* Reports a usage error: "occcalc: <message>" and the --help hint. Returns
 * OCC_EXIT_USAGE. */
int occ_cli_usage_error(FILE *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Strict converters: the whole text must be the number, within [min, max].
 * On error write a reason naming the accepted range into why and return
 * -1. occ_parse_bytes also takes K, KB, KiB (x1024) and M, MB, MiB
 * (x1048576) suffixes. */
int occ_parse_int(const char *text, int64_t min, int64_t max, int64_t *value,
                  char *why, size_t why_size);
int occ_parse_bytes(const char *text, int64_t max, int64_t *value, char *why,
                    size_t why_size);

/* Parses a percentage, 0 to 100 with an optional fraction ("62.5").
 * Returns 0, or -1 with the reason in why. */
int occ_parse_pct(const char *text, double *value, char *why, size_t why_size);

/* Parses a block shape "N", "XxY" or "XxYxZ" and checks it against the
 * device's limits. Returns 0, or -1 with the reason in why. */
int occ_parse_block(const char *text, const occ_device *device, int block[3],
                    char *why, size_t why_size);


#endif
