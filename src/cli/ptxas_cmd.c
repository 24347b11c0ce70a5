/* ptxas_cmd.c - occcalc --ptxas (see ptxas_cmd.h): a compiler report's
 * kernels as a source of the pipeline (pipeline.h). The input is read as
 * it arrives and pulled line by line (ptxas/lines.h); the first line only
 * one vendor writes (ptxas/log_kind.h) chooses the reader, NVIDIA's
 * (below) or AMD's (remark_run.h), and each kernel is computed and written as soon as its
 * lines are read, so a build piped in shows its rows as it goes and memory
 * stays bounded whatever the size of the log. */
#include "cli/ptxas_cmd.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/devselect.h"
#include "core/cc.h"
#include "cli/kernel_name.h"
#include "cli/pipeline.h"
#include "cli/remark_run.h"
#include "ptxas/binary.h"
#include "ptxas/demangle.h"
#include "ptxas/lines.h"
#include "ptxas/log_kind.h"
#include "ptxas/ptxas.h"
#include "text/text_safe.h"

/* Distinct targets in one report are few (one per -gencode); past this
 * many the device is looked up again for each kernel. */
#define ARCH_CACHE_SIZE 32


typedef struct arch_entry {
  char arch[OCC_PTXAS_ARCH_MAX];
  bool known;
  occ_device device;
} arch_entry;


typedef struct run {
  const occ_cli *cli;
  const occ_gpudb *db;
  FILE *err;
  occ_pipeline pipeline;
  occ_sweep_cache sweeps;  /* the charts' and suggestions' tables, built
                              once per device for every kernel */
  occ_demangler demangler;

  bool fixed;              /* --gpu, --arch/--cc or $OCCCALC_GPU: one device
                              for every kernel */
  occ_device fixed_device;
  const char *fixed_by;    /* the option (or variable) that chose it */
  long mismatched;         /* kernels whose target is not its architecture */
  bool mismatched_more;    /* ... of more than one target */
  char first_mismatch[OCC_PTXAS_ARCH_MAX];
  bool default_loaded;     /* for reports that name no target */
  int default_rc;
  occ_device default_device;
  const char *default_note;
  arch_entry archs[ARCH_CACHE_SIZE];
  int arch_count;
  arch_entry scratch;
  occ_choice_cache *choices; /* the blocks chosen without --block */
  /* With one device for every kernel: each target's per-block reserve,
   * read from the database once per target (reported_reserve). */
  struct {
    char arch[OCC_PTXAS_ARCH_MAX];
    int64_t bytes;
  } reserves[ARCH_CACHE_SIZE];
  int reserve_count;

  long selected, unknown_arch, rejected;
  long over_bounds;        /* kernels given a block past their launch bounds */
  char first_over_bounds[96];
  char first_unknown_arch[OCC_PTXAS_ARCH_MAX];
  char rejected_why[96];
  int rc;                  /* a fatal status that stopped the reading */
  occ_ptxas_parser *parser;
} run;


/* The device a report with no target is computed on: the default board
 * (or $OCCCALC_GPU), chosen once, with the note the calculator prints. */
static const occ_device *default_device(run *r) {
  if (!r->default_loaded) {
    r->default_loaded = true;
    r->default_rc = occ_select_device(r->db, r->cli, &r->default_device,
                                      &r->default_note, r->err);
    if (r->default_rc == OCC_EXIT_OK)
      r->default_rc = occ_pipeline_check(&r->pipeline, &r->default_device);
    r->rc = r->default_rc;
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
  occ_target_query query = {.arch = arch};
  occ_target target;
  e->known = occ_gpudb_resolve(r->db, &query, &target) == OCC_TARGET_FOUND && !target.amd;
  if (!e->known) return NULL;
  e->device = target.device;
  if (r->cli->sms > 0) {
    e->device.sm_count = (int)r->cli->sms;
    e->device.sm_count_source = "--sms";
  }
  r->rc = occ_pipeline_check(&r->pipeline, &e->device);
  return r->rc == OCC_EXIT_OK ? &e->device : NULL;
}

/* A kernel built for another architecture than the one device chosen for
 * all: computed on that device as asked, and counted for the warning. */
static void check_target(run *r, const char *arch) {
  int major, minor;
  if (occ_parse_cc(arch, OCC_CC_NAME, &major, &minor) != 0 ||
      (major == r->fixed_device.cc_major && minor == r->fixed_device.cc_minor))
    return;
  if (r->mismatched++ == 0)
    snprintf(r->first_mismatch, sizeof r->first_mismatch, "%s", arch);
  else if (strcmp(r->first_mismatch, arch) != 0)
    r->mismatched_more = true;
}

static const occ_device *pick_device(run *r, const occ_ptxas_kernel *k) {
  if (r->fixed) {
    if (k->arch[0]) check_target(r, k->arch);
    return &r->fixed_device;
  }
  if (!k->arch[0]) return default_device(r);
  const occ_device *d = arch_device(r, k->arch);
  if (!d && !r->rc) {
    if (r->unknown_arch++ == 0)
      snprintf(r->first_unknown_arch, sizeof r->first_unknown_arch, "%s",
               k->arch);
  }
  return d;
}

/* What cuobjdump's SHARED holds beyond the kernel's own shared memory:
 * the one place the rule is applied (ptxas.h, smem_includes_reserve). A
 * target's SHARED includes its device's reserve (the fallback for a target
 * not in the database); a cubin's report names no target, and is taken to
 * be built for the device --gpu/--arch names (left as reported for the
 * default device, which says nothing of it). */
static int64_t reported_reserve(run *r, const occ_ptxas_kernel *k,
                                const occ_device *device) {
  if (k->source == OCC_PTXAS_FROM_PTXAS) return 0;
  if (!k->arch[0])
    return r->fixed && device->cc_major >= 9 ? device->reserved_smem_per_block_bytes : 0;
  if (!k->smem_includes_reserve) return 0;
  if (!r->fixed) {
    const occ_device *target = arch_device(r, k->arch);
    return target ? target->reserved_smem_per_block_bytes : OCC_PTXAS_RESERVE_FALLBACK_BYTES;
  }
  for (int i = 0; i < r->reserve_count; i++)
    if (strcmp(r->reserves[i].arch, k->arch) == 0) return r->reserves[i].bytes;
  int major, minor;
  char near[128];
  occ_device d;
  int64_t bytes = occ_parse_cc(k->arch, OCC_CC_NAME, &major, &minor) == 0 &&
                          occ_gpudb_find_cc(r->db, major, minor, &d, near, sizeof near) == 0
                      ? d.reserved_smem_per_block_bytes
                      : OCC_PTXAS_RESERVE_FALLBACK_BYTES;
  if (r->reserve_count < ARCH_CACHE_SIZE) {
    snprintf(r->reserves[r->reserve_count].arch, OCC_PTXAS_ARCH_MAX, "%s", k->arch);
    r->reserves[r->reserve_count++].bytes = bytes;
  }
  return bytes;
}

/* The kernel as the calculator takes it: the report's numbers, the
 * command line's dynamic shared memory and carveout. */
static void make_kernel(run *r, const occ_ptxas_kernel *k,
                        const occ_device *device, occ_kernel *kernel) {
  occ_cli_kernel(r->cli, kernel);
  kernel->regs_per_thread = k->regs_per_thread;
  kernel->smem_static_bytes = k->smem_static_bytes;
  int64_t reserve = reported_reserve(r, k, device);
  if (reserve > 0 && kernel->smem_static_bytes >= reserve)
    kernel->smem_static_bytes -= reserve;
  if (k->barriers != OCC_PTXAS_UNKNOWN) kernel->barriers = k->barriers;
  /* launch bounds bound the block the model chooses (--block best) */
  if (k->max_threads_per_block > 0) kernel->max_threads_per_block = k->max_threads_per_block;
}

static void note_rejected(run *r, const char *name, occ_status status) {
  if (r->rejected++ == 0)
    snprintf(r->rejected_why, sizeof r->rejected_why, "%.60s: %s", name,
             occ_strerror(status));
}

/* --svg files are named by the kernel and its target. */
static void label_of(const occ_ptxas_kernel *k, char *label, size_t size) {
  snprintf(label, size, "%.100s%s%s", k->name, k->arch[0] ? "-" : "", k->arch);
}

static int on_kernel(run *r, const occ_ptxas_kernel *k) {
  const char *readable = occ_demangle(&r->demangler, k->name);
  const char *pattern = r->cli->kernel_name;
  if (pattern && !occ_kernel_name_matches(pattern, k->name, readable))
    return 0;
  r->selected++;
  const occ_device *device = pick_device(r, k);
  if (!device) return r->rc;
  char label[128];
  label_of(k, label, sizeof label);
  occ_item item = {.device = device, .name = k->name, .readable = readable,
                   .label = label, .ptxas = k};
  make_kernel(r, k, device, &item.kernel);
  /* The kernel's block: its --block NAME_GLOB=N, else --block; best, or
   * none known, and the model chooses it (run_new set the request's
   * cache): the runtime's for best, else the smallest of the best, a
   * guess the gate does not pass. */
  const occ_shape *block = occ_cli_block_for(r->cli, k->name, readable);
  item.choose_block = !block || block->best;
  item.block_best = block && block->best;
  char why[256];
  if (!item.choose_block &&
      occ_block_check(block, device, item.kernel.block, why, sizeof why) != 0)
    return r->rc = occ_cli_usage_error(r->err, "--block: %s", why);
  /* The calculator computes the block as given; a launch past the
   * kernel's bounds fails (cudaErrorInvalidConfiguration), said once. */
  if (!item.choose_block && k->max_threads_per_block > 0 &&
      occ_block_threads(&item.kernel) > k->max_threads_per_block &&
      r->over_bounds++ == 0)
    snprintf(r->first_over_bounds, sizeof r->first_over_bounds, "%.60s: %d threads",
             readable, k->max_threads_per_block);
  occ_model_section failed = OCC_SECTION_NONE;
  occ_status status = occ_pipeline_build(&r->pipeline, &item, &failed);
  if (status != OCC_OK && failed != OCC_SECTION_NONE)
    return r->rc = occ_pipeline_build_error(&r->pipeline, &item, status, failed);
  if (status != OCC_OK) {
    note_rejected(r, readable, status);
    return 0;
  }
  r->rc = occ_pipeline_write(&r->pipeline, &item);
  free(item.sections);
  return r->rc;
}

static const char *input_name(const occ_cli *cli) {
  if (!cli->ptxas_path) return cli->module;
  return strcmp(cli->ptxas_path, "-") == 0 ? "standard input" : cli->ptxas_path;
}

/* The notes of a run that computed something (a failed run folds the
 * reason into its one line instead, see why_none). */
static void print_notes(run *r, const occ_ptxas_stats *s) {
  if (s->skipped_lines)
    occ_msg(r->err, "note: skipped %ld unparsable line%s (the first is line %ld)",
            s->skipped_lines, s->skipped_lines == 1 ? "" : "s", s->first_skipped_line);
  if (s->incomplete)
    occ_msg(r->err, "note: %ld kernel%s announced without a readable resource line",
            s->incomplete, s->incomplete == 1 ? "" : "s");
  if (r->unknown_arch)
    occ_msg(r->err, "note: skipped %ld kernel%s for targets not in the database "
            "(%s; see --list-gpus), give --gpu or --arch to compute them",
            r->unknown_arch, r->unknown_arch == 1 ? "" : "s", r->first_unknown_arch);
  if (r->rejected)
    occ_msg(r->err, "note: skipped %ld kernel%s the calculator rejects (%s)",
            r->rejected, r->rejected == 1 ? "" : "s", r->rejected_why);
  if (r->over_bounds)
    occ_msg(r->err, "warning: %ld kernel%s given a block larger than %s launch bounds "
            "(%s), which %s launch", r->over_bounds, r->over_bounds == 1 ? "" : "s",
            r->over_bounds == 1 ? "its" : "their", r->first_over_bounds,
            r->over_bounds == 1 ? "does not" : "do not");
  if (r->demangler.over_budget)
    occ_msg(r->err, "note: %zu kernel name%s shown mangled: longer than %d "
            "bytes demangled", r->demangler.over_budget,
            r->demangler.over_budget == 1 ? "" : "s", OCC_DEMANGLE_BUDGET);
  if (r->mismatched) {
    char name[4 * OCC_NAME_MAX];
    occ_text_safe(r->fixed_device.name, name, sizeof name);
    occ_msg(r->err, "warning: %ld kernel%s built for %s%s, not for cc %d.%d "
            "(%s, from %s): computed on it as asked",
            r->mismatched, r->mismatched == 1 ? "" : "s", r->first_mismatch,
            r->mismatched_more ? " and other targets" : "",
            r->fixed_device.cc_major, r->fixed_device.cc_minor, name, r->fixed_by);
  }
  if (r->fixed && strcmp(r->fixed_by, "OCCCALC_GPU") == 0) {
    char name[4 * OCC_NAME_MAX];
    occ_msg(r->err, "note: every kernel computed on %s (from OCCCALC_GPU)",
            occ_text_safe(r->fixed_device.name, name, sizeof name));
  }
  if (r->default_note && r->pipeline.render.written)
    occ_msg(r->err, "note: the report names no target; using %s (%s)",
            r->default_device.name, r->default_note);
}

/* Why no kernel was computed, for the one line of the failure. */
static const char *why_none(const run *r, char *why, size_t size) {
  if (r->unknown_arch)
    snprintf(why, size, "%ld for targets not in the database, e.g. %s; give "
             "--gpu or --arch", r->unknown_arch, r->first_unknown_arch);
  else
    snprintf(why, size, "%ld rejected: %s", r->rejected, r->rejected_why);
  return why;
}

/* The status once the whole input is read. A failure is one line. */
static int conclude(run *r, const occ_ptxas_stats *s) {
  char why[256];
  occ_pipeline_end(&r->pipeline);
  if (s->kernels == 0) {
    if (s->skipped_lines)
      snprintf(why, sizeof why, "skipped %ld unparsable line%s, the first is line "
               "%ld; ", s->skipped_lines, s->skipped_lines == 1 ? "" : "s",
               s->first_skipped_line);
    occ_msg(r->err, "%s: no kernel found (%sexpected the output of nvcc -Xptxas -v "
            "or cuobjdump --dump-resource-usage)", input_name(r->cli),
            s->skipped_lines ? why : "");
    return OCC_EXIT_USAGE;
  }
  if (r->selected == 0)
    return occ_cli_usage_error(r->err, "--kernel: no kernel matches '%s' (%ld read)",
                               r->cli->kernel_name, s->kernels);
  if (r->pipeline.render.written == 0) {
    occ_msg(r->err, "%s: no kernel could be computed (%s)", input_name(r->cli),
            why_none(r, why, sizeof why));
    return OCC_EXIT_USAGE;
  }
  print_notes(r, s);
  return occ_pipeline_gate(&r->pipeline);
}

/* The kernels the reader completed, each through the pipeline. Returns
 * 0, or the status that stops the run. */
static int take_kernels(run *r) {
  const occ_ptxas_kernel *k;
  while ((k = occ_ptxas_next(r->parser)))
    if ((r->rc = on_kernel(r, k)) != 0) return r->rc;
  return 0;
}

static void run_free(run *r) {
  if (!r) return;
  occ_ptxas_free(r->parser);
  occ_demangler_free(&r->demangler);
  occ_sweep_cache_free(&r->sweeps);
  occ_choice_cache_free(r->choices);
  free(r);
}

/* Starts NVIDIA's reader: the writer, and the device --gpu/--arch (or
 * $OCCCALC_GPU) names for every kernel. Returns NULL with *rc set after
 * the diagnostic. */
static run *run_new(const occ_cli *cli, const occ_gpudb *db, FILE *out, FILE *err,
                    int *rc) {
  run *r = calloc(1, sizeof *r);
  occ_choice_cache *choices = occ_choice_cache_new();
  occ_ptxas_parser *parser = r ? occ_ptxas_new(NULL, NULL) : NULL;
  if (!r || !choices || !parser) {
    free(r);
    occ_choice_cache_free(choices);
    occ_ptxas_free(parser);
    occ_msg(err, "out of memory");
    *rc = OCC_EXIT_FAILURE;
    return NULL;
  }
  *r = (run){.cli = cli, .db = db, .err = err, .choices = choices, .parser = parser};
  *rc = occ_pipeline_init(&r->pipeline, cli, true, out, err);
  r->pipeline.request.sweeps = &r->sweeps;
  /* The model chooses the block of each kernel that has none given, or
   * best (on_kernel). */
  r->pipeline.request.choose_block = choices;
  /* $OCCCALC_GPU stands for --gpu here as in the calculator: one device
   * for every kernel, whatever target the report names. */
  occ_target_query query = occ_cli_target_query(cli);
  occ_target_by by = occ_target_query_by(&query);
  if (*rc == OCC_EXIT_OK && by != OCC_TARGET_BY_DEFAULT) {
    const char *note;
    r->fixed = true;
    r->fixed_by = by == OCC_TARGET_BY_GPU    ? "--gpu"
                  : by == OCC_TARGET_BY_ARCH ? "--arch/--cc"
                                             : "OCCCALC_GPU";
    r->pipeline.render.fixed_device = &r->fixed_device;
    *rc = occ_select_device(db, cli, &r->fixed_device, &note, err);
    if (*rc == OCC_EXIT_OK) *rc = occ_pipeline_check(&r->pipeline, &r->fixed_device);
  }
  if (*rc != OCC_EXIT_OK) {
    run_free(r);
    return NULL;
  }
  return r;
}

static int run_end(run *r) {
  if (r->rc) return r->rc;
  occ_ptxas_finish(r->parser);
  if ((r->rc = take_kernels(r)) != 0) return r->rc;
  return conclude(r, occ_ptxas_get_stats(r->parser));
}

/* --- the command: the input split into lines, the reader chosen --- */

typedef struct command {
  const occ_cli *cli;
  const occ_gpudb *db;
  FILE *out, *err;
  occ_amd_target target;
  occ_log_kind kind;     /* decided by the first line only one vendor writes */
  run *nvidia;           /* NULL where the target is AMD's */
  remark_run *amd;       /* NULL where the target is NVIDIA's */
  long line;
  int rc;
} command;

/* The reader a line decided on: the other is dropped; a target or an
 * option of the other vendor is refused before anything is written. */
static int decide(command *c, occ_log_kind kind) {
  const char *input = input_name(c->cli);
  if (kind == OCC_LOG_NVIDIA && !c->nvidia)
    return occ_cli_usage_error(c->err, "%s: a compiler report of %s, but %s names an AMD "
                               "target (%s); give an NVIDIA --gpu or --arch sm_XX, or "
                               "neither", input, occ_log_kind_words(kind),
                               c->cli->arch ? "--arch" : c->cli->gpu ? "--gpu" : "OCCCALC_GPU",
                               c->target.board ? c->target.gpu.name
                                               : c->target.gpu.arch.name);
  if (kind == OCC_LOG_AMD && !c->amd)
    return occ_cli_usage_error(c->err, "%s: the log holds AMD's compiler remarks; give "
                               "--arch gfxNNN, an AMD --gpu, or neither",
                               c->cli->gpu ? "--gpu" : "--arch/--cc");
  int rc = kind == OCC_LOG_NVIDIA
               ? occ_cli_refuse_vendor(c->cli, OCC_VENDOR_NVIDIA, "a ptxas log", c->err)
           : c->target.amd
               ? OCC_EXIT_OK
               : occ_cli_refuse_vendor(c->cli, OCC_VENDOR_AMD, "a remark log", c->err);
  if (rc != OCC_EXIT_OK) return rc;
  c->kind = kind;
  if (kind == OCC_LOG_NVIDIA) {
    occ_remark_run_free(c->amd);
    c->amd = NULL;
  } else {
    run_free(c->nvidia);
    c->nvidia = NULL;
  }
  return OCC_EXIT_OK;
}

/* Each line goes to the reader decided on, or to both while none is:
 * before its first line of its own neither hands a kernel over (AMD's
 * learns the target from an echoed command line). Returns 0, or the status
 * that stops the reading. */
static int handle_line(command *c, const char *s, size_t len) {
  c->line++;
  occ_log_kind kind = s ? occ_log_line_kind(s, len) : OCC_LOG_UNDECIDED;
  if (kind != OCC_LOG_UNDECIDED && c->kind == OCC_LOG_UNDECIDED) {
    int rc = decide(c, kind);
    if (rc != OCC_EXIT_OK) return c->rc = rc;
  } else if (kind != OCC_LOG_UNDECIDED && kind != c->kind) {
    occ_msg(c->err, "%s: line %ld is %s in a log of %s: a log of both kinds is not "
            "read (give each its own --ptxas)", input_name(c->cli), c->line,
            occ_log_kind_words(kind), occ_log_kind_words(c->kind));
    return c->rc = OCC_EXIT_USAGE;
  }
  int rc = 0;
  if (c->nvidia) {
    occ_ptxas_line(c->nvidia->parser, s, len);
    rc = take_kernels(c->nvidia);
  }
  if (!rc && c->amd) rc = occ_remark_run_line(c->amd, s, len);
  return rc ? (c->rc = rc) : 0;
}

/* Reads fd line by line, each handled before the next is asked for, so a
 * kernel's row is written as soon as its lines have arrived. Returns 0 at
 * the end, a status that stopped the reading, or -1 with errno on a read
 * error. */
static int read_lines(command *c, int fd) {
  occ_line_reader lines;
  if (occ_line_reader_init(&lines, fd, OCC_PTXAS_LINE_MAX) != 0) {
    occ_line_reader_free(&lines);
    errno = ENOMEM;
    return -1;
  }
  const char *s;
  size_t len;
  int got = 0, rc = 0;
  while (rc == 0 && (got = occ_line_reader_next(&lines, &s, &len)) == 1)
    rc = handle_line(c, s, len);
  if (rc == 0 && got < 0) rc = -1;
  int saved = errno;
  occ_line_reader_free(&lines);
  errno = saved;
  return rc;
}

/* The status once the input is read: the reader decided on concludes;
 * with none, the one the target calls for says that no kernel was found. */
static int conclude_command(command *c) {
  if (c->amd && (c->kind == OCC_LOG_AMD || c->target.amd))
    return occ_remark_run_end(c->amd, input_name(c->cli));
  return run_end(c->nvidia);
}

int occ_ptxas_command(const occ_cli *cli, const occ_gpudb *db, FILE *out, FILE *err) {
  command c = {.cli = cli, .db = db, .out = out, .err = err};
  int rc = occ_amd_select(db, cli, &c.target, err);
  if (rc != OCC_EXIT_OK) return rc;
  /* A target named decides the vendor's options at once; none named waits
   * for the log's first line of its own. */
  if (c.target.amd)
    rc = occ_cli_refuse_vendor(cli, OCC_VENDOR_AMD, c.target.gpu.arch.name, err);
  else if (cli->gpu || cli->arch)
    rc = occ_cli_refuse_vendor(cli, OCC_VENDOR_NVIDIA, "a ptxas log", err);
  if (rc != OCC_EXIT_OK) return rc;
  bool is_stdin = strcmp(cli->ptxas_path, "-") == 0;
  int fd = is_stdin ? STDIN_FILENO : open(cli->ptxas_path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    occ_msg(err, "%s: %s", cli->ptxas_path, occ_input_strerror(e));
    return occ_exit_of_input_error(e);
  }
  if (!c.target.amd) c.nvidia = run_new(cli, db, out, err, &rc);
  if (rc == OCC_EXIT_OK && (c.target.amd || !(cli->gpu || cli->arch)))
    c.amd = occ_remark_run_new(cli, db, &c.target, out, err, &rc);
  if (rc == OCC_EXIT_OK) {
    errno = 0;
    int read_rc = read_lines(&c, fd);
    if (read_rc == -1) {
      int e = errno ? errno : EIO;
      occ_msg(err, "%s: %s", input_name(cli), occ_input_strerror(e));
      rc = occ_exit_of_input_error(e);
    } else {
      rc = c.rc ? c.rc : conclude_command(&c);
    }
  }
  run_free(c.nvidia);
  occ_remark_run_free(c.amd);
  if (!is_stdin) close(fd);
  return rc;
}

/* --- occcalc --module FILE without --device: a binary's kernels --- */

/* zstd's decompressor, from the system's libzstd.so.1 opened at run time:
 * only --module on a compressed fatbin needs it (CUDA 12.x+ libraries
 * compress their cubins with zstd), so occcalc neither links it nor needs
 * its development headers; its two functions are declared here as
 * zstd.h declares them (stable ABI since zstd 1.0). */
typedef struct zstd_lib {
  void *handle;
  size_t (*decompress)(void *dst, size_t dst_size, const void *src, size_t src_size);
  unsigned (*is_error)(size_t code);
} zstd_lib;

static size_t zstd_inflate(void *dst, size_t dst_size, const void *src, size_t src_size,
                           void *ctx) {
  const zstd_lib *z = ctx;
  size_t n = z->decompress(dst, dst_size, src, src_size);
  return z->is_error(n) ? SIZE_MAX : n;
}

static bool zstd_open(zstd_lib *z) {
  z->handle = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!z->handle) return false;
  *(void **)&z->decompress = dlsym(z->handle, "ZSTD_decompress");
  *(void **)&z->is_error = dlsym(z->handle, "ZSTD_isError");
  if (z->decompress && z->is_error) return true;
  dlclose(z->handle);
  z->handle = NULL;
  return false;
}

/* What the binary reader could not read, said once the kernels are
 * written. */
static void binary_notes(FILE *err, const char *path, const occ_binary_stats *s,
                         bool have_zstd) {
  occ_msg(err, "note: %s: %ld kernel%s read from %ld cubin%s", path, s->kernels,
          s->kernels == 1 ? "" : "s", s->cubins, s->cubins == 1 ? "" : "s");
  if (s->ptx_entries)
    occ_msg(err, "note: %s: %ld PTX entr%s skipped (PTX is compiled when loaded; "
            "its resources are not known offline)", path, s->ptx_entries,
            s->ptx_entries == 1 ? "y" : "ies");
  if (s->decompressed)
    occ_msg(err, "note: %s: %ld of the cubins decompressed (zstd)", path, s->decompressed);
  if (s->compressed)
    occ_msg(err, "note: %s: %ld cubin entr%s unread: compressed (%s)", path,
            s->compressed, s->compressed == 1 ? "y" : "ies",
            have_zstd ? "not zstd: an LZ4 variant whose framing is not publicly documented"
                      : "zstd, and libzstd.so.1 was not found");
  if (s->bad_entries)
    occ_msg(err, "note: %s: %ld entr%s unread: %s", path, s->bad_entries,
            s->bad_entries == 1 ? "y" : "ies", s->first_bad);
}

int occ_module_command(const occ_cli *cli, const occ_gpudb *db, FILE *out, FILE *err) {
  int rc = occ_cli_refuse_vendor(cli, OCC_VENDOR_NVIDIA, "a CUDA binary", err);
  if (rc != OCC_EXIT_OK) return rc;
  int fd = open(cli->module, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    int e = errno;
    occ_msg(err, "%s: %s", cli->module, occ_input_strerror(e));
    if (fd >= 0) close(fd);
    return occ_exit_of_input_error(e);
  }
  if (!S_ISREG(st.st_mode) || st.st_size <= 0) {
    close(fd);
    occ_msg(err, "%s: not a CUDA binary: %s (accepted: a cubin, a fatbin, or a "
            "program or library with embedded fatbins)", cli->module,
            S_ISREG(st.st_mode) ? "an empty file" : "not a regular file");
    return OCC_EXIT_USAGE;
  }
  size_t size = (size_t)st.st_size;
  void *image = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (image == MAP_FAILED) {
    int e = errno;
    occ_msg(err, "%s: %s", cli->module, occ_input_strerror(e));
    return occ_exit_of_input_error(e);
  }
  char why[256] = "";
  occ_binary *binary = NULL;
  int open_rc = occ_binary_open(image, size, &binary, why, sizeof why);
  if (open_rc == OCC_BINARY_NOT_CUDA) {
    occ_msg(err, "%s: not a CUDA binary: %s", cli->module, why);
    munmap(image, size);
    return OCC_EXIT_USAGE;
  }
  zstd_lib zstd = {0};
  bool have_zstd = open_rc == OCC_BINARY_OK && zstd_open(&zstd);
  if (have_zstd) occ_binary_set_zstd(binary, zstd_inflate, &zstd);
  run *r = open_rc == OCC_BINARY_OK ? run_new(cli, db, out, err, &rc) : NULL;
  if (open_rc == OCC_BINARY_NO_MEMORY) {
    occ_msg(err, "out of memory");
    rc = OCC_EXIT_FAILURE;
  }
  if (r) {
    const occ_ptxas_kernel *k;
    while (!r->rc && (k = occ_binary_next(binary))) r->rc = on_kernel(r, k);
    const occ_binary_stats *bs = occ_binary_get_stats(binary);
    if (r->rc) {
      rc = r->rc;
    } else if (bs->kernels == 0) {
      occ_pipeline_end(&r->pipeline);
      occ_msg(err, "%s: not a CUDA binary: no kernel found (%ld cubin%s, %ld PTX, "
              "%ld compressed, %ld unread entr%s%s%s)", cli->module, bs->cubins,
              bs->cubins == 1 ? "" : "s", bs->ptx_entries, bs->compressed,
              bs->bad_entries, bs->bad_entries == 1 ? "y" : "ies",
              bs->bad_entries ? ": " : "", bs->bad_entries ? bs->first_bad : "");
      rc = OCC_EXIT_USAGE;
    } else {
      /* conclude counts kernels from the log reader's statistics. */
      occ_ptxas_stats stats = {.kernels = bs->kernels};
      rc = conclude(r, &stats);
      if (r->pipeline.render.written) binary_notes(err, cli->module, bs, have_zstd);
    }
    run_free(r);
  }
  occ_binary_free(binary);
  if (zstd.handle) dlclose(zstd.handle);
  munmap(image, size);
  return rc;
}
