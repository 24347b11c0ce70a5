/* run_rows.c - run's records joined into measured rows (see run_rows.h). */
#include "model/run_rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the counters of a launch ---- */

void occ_run_counters_init(occ_run_counters *index) {
  occ_index_init(&index->by_correlation);
  occ_index_init(&index->by_runtime);
}

int occ_run_counters_add(occ_run_counters *index,
                         const occ_launch_record *records, size_t i) {
  const occ_launch_record *c = &records[i];
  uint64_t key = occ_index_pair(c->pid, c->correlation);
  if (occ_index_find(&index->by_correlation, key, NULL, NULL) ==
          OCC_INDEX_NONE &&
      occ_index_put(&index->by_correlation, key, i) != 0)
    return -1;
  if (!c->runtime_correlation) return 0;
  key = occ_index_pair(c->pid, c->runtime_correlation);
  if (occ_index_find(&index->by_runtime, key, NULL, NULL) == OCC_INDEX_NONE &&
      occ_index_put(&index->by_runtime, key, i) != 0)
    return -1;
  return 0;
}

const occ_launch_record *occ_run_counters_of(const occ_run_counters *index,
                                             const occ_launch_record *records,
                                             const occ_launch_record *launch) {
  uint64_t key = occ_index_pair(launch->pid, launch->correlation);
  size_t i = occ_index_find(&index->by_correlation, key, NULL, NULL);
  if (i == OCC_INDEX_NONE)
    i = occ_index_find(&index->by_runtime, key, NULL, NULL);
  return i == OCC_INDEX_NONE ? NULL : &records[i];
}

void occ_run_counters_free(occ_run_counters *index) {
  if (!index) return;
  occ_index_free(&index->by_correlation);
  occ_index_free(&index->by_runtime);
}

/* ---- the records joined to the launches ---- */

/* A process' summary added to the run's cost (every process' summed). */
static void add_cost(occ_run_cost *c, const occ_launch_record *r) {
  c->process_count++;
  c->seconds += r->values[OCC_SUMMARY_SECONDS];
  c->profiler_seconds += r->values[OCC_SUMMARY_PROFILER_SECONDS];
  c->profiled += r->values[OCC_SUMMARY_PROFILED];
  c->flushed += r->values[OCC_SUMMARY_FLUSHED];
  if (r->why[0] && !c->flush_failed_why) c->flush_failed_why = r->why;
}

/* The first refusal is the report's note; which process it is, when the
 * launches shown are of several. */
static void note_refusal(occ_run_join *join,
                         const occ_launch_record *first_refusal) {
  bool several_processes = false;
  for (size_t i = 1; i < join->launch_count && !several_processes; i++)
    several_processes = join->launches[i]->pid != join->launches[0]->pid;
  if (first_refusal && several_processes)
    snprintf(join->note, sizeof join->note, "no counters in process %d: %s",
             first_refusal->pid, first_refusal->why);
  else if (first_refusal)
    snprintf(join->note, sizeof join->note, "%s", first_refusal->why);
}

int occ_run_join_records(occ_run_join *join, const occ_launch_record *records,
                         size_t record_count,
                         const occ_launch_record *const *launches,
                         size_t launch_count) {
  *join = (occ_run_join){.launches = launches, .launch_count = launch_count};
  occ_run_counters counters;
  occ_run_counters_init(&counters);
  occ_index refusals; /* pid -> its first refusal's position */
  occ_index_init(&refusals);
  occ_index clients; /* pid -> its refused client's record */
  occ_index_init(&clients);
  const occ_launch_record *first_refusal = NULL;
  int rc = 0;
  for (size_t i = 0; rc == 0 && i < record_count; i++) {
    const occ_launch_record *r = &records[i];
    uint64_t pid = (uint32_t)r->pid;
    if (r->kind == OCC_RECORD_COUNTERS) {
      rc = occ_run_counters_add(&counters, records, i);
    } else if (r->kind == OCC_RECORD_SUMMARY) {
      add_cost(&join->cost, r);
    } else if (r->kind == OCC_RECORD_CLIENT_REFUSED) {
      if (!join->client_refused) join->client_refused = r;
      if (occ_index_find(&clients, pid, NULL, NULL) == OCC_INDEX_NONE) {
        rc = occ_index_put(&clients, pid, i);
        join->client_refused_count++;
      }
    } else if (r->kind == OCC_RECORD_NO_COUNTERS) {
      if (!first_refusal) first_refusal = r;
      if (occ_index_find(&refusals, pid, NULL, NULL) == OCC_INDEX_NONE)
        rc = occ_index_put(&refusals, pid, i);
    }
  }
  if (rc == 0) {
    join->counters = calloc(launch_count + 1, sizeof *join->counters);
    join->refusals = calloc(launch_count + 1, sizeof *join->refusals);
    rc = join->counters && join->refusals ? 0 : -1;
  }
  for (size_t i = 0; rc == 0 && i < launch_count; i++) {
    const occ_launch_record *l = launches[i];
    size_t refusal = occ_index_find(&refusals, (uint32_t)l->pid, NULL, NULL);
    join->counters[i] = occ_run_counters_of(&counters, records, l);
    join->refusals[i] = refusal == OCC_INDEX_NONE ? NULL : &records[refusal];
  }
  note_refusal(join, first_refusal);
  occ_index_free(&refusals);
  occ_index_free(&clients);
  occ_run_counters_free(&counters);
  return rc;
}

void occ_run_join_free(occ_run_join *join) {
  if (!join) return;
  free(join->counters);
  free(join->refusals);
  join->counters = join->refusals = NULL;
}

/* ---- the launches grouped into rows ---- */

/* Whether launches a and b are of one configuration, the shared memory
 * the driver configured aside (see row_of). */
static bool same_config(const occ_launch_record *a,
                        const occ_launch_record *b) {
  return a->device == b->device && strcmp(a->name, b->name) == 0 &&
         memcmp(a->grid, b->grid, sizeof a->grid) == 0 &&
         memcmp(a->block, b->block, sizeof a->block) == 0 &&
         memcmp(a->cluster, b->cluster, sizeof a->cluster) == 0 &&
         a->regs_per_thread == b->regs_per_thread &&
         a->smem_static_bytes == b->smem_static_bytes &&
         a->smem_dynamic_bytes == b->smem_dynamic_bytes &&
         a->carveout_requested_pct == b->carveout_requested_pct &&
         a->launch_type == b->launch_type;
}

/* The rows while the launches are grouped: each row's slot in the index
 * (FIRST_ROW, or the shared memory the driver configured) and its first
 * launch's position. */
#define FIRST_ROW (-1)
typedef struct row_slot {
  int64_t slot;
  size_t first;
} row_slot;

typedef struct grouping {
  occ_run_row *rows;
  size_t row_count;
  row_slot *slots; /* parallel to rows */
  size_t capacity;
  occ_index index;
} grouping;

typedef struct row_query {
  const grouping *g;
  const occ_launch_record *launch;
  int64_t slot;
} row_query;

static bool is_row(size_t r, const void *context) {
  const row_query *q = context;
  return q->g->slots[r].slot == q->slot &&
         same_config(q->g->rows[r].first, q->launch);
}

static size_t find_row(const grouping *g, const occ_launch_record *l,
                       int64_t slot) {
  row_query q = {g, l, slot};
  return occ_index_find(&g->index, occ_index_config_key(&g->index, l, slot),
                        is_row, &q);
}

/* ---- each launch's kernel and configuration numbered ---- */

typedef struct config_query {
  const occ_launch_record *const *launches;
  const occ_launch_record *launch;
} config_query;

static bool same_as_first(size_t first, const void *context) {
  const config_query *q = context;
  return same_config(q->launches[first], q->launch);
}

int occ_run_number_kernels(const occ_launch_record *const *launches,
                           size_t count, occ_sampled_launch *sampled) {
  occ_index index;
  occ_index_init(&index);
  size_t numbered = 0;
  int rc = 0;
  for (size_t i = 0; rc == 0 && i < count; i++) {
    config_query q = {launches, launches[i]};
    uint64_t key = occ_index_config_key(&index, launches[i], FIRST_ROW);
    size_t first = occ_index_find(&index, key, same_as_first, &q);
    if (first != OCC_INDEX_NONE)
      sampled[i].kernel = sampled[first].kernel;
    else if ((rc = occ_index_put(&index, key, i)) == 0)
      sampled[i].kernel = ++numbered;
  }
  occ_index_free(&index);
  return rc;
}

/* A new row of launch l at position first; OCC_INDEX_NONE out of memory. */
static size_t add_row(grouping *g, const occ_launch_record *l, int64_t slot,
                      size_t first) {
  if (g->row_count == g->capacity) {
    size_t capacity = g->capacity ? 2 * g->capacity : 16;
    occ_run_row *rows = realloc(g->rows, capacity * sizeof *rows);
    if (!rows) return OCC_INDEX_NONE;
    g->rows = rows;
    row_slot *slots = realloc(g->slots, capacity * sizeof *slots);
    if (!slots) return OCC_INDEX_NONE;
    g->slots = slots;
    g->capacity = capacity;
  }
  size_t r = g->row_count;
  if (occ_index_put(&g->index, occ_index_config_key(&g->index, l, slot), r))
    return OCC_INDEX_NONE;
  g->rows[r] = (occ_run_row){.first = l};
  g->slots[r].slot = slot;
  g->slots[r].first = first;
  g->row_count++;
  return r;
}

/* The row of the launch at position i, made when it is the first of its
 * configuration. The shared memory the driver configured is compared
 * only where both know it: a profiled launch's record carries none (0),
 * and --counter-launches profiles only the first launches of a
 * configuration, which then join the others' row. So a configuration's
 * first row takes every launch whose value it has or does not know
 * (taking the first value it meets), and each other value has a row of
 * its own. */
static size_t row_of(grouping *g, const occ_launch_record *l, size_t i) {
  size_t r = find_row(g, l, FIRST_ROW);
  if (r == OCC_INDEX_NONE) return add_row(g, l, FIRST_ROW, i);
  int32_t known = g->rows[r].measure.smem_executed_bytes;
  if (l->smem_executed_bytes == 0 || known == 0 ||
      known == l->smem_executed_bytes)
    return r;
  r = find_row(g, l, l->smem_executed_bytes);
  return r != OCC_INDEX_NONE ? r : add_row(g, l, l->smem_executed_bytes, i);
}

/* Each row's launches, their counters and samples, in launch order. */
static int fill_rows(grouping *g, const occ_run_join *join,
                     const occ_sampled_launch *sampled, const size_t *row_at) {
  for (size_t r = 0; r < g->row_count; r++) {
    occ_run_row *row = &g->rows[r];
    row->launches = calloc(row->measure.launch_count, sizeof *row->launches);
    row->counters = calloc(row->measure.launch_count, sizeof *row->counters);
    if (sampled)
      row->sampled = calloc(row->measure.launch_count, sizeof *row->sampled);
    if (!row->launches || !row->counters || (sampled && !row->sampled))
      return -1;
    row->measure.launch_count = 0;
  }
  for (size_t i = 0; i < join->launch_count; i++) {
    occ_run_row *row = &g->rows[row_at[i]];
    row->counters[row->measure.launch_count] = join->counters[i];
    if (sampled) row->sampled[row->measure.launch_count] = &sampled[i];
    row->launches[row->measure.launch_count++] = join->launches[i];
  }
  return 0;
}

/* ---- each row measured ---- */

/* Why the row's achieved occupancy is unknown; refusal: why its first
 * launch's process has no counters, or NULL. */
static const char *achieved_why(const occ_run_measure_spec *spec,
                                const occ_launch_record *l,
                                const occ_launch_record *refusal) {
  if (spec->measure == OCC_MEASURE_NONE) return "not measured (--measure none)";
  if (l->graph_id) return OCC_RUN_GRAPH_WHY;
  if (refusal) return refusal->why;
  if (spec->counter_launches == 0)
    return "no counters were recorded for this launch";
  return "no counters recorded: only the first launches of each kernel, "
         "grid, block, cluster and dynamic shared memory are profiled "
         "(--counter-launches)";
}

/* PM samples: the launches' times and the samples attributed to them. */
static void measure_sampled(const occ_run_measure_spec *spec,
                            occ_run_row *row) {
  occ_measure *m = &row->measure;
  for (size_t i = 0; i < m->launch_count; i++) {
    m->total_us += occ_launch_duration_us(row->launches[i], NULL);
    m->graph_launch_count += row->launches[i]->graph_id != 0;
  }
  m->mean_us = m->total_us / (double)m->launch_count;
  occ_measure_from_samples(m, row->sampled, m->launch_count);
  if (!m->achieved_known && !m->achieved_why)
    m->achieved_why = spec->sample_why && spec->sample_why[0] ? spec->sample_why
                                                              : "not sampled";
}

/* Times, achieved occupancy and metrics over the row's launches: each
 * metric the mean over the launches whose counters hold it. */
static void measure_row(const occ_run_measure_spec *spec, occ_run_row *row,
                        const occ_launch_record *refusal) {
  if (spec->measure == OCC_MEASURE_SAMPLE) {
    measure_sampled(spec, row);
    return;
  }
  occ_measure *m = &row->measure;
  size_t measured = 0, metric_launches[OCC_RECORD_METRICS_MAX] = {0};
  for (size_t i = 0; i < m->launch_count; i++) {
    const occ_launch_record *c = row->counters[i];
    m->total_us += occ_launch_duration_us(row->launches[i], c);
    m->graph_launch_count += row->launches[i]->graph_id != 0;
    if (!c) continue;
    measured++;
    m->achieved += c->values[0] / 100;
    for (int k = 0;
         k < spec->metric_count && k + OCC_RECORD_FIRST_METRIC < c->value_count;
         k++) {
      row->metric_values[k] += c->values[k + OCC_RECORD_FIRST_METRIC];
      metric_launches[k]++;
    }
  }
  m->mean_us = m->total_us / (double)m->launch_count;
  m->counter_launch_count = measured;
  m->achieved_known = measured > 0;
  if (!measured) {
    m->achieved_why = achieved_why(spec, row->first, refusal);
    return;
  }
  m->achieved /= (double)measured;
  for (int k = 0; k < spec->metric_count; k++) {
    row->metric_known[k] = metric_launches[k] > 0;
    if (row->metric_known[k])
      row->metric_values[k] /= (double)metric_launches[k];
  }
}

int occ_run_rows_group(const occ_run_join *join,
                       const occ_sampled_launch *sampled,
                       const occ_run_measure_spec *spec, occ_run_row **rows,
                       size_t *row_count) {
  grouping g = {0};
  occ_index_init(&g.index);
  size_t *row_at = malloc((join->launch_count + 1) * sizeof *row_at);
  int rc = row_at ? 0 : -1;
  for (size_t i = 0; rc == 0 && i < join->launch_count; i++) {
    const occ_launch_record *l = join->launches[i];
    size_t r = row_at[i] = row_of(&g, l, i);
    if (r == OCC_INDEX_NONE) {
      rc = -1;
      break;
    }
    occ_run_row *row = &g.rows[r];
    row->measure.launch_count++;
    if (row->measure.smem_executed_bytes == 0)
      row->measure.smem_executed_bytes = l->smem_executed_bytes;
  }
  if (rc == 0) rc = fill_rows(&g, join, sampled, row_at);
  for (size_t r = 0; rc == 0 && r < g.row_count; r++)
    measure_row(spec, &g.rows[r], join->refusals[g.slots[r].first]);
  free(row_at);
  free(g.slots);
  occ_index_free(&g.index);
  if (rc != 0) {
    occ_run_rows_free(g.rows, g.row_count);
    g.rows = NULL;
    g.row_count = 0;
  }
  *rows = g.rows;
  *row_count = g.row_count;
  return rc;
}

void occ_run_rows_free(occ_run_row *rows, size_t row_count) {
  for (size_t r = 0; rows && r < row_count; r++) {
    free(rows[r].launches);
    free(rows[r].counters);
    free(rows[r].sampled);
    free((char *)rows[r].item.readable);
  }
  free(rows);
}
