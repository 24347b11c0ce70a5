/* run_merge.c - several `occcalc run --json` reports merged, one at a
 * time (see run_merge.h). */
#include "model/run_merge.h"

#include "core/hash.h"
#include "model/run_index.h"
#include "text/why.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- hash tables: a 64-bit hash to a 32-bit index ---- */

/* Open addressing, doubled at half full; the caller tells apart the
 * values of equal hashes. */
typedef struct occ_merge_table {
  uint64_t *hashes;
  uint32_t *values; /* OCC_MERGE_NONE: empty */
  size_t capacity, count;
} occ_merge_table;

typedef bool (*same_fn)(const occ_run_merge *m, uint32_t value,
                        const void *key);

/* bytes' hash under the merge's seed (drawn per run, so that a report
 * cannot be forged to make every row collide). */
static uint64_t hash_bytes(uint64_t seed, const void *bytes, size_t n) {
  const unsigned char *p = bytes;
  uint64_t h = seed ^ (n * 0x9e3779b97f4a7c15ull);
  for (; n >= 8; n -= 8, p += 8) {
    uint64_t w;
    memcpy(&w, p, 8);
    w *= 0x87c37b91114253d5ull;
    w = w << 31 | w >> 33;
    h ^= w * 0x4cf5ad432745937full;
    h = (h << 27 | h >> 37) * 5 + 0x52dce729;
  }
  uint64_t tail = 0;
  memcpy(&tail, p, n);
  return occ_hash_mix(h ^ occ_hash_mix(tail ^ seed));
}

static uint32_t table_find(const occ_run_merge *m, const occ_merge_table *t,
                           uint64_t hash, same_fn same, const void *key) {
  if (!t->capacity) return OCC_MERGE_NONE;
  for (size_t at = hash & (t->capacity - 1);; at = (at + 1) & (t->capacity - 1)) {
    if (t->values[at] == OCC_MERGE_NONE) return OCC_MERGE_NONE;
    if (t->hashes[at] == hash && same(m, t->values[at], key))
      return t->values[at];
  }
}

static void place(occ_merge_table *t, uint64_t hash, uint32_t value) {
  size_t at = hash & (t->capacity - 1);
  while (t->values[at] != OCC_MERGE_NONE) at = (at + 1) & (t->capacity - 1);
  t->hashes[at] = hash;
  t->values[at] = value;
}

static int table_put(occ_merge_table *t, uint64_t hash, uint32_t value) {
  if (2 * (t->count + 1) > t->capacity) {
    occ_merge_table grown = {.capacity = t->capacity ? 2 * t->capacity : 64,
                             .count = t->count};
    grown.hashes = malloc(grown.capacity * sizeof *grown.hashes);
    grown.values = malloc(grown.capacity * sizeof *grown.values);
    if (!grown.hashes || !grown.values) {
      free(grown.hashes);
      free(grown.values);
      return -2;
    }
    memset(grown.values, 0xff, grown.capacity * sizeof *grown.values);
    for (size_t i = 0; i < t->capacity; i++)
      if (t->values[i] != OCC_MERGE_NONE)
        place(&grown, t->hashes[i], t->values[i]);
    free(t->hashes);
    free(t->values);
    *t = grown;
  }
  place(t, hash, value);
  t->count++;
  return 0;
}

static void table_free(occ_merge_table *t) {
  if (!t) return;
  free(t->hashes);
  free(t->values);
  free(t);
}

/* Grows an array of *capacity items of size bytes to hold one more. */
static int grow(void *array, size_t count, size_t *capacity, size_t size) {
  if (count < *capacity) return 0;
  if (count >= OCC_MERGE_NONE - 1) return -2;
  size_t more = *capacity ? 2 * *capacity : 8;
  void *grown = realloc(*(void **)array, more * size);
  if (!grown) return -2;
  *(void **)array = grown;
  *capacity = more;
  return 0;
}

/* ---- the merge ---- */

occ_run_merge *occ_run_merge_new(void) {
  occ_run_merge *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->row_table = calloc(1, sizeof *m->row_table);
  m->name_table = calloc(1, sizeof *m->name_table);
  m->metric_table = calloc(1, sizeof *m->metric_table);
  if (!m->row_table || !m->name_table || !m->metric_table) {
    occ_run_merge_free(m);
    return NULL;
  }
  m->seed = occ_hash_seed(m);
  return m;
}

void occ_run_merge_free(occ_run_merge *m) {
  if (!m) return;
  for (size_t i = 0; i < m->report_count; i++) {
    free(m->reports[i].label);
    free(m->reports[i].program);
  }
  for (size_t i = 0; i < m->row_count; i++) {
    occ_merge_row *r = &m->rows[i];
    free(r->key);
    free(r->json);
    free(r->name);
    free(r->mangled_name);
    free(r->ranks);
  }
  for (size_t i = 0; i < m->metric_name_count; i++) free(m->metric_names[i]);
  free(m->reports);
  free(m->rows);
  free(m->metric_names);
  free(m->metrics);
  table_free(m->row_table);
  table_free(m->name_table);
  table_free(m->metric_table);
  free(m);
}

static bool same_row(const occ_run_merge *m, uint32_t value, const void *key) {
  const occ_rank_report_row *in = key;
  const occ_merge_row *r = &m->rows[value];
  return r->key_size == in->key_size && memcmp(r->key, in->key, in->key_size) == 0;
}

static bool same_name(const occ_run_merge *m, uint32_t value, const void *key) {
  return strcmp(m->metric_names[value], key) == 0;
}

typedef struct metric_key {
  uint32_t row, name;
} metric_key;

static bool same_metric(const occ_run_merge *m, uint32_t value,
                        const void *key) {
  const metric_key *k = key;
  return m->metrics[value].row == k->row && m->metrics[value].name == k->name;
}

static uint64_t metric_hash(const occ_run_merge *m, metric_key k) {
  return occ_hash_mix(m->seed ^ ((uint64_t)k.row << 32 | k.name));
}

/* The name's index in m->metric_names, added when new; OCC_MERGE_NONE out
 * of memory. */
static uint32_t name_index(occ_run_merge *m, const char *name) {
  uint64_t hash = hash_bytes(m->seed, name, strlen(name));
  uint32_t at = table_find(m, m->name_table, hash, same_name, name);
  if (at != OCC_MERGE_NONE) return at;
  char *copy = strdup(name);
  if (!copy ||
      grow(&m->metric_names, m->metric_name_count, &m->metric_name_capacity,
           sizeof *m->metric_names) != 0 ||
      table_put(m->name_table, hash, (uint32_t)m->metric_name_count) != 0) {
    free(copy);
    return OCC_MERGE_NONE;
  }
  m->metric_names[m->metric_name_count] = copy;
  return (uint32_t)m->metric_name_count++;
}

/* Row r's metric of that name, added (unmeasured) when new; NULL out of
 * memory. */
static occ_merge_metric *metric_of(occ_run_merge *m, uint32_t r,
                                   const char *name) {
  metric_key k = {r, name_index(m, name)};
  if (k.name == OCC_MERGE_NONE) return NULL;
  uint64_t hash = metric_hash(m, k);
  uint32_t at = table_find(m, m->metric_table, hash, same_metric, &k);
  if (at != OCC_MERGE_NONE) return &m->metrics[at];
  if (grow(&m->metrics, m->metric_count, &m->metric_capacity,
           sizeof *m->metrics) != 0 ||
      table_put(m->metric_table, hash, (uint32_t)m->metric_count) != 0)
    return NULL;
  at = (uint32_t)m->metric_count++;
  m->metrics[at] = (occ_merge_metric){
      .row = r, .name = k.name, .next = OCC_MERGE_NONE};
  occ_merge_row *row = &m->rows[r];
  if (row->last_metric == OCC_MERGE_NONE)
    row->first_metric = at;
  else
    m->metrics[row->last_metric].next = at;
  row->last_metric = at;
  return &m->metrics[at];
}

/* A new merged row of in's configuration (rep's row last read); its
 * index, or OCC_MERGE_NONE out of memory. */
static uint32_t new_row(occ_run_merge *m, occ_rank_report *rep,
                        const occ_rank_report_row *in, uint64_t hash) {
  if (grow(&m->rows, m->row_count, &m->row_capacity, sizeof *m->rows) != 0)
    return OCC_MERGE_NONE;
  occ_merge_row *r = &m->rows[m->row_count];
  *r = (occ_merge_row){
      .key = malloc(in->key_size ? in->key_size : 1),
      .key_size = in->key_size,
      .hash = hash,
      .json = occ_rank_report_row_json(rep),
      .name = strdup(in->name),
      .mangled_name = strdup(in->mangled_name),
      .theoretical_occupancy = in->theoretical_occupancy,
      .theoretical_known = in->theoretical_known,
      .first_metric = OCC_MERGE_NONE,
      .last_metric = OCC_MERGE_NONE};
  memcpy(r->grid, in->grid, sizeof r->grid);
  memcpy(r->block, in->block, sizeof r->block);
  if (!r->key || !r->json || !r->name || !r->mangled_name ||
      table_put(m->row_table, hash, (uint32_t)m->row_count) != 0) {
    free(r->key);
    free(r->json);
    free(r->name);
    free(r->mangled_name);
    return OCC_MERGE_NONE;
  }
  memcpy(r->key, in->key, in->key_size);
  return (uint32_t)m->row_count++;
}

/* mean over weight, moved to take value at weight w: a weighted mean kept
 * as a mean, so that values near the largest double never overflow a
 * sum (1e308 twice is 1e308, not inf), and equal values keep their
 * value exactly. */
static void add_to_mean(double *mean, double *weight, double value, double w) {
  double total = *weight + w;
  double step = value - *mean;
  *mean = isfinite(step) ? *mean + step * (w / total)
                         : *mean * (*weight / total) + value * (w / total);
  *weight = total;
}

/* Folds row i of rep, just read into in (report index report), into its
 * merged row. Returns 0, -1 with why, or -2. */
static int fold_row(occ_run_merge *m, occ_rank_report *rep, uint32_t report,
                    size_t i, occ_rank_report_row in, char *why,
                    size_t why_size) {
  uint64_t hash = hash_bytes(m->seed, in.key, in.key_size);
  uint32_t at = table_find(m, m->row_table, hash, same_row, &in);
  if (at == OCC_MERGE_NONE) at = new_row(m, rep, &in, hash);
  if (at == OCC_MERGE_NONE) return -2;
  occ_merge_row *r = &m->rows[at];
  /* A run report has one row per configuration: a second one is forged,
   * and would count the report twice among the row's ranks. */
  if (r->rank_count && r->ranks[r->rank_count - 1].report == report)
  {
    occ_whyf(why, why_size, "rows[%zu] repeats an earlier row's "
             "configuration (a run report has one row per configuration)", i);
    return -1;
  }
  if (r->launch_count + in.launch_count > OCC_RANK_REPORT_MAX ||
      r->total_time_us + in.total_time_us > OCC_RANK_REPORT_MAX) {
    occ_whyf(why, why_size,
             "rows[%zu]: its launch count or total time summed over the "
             "reports passes %.0f, past which a sum loses digits",
             i, OCC_RANK_REPORT_MAX);
    return -1;
  }
  if (grow(&r->ranks, r->rank_count, &r->rank_capacity, sizeof *r->ranks) != 0)
    return -2;
  r->ranks[r->rank_count++] = (occ_merge_rank){
      .report = report,
      .device_ordinal = (int32_t)in.device_ordinal,
      .launch_count = in.launch_count,
      .counter_launch_count = in.counter_launch_count,
      .total_time_us = in.total_time_us,
      .achieved_occupancy = in.achieved_known ? in.achieved_occupancy : NAN};
  r->launch_count += in.launch_count;
  r->counter_launch_count += in.counter_launch_count;
  r->total_time_us += in.total_time_us;
  double measured = in.counter_launch_count;
  if (in.achieved_known && measured > 0)
    add_to_mean(&r->achieved_occupancy, &r->achieved_weight,
                in.achieved_occupancy, measured);
  occ_rank_report_metric metric;
  while (occ_rank_report_next_metric(&in, &metric)) {
    occ_merge_metric *sum = metric_of(m, at, metric.name);
    if (!sum) return -2;
    if (metric.known && measured > 0)
      add_to_mean(&sum->mean, &sum->weight, metric.value, measured);
  }
  return 0;
}

static int add_report(occ_run_merge *m, const char *label,
                      const occ_rank_report_head *h) {
  if (grow(&m->reports, m->report_count, &m->report_capacity,
           sizeof *m->reports) != 0)
    return -2;
  occ_merge_report *r = &m->reports[m->report_count];
  *r = (occ_merge_report){
      .label = strdup(label),
      .program = h->program ? strdup(h->program) : NULL,
      .exit_status = h->exit_status,
      .exit_status_known = h->exit_status_known,
      .launch_count = h->launch_count,
      .profiled_launch_count = h->profiled_launch_count,
      .profiled_known = h->profiled_known,
      .overhead_s = h->overhead_s,
      .overhead_known = h->overhead_known};
  if (!r->label || (h->program && !r->program)) {
    free(r->label);
    free(r->program);
    return -2;
  }
  m->report_count++;
  return 0;
}

int occ_run_merge_add(occ_run_merge *m, const char *label, const char *text,
                      size_t size, char *why, size_t why_size) {
  occ_rank_report *rep;
  if (occ_rank_report_open(text, size, &rep) != 0) return -2;
  uint32_t report = (uint32_t)m->report_count;
  occ_rank_report_row in;
  int rc;
  size_t i = 0;
  /* The report's entry is added once it is read whole; its rows name it
   * by its index meanwhile. */
  while ((rc = occ_rank_report_next(rep, &in, why, why_size)) == 1)
    if ((rc = fold_row(m, rep, report, i++, in, why, why_size)) != 0) break;
  const occ_rank_report_head *h = occ_rank_report_head_of(rep);
  if (rc == 0 && m->launch_count + h->launch_count > OCC_RANK_REPORT_MAX) {
    occ_whyf(why, why_size, "the launch count summed over the reports "
             "passes %.0f, past which a sum loses digits",
             OCC_RANK_REPORT_MAX);
    rc = -1;
  }
  if (rc == 0) rc = add_report(m, label, h);
  if (rc == 0) {
    m->launch_count += h->launch_count;
    m->overhead_s += h->overhead_s;
    m->overhead_known |= h->overhead_known;
  }
  occ_rank_report_free(rep);
  return rc;
}

/* Grows *array to hold need items. */
static int reserve(void *array, size_t need, size_t *capacity, size_t size) {
  while (*capacity < need)
    if (grow(array, *capacity, capacity, size) != 0) return -2;
  return 0;
}

/* from's row r added to m, its ranks' reports shifted by shift (its
 * strings moved when the configuration is new to m). Returns 0, -1 with
 * why (a sum past the limit) or -2. */
static int absorb_row(occ_run_merge *m, occ_run_merge *from, uint32_t r,
                      uint32_t shift, char *why, size_t why_size) {
  occ_merge_row *src = &from->rows[r];
  occ_rank_report_row probe = {.key = src->key, .key_size = src->key_size};
  uint64_t hash = hash_bytes(m->seed, src->key, src->key_size);
  uint32_t at = table_find(m, m->row_table, hash, same_row, &probe);
  if (at == OCC_MERGE_NONE) {
    if (grow(&m->rows, m->row_count, &m->row_capacity, sizeof *m->rows) != 0 ||
        table_put(m->row_table, hash, (uint32_t)m->row_count) != 0)
      return -2;
    at = (uint32_t)m->row_count++;
    m->rows[at] = (occ_merge_row){
        .key = src->key,
        .key_size = src->key_size,
        .hash = hash,
        .json = src->json,
        .name = src->name,
        .mangled_name = src->mangled_name,
        .theoretical_occupancy = src->theoretical_occupancy,
        .theoretical_known = src->theoretical_known,
        .first_metric = OCC_MERGE_NONE,
        .last_metric = OCC_MERGE_NONE};
    memcpy(m->rows[at].grid, src->grid, sizeof src->grid);
    memcpy(m->rows[at].block, src->block, sizeof src->block);
    src->key = NULL;
    src->json = src->name = src->mangled_name = NULL;
  }
  occ_merge_row *dst = &m->rows[at];
  if (dst->launch_count + src->launch_count > OCC_RANK_REPORT_MAX ||
      dst->total_time_us + src->total_time_us > OCC_RANK_REPORT_MAX) {
    occ_whyf(why, why_size,
             "a configuration's launch count or total time summed over the "
             "reports passes %.0f, past which a sum loses digits",
             OCC_RANK_REPORT_MAX);
    return -1;
  }
  if (reserve(&dst->ranks, dst->rank_count + src->rank_count,
              &dst->rank_capacity, sizeof *dst->ranks) != 0)
    return -2;
  for (size_t k = 0; k < src->rank_count; k++) {
    dst->ranks[dst->rank_count] = src->ranks[k];
    dst->ranks[dst->rank_count++].report += shift;
  }
  /* Freed as it is copied: the two halves' figures are not held whole
   * twice (512 ranks of 5,000 configurations: 100 MB). */
  free(src->ranks);
  src->ranks = NULL;
  src->rank_count = src->rank_capacity = 0;
  dst->launch_count += src->launch_count;
  dst->counter_launch_count += src->counter_launch_count;
  dst->total_time_us += src->total_time_us;
  if (src->achieved_weight > 0)
    add_to_mean(&dst->achieved_occupancy, &dst->achieved_weight,
                src->achieved_occupancy, src->achieved_weight);
  for (uint32_t x = src->first_metric; x != OCC_MERGE_NONE;
       x = from->metrics[x].next) {
    const occ_merge_metric *mine = &from->metrics[x];
    occ_merge_metric *sum = metric_of(m, at, from->metric_names[mine->name]);
    if (!sum) return -2;
    if (mine->weight > 0)
      add_to_mean(&sum->mean, &sum->weight, mine->mean, mine->weight);
  }
  return 0;
}

int occ_run_merge_absorb(occ_run_merge *m, occ_run_merge *from, char *why,
                         size_t why_size) {
  if (m->launch_count + from->launch_count > OCC_RANK_REPORT_MAX) {
    occ_whyf(why, why_size, "the launch count summed over the reports "
             "passes %.0f, past which a sum loses digits",
             OCC_RANK_REPORT_MAX);
    return -1;
  }
  uint32_t shift = (uint32_t)m->report_count;
  if (reserve(&m->reports, m->report_count + from->report_count,
              &m->report_capacity, sizeof *m->reports) != 0)
    return -2;
  for (size_t i = 0; i < from->report_count; i++) {
    m->reports[m->report_count++] = from->reports[i];
    from->reports[i].label = from->reports[i].program = NULL;
  }
  for (uint32_t r = 0; r < from->row_count; r++) {
    int rc = absorb_row(m, from, r, shift, why, why_size);
    if (rc != 0) return rc;
  }
  m->launch_count += from->launch_count;
  m->overhead_s += from->overhead_s;
  m->overhead_known |= from->overhead_known;
  return 0;
}
