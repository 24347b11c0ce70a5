/* run_trace.c - the Chrome trace of a run (see run_trace.h). */
#include "render/run_trace.h"

#include <stdlib.h>
#include <string.h>

#include "model/cluster.h"
#include "render/json_write.h"
#include "render/run_launches.h"
#include "text/text_safe.h"

/* A counter track's process id: GPU d's is GPU_PID_BASE + d, far above
 * Linux's pids (at most 2^22). */
#define GPU_PID_BASE 1000000000

/* A counter point: time, device, value. */
typedef struct trace_point {
  uint64_t ns;
  int32_t device;
  double value;
  size_t order;              /* ties kept in launch order */
} trace_point;

typedef struct trace {
  const occ_run_report *rep;
  occ_run_launches ls;       /* with times, by start */
  trace_point *points;       /* 2 per launch, by time */
  size_t meta_count;         /* the "M" events: processes, streams, GPUs */
  struct { int32_t pid; uint32_t stream; int32_t device; int kind; } *meta;
} trace;

static int by_time(const void *a, const void *b) {
  const trace_point *x = a, *y = b;
  if (x->ns != y->ns) return x->ns < y->ns ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

/* The zero of ts, 1 us before the first launch. Chrome DevTools'
 * Performance panel leaves events at ts 0 out of a trace's time range, so
 * a first launch at 0 lay off the left edge of its view. Relative, not the
 * clock's own value: ns since 1970 in microseconds pass 2^53 and a double
 * would round them to 0.25 us. */
#define TRACE_LEAD_NS 1000

static uint64_t trace_origin_ns(const trace *t) {
  return t->ls.origin_ns > TRACE_LEAD_NS ? t->ls.origin_ns - TRACE_LEAD_NS : 0;
}

static double us(const trace *t, uint64_t ns) {
  return (double)(ns - trace_origin_ns(t)) / 1000.0;
}

static cJSON *launch_event(const trace *t, const occ_run_launch *l) {
  const occ_launch_record *r = l->rec;
  const occ_run_row *row = l->row;
  cJSON *e = cJSON_CreateObject();
  if (!e) return NULL;
  cJSON_AddStringToObject(e, "name", row->item.readable ? row->item.readable
                                                         : r->name);
  cJSON_AddStringToObject(e, "cat", r->graph_id ? "kernel,graph" : "kernel");
  cJSON_AddStringToObject(e, "ph", "X");
  cJSON_AddNumberToObject(e, "ts", us(t, r->start_ns));
  cJSON_AddNumberToObject(e, "dur", (double)(r->end_ns - r->start_ns) / 1000.0);
  cJSON_AddNumberToObject(e, "pid", r->pid);
  cJSON_AddNumberToObject(e, "tid", r->stream);
  cJSON *args = cJSON_AddObjectToObject(e, "args");
  int grid[3] = {r->grid[0], r->grid[1], r->grid[2]};
  int block[3] = {r->block[0], r->block[1], r->block[2]};
  cJSON_AddItemToObject(args, "grid", cJSON_CreateIntArray(grid, 3));
  cJSON_AddItemToObject(args, "block", cJSON_CreateIntArray(block, 3));
  cJSON_AddNumberToObject(args, "device_ordinal", r->device);
  cJSON_AddNumberToObject(args, "regs_per_thread", r->regs_per_thread);
  cJSON_AddNumberToObject(args, "smem_bytes",
                          (double)r->smem_static_bytes + r->smem_dynamic_bytes);
  bool dev = row->item.device != NULL;
  occ_json_add_number_or_null(args, "theoretical_occupancy",
                              dev ? occ_model_occupancy(&row->item) : 0, dev);
  occ_json_add_number_or_null(args, "launch_occupancy",
                              row->measure.launch_occupancy, dev);
  double v = 0;
  bool known = occ_run_launch_achieved(l, &v);
  occ_json_add_number_or_null(args, "achieved_occupancy", v, known);
  const occ_sampled_launch *s = row->sampled ? row->sampled[l->i] : NULL;
  const char *basis = s ? s->basis_key : NULL;
  if (basis) cJSON_AddStringToObject(args, "achieved_basis", basis);
  else cJSON_AddNullToObject(args, "achieved_basis");
  occ_json_add_number_or_null(args, "graph_id", r->graph_id, r->graph_id != 0);
  cJSON_AddNumberToObject(args, "correlation_id", r->correlation);
  return e;
}

static cJSON *meta_event(const trace *t, size_t i) {
  cJSON *e = cJSON_CreateObject();
  if (!e) return NULL;
  char name[OCC_NAME_MAX + 32];
  int kind = t->meta[i].kind;
  cJSON_AddStringToObject(e, "name", kind == 1 ? "thread_name" : "process_name");
  cJSON_AddStringToObject(e, "ph", "M");
  if (kind == 2) {
    cJSON_AddNumberToObject(e, "pid", GPU_PID_BASE + t->meta[i].device);
    /* Named as the timeline's title names it: with its board. */
    const char *board = occ_run_launches_device_name(&t->ls, t->meta[i].device);
    if (board)
      snprintf(name, sizeof name, "GPU %d (%s)", t->meta[i].device, board);
    else
      snprintf(name, sizeof name, "GPU %d", t->meta[i].device);
  } else {
    cJSON_AddNumberToObject(e, "pid", t->meta[i].pid);
    if (kind == 1) {
      cJSON_AddNumberToObject(e, "tid", t->meta[i].stream);
      snprintf(name, sizeof name, "stream %u", t->meta[i].stream);
    } else {
      snprintf(name, sizeof name, "process %d", t->meta[i].pid);
    }
  }
  cJSON_AddItemToObject(e, "args", cJSON_CreateObject());
  cJSON_AddStringToObject(cJSON_GetObjectItem(e, "args"), "name", name);
  return e;
}

static cJSON *counter_event(const trace *t, const trace_point *p) {
  cJSON *e = cJSON_CreateObject();
  if (!e) return NULL;
  cJSON_AddStringToObject(e, "name", "achieved occupancy");
  cJSON_AddStringToObject(e, "ph", "C");
  cJSON_AddNumberToObject(e, "ts", us(t, p->ns));
  cJSON_AddNumberToObject(e, "pid", GPU_PID_BASE + p->device);
  cJSON *args = cJSON_AddObjectToObject(e, "args");
  cJSON_AddNumberToObject(args, "achieved_occupancy", p->value);
  return e;
}

static cJSON *event(void *context, size_t i) {
  const trace *t = context;
  if (i < t->meta_count) return meta_event(t, i);
  i -= t->meta_count;
  if (i < t->ls.count) return launch_event(t, &t->ls.launches[i]);
  return counter_event(t, &t->points[i - t->ls.count]);
}

/* The processes, their streams and the GPUs, each named once. */
static int add_meta(trace *t, int kind, int32_t pid, uint32_t stream,
                    int32_t device) {
  for (size_t i = 0; i < t->meta_count; i++)
    if (t->meta[i].kind == kind && t->meta[i].pid == pid &&
        t->meta[i].stream == stream && t->meta[i].device == device)
      return 0;
  void *grown = realloc(t->meta, (t->meta_count + 1) * sizeof *t->meta);
  if (!grown) return -1;
  t->meta = grown;
  t->meta[t->meta_count].kind = kind;
  t->meta[t->meta_count].pid = pid;
  t->meta[t->meta_count].stream = stream;
  t->meta[t->meta_count].device = device;
  t->meta_count++;
  return 0;
}

static int collect(trace *t) {
  if (occ_run_launches_collect(&t->ls, t->rep)) return -1;
  t->points = malloc((2 * t->ls.count + 1) * sizeof *t->points);
  if (!t->points) return -1;
  size_t m = 0;
  for (size_t i = 0; i < t->ls.count; i++) {
    const occ_launch_record *l = t->ls.launches[i].rec;
    /* Processes and streams rarely number more than a few dozen: the
     * linear look-up in add_meta stays cheap. */
    if (add_meta(t, 0, l->pid, 0, 0) || add_meta(t, 1, l->pid, l->stream, 0) ||
        add_meta(t, 2, 0, 0, l->device))
      return -1;
    double v = 0;
    occ_run_launch_achieved(&t->ls.launches[i], &v);
    t->points[m] = (trace_point){l->start_ns, l->device, v, m};
    m++;
    t->points[m] = (trace_point){l->end_ns, l->device, 0, m};
    m++;
  }
  qsort(t->points, m, sizeof *t->points, by_time);
  return 0;
}

int occ_run_print_trace(FILE *out, const occ_run_report *rep) {
  trace t = {.rep = rep};
  cJSON *root = cJSON_CreateObject();
  bool ok = root && collect(&t) == 0;
  if (ok) {
    cJSON_AddArrayToObject(root, "traceEvents");
    cJSON_AddStringToObject(root, "displayTimeUnit", "ns");
    cJSON *other = cJSON_AddObjectToObject(root, "otherData");
    cJSON_AddStringToObject(other, "program", rep->program);
    cJSON_AddStringToObject(other, "producer", "occcalc run");
    /* ts 0 is this GPU timestamp (ns), 1 us before the first launch. */
    occ_json_add_int(other, "origin_ns", (int64_t)trace_origin_ns(&t));
    ok = occ_json_write_streamed(out, root, "traceEvents", event, &t,
                                 t.meta_count + 3 * t.ls.count);
    if (ok) fputc('\n', out);
  }
  cJSON_Delete(root);
  occ_run_launches_free(&t.ls);
  free(t.points);
  free(t.meta);
  if (!ok) occ_msg(stderr, "out of memory writing the trace");
  return ok ? 0 : -1;
}
