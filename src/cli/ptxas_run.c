/* ptxas_run.c - occcalc --ptxas (see ptxas_run.h): the compiler report's
 * kernels as a source of the pipeline (pipeline.h). Each kernel is
 * computed and written as it is read, so memory stays bounded whatever the
 * size of the build log. */
#include "cli/ptxas_run.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/devselect.h"
#include "core/cc.h"
#include "cli/kernel_name.h"
#include "cli/pipeline.h"
#include "ptxas/demangle.h"
#include "ptxas/ptxas.h"
#include "text/text_safe.h"

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

typedef struct run {
  const occ_cli *cli;
  const occ_gpudb *db;
  FILE *err;
  occ_pipeline pipeline;
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
  choice_entry *choices;

  long selected, unknown_arch, rejected;
  char first_unknown_arch[OCC_PTXAS_ARCH_MAX];
  char rejected_why[96];
  int rc;                  /* a fatal status that stopped the reading */
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
  if (r->cli->sms > 0) e->device.sm_count = (int)r->cli->sms;
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

/* The per-block reserve of a report's target, for the reader (see
 * occ_ptxas_reserve_fn); -1 for a target not in the database. */
static int64_t target_reserve(const char *arch, void *ctx) {
  const run *r = ctx;
  int major, minor;
  char near[128];
  occ_device d;
  if (occ_parse_cc(arch, OCC_CC_NAME, &major, &minor) != 0 ||
      occ_gpudb_find_cc(r->db, major, minor, &d, near, sizeof near) != 0)
    return -1;
  return d.reserved_smem_per_block_bytes;
}

/* The kernel as the calculator takes it: the report's numbers, the
 * command line's dynamic shared memory and carveout. */
static void make_kernel(const run *r, const occ_ptxas_kernel *k,
                        const occ_device *device, occ_kernel *kernel) {
  occ_cli_kernel(r->cli, kernel);
  kernel->regs_per_thread = k->regs_per_thread;
  kernel->smem_static_bytes = k->smem_static_bytes;
  /* A cubin's cuobjdump report names no target. Built for CC >= 9.0 its
   * SHARED includes the per-block reserve the calculator adds (see
   * ptxas.c); the cubin is taken to be built for the device --gpu/--arch
   * names, and left as reported for the default device, which says
   * nothing of it. */
  int64_t reserve = device->reserved_smem_per_block_bytes;
  if (k->source == OCC_PTXAS_FROM_CUOBJDUMP && !k->arch[0] && r->fixed &&
      device->cc_major >= 9 && kernel->smem_static_bytes >= reserve)
    kernel->smem_static_bytes -= reserve;
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

/* The block: --block for every kernel, else the smallest size reaching
 * the kernel's highest occupancy (a warp when no size can launch, so the
 * result still says why). */
static occ_status choose_block(run *r, const occ_device *device,
                               occ_kernel *kernel, occ_block_choice *choice) {
  if (occ_cli_given(r->cli, OCC_OPT_BLOCK)) {
    r->rc = occ_pipeline_block(&r->pipeline, device, kernel);
    return OCC_OK;
  }
  occ_status status = best_block(r, device, kernel, choice);
  if (status != OCC_OK) return status;
  kernel->block[0] = choice->smallest_block_size > 0
                         ? choice->smallest_block_size
                         : device->warp_size;
  kernel->block[1] = kernel->block[2] = 1;
  return OCC_OK;
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

static int on_kernel(const occ_ptxas_kernel *k, void *ctx) {
  run *r = ctx;
  const char *readable = occ_demangle(&r->demangler, k->name);
  const char *pattern = r->cli->kernel_name;
  if (pattern && !occ_kernel_name_matches(pattern, k->name, readable))
    return 0;
  r->selected++;
  const occ_device *device = pick_device(r, k);
  if (!device) return r->rc;
  char label[128];
  label_of(k, label, sizeof label);
  occ_block_choice choice;
  occ_item item = {.device = device, .name = k->name, .readable = readable,
                   .label = label, .ptxas = k,
                   .choice = occ_cli_given(r->cli, OCC_OPT_BLOCK) ? NULL : &choice};
  make_kernel(r, k, device, &item.kernel);
  occ_status status = choose_block(r, device, &item.kernel, &choice);
  if (r->rc) return r->rc;
  occ_model_section failed = OCC_SECTION_NONE;
  if (status == OCC_OK) status = occ_pipeline_build(&r->pipeline, &item, &failed);
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

static int read_input(run *r, FILE *in) {
  occ_ptxas_parser *parser = occ_ptxas_new(on_kernel, r);
  if (!parser) {
    occ_msg(r->err, "out of memory");
    return OCC_EXIT_FAILURE;
  }
  occ_ptxas_set_reserve_fn(parser, target_reserve, r);
  errno = 0;
  int rc = occ_ptxas_read_file(parser, in);
  if (rc == -1) {
    int e = errno ? errno : EIO;
    occ_msg(r->err, "%s: %s", input_name(r->cli), occ_input_strerror(e));
    rc = occ_exit_of_input_error(e);
  } else {
    rc = r->rc ? r->rc : conclude(r, occ_ptxas_get_stats(parser));
  }
  occ_ptxas_free(parser);
  return rc;
}

int occ_ptxas_run_stream(const occ_cli *cli, const occ_gpudb *db, FILE *in,
                         FILE *out, FILE *err) {
  run *r = calloc(1, sizeof *r);
  choice_entry *choices = calloc(CHOICE_CACHE_SIZE, sizeof *choices);
  if (!r || !choices) {
    free(r);
    free(choices);
    occ_msg(err, "out of memory");
    return OCC_EXIT_FAILURE;
  }
  *r = (run){.cli = cli, .db = db, .err = err, .choices = choices};
  int rc = occ_pipeline_init(&r->pipeline, cli, true, out, err);
  /* $OCCCALC_GPU stands for --gpu here as in the calculator: one device
   * for every kernel, whatever target the report names. */
  occ_target_query query = occ_cli_target_query(cli);
  occ_target_by by = occ_target_query_by(&query);
  if (rc == OCC_EXIT_OK && by != OCC_TARGET_BY_DEFAULT) {
    const char *note;
    r->fixed = true;
    r->fixed_by = by == OCC_TARGET_BY_GPU    ? "--gpu"
                  : by == OCC_TARGET_BY_ARCH ? "--arch/--cc"
                                             : "OCCCALC_GPU";
    r->pipeline.render.fixed_device = &r->fixed_device;
    rc = occ_select_device(db, cli, &r->fixed_device, &note, err);
    if (rc == OCC_EXIT_OK) rc = occ_pipeline_check(&r->pipeline, &r->fixed_device);
  }
  if (rc == OCC_EXIT_OK) rc = read_input(r, in);
  occ_demangler_free(&r->demangler);
  free(choices);
  free(r);
  return rc;
}
