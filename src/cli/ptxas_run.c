/* ptxas_run.c - occcalc --ptxas (see ptxas_run.h): glue between the
 * report reader (ptxas.c), the calculator (occ.c) and the writers
 * (ptxas_table.c, ptxas_json.c). Kernels are written as they are read, so
 * memory stays bounded whatever the size of the build log. */
#include "cli/ptxas_run.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ptxas/demangle.h"
#include "cli/devselect.h"
#include "out/json_compact.h"
#include "ptxas/ptxas.h"
#include "out/ptxas_out.h"
#include "out/report.h"
#include "out/report_text.h"

/* Distinct targets in one report are few (one per -gencode); past this
 * many the device is looked up again for each kernel. */
#define ARCH_CACHE_SIZE 32

/* Kernels of one log share a handful of (registers, shared memory,
 * barriers) tuples; remembering the best block size of each saves the
 * 32 evaluations per kernel that finding it costs. */
#define CHOICE_CACHE_SIZE 1024

typedef struct arch_entry {
  char arch[OCC_PTXAS_ARCH_MAX];
  bool known;
  occ_device device;
} arch_entry;

typedef struct choice_entry {
  const occ_device *device;
  int regs, barriers;
  int64_t smem;
  occ_block_choice choice;
  bool used;
} choice_entry;

typedef enum { OUT_TABLE, OUT_JSON, OUT_JSONL } out_mode;

typedef struct run {
  const occ_cli *cli;
  const occ_gpudb *db;
  FILE *out, *err;
  out_mode mode;
  bool flush_each;         /* --jsonl into a pipe or terminal */
  int name_width;          /* table: 0 = never cut names */
  occ_demangler demangler;

  bool fixed;              /* --gpu/--arch: one device for every kernel */
  occ_device fixed_device;
  bool default_loaded;     /* for reports that name no target */
  int default_rc;
  occ_device default_device;
  const char *default_note;
  arch_entry archs[ARCH_CACHE_SIZE];
  int arch_count;
  arch_entry scratch;
  choice_entry *choices;

  long selected, written, unknown_arch, rejected, below_gate;
  char first_unknown_arch[OCC_PTXAS_ARCH_MAX];
  char rejected_why[96];
  bool any_chosen_block, any_ties, any_local;
  int rc;                  /* a fatal status that stopped the reading */
} run;

static bool name_matches(const char *pattern, const char *name) {
  if (strpbrk(pattern, "*?["))
    return fnmatch(pattern, name, 0) == 0;
  return strstr(name, pattern) != NULL;
}

/* The device a report with no target is computed on: the default board
 * (or $OCCCALC_GPU), chosen once, with the note the calculator prints. */
static const occ_device *default_device(run *r) {
  if (!r->default_loaded) {
    r->default_loaded = true;
    r->default_rc = occ_select_device(r->db, r->cli, &r->default_device,
                                      &r->default_note, r->err);
  }
  return r->default_rc == OCC_EXIT_OK ? &r->default_device : NULL;
}

static const occ_device *arch_device(run *r, const char *arch) {
  for (int i = 0; i < r->arch_count; i++)
    if (strcmp(r->archs[i].arch, arch) == 0)
      return r->archs[i].known ? &r->archs[i].device : NULL;
  arch_entry *e = r->arch_count < ARCH_CACHE_SIZE ? &r->archs[r->arch_count++]
                                                  : &r->scratch;
  snprintf(e->arch, sizeof e->arch, "%s", arch);
  int major, minor;
  char near[128];
  e->known = occ_parse_cc(arch, &major, &minor) == 0 &&
             occ_gpudb_find_cc(r->db, major, minor, &e->device, near,
                               sizeof near) == 0;
  if (e->known && r->cli->sm_count > 0) e->device.sm_count = r->cli->sm_count;
  return e->known ? &e->device : NULL;
}

static const occ_device *pick_device(run *r, const occ_ptxas_kernel *k) {
  if (r->fixed) return &r->fixed_device;
  if (!k->arch[0]) return default_device(r);
  const occ_device *d = arch_device(r, k->arch);
  if (!d) {
    if (r->unknown_arch++ == 0)
      snprintf(r->first_unknown_arch, sizeof r->first_unknown_arch, "%s",
               k->arch);
  }
  return d;
}

/* The kernel as the calculator takes it: the report's numbers, the
 * command line's dynamic shared memory and carveout. */
static void make_kernel(const run *r, const occ_ptxas_kernel *k,
                        const occ_device *device, occ_kernel *kernel) {
  *kernel = r->cli->kernel;
  kernel->regs_per_thread = k->regs_per_thread;
  kernel->smem_static_bytes = k->smem_static_bytes;
  /* A cubin's cuobjdump report names no target. Built for CC >= 9.0 its
   * SHARED includes the 1 KB reserve the calculator adds (see ptxas.c);
   * the cubin is taken to be built for the device --gpu/--arch names, and
   * left as reported for the default device, which says nothing of it. */
  if (k->source == OCC_PTXAS_FROM_CUOBJDUMP && !k->arch[0] && r->fixed &&
      device->cc_major >= 9 && kernel->smem_static_bytes >= 1024)
    kernel->smem_static_bytes -= 1024;
  if (k->barriers != OCC_PTXAS_UNKNOWN) kernel->barriers = k->barriers;
}

static occ_status best_block(run *r, const occ_device *device,
                             const occ_kernel *kernel, occ_block_choice *out) {
  size_t h = ((size_t)kernel->regs_per_thread * 31u +
              (size_t)kernel->smem_static_bytes * 17u +
              (size_t)kernel->barriers * 7u + (size_t)(uintptr_t)device) %
             CHOICE_CACHE_SIZE;
  choice_entry *e = &r->choices[h];
  if (e->used && e->device == device && e->regs == kernel->regs_per_thread &&
      e->smem == kernel->smem_static_bytes && e->barriers == kernel->barriers) {
    *out = e->choice;
    return OCC_OK;
  }
  occ_status status = occ_best_block_size(device, kernel, out);
  if (status == OCC_OK)
    *e = (choice_entry){device, kernel->regs_per_thread, kernel->barriers,
                        kernel->smem_static_bytes, *out, true};
  return status;
}

static int write_json(run *r, const occ_ptxas_row *row) {
  cJSON *obj = occ_ptxas_json(row);
  char *text = obj && r->mode == OUT_JSON ? cJSON_Print(obj) : NULL;
  if (!obj || (r->mode == OUT_JSON && !text)) {
    cJSON_Delete(obj);
    fprintf(r->err, "occcalc: out of memory writing JSON\n");
    return r->rc = OCC_EXIT_FAILURE;
  }
  if (r->mode == OUT_JSON) {
    fprintf(r->out, "%s%s", r->written == 0 ? "[\n" : ",\n", text);
  } else {
    occ_json_write_compact(r->out, obj);
    putc('\n', r->out);
  }
  free(text);
  cJSON_Delete(obj);
  if (r->flush_each) fflush(r->out);
  return 0;
}

static int write_row(run *r, const occ_ptxas_row *row) {
  if (r->mode != OUT_TABLE) return write_json(r, row);
  if (r->written == 0) {
    /* With --gpu or --arch, ARCH still shows the report's target: say
     * which device every row was computed on. */
    if (r->fixed) {
      char cc[16];
      occ_cc_text(&r->fixed_device, cc, sizeof cc);
      fprintf(r->out, "on %s (cc %s):\n", r->fixed_device.name, cc);
    }
    occ_ptxas_table_header(r->out);
  }
  occ_ptxas_table_row(r->out, row, r->name_width);
  r->any_chosen_block |= row->choice != NULL;
  r->any_ties |= occ_ptxas_limiter_ties(row->report->result);
  r->any_local |= occ_ptxas_uses_local(row->kernel);
  return 0;
}

static void check_gate(run *r, const occ_ptxas_row *row) {
  double pct = row->report->result->occupancy * 100.0;
  if (!r->cli->min_occupancy_given || pct >= r->cli->min_occupancy_pct - 1e-9)
    return;
  r->below_gate++;
  char text[16];
  occ_pct_text(row->report->result->occupancy, text, sizeof text);
  fprintf(r->err, "occcalc: below --min-occupancy %g%%: %s on %s: %s%%\n",
          r->cli->min_occupancy_pct, row->demangled,
          row->kernel->arch[0] ? row->kernel->arch
                               : row->report->device->name,
          text);
}

/* The block: --block for every kernel, else the smallest size reaching
 * the kernel's highest occupancy (a warp when no size can launch, so the
 * result still says why). */
static int choose_block(run *r, const occ_device *device, occ_kernel *kernel,
                        occ_block_choice *choice, bool *chosen) {
  *chosen = !r->cli->block_given;
  if (*chosen) {
    occ_status status = best_block(r, device, kernel, choice);
    if (status != OCC_OK) return (int)status;
    kernel->block[0] = choice->smallest_block_size > 0
                           ? choice->smallest_block_size
                           : device->warp_size;
    kernel->block[1] = kernel->block[2] = 1;
    return 0;
  }
  char why[256];
  if (occ_parse_block(r->cli->block_text, device, kernel->block, why,
                      sizeof why) != 0) {
    occ_cli_usage_error(r->err, "--block: %s", why);
    return r->rc = OCC_EXIT_USAGE;
  }
  return 0;
}

static void note_rejected(run *r, const char *name, occ_status status) {
  if (r->rejected++ == 0)
    snprintf(r->rejected_why, sizeof r->rejected_why, "%.60s: %s", name,
             occ_strerror(status));
}

static int on_kernel(const occ_ptxas_kernel *k, void *ctx) {
  run *r = ctx;
  const char *readable = occ_demangle(&r->demangler, k->name);
  const char *pattern = r->cli->kernel_name;
  if (pattern && !name_matches(pattern, k->name) &&
      !name_matches(pattern, readable))
    return 0;
  r->selected++;
  const occ_device *device = pick_device(r, k);
  if (!device) return r->default_loaded && r->default_rc ? r->rc = r->default_rc : 0;
  occ_kernel kernel;
  make_kernel(r, k, device, &kernel);
  occ_block_choice choice;
  bool chosen;
  int rc = choose_block(r, device, &kernel, &choice, &chosen);
  if (r->rc) return r->rc;
  occ_result result;
  occ_status status = rc ? (occ_status)rc : occ_compute(device, &kernel, &result);
  if (status != OCC_OK) {
    note_rejected(r, readable, status);
    return 0;
  }
  occ_report report = {device, &kernel, k->name, &result, NULL};
  occ_ptxas_row row = {k, readable, &report, chosen ? &choice : NULL};
  check_gate(r, &row);
  if (write_row(r, &row)) return r->rc;
  r->written++;
  return 0;
}

/* Columns to fit kernel names in: the terminal's when writing to one, else
 * $COLUMNS when set, else no limit (a pipe to grep wants whole names). */
static int terminal_width(FILE *out) {
  struct winsize ws;
  if (isatty(fileno(out)) && ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 &&
      ws.ws_col > 0)
    return ws.ws_col;
  const char *env = getenv("COLUMNS");
  long cols = env ? strtol(env, NULL, 10) : 0;
  return cols > 0 && cols < 10000 ? (int)cols : 0;
}

static void setup_output(run *r) {
  r->mode = r->cli->jsonl ? OUT_JSONL : r->cli->json ? OUT_JSON : OUT_TABLE;
  struct stat st;
  r->flush_each = r->mode == OUT_JSONL &&
                  !(fstat(fileno(r->out), &st) == 0 && S_ISREG(st.st_mode));
  int cols = terminal_width(r->out);
  int fixed = occ_ptxas_table_fixed_width();
  r->name_width = cols == 0 ? 0 : cols - fixed > 12 ? cols - fixed : 12;
}

static const char *input_name(const occ_cli *cli) {
  return strcmp(cli->ptxas_path, "-") == 0 ? "standard input" : cli->ptxas_path;
}

static void print_notes(run *r, const occ_ptxas_stats *s) {
  if (s->skipped_lines)
    fprintf(r->err, "occcalc: note: skipped %ld unparsable line%s (the first is line %ld)\n",
            s->skipped_lines, s->skipped_lines == 1 ? "" : "s", s->first_skipped_line);
  if (s->incomplete)
    fprintf(r->err, "occcalc: note: %ld kernel%s announced without a readable resource line\n",
            s->incomplete, s->incomplete == 1 ? "" : "s");
  if (r->unknown_arch)
    fprintf(r->err, "occcalc: note: skipped %ld kernel%s for targets not in the database "
            "(%s; see --list-gpus), give --gpu or --arch to compute them\n",
            r->unknown_arch, r->unknown_arch == 1 ? "" : "s", r->first_unknown_arch);
  if (r->rejected)
    fprintf(r->err, "occcalc: note: skipped %ld kernel%s the calculator rejects (%s)\n",
            r->rejected, r->rejected == 1 ? "" : "s", r->rejected_why);
  if (r->default_note && r->written)
    fprintf(r->err, "occcalc: note: the report names no target; using %s (%s)\n",
            r->default_device.name, r->default_note);
}

/* The status once the whole input is read. */
static int conclude(run *r, const occ_ptxas_stats *s) {
  if (r->mode == OUT_JSON && r->written) fputs("\n]\n", r->out);
  if (r->mode == OUT_TABLE && r->written)
    occ_ptxas_table_footer(r->out, r->any_chosen_block, r->any_ties,
                           r->any_local);
  print_notes(r, s);
  if (s->kernels == 0) {
    fprintf(r->err, "occcalc: %s: no kernel found (expected the output of "
            "nvcc -Xptxas -v or cuobjdump --dump-resource-usage)\n", input_name(r->cli));
    return OCC_EXIT_USAGE;
  }
  if (r->selected == 0) {
    fprintf(r->err, "occcalc: --kernel: no kernel matches '%s' (%ld read)\n",
            r->cli->kernel_name, s->kernels);
    return OCC_EXIT_USAGE;
  }
  if (r->written == 0) {
    fprintf(r->err, "occcalc: %s: no kernel could be computed\n", input_name(r->cli));
    return OCC_EXIT_USAGE;
  }
  if (r->below_gate) {
    fprintf(r->err, "occcalc: %ld kernel%s below --min-occupancy %g%%\n", r->below_gate,
            r->below_gate == 1 ? "" : "s", r->cli->min_occupancy_pct);
    return OCC_EXIT_GATE;
  }
  return OCC_EXIT_OK;
}

static int read_input(run *r, FILE *in) {
  occ_ptxas_parser *parser = occ_ptxas_new(on_kernel, r);
  if (!parser) {
    fprintf(r->err, "occcalc: out of memory\n");
    return OCC_EXIT_FAILURE;
  }
  errno = 0;
  int rc = occ_ptxas_read_file(parser, in);
  if (rc == -1) {
    fprintf(r->err, "occcalc: %s: %s\n", input_name(r->cli),
            strerror(errno ? errno : EIO));
    rc = OCC_EXIT_USAGE;
  } else {
    rc = r->rc ? r->rc : conclude(r, occ_ptxas_get_stats(parser));
  }
  occ_ptxas_free(parser);
  return rc;
}

int occ_ptxas_run(const occ_cli *cli, const occ_gpudb *db, FILE *out, FILE *err) {
  run *r = calloc(1, sizeof *r);
  choice_entry *choices = calloc(CHOICE_CACHE_SIZE, sizeof *choices);
  if (!r || !choices) {
    free(r);
    free(choices);
    fprintf(err, "occcalc: out of memory\n");
    return OCC_EXIT_FAILURE;
  }
  *r = (run){.cli = cli, .db = db, .out = out, .err = err, .choices = choices};
  setup_output(r);
  int rc = OCC_EXIT_OK;
  if (cli->gpu || cli->arch) {
    const char *note;
    r->fixed = true;
    rc = occ_select_device(db, cli, &r->fixed_device, &note, err);
  }
  FILE *in = NULL;
  if (rc == OCC_EXIT_OK) {
    bool is_stdin = strcmp(cli->ptxas_path, "-") == 0;
    in = is_stdin ? stdin : fopen(cli->ptxas_path, "rb");
    if (!in) {
      fprintf(err, "occcalc: %s: %s\n", cli->ptxas_path, strerror(errno));
      rc = OCC_EXIT_USAGE;
    } else {
      rc = read_input(r, in);
      if (!is_stdin) fclose(in);
    }
  }
  occ_demangler_free(&r->demangler);
  free(choices);
  free(r);
  return rc;
}
