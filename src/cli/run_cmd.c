/* run_cmd.c - occcalc run (see run_cmd.h): the order of the steps. The
 * options checked, the sampler started (live/sampler.h), the program run
 * (live/run.h), its records read (live/records.h) and joined to the
 * samples (model/run_samples.h), grouped into rows of one kernel and
 * launch configuration (model/run_rows.h), each row computed on the
 * device the program used (live/run_device.h, model/run_item.h), then
 * gated and written by render/run_out.c. */
#include "cli/run_cmd.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/kernel_name.h"
#include "cli/pipeline.h"
#include "live/gpu.h"
#include "live/out_pattern.h"
#include "live/run.h"
#include "live/run_device.h"
#include "live/sample_file.h"
#include "live/sampler.h"
#include "model/run_item.h"
#include "model/run_rows.h"
#include "model/run_samples.h"
#include "render/outfile.h"
#include "render/run_out.h"
#include "render/run_timeline.h"
#include "render/run_trace.h"
#include "text/text_safe.h"
#include "ptxas/demangle.h"

/* --counter-launches: the launches of each configuration whose counters
 * are read (each is replayed, about 4 ms on an H100; 0 reads every
 * launch's). A few by default: the lab's reduction, 22 launches of each
 * of 21 configurations, then costs 0.055x of Nsight Compute's overhead
 * rather than 0.205x (BENCHMARKS.md). */
#define DEFAULT_COUNTER_LAUNCHES 3
/* --sample-interval's default and range, microseconds. Decoding costs
 * 17-26 us a sample on one CPU thread, idle samples too (measured on the
 * lent H100): at 20 us it barely kept up, at 5 us four samples in five
 * were lost. The interval sets which launches share a sample, not the
 * precision of one alone: a sample's ratio of warps to active cycles
 * ignores its idle time. */
#define DEFAULT_SAMPLE_INTERVAL_US 25
#define MAX_SAMPLE_INTERVAL_US 100000
/* --metrics as the library reads it (inject_counters.c: 1024 bytes). */
#define METRICS_TEXT_MAX 1024

typedef struct run_state {
  const occ_cli *cli;
  occ_run_measure measure;       /* what measures achieved occupancy */
  bool measure_given;            /* --measure or --no-counters named it */
  int64_t interval_us;           /* --sample-interval */
  occ_sampler sampler;           /* --measure sample: the child */
  bool sampling;                 /* the sampler was started */
  occ_sampled_launch *sampled;   /* parallel to launches, or NULL */
  occ_sample_read sample_read;   /* what reading the samples found */
  char measure_why[OCC_SAMPLER_WHY_MAX + 64]; /* why this measurement */
  char sample_why[OCC_SAMPLER_WHY_MAX + 64];  /* why no launch is sampled */
  int device_filter;             /* -1: every device */
  int64_t counter_launches;      /* profiled of each configuration; 0: all */
  bool flush_caches;             /* --cache-control all */
  const char *metric_names[OCC_RECORD_METRICS_MAX];
  int metric_count;
  char metric_text[METRICS_TEXT_MAX];
  occ_demangler names;
  FILE *jsonl;                   /* --jsonl's stream while running */
  occ_run_result run;
  const occ_launch_record **launches; /* shown, in record order */
  size_t launch_count;
  occ_run_join join;             /* the launches joined to the records */
  occ_run_counters streamed;     /* --jsonl: the counters read so far */
  occ_run_devices devices;       /* each launch's, looked up once */
  occ_outfile output;            /* --output, resolved before the run */
  occ_outfile trace_file;        /* --trace, likewise */
  occ_outfile svg_file;          /* --svg, likewise */
  occ_outfile jsonl_file;        /* --jsonl --output, resolved likewise */
  char output_path[4096];        /* --output, its patterns expanded */
  bool jsonl_done;               /* the stream ended: EPIPE or an error */
  int jsonl_errno;               /* why it ended, 0 for EPIPE */
  size_t skipped_count;          /* records refused, an incomplete one too */
  char skipped_why[200];         /* the first: where and why; "" for none */
} run_state;

static bool wanted(const run_state *s, const occ_launch_record *l) {
  if (s->device_filter >= 0 && l->device != s->device_filter) return false;
  if (!s->cli->kernel_name) return true;
  occ_demangler d = OCC_DEMANGLER_INIT;
  bool match = occ_kernel_name_matches(s->cli->kernel_name, l->name,
                                       occ_demangle(&d, l->name));
  occ_demangler_free(&d);
  return match;
}

/* --jsonl: a launch as soon as it is read; its counters join it when
 * they came first (the library writes them at the next launch, before
 * the activity buffer that holds the launch is flushed). Out of memory
 * for the index, a launch goes out without its counters. */
static void stream_record(const occ_launch_record *r, void *context) {
  run_state *s = context;
  const occ_launch_record *records = s->run.records.at;
  if (r->kind == OCC_RECORD_COUNTERS)
    (void)occ_run_counters_add(&s->streamed, records, (size_t)(r - records));
  if (r->kind != OCC_RECORD_LAUNCH || !wanted(s, r)) return;
  occ_run_print_jsonl(s->jsonl, r, occ_demangle(&s->names, r->name),
                      occ_run_counters_of(&s->streamed, records, r),
                      s->metric_names, s->metric_count);
  fflush(s->jsonl);
}

/* --metrics: at most 8 names, each once (a name is a JSON key), in at
 * most 1023 bytes (what the library reads of the list). */
static int split_metrics(run_state *s) {
  const char *list = s->cli->metrics;
  if (!list) return OCC_EXIT_OK;
  if (strlen(list) >= sizeof s->metric_text)
    return occ_cli_usage_error(stderr, "--metrics: at most %zu bytes",
                               sizeof s->metric_text - 1);
  snprintf(s->metric_text, sizeof s->metric_text, "%s", list);
  int n = occ_metrics_split(s->metric_text, s->metric_names,
                            OCC_RECORD_METRICS_MAX);
  if (n < 0)
    return occ_cli_usage_error(stderr, "--metrics: at most %d metrics",
                               OCC_RECORD_METRICS_MAX);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < j; i++)
      if (strcmp(s->metric_names[i], s->metric_names[j]) == 0) {
        char name[80];
        return occ_cli_usage_error(stderr, "--metrics: '%s' is given twice",
                                   occ_text_safe(s->metric_names[j], name,
                                                 sizeof name));
      }
  s->metric_count = n;
  return OCC_EXIT_OK;
}

/* --output, before the program runs: a file that can be written (see
 * outfile.h), resolved now so that the program cannot redirect it, with
 * the --help hint of a usage error. */
static const char *environment(const char *name, void *context) {
  (void)context;
  return getenv(name);
}

static int check_output(run_state *s) {
  occ_outfile *o = s->cli->jsonl ? &s->jsonl_file : &s->output;
  /* ncu's patterns, for one report per rank (docs/run.md): %p is
   * occcalc's process id. */
  char host[256] = "", why[300];
  if (gethostname(host, sizeof host) != 0) host[0] = '\0';
  host[sizeof host - 1] = '\0';
  occ_pattern_env env = {(long)getpid(), host, environment, NULL};
  if (!occ_out_pattern_expand(s->cli->output_path, &env, s->output_path,
                              sizeof s->output_path, why, sizeof why))
    return occ_cli_usage_error(stderr, "--output: '%s': %s",
                               s->cli->output_path, why);
  if (occ_outfile_prepare(o, s->output_path, "--output", stderr) == 0)
    return OCC_EXIT_OK;
  fputs("occcalc: try 'occcalc --help'\n", stderr);
  return OCC_EXIT_USAGE;
}

/* --measure (--no-counters is --measure none) and --sample-interval.
 * auto is sample, unless an option only replay serves was given
 * (--metrics, --counter-launches, --cache-control); the device may still
 * turn it to replay (start_sampler). */
static int check_measure(run_state *s) {
  const occ_cli *cli = s->cli;
  bool replay_only = cli->metrics ||
                     occ_cli_given(cli, OCC_OPT_COUNTER_LAUNCHES) ||
                     occ_cli_given(cli, OCC_OPT_CACHE_CONTROL);
  s->measure = replay_only ? OCC_MEASURE_REPLAY : OCC_MEASURE_SAMPLE;
  s->measure_given = cli->no_counters;
  if (cli->no_counters) s->measure = OCC_MEASURE_NONE;
  if (occ_cli_given(cli, OCC_OPT_MEASURE) &&
      cli->measure != OCC_MEASURE_CHOICE_AUTO) {
    s->measure = cli->measure == OCC_MEASURE_CHOICE_SAMPLE ? OCC_MEASURE_SAMPLE
                 : cli->measure == OCC_MEASURE_CHOICE_REPLAY
                     ? OCC_MEASURE_REPLAY
                     : OCC_MEASURE_NONE;
    s->measure_given = true;
  }
  if (s->measure != OCC_MEASURE_REPLAY && replay_only)
    return occ_cli_usage_error(stderr, "%s: needs --measure replay (the "
                               "counters are read by replaying launches)",
                               cli->metrics ? "--metrics"
                               : occ_cli_given(cli, OCC_OPT_COUNTER_LAUNCHES)
                                   ? "--counter-launches"
                                   : "--cache-control");
  s->interval_us = DEFAULT_SAMPLE_INTERVAL_US;
  if (occ_cli_given(cli, OCC_OPT_SAMPLE_INTERVAL)) {
    s->interval_us = cli->sample_interval_us;
    if (s->measure != OCC_MEASURE_SAMPLE)
      return occ_cli_usage_error(stderr, "--sample-interval: needs "
                                 "--measure sample");
  }
  return OCC_EXIT_OK;
}

static int check_options(run_state *s) {
  const occ_cli *cli = s->cli;
  /* The values were parsed and range-checked with the option table. */
  s->device_filter = occ_cli_given(cli, OCC_OPT_DEVICE) && !cli->device.all
                         ? (int)cli->device.count
                         : -1;
  s->counter_launches = DEFAULT_COUNTER_LAUNCHES;
  if (occ_cli_given(cli, OCC_OPT_COUNTER_LAUNCHES))
    s->counter_launches = cli->counter_launches.all ? 0 : cli->counter_launches.count;
  s->flush_caches = cli->cache_control == OCC_CACHE_CONTROL_ALL;
  if (cli->output_path && check_output(s) != OCC_EXIT_OK)
    return OCC_EXIT_USAGE;
  if (cli->trace_path &&
      occ_outfile_prepare(&s->trace_file, cli->trace_path, "--trace",
                          stderr) != 0) {
    fputs("occcalc: try 'occcalc --help'\n", stderr);
    return OCC_EXIT_USAGE;
  }
  if (cli->svg_path &&
      occ_outfile_prepare(&s->svg_file, cli->svg_path, "--svg", stderr) != 0) {
    fputs("occcalc: try 'occcalc --help'\n", stderr);
    return OCC_EXIT_USAGE;
  }
  int rc = check_measure(s);
  return rc != OCC_EXIT_OK ? rc : split_metrics(s);
}

/* Positions grow by doubling. Returns 0, or -1 out of memory. */
static int push_launch(const occ_launch_record ***list, size_t *count,
                       size_t *capacity, const occ_launch_record *l) {
  if (*count == *capacity) {
    size_t grown_capacity = *capacity ? 2 * *capacity : 64;
    const occ_launch_record **grown =
        realloc(*list, grown_capacity * sizeof *grown);
    if (!grown) return -1;
    *list = grown;
    *capacity = grown_capacity;
  }
  (*list)[(*count)++] = l;
  return 0;
}

/* What the report says of the records it did not show: how many were
 * refused (an incomplete one at the end too) and the first's place. */
static void count_skipped(run_state *s) {
  const occ_records *log = &s->run.records;
  s->skipped_count = log->skipped_count + (log->partial_bytes > 0);
  if (log->skipped_count)
    snprintf(s->skipped_why, sizeof s->skipped_why, "at byte %llu: %s",
             (unsigned long long)log->first_skipped_offset,
             log->first_skipped_why);
  else if (log->partial_bytes)
    snprintf(s->skipped_why, sizeof s->skipped_why,
             "at byte %llu: an incomplete record of %zu bytes at the end",
             (unsigned long long)log->partial_offset, log->partial_bytes);
}

/* The launches shown, in record order, joined to the other records
 * (model/run_rows.h). Returns 0, or -1 out of memory (the records not all
 * kept, too). */
static int index_records(run_state *s) {
  const occ_records *log = &s->run.records;
  size_t capacity = 0;
  int rc = log->out_of_memory ? -1 : 0;
  /* The join indexes the counters anew: --jsonl's index is done with. */
  occ_run_counters_free(&s->streamed);
  for (size_t i = 0; rc == 0 && i < log->count; i++) {
    const occ_launch_record *r = &log->at[i];
    if (r->kind == OCC_RECORD_LAUNCH && wanted(s, r))
      rc = push_launch(&s->launches, &s->launch_count, &capacity, r);
  }
  if (rc == 0)
    rc = occ_run_join_records(&s->join, log->at, log->count, s->launches,
                              s->launch_count);
  count_skipped(s);
  return rc;
}

/* The row's item on the device its first launch ran on (the row
 * measured already). The name is copied before the device is looked up,
 * so that running out of memory says so alone, without a GPU's note.
 * Returns 0, or -1 out of memory. */
static int compute_row(run_state *s, occ_run_row *row) {
  const occ_launch_record *l = row->first;
  char *readable = strdup(occ_demangle(&s->names, l->name));
  if (!readable) return -1;
  occ_run_device_why why;
  const occ_device *device = occ_run_device_of(&s->devices, l, &why);
  if (why.open_failed)
    occ_msg(stderr, "GPU %d: %s (theoretical occupancy not computed)",
            l->device, why.open);
  occ_run_row_compute(row, device, readable, why.layout);
  return 0;
}

/* The launches grouped into measured rows by the model, then each row's
 * item computed on its device. Returns 0, or -1 out of memory. */
static int build_rows(run_state *s, occ_run_report *rep) {
  occ_run_measure_spec spec = {.measure = s->measure,
                               .counter_launches = s->counter_launches,
                               .metric_count = s->metric_count,
                               .sample_why = s->sample_why};
  int rc = occ_run_rows_group(&s->join, s->sampled, &spec, &rep->rows,
                              &rep->row_count);
  for (size_t r = 0; rc == 0 && r < rep->row_count; r++)
    rc = compute_row(s, &rep->rows[r]);
  return rc;
}

/* --min-occupancy gates on theoretical occupancy at the launched
 * configuration, as in every other mode: deterministic, and known
 * without counters. */
static int gate(const run_state *s, const occ_run_report *rep) {
  long below = 0;
  for (size_t r = 0; r < rep->row_count; r++) {
    const occ_item *item = &rep->rows[r].item;
    below += occ_gate_check(s->cli, stderr, item,
                            item->device ? item->device->name : NULL);
  }
  return occ_gate_summary(s->cli, stderr, below);
}

static int write_report(FILE *out, const void *context) {
  const run_state *s = ((const void *const *)context)[0];
  const occ_run_report *rep = ((const void *const *)context)[1];
  return occ_run_print(out, occ_pipeline_format(s->cli), rep);
}

/* Text to stderr (the program's stdout is the user's), JSON and CSV to
 * stdout, or all to --output (nothing of it where the report could not
 * be written). */
static int emit(const run_state *s, const occ_run_report *rep) {
  const void *context[2] = {s, rep};
  occ_outfile *o = (occ_outfile *)&s->output;
  if (s->cli->output_path && !s->cli->jsonl) {
    if (occ_outfile_start(o, stderr) != 0) return OCC_EXIT_FAILURE;
    if (write_report(o->f, context) != 0) {
      occ_outfile_discard(o);
      return OCC_EXIT_FAILURE;
    }
    return occ_outfile_commit(o, stderr) ? OCC_EXIT_FAILURE : OCC_EXIT_OK;
  }
  if (!s->cli->jsonl &&
      write_report(s->cli->json || s->cli->csv ? stdout : stderr, context) != 0)
    return OCC_EXIT_FAILURE;
  return OCC_EXIT_OK;
}

/* The run's cost: what the options chose, and the processes' summaries. */
static occ_run_cost cost_of(const run_state *s) {
  occ_run_cost cost = s->join.cost;
  cost.counters = s->measure == OCC_MEASURE_REPLAY;
  cost.sampled = s->measure == OCC_MEASURE_SAMPLE;
  cost.launches_per_configuration = s->counter_launches;
  cost.flush = s->flush_caches;
  return cost;
}

/* The report without its rows: the program, the records' notes. */
static occ_run_report report_of(const run_state *s) {
  const occ_records *log = &s->run.records;
  return (occ_run_report){
      .program = s->cli->run_argv[0],
      .status = s->run.status,
      .launch_count = s->launch_count,
      .metric_names = s->metric_names,
      .metric_count = s->metric_count,
      .note = s->join.note[0] ? s->join.note : NULL,
      .skipped_record_count = s->skipped_count,
      .skipped_record_reason = s->skipped_why[0] ? s->skipped_why : NULL,
      .records_unread_reason = log->unread_why[0] ? log->unread_why : NULL,
      .client_refused = s->join.client_refused,
      .client_refused_count = s->join.client_refused_count,
      .cost = cost_of(s),
      .measure = s->measure,
      .measure_why = s->measure_why[0] ? s->measure_why : NULL,
      .sampler = s->sampling ? &s->sampler.status : NULL,
      .samples_skipped = s->sample_read.skipped};
}

/* The records' notes where the report has no place for them (CSV, and
 * --jsonl's stream of launches): on stderr. */
static void notes_aside(const run_state *s, const occ_run_report *rep) {
  if (s->cli->csv || s->cli->jsonl) occ_run_print_record_notes(stderr, rep);
}

/* --trace FILE: the launches as a Chrome trace, whole or not at all. */
static int write_trace(run_state *s, const occ_run_report *rep) {
  occ_outfile *o = &s->trace_file;
  if (occ_outfile_start(o, stderr) != 0) return OCC_EXIT_FAILURE;
  if (occ_run_print_trace(o->f, rep) != 0) {
    occ_outfile_discard(o);
    return OCC_EXIT_FAILURE;
  }
  return occ_outfile_commit(o, stderr) ? OCC_EXIT_FAILURE : OCC_EXIT_OK;
}

/* --svg FILE: the same timeline drawn, whole or not at all. */
static int write_svg(run_state *s, const occ_run_report *rep) {
  occ_outfile *o = &s->svg_file;
  if (occ_outfile_start(o, stderr) != 0) return OCC_EXIT_FAILURE;
  if (occ_run_print_svg(o->f, rep) != 0) {
    occ_outfile_discard(o);
    return OCC_EXIT_FAILURE;
  }
  return occ_outfile_commit(o, stderr) ? OCC_EXIT_FAILURE : OCC_EXIT_OK;
}

static int report(run_state *s) {
  occ_run_report rep = report_of(s);
  if (build_rows(s, &rep) != 0) {
    occ_run_rows_free(rep.rows, rep.row_count);
    occ_msg(stderr, "out of memory");
    return OCC_EXIT_FAILURE;
  }
  int rc = emit(s, &rep);
  if (rc == OCC_EXIT_OK && s->cli->trace_path) rc = write_trace(s, &rep);
  if (rc == OCC_EXIT_OK && s->cli->svg_path) rc = write_svg(s, &rep);
  notes_aside(s, &rep);
  int gated = gate(s, &rep);
  occ_run_rows_free(rep.rows, rep.row_count);
  /* occcalc's own failure first, then the program's (a crash, whose
   * report may lack its later launches), then the gate's verdict. */
  return rc != OCC_EXIT_OK ? rc : s->run.status != 0 ? s->run.status : gated;
}

/* No kernel: the one line, and the program's own status. Without a
 * usable driver no program could have launched one: the line says why. */
static int no_kernel(const run_state *s) {
  occ_run_report rep = report_of(s);
  if (s->cli->json || s->cli->csv) {
    int rc = emit(s, &rep);
    if (rc != OCC_EXIT_OK) return rc;
  }
  const char *selected = s->cli->kernel_name || s->device_filter >= 0
                             ? " that --kernel or --device selects" : "";
  int count = 0;
  char why[512];
  if (occ_gpu_count(&count, why, sizeof why) != OCC_GPU_OK)
    occ_msg(stderr, "note: %s launched no CUDA kernel%s, and none can run "
            "here: %s", s->cli->run_argv[0], selected, why);
  else
    occ_msg(stderr, "note: %s launched no CUDA kernel%s",
            s->cli->run_argv[0], selected);
  if (!s->cli->json) occ_run_print_record_notes(stderr, &rep);
  return s->run.status;
}

/* --jsonl's stream: stdout, or --output's file, opened once the program
 * has started (a program that cannot be run creates nothing). Returns 0,
 * or 2 after the message. */
static int open_jsonl(run_state *s) {
  if (!s->cli->output_path) {
    s->jsonl = stdout;
    return 0;
  }
  int rc = occ_outfile_start(&s->jsonl_file, stderr);
  s->jsonl = rc == 0 ? s->jsonl_file.f : NULL;
  return rc;
}

/* --jsonl: each launch as it is read. A reader gone (EPIPE) ends the
 * stream quietly and occcalc dies of SIGPIPE once the program, which is
 * sent SIGPIPE too, has ended; another write error ends it with a
 * message at the end. */
static void stream_jsonl(const occ_launch_record *r, void *context) {
  run_state *s = context;
  if (s->jsonl_done) return;
  if (!s->jsonl && open_jsonl(s) != 0) {
    s->jsonl_done = true;
    s->jsonl_errno = errno ? errno : EIO;
    return;
  }
  errno = 0;
  stream_record(r, s);
  if (!ferror(s->jsonl)) return;
  s->jsonl_done = true;
  s->jsonl_errno = errno == EPIPE ? 0 : errno ? errno : EIO;
  if (errno == EPIPE) occ_run_interrupt(SIGPIPE);
}

/* The end of --jsonl's stream: its file in place, or the write error.
 * Returns rc, or OCC_EXIT_FAILURE. */
static int close_jsonl(run_state *s, int rc) {
  if (s->jsonl_file.f && !s->jsonl_done)
    return occ_outfile_commit(&s->jsonl_file, stderr) ? OCC_EXIT_FAILURE : rc;
  if (s->jsonl == stdout && !s->jsonl_done && fflush(stdout) != 0) {
    s->jsonl_done = true;
    s->jsonl_errno = errno;
  }
  if (!s->jsonl_done || !s->jsonl_errno) return rc;
  /* open_jsonl said why it could not open the file. */
  if (s->jsonl)
    occ_msg(stderr, "%s: error writing%s%s%s: %s",
            s->cli->output_path ? "--output" : "stdout",
            s->cli->output_path ? " '" : "",
            s->cli->output_path ? s->cli->output_path : "",
            s->cli->output_path ? "'" : "", strerror(s->jsonl_errno));
  occ_outfile_discard(&s->jsonl_file);
  return OCC_EXIT_FAILURE;
}

/* What happened to the program while it ran, beyond its status. */
static void run_notes(const run_state *s) {
  if (s->run.stop_count)
    occ_msg(stderr, "note: %s stopped %d time%s (%s); occcalc continued it "
            "each time", s->cli->run_argv[0], s->run.stop_count,
            s->run.stop_count == 1 ? "" : "s", strsignal(s->run.stop_signal));
  if (s->names.over_budget)
    occ_msg(stderr, "note: kernel names longer than %d bytes demangled are "
            "shown mangled", OCC_DEMANGLE_BUDGET);
}

/* --measure sample (or auto): occcalc's sampler on every device. The
 * program starts once the GPUs are claimed (cuInit and a lock per GPU),
 * while sampling is set up beside it; its first launch waits at the gate
 * until sampling runs, so that it is covered. Returns 0, or
 * OCC_EXIT_DEVICE after one line when another occcalc run samples a GPU
 * (refused: a GPU is sampled by one run at a time; a run that is ending
 * is waited for). A device without PM sampling on a time interval turns
 * auto to replay; another profiler holding the counters, or no
 * permission, shows once sampling is set up, and leaves the report
 * without achieved occupancy, saying why. */
static int start_sampler(run_state *s) {
  if (s->measure != OCC_MEASURE_SAMPLE) {
    snprintf(s->measure_why, sizeof s->measure_why, "%s",
             s->measure == OCC_MEASURE_NONE
                 ? (s->cli->no_counters ? "--no-counters" : "--measure none")
             : s->measure_given ? "--measure replay"
                                : "auto: --metrics, --counter-launches and "
                                  "--cache-control need replay");
    return OCC_EXIT_OK;
  }
  /* The program starts once the counters are claimed, while sampling is
   * configured beside it; its first launch waits at the gate. */
  occ_sampler_spec spec = {.device = s->device_filter,
                           .interval_ns = (uint64_t)s->interval_us * 1000,
                           .gate = true};
  char why[512];
  if (occ_sampler_start(&spec, &s->sampler, why, sizeof why) != 0) {
    occ_msg(stderr, "run: the sampler: %s", why);
    return OCC_EXIT_DEVICE;
  }
  s->sampling = true;
  const occ_sampler_status *st = &s->sampler.status;
  const occ_sampler_device *off = NULL;
  for (int i = 0; i < st->device_count; i++) {
    const occ_sampler_device *d = &st->devices[i];
    if (d->state == OCC_SAMPLER_BUSY) {
      occ_msg(stderr, "run: GPU %d: %s; run again once it has ended, or "
              "use --measure none", d->ordinal, d->why);
      occ_sampler_close(&s->sampler);
      s->sampling = false;
      return OCC_EXIT_DEVICE;
    }
    if (d->state != OCC_SAMPLER_ON && d->state != OCC_SAMPLER_OFF && !off)
      off = d;
  }
  if (off && off->state == OCC_SAMPLER_UNSUPPORTED && !s->measure_given) {
    occ_sampler_close(&s->sampler);
    s->sampling = false;
    s->measure = OCC_MEASURE_REPLAY;
    snprintf(s->measure_why, sizeof s->measure_why, "auto: GPU %d has no "
             "PM sampling (%s)", off->ordinal, off->why);
    return OCC_EXIT_OK;
  }
  snprintf(s->measure_why, sizeof s->measure_why, "%s",
           s->measure_given ? "--measure sample"
                            : "auto: the GPUs support PM sampling");
  occ_run_unsampled_why(st, s->sample_why, sizeof s->sample_why);
  return OCC_EXIT_OK;
}

/* The samples joined to the launches shown (model/run_samples.h), after
 * the sampler has stopped. Returns 0, or -1 out of memory. */
static int attribute(run_state *s) {
  if (!s->sampling) return 0;
  if (!s->sample_why[0])
    occ_run_unsampled_why(&s->sampler.status, s->sample_why,
                          sizeof s->sample_why);
  occ_run_attribution a;
  int rc = occ_run_attribution_start(&a, s->launches, s->launch_count);
  s->sampled = a.launches;
  if (rc != 0) return rc;
  occ_samples_read(s->sampler.samples_fd, s->sampler.samples_bytes,
                   occ_run_attribution_add, &a, &s->sample_read);
  return occ_run_attribution_finish(&a, &s->sampler.status);
}

static int launch(run_state *s, const char *inject) {
  const occ_cli *cli = s->cli;
  occ_run_spec spec = {.argv = cli->run_argv,
                       .inject_path = inject,
                       .counters = s->measure == OCC_MEASURE_REPLAY,
                       .metrics = cli->metrics,
                       .counter_launches = s->counter_launches,
                       .flush_caches = s->flush_caches,
                       .stream = cli->jsonl ? stream_jsonl : NULL,
                       .context = s,
                       /* The report's stream parses (jq): the program's
                        * output goes to stderr beside the diagnostics. */
                       .stdout_to_stderr = (cli->json || cli->jsonl ||
                                            cli->csv) && !cli->output_path};
  char why[512];
  int started = start_sampler(s);
  if (started != OCC_EXIT_OK) return started;
  spec.counters = s->measure == OCC_MEASURE_REPLAY;
  if (s->sampling) spec.gate = s->sampler.gate_env;
  int failed = occ_run_program(&spec, &s->run, why, sizeof why);
  /* Stop then Disable as soon as the program has ended, whatever comes
   * next (a signal, an error): once the samples cover its last launch. */
  if (s->sampling) {
    char stop_why[256];
    uint64_t last = failed ? 0 : occ_records_last_end(&s->run.records);
    if (occ_sampler_stop(&s->sampler, last, stop_why, sizeof stop_why) != 0 &&
        !s->sample_why[0])
      snprintf(s->sample_why, sizeof s->sample_why, "%s", stop_why);
  }
  if (failed != 0) {
    occ_msg(stderr, "run: %s", why);
    return OCC_EXIT_DEVICE;
  }
  /* Killed: no report; occ_run_command dies of the same signal. */
  if (s->run.signal) return 128 + s->run.signal;
  if (s->run.exec_errno) {
    occ_msg(stderr, "%s: %s", cli->run_argv[0], strerror(s->run.exec_errno));
    return s->run.status;
  }
  if (cli->jsonl && !s->jsonl && !s->jsonl_done && open_jsonl(s) != 0)
    return OCC_EXIT_FAILURE;
  if (index_records(s) != 0 || attribute(s) != 0) {
    occ_msg(stderr, "out of memory");
    return OCC_EXIT_FAILURE;
  }
  int rc = s->launch_count ? report(s) : no_kernel(s);
  run_notes(s);
  return cli->jsonl ? close_jsonl(s, rc) : rc;
}

static void finish(run_state *s) {
  occ_run_result_free(&s->run);
  free(s->launches);
  occ_run_join_free(&s->join);
  occ_run_counters_free(&s->streamed);
  occ_run_devices_close(&s->devices);
  occ_demangler_free(&s->names);
  if (s->sampling) occ_sampler_close(&s->sampler);
  free(s->sampled);
  /* Committed already unless the run failed or was killed. */
  occ_outfile_discard(&s->jsonl_file);
  occ_outfile_discard(&s->output);
  occ_outfile_discard(&s->trace_file);
  occ_outfile_discard(&s->svg_file);
}

int occ_run_report_records(const occ_cli *cli, const occ_gpudb *db,
                           occ_run_result *result) {
  run_state s = {.cli = cli, .names = OCC_DEMANGLER_INIT};
  occ_run_devices_init(&s.devices, db);
  occ_run_counters_init(&s.streamed);
  int rc = check_options(&s);
  /* Records written before: their counters are replay's. */
  if (s.measure == OCC_MEASURE_SAMPLE) s.measure = OCC_MEASURE_REPLAY;
  s.run = *result;
  memset(result, 0, sizeof *result);
  if (rc == OCC_EXIT_OK && cli->jsonl) {
    s.jsonl = stdout;
    /* As the records came while the program ran, each once. */
    for (size_t i = 0; i < s.run.records.count; i++)
      stream_record(&s.run.records.at[i], &s);
  }
  if (rc == OCC_EXIT_OK && index_records(&s) != 0) {
    occ_msg(stderr, "out of memory");
    rc = OCC_EXIT_FAILURE;
  } else if (rc == OCC_EXIT_OK) {
    rc = s.launch_count ? report(&s) : no_kernel(&s);
  }
  finish(&s);
  return rc;
}

int occ_run_command(const occ_cli *cli, const occ_gpudb *db) {
  run_state s = {.cli = cli, .names = OCC_DEMANGLER_INIT};
  occ_run_devices_init(&s.devices, db);
  occ_run_counters_init(&s.streamed);
  int rc = check_options(&s);
  if (rc != OCC_EXIT_OK) return rc;
  char inject[4096], why[4400];
  if (!occ_run_find_injection(inject, sizeof inject, why, sizeof why)) {
    occ_msg(stderr, "run: %s", why);
    return OCC_EXIT_DEVICE;
  }
  rc = launch(&s, inject);
  int signal = s.run.signal;
  finish(&s);
  if (signal) occ_run_reraise(signal);
  return rc;
}
