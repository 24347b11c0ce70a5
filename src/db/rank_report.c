/* rank_report.c - one rank's run --json report, read a row at a time
 * (see rank_report.h).
 *
 * A job's reports are large (a rank of 5,000 configurations with C++
 * template names is about 25 MB) and many. The top level is tokenized
 * here (braces, commas, colons, white space) and every value, each row
 * among them, is parsed by cJSON on its own into an arena that the next
 * row reuses: a row is checked and folded while it is in the cache, and
 * a report never costs more memory than its text. cJSON's hooks are
 * global; they point at the arena only while cJSON parses. */
#include "db/rank_report.h"

#include "text/why.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* cJSON's type tests, inline: the checks walk every node. */
static inline int type_of(const cJSON *v) { return v ? v->type & 0xff : 0; }
#define IS(v, t) (type_of(v) == cJSON_##t)

/* ---- arenas ---- */

typedef struct block {
  struct block *next;
  size_t used, size;
  _Alignas(16) unsigned char bytes[];
} block;

typedef struct arena {
  block *first, *current;
  bool failed;
} arena;

#define BLOCK_BYTES ((size_t)1 << 20)

/* The arena cJSON allocates from while this thread parses (the hooks
 * take no context), and whether the hooks stay installed for several
 * threads (occ_rank_report_hold_hooks). */
static _Thread_local arena *parsing;
static bool hooks_held;

static void *arena_alloc(size_t size) {
  arena *a = parsing;
  /* Held hooks reach a thread that is not parsing only through a caller's
   * mistake: its memory is then never freed, rather than freed wrong. */
  if (!a) return malloc(size);
  size = (size + 15) & ~(size_t)15;
  block *b = a->current;
  while (b && b->size - b->used < size && b->next) {
    b = b->next;
    b->used = 0;
  }
  if (!b || b->size - b->used < size) {
    size_t want = size > BLOCK_BYTES ? size : BLOCK_BYTES;
    block *fresh = malloc(sizeof *fresh + want);
    if (!fresh) {
      a->failed = true;
      return NULL;
    }
    *fresh = (block){.size = want};
    if (b) {
      fresh->next = b->next;
      b->next = fresh;
    } else {
      a->first = fresh;
    }
    b = fresh;
  }
  a->current = b;
  void *p = b->bytes + b->used;
  b->used += size;
  return p;
}

/* Freed with the arena, whole. */
static void arena_free(void *p) { (void)p; }

/* Everything allocated in a is dropped; its blocks are kept. */
static void arena_reset(arena *a) {
  a->current = a->first;
  if (a->first) a->first->used = 0;
}

static void arena_drop(arena *a) {
  for (block *b = a->first; b;) {
    block *next = b->next;
    free(b);
    b = next;
  }
  *a = (arena){0};
}

static void use_arena(arena *a) {
  parsing = a;
  if (a) a->failed = false;
  if (hooks_held) return;
  cJSON_Hooks hooks = {arena_alloc, arena_free};
  cJSON_InitHooks(a ? &hooks : NULL);
}

void occ_rank_report_hold_hooks(bool hold) {
  cJSON_Hooks hooks = {arena_alloc, arena_free};
  cJSON_InitHooks(hold ? &hooks : NULL);
  hooks_held = hold;
}

/* One value of text parsed by cJSON into a, *end after it (or where the
 * parse failed). */
static cJSON *parse_value(arena *a, const char *text, size_t size,
                          const char **end) {
  use_arena(a);
  cJSON *v = cJSON_ParseWithLengthOpts(text, size, end, false);
  use_arena(NULL);
  return v;
}

/* ---- the report ---- */

/* A row's fields that the merge reads, found in one pass over the row. */
enum {
  F_KERNEL, F_DEVICE_ORDINAL, F_GRID, F_CLUSTER, F_LAUNCH_TYPE,
  F_SMEM_EXECUTED, F_LAUNCH_COUNT, F_COUNTER_LAUNCH_COUNT, F_TOTAL_TIME,
  F_ACHIEVED, F_THEORETICAL, F_METRICS, F_RANKS, F_COUNT
};
static const char *const field_names[F_COUNT] = {
    "kernel", "device_ordinal", "grid", "cluster", "launch_type",
    "smem_executed_bytes", "launch_count", "counter_launch_count",
    "total_time_us", "achieved_occupancy", "theoretical_occupancy",
    "metrics", "ranks"};

/* The fields that make a configuration, in the order of its key. The
 * device is not one: ranks on different GPUs run the same configuration. */
static const int key_fields[] = {F_KERNEL, F_GRID, F_CLUSTER, F_LAUNCH_TYPE,
                                 F_SMEM_EXECUTED, F_THEORETICAL};

typedef struct row_fields {
  const cJSON *row;
  const cJSON *at[F_COUNT];
} row_fields;

/* Where the reader is in the report's text. */
typedef enum { AT_START, AT_KEY, IN_ROWS, AT_END, DONE } place;

struct occ_rank_report {
  const char *text;
  size_t size, at; /* the next byte to read */
  place place;
  arena head_arena, row_arena;
  cJSON *head;     /* the top level but its rows (an empty array) */
  row_fields row;  /* the row last read */
  int row_index;
  double row_launches; /* the rows' launch counts, summed */
  occ_rank_report_head figures;
  unsigned char *key; /* the row's key */
  size_t key_size, key_capacity;
};

/* Writes why a report is refused; -1. */
#define bad(why, size, ...) (occ_whyf(why, size, __VA_ARGS__), -1)

static bool is_count(const cJSON *v, double most) {
  return IS(v, Number) && v->valuedouble >= 0 && v->valuedouble <= most &&
         v->valuedouble == floor(v->valuedouble);
}

static bool is_number_in(const cJSON *v, double lo, double hi) {
  return IS(v, Number) && isfinite(v->valuedouble) &&
         v->valuedouble >= lo && v->valuedouble <= hi;
}

static bool number_or_null(const cJSON *v, double lo, double hi) {
  return IS(v, NULL) || is_number_in(v, lo, hi);
}

static bool dims(const cJSON *v) {
  if (!IS(v, Array)) return false;
  int n = 0;
  for (const cJSON *d = v->child; d; d = d->next, n++)
    if (!is_count(d, INT32_MAX))
      return false;
  return n == 3;
}

/* A key's hash, eight bytes at a time (a duplicate check hashes every
 * key of the report). */
static uint64_t key_hash(const char *s) {
  size_t n = strlen(s);
  uint64_t h = n * 0x9e3779b97f4a7c15ull;
  for (; n >= 8; n -= 8, s += 8) {
    uint64_t w;
    memcpy(&w, s, 8);
    h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 29;
  }
  uint64_t tail = 0;
  memcpy(&tail, s, n);
  h = (h ^ tail) * 0x94d049bb133111ebull;
  return h ^ h >> 32;
}


/* The first key of obj that it holds twice, or NULL. Few keys are
 * compared pairwise; more go through a hash set, so that an object of
 * 40,000 metrics costs 40,000 lookups, not 800 million comparisons. */
static const char *twice_in(const cJSON *obj, int *oom) {
  size_t n = 0;
  for (const cJSON *c = obj->child; c; c = c->next) n++;
  if (n <= 8) {
    for (const cJSON *a = obj->child; a; a = a->next)
      for (const cJSON *b = a->next; b; b = b->next)
        if (strcmp(a->string, b->string) == 0) return a->string;
    return NULL;
  }
  size_t capacity = 16;
  while (capacity < 2 * n) capacity *= 2;
  const char *local[128];
  const char **set = capacity <= 128 ? local : calloc(capacity, sizeof *set);
  if (!set) {
    *oom = 1;
    return NULL;
  }
  if (set == local) memset(local, 0, sizeof local);
  const char *found = NULL;
  for (const cJSON *c = obj->child; c && !found; c = c->next) {
    size_t at = (size_t)key_hash(c->string) & (capacity - 1);
    while (set[at] && strcmp(set[at], c->string) != 0)
      at = (at + 1) & (capacity - 1);
    if (set[at]) found = c->string;
    set[at] = c->string;
  }
  if (set != local) free((void *)set);
  return found;
}

/* The path of v, the last of depth nested values from the root
 * (stack[0]), into buf: "rows[3].kernel". Made only for the message. */
static void path_of(const cJSON *const *stack, int depth, char *buf,
                    size_t size) {
  size_t n = 0;
  buf[0] = '\0';
  for (int d = 1; d < depth && n < size; d++) {
    const cJSON *parent = stack[d - 1], *v = stack[d];
    int w;
    if (cJSON_IsObject(parent)) {
      w = snprintf(buf + n, size - n, "%s%.40s", n ? "." : "", v->string);
    } else {
      int index = 0;
      for (const cJSON *c = parent->child; c && c != v; c = c->next) index++;
      w = snprintf(buf + n, size - n, "[%d]", index);
    }
    n = w > 0 && (size_t)w < size - n ? n + (size_t)w : size;
  }
}

/* Refuses a key held twice anywhere under the last of stack's depth
 * values (cJSON's parser nests 1,000 deep at most). */
static int no_key_twice(const cJSON **stack, int depth, char *why,
                        size_t size) {
  const cJSON *v = stack[depth - 1];
  if (IS(v, Object)) {
    int oom = 0;
    const char *twice = twice_in(v, &oom);
    if (oom) return -2;
    if (twice) {
      char path[160];
      path_of(stack, depth, path, sizeof path);
      return bad(why, size, "%s%s\"%.80s\" is given twice (a key is given "
                 "once)", path, path[0] ? ": " : "", twice);
    }
  }
  if (depth >= CJSON_NESTING_LIMIT + 2) return 0;
  for (const cJSON *c = v->child; c; c = c->next) {
    if (!IS(c, Object) && !IS(c, Array)) continue;
    stack[depth] = c;
    int rc = no_key_twice(stack, depth + 1, why, size);
    if (rc != 0) return rc;
  }
  return 0;
}

static void gather(const cJSON *row, row_fields *f) {
  memset(f, 0, sizeof *f);
  f->row = row;
  for (const cJSON *c = row->child; c; c = c->next)
    for (int i = 0; i < F_COUNT; i++)
      if (c->string[0] == field_names[i][0] &&
          strcmp(c->string, field_names[i]) == 0) {
        f->at[i] = c;
        break;
      }
}

static const cJSON *member(const cJSON *obj, const char *key) {
  return cJSON_GetObjectItemCaseSensitive(obj, key);
}

/* A row's fields that the merge reads, each of its type and range. */
static int check_row(const cJSON *row, row_fields *out, int index, char *why,
                     size_t size) {
  if (!cJSON_IsObject(row))
    return bad(why, size, "rows[%d] is not an object", index);
  row_fields f;
  gather(row, &f);
  *out = f;
  if (f.at[F_RANKS])
    return bad(why, size, "rows[%d].ranks: a merged report's field, not a "
               "run report's (occcalc report reads run --json reports)",
               index);
  const cJSON *kernel = f.at[F_KERNEL];
  const cJSON *launches = f.at[F_LAUNCH_COUNT];
  const cJSON *measured = f.at[F_COUNTER_LAUNCH_COUNT];
  const cJSON *metrics = f.at[F_METRICS];
  const cJSON *block = member(kernel, "block");
  struct {
    const char *name;
    bool ok;
  } fields[] = {
      {"kernel",
       cJSON_IsObject(kernel) && cJSON_IsString(member(kernel, "name"))},
      {"kernel.mangled_name",
       cJSON_IsObject(kernel) && cJSON_IsString(member(kernel, "mangled_name"))},
      {"kernel.block", !block || dims(block)},
      {"device_ordinal", is_count(f.at[F_DEVICE_ORDINAL], INT32_MAX)},
      {"grid", dims(f.at[F_GRID])},
      {"cluster", dims(f.at[F_CLUSTER])},
      {"launch_type", cJSON_IsString(f.at[F_LAUNCH_TYPE])},
      {"launch_count", is_count(launches, 1e15) && launches->valuedouble >= 1},
      {"counter_launch_count",
       is_count(measured, 1e15) && launches &&
           measured->valuedouble <= launches->valuedouble},
      {"total_time_us",
       is_number_in(f.at[F_TOTAL_TIME], 0, OCC_RANK_REPORT_MAX)},
      {"achieved_occupancy", number_or_null(f.at[F_ACHIEVED], 0, 1)},
      {"theoretical_occupancy", number_or_null(f.at[F_THEORETICAL], 0, 1)},
      {"metrics", !metrics || cJSON_IsObject(metrics)}};
  for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
    if (!fields[i].ok)
      return bad(why, size, "rows[%d].%s is missing or out of range", index,
                 fields[i].name);
  for (const cJSON *v = metrics ? metrics->child : NULL; v; v = v->next)
    if (!number_or_null(v, -HUGE_VAL, HUGE_VAL))
      return bad(why, size,
                 "rows[%d].metrics.%.80s is not a finite number or null",
                 index, v->string);
  return 0;
}

static int check_head(const cJSON *doc, char *why, size_t size) {
  if (!cJSON_IsObject(doc))
    return bad(why, size, "not an object: not an occcalc run --json report");
  const cJSON *schema = member(doc, "schema");
  if (!cJSON_IsNumber(schema))
    return bad(why, size, "no schema: not an occcalc run --json report");
  if (schema->valuedouble != OCC_RANK_REPORT_SCHEMA)
    return bad(why, size, "schema %g, not %d (occcalc run --json's)",
               schema->valuedouble, OCC_RANK_REPORT_SCHEMA);
  if (member(doc, "merged_reports"))
    return bad(why, size, "a merged report (occcalc report --json's), not "
               "a run --json report: merge the ranks' own reports");
  if (!cJSON_IsArray(member(doc, "rows")))
    return bad(why, size,
               "no rows: not an occcalc run --json report "
               "(a --jsonl stream or another command's JSON?)");
  if (!is_count(member(doc, "launch_count"), OCC_RANK_REPORT_MAX))
    return bad(why, size, "launch_count is missing or out of range");
  /* What the library cost the rank (run's "counters"): absent in reports
   * written before it existed. */
  const cJSON *counters = member(doc, "counters");
  if (counters && !cJSON_IsObject(counters))
    return bad(why, size, "counters is not an object");
  if (counters &&
      (!number_or_null(member(counters, "overhead_s"), 0, 3.2e7) ||
       !number_or_null(member(counters, "profiled_launch_count"), 0, 1e15)))
    return bad(why, size, "counters.overhead_s or .profiled_launch_count is "
               "not a number in range or null");
  const cJSON *status = member(doc, "exit_status");
  if (status && !cJSON_IsNull(status) && !is_number_in(status, -1e9, 1e9))
    return bad(why, size, "exit_status is not a number in range or null");
  return 0;
}

static void read_head(const cJSON *doc, occ_rank_report_head *h) {
  const cJSON *program = member(doc, "program");
  const cJSON *status = member(doc, "exit_status");
  const cJSON *counters = member(doc, "counters");
  const cJSON *overhead = member(counters, "overhead_s");
  const cJSON *profiled = member(counters, "profiled_launch_count");
  *h = (occ_rank_report_head){
      .program = cJSON_IsString(program) ? program->valuestring : NULL,
      .exit_status = cJSON_IsNumber(status) ? status->valuedouble : 0,
      .exit_status_known = cJSON_IsNumber(status),
      .launch_count = member(doc, "launch_count")->valuedouble,
      .profiled_launch_count =
          cJSON_IsNumber(profiled) ? profiled->valuedouble : 0,
      .profiled_known = cJSON_IsNumber(profiled),
      .overhead_s = cJSON_IsNumber(overhead) ? overhead->valuedouble : 0,
      .overhead_known = cJSON_IsNumber(overhead)};
}

/* ---- a row's key: canonical bytes of its configuration ---- */

static bool put(occ_rank_report *r, const void *bytes, size_t n) {
  if (r->key_capacity - r->key_size < n) {
    size_t capacity = r->key_capacity ? r->key_capacity : 4096;
    while (capacity - r->key_size < n) capacity *= 2;
    unsigned char *grown = realloc(r->key, capacity);
    if (!grown) return false;
    r->key = grown;
    r->key_capacity = capacity;
  }
  memcpy(r->key + r->key_size, bytes, n);
  r->key_size += n;
  return true;
}

static bool put_string(occ_rank_report *r, char tag, const char *s) {
  size_t len = strlen(s);
  uint32_t n = (uint32_t)len;
  return put(r, &tag, 1) && put(r, &n, sizeof n) && put(r, s, len);
}

/* v's type and value (an object's keys in order): a missing value is
 * null, as it reads. */
static bool put_value(occ_rank_report *r, const cJSON *v) {
  if (!v || cJSON_IsNull(v)) return put(r, "z", 1);
  if (cJSON_IsFalse(v)) return put(r, "f", 1);
  if (cJSON_IsTrue(v)) return put(r, "t", 1);
  if (cJSON_IsNumber(v)) {
    double d = v->valuedouble == 0 ? 0 : v->valuedouble; /* -0 is 0 */
    return put(r, "n", 1) && put(r, &d, sizeof d);
  }
  if (cJSON_IsString(v)) return put_string(r, 's', v->valuestring);
  bool object = cJSON_IsObject(v);
  if (!put(r, object ? "{" : "[", 1)) return false;
  for (const cJSON *c = v->child; c; c = c->next)
    if ((object && !put_string(r, 'k', c->string)) || !put_value(r, c))
      return false;
  return put(r, "}", 1);
}

static void dims_of(const cJSON *v, int64_t out[3]) {
  int i = 0;
  for (const cJSON *d = v ? v->child : NULL; d && i < 3; d = d->next)
    out[i++] = (int64_t)d->valuedouble;
}

/* The row last read as figures and key. Returns 0, or -2 out of memory. */
static int row_figures(occ_rank_report *r, occ_rank_report_row *row) {
  const row_fields f = r->row;
  r->key_size = 0;
  for (size_t k = 0; k < sizeof key_fields / sizeof *key_fields; k++)
    if (!put_value(r, f.at[key_fields[k]])) return -2;
  const cJSON *kernel = f.at[F_KERNEL];
  const cJSON *achieved = f.at[F_ACHIEVED];
  const cJSON *theoretical = f.at[F_THEORETICAL];
  const cJSON *metrics = f.at[F_METRICS];
  *row = (occ_rank_report_row){
      .key = r->key,
      .key_size = r->key_size,
      .name = member(kernel, "name")->valuestring,
      .mangled_name = member(kernel, "mangled_name")->valuestring,
      .theoretical_occupancy =
          cJSON_IsNumber(theoretical) ? theoretical->valuedouble : 0,
      .theoretical_known = cJSON_IsNumber(theoretical),
      .device_ordinal = (int64_t)f.at[F_DEVICE_ORDINAL]->valuedouble,
      .launch_count = f.at[F_LAUNCH_COUNT]->valuedouble,
      .counter_launch_count = f.at[F_COUNTER_LAUNCH_COUNT]->valuedouble,
      .total_time_us = f.at[F_TOTAL_TIME]->valuedouble,
      .achieved_occupancy = cJSON_IsNumber(achieved) ? achieved->valuedouble : 0,
      .achieved_known = cJSON_IsNumber(achieved),
      .metric_at = metrics ? metrics->child : NULL};
  dims_of(f.at[F_GRID], row->grid);
  dims_of(member(kernel, "block"), row->block);
  return 0;
}

bool occ_rank_report_next_metric(occ_rank_report_row *row,
                                 occ_rank_report_metric *m) {
  const cJSON *v = row->metric_at;
  if (!v) return false;
  *m = (occ_rank_report_metric){.name = v->string,
                                .value = cJSON_IsNumber(v) ? v->valuedouble : 0,
                                .known = cJSON_IsNumber(v)};
  row->metric_at = v->next;
  return true;
}

char *occ_rank_report_row_json(occ_rank_report *r) {
  /* Per-launch records and the rank's own verdicts stay in the rank
   * files: the merged row recomputes what it can. */
  static const char *const dropped[] = {
      "launches", "device_ordinal", "device", "cause", "achieved_null_reason",
      "metrics"};
  /* Made in the row's arena, which the next row reuses; the text is
   * copied out. */
  use_arena(&r->row_arena);
  cJSON *shown = cJSON_CreateObject();
  bool ok = shown != NULL;
  for (cJSON *c = r->row.row->child; ok && c; c = c->next) {
    bool drop = false;
    for (size_t d = 0; d < sizeof dropped / sizeof *dropped; d++)
      drop |= strcmp(c->string, dropped[d]) == 0;
    /* A reference: printed, never copied. */
    ok = drop || cJSON_AddItemReferenceToObject(shown, c->string, c);
  }
  char *text = ok ? cJSON_PrintUnformatted(shown) : NULL;
  use_arena(NULL);
  return text ? strdup(text) : NULL;
}

/* ---- the reader ---- */

int occ_rank_report_open(const char *text, size_t size, occ_rank_report **out) {
  occ_rank_report *r = calloc(1, sizeof *r);
  *out = r;
  if (!r) return -2;
  r->text = text;
  r->size = size;
  return 0;
}

void occ_rank_report_free(occ_rank_report *r) {
  if (!r) return;
  /* The trees live in the arenas: no cJSON_Delete. */
  arena_drop(&r->head_arena);
  arena_drop(&r->row_arena);
  free(r->key);
  free(r);
}

const occ_rank_report_head *occ_rank_report_head_of(const occ_rank_report *r) {
  return &r->figures;
}

static void skip_space(occ_rank_report *r) {
  while (r->at < r->size &&
         (r->text[r->at] == ' ' || r->text[r->at] == '\n' ||
          r->text[r->at] == '\t' || r->text[r->at] == '\r'))
    r->at++;
}

static int not_json(occ_rank_report *r, size_t at, char *why, size_t size) {
  return bad(why, size, "not JSON (invalid or cut short at byte %zu of %zu)",
             at, r->size);
}

/* The value at r->at, parsed into a; NULL after why (*rc -1, or -2 out
 * of memory). */
static cJSON *value_at(occ_rank_report *r, arena *a, int *rc, char *why,
                       size_t size) {
  const char *end = NULL;
  cJSON *v = parse_value(a, r->text + r->at, r->size - r->at, &end);
  if (!v) {
    if (a->failed) {
      *rc = -2;
    } else {
      size_t at = end && end >= r->text && end <= r->text + r->size
                      ? (size_t)(end - r->text) : r->size;
      *rc = not_json(r, at, why, size);
    }
    return NULL;
  }
  r->at = (size_t)(end - r->text);
  return v;
}

/* After a value at the top level or in rows: skips to the next one
 * (past a comma: *more) or to the closing character. Returns 0 or -1. */
static int after_value(occ_rank_report *r, char close, bool *more, char *why,
                       size_t size) {
  skip_space(r);
  if (r->at < r->size && r->text[r->at] == ',') {
    r->at++;
    *more = true;
    return 0;
  }
  if (r->at < r->size && r->text[r->at] == close) {
    r->at++;
    *more = false;
    return 0;
  }
  return not_json(r, r->at, why, size);
}

/* Checks a value of the top level as soon as it is read: what makes the
 * file another kind of document is said before its rows are read. */
static int check_early(const char *key, const cJSON *v, char *why,
                       size_t size) {
  if (strcmp(key, "schema") == 0 && !IS(v, Number))
    return bad(why, size, "no schema: not an occcalc run --json report");
  if (strcmp(key, "schema") == 0 && v->valuedouble != OCC_RANK_REPORT_SCHEMA)
    return bad(why, size, "schema %g, not %d (occcalc run --json's)",
               v->valuedouble, OCC_RANK_REPORT_SCHEMA);
  if (strcmp(key, "merged_reports") == 0)
    return bad(why, size, "a merged report (occcalc report --json's), not "
               "a run --json report: merge the ranks' own reports");
  return 0;
}

/* Reads the top level from r->at to its rows (IN_ROWS) or its end
 * (AT_END). Returns 0, -1 or -2. */
static int read_keys(occ_rank_report *r, char *why, size_t size) {
  const cJSON *stack[CJSON_NESTING_LIMIT + 2];
  for (;;) {
    skip_space(r);
    if (r->at < r->size && r->text[r->at] == '}') {
      r->at++;
      r->place = AT_END;
      return 0;
    }
    if (r->at >= r->size || r->text[r->at] != '"')
      return not_json(r, r->at, why, size);
    int rc = 0;
    cJSON *key = value_at(r, &r->head_arena, &rc, why, size);
    if (!key) return rc;
    skip_space(r);
    if (r->at >= r->size || r->text[r->at] != ':')
      return not_json(r, r->at, why, size);
    r->at++;
    skip_space(r);
    if (strcmp(key->valuestring, "rows") == 0 && r->at < r->size &&
        r->text[r->at] == '[') {
      /* The rows are read one at a time; the head holds an empty array
       * in their place, so that a second "rows" is a key given twice. */
      r->at++;
      use_arena(&r->head_arena);
      bool added = cJSON_AddArrayToObject(r->head, "rows") != NULL;
      use_arena(NULL);
      if (!added) return -2;
      skip_space(r);
      if (r->at < r->size && r->text[r->at] == ']') {
        r->at++;
        bool more;
        if (after_value(r, '}', &more, why, size) != 0) return -1;
        if (!more) {
          r->place = AT_END;
          return 0;
        }
        continue;
      }
      r->place = IN_ROWS;
      return 0;
    }
    cJSON *v = value_at(r, &r->head_arena, &rc, why, size);
    if (!v) return rc;
    if ((rc = check_early(key->valuestring, v, why, size)) != 0) return rc;
    stack[0] = v;
    if ((rc = no_key_twice(stack, 1, why, size)) != 0) {
      char inner[400];
      snprintf(inner, sizeof inner, "%s", why);
      occ_whyf(why, size, "%.80s%s%s", key->valuestring,
               inner[0] == '"' ? ": " : ".", inner);
      return rc;
    }
    /* The key string is the arena's: the item takes it as it is. */
    v->string = key->valuestring;
    cJSON *last = r->head->child ? r->head->child->prev : NULL;
    if (last) {
      last->next = v;
      v->prev = last;
    } else {
      r->head->child = v;
    }
    r->head->child->prev = v;
    bool more;
    if (after_value(r, '}', &more, why, size) != 0) return -1;
    if (!more) {
      r->place = AT_END;
      return 0;
    }
  }
}

/* The end of the report: nothing after it, and the top level checked
 * whole. Returns 0, -1 or -2. */
static int check_end(occ_rank_report *r, char *why, size_t size) {
  skip_space(r);
  if (r->at < r->size)
    return bad(why, size, "not one JSON document (more after byte %zu)",
               r->at);
  /* Each value was checked as it was read: the top level's own keys. */
  int oom = 0;
  const char *twice = twice_in(r->head, &oom);
  if (oom) return -2;
  if (twice)
    return bad(why, size, "\"%.80s\" is given twice (a key is given once)",
               twice);
  if (check_head(r->head, why, size) != 0) return -1;
  read_head(r->head, &r->figures);
  if (r->row_launches != r->figures.launch_count)
    return bad(why, size,
               "launch_count %.0f, but its rows' launch counts sum to %.0f",
               r->figures.launch_count, r->row_launches);
  return 0;
}

/* The row at r->at, checked, into r->row. Returns 0, -1 or -2. */
static int read_row(occ_rank_report *r, char *why, size_t size) {
  arena_reset(&r->row_arena);
  int rc = 0;
  cJSON *row = value_at(r, &r->row_arena, &rc, why, size);
  if (!row) return rc;
  int index = r->row_index++;
  const cJSON *stack[CJSON_NESTING_LIMIT + 2];
  stack[0] = row;
  if ((rc = no_key_twice(stack, 1, why, size)) != 0) {
    /* The path names the row. */
    char inner[400];
    snprintf(inner, sizeof inner, "%s", why);
    occ_whyf(why, size, "rows[%d]%s%s", index,
             inner[0] == '"' ? ": " : ".", inner);
    return rc;
  }
  if ((rc = check_row(row, &r->row, index, why, size)) != 0) return rc;
  r->row_launches += r->row.at[F_LAUNCH_COUNT]->valuedouble;
  bool more;
  if (after_value(r, ']', &more, why, size) != 0) return -1;
  if (!more) {
    if (after_value(r, '}', &more, why, size) != 0) return -1;
    r->place = more ? AT_KEY : AT_END;
  }
  return 0;
}

static int start(occ_rank_report *r, char *why, size_t size) {
  if (r->size == 0) return bad(why, size, "empty: no report");
  skip_space(r);
  if (r->at >= r->size || r->text[r->at] != '{') {
    /* Valid JSON of another shape, or none. */
    int rc = 0;
    if (!value_at(r, &r->head_arena, &rc, why, size)) return rc;
    skip_space(r);
    if (r->at < r->size)
      return bad(why, size, "not one JSON document (more after byte %zu)",
                 r->at);
    return bad(why, size, "not an object: not an occcalc run --json report");
  }
  r->at++;
  use_arena(&r->head_arena);
  r->head = cJSON_CreateObject();
  use_arena(NULL);
  if (!r->head) return -2;
  skip_space(r);
  if (r->at < r->size && r->text[r->at] == '}') {
    r->at++;
    r->place = AT_END;
  } else {
    r->place = AT_KEY;
  }
  return 0;
}

int occ_rank_report_next(occ_rank_report *r, occ_rank_report_row *row,
                         char *why, size_t why_size) {
  int rc = 0;
  for (;;) {
    switch (r->place) {
    case AT_START: rc = start(r, why, why_size); break;
    case AT_KEY: rc = read_keys(r, why, why_size); break;
    case IN_ROWS:
      rc = read_row(r, why, why_size);
      if (rc == 0) return row_figures(r, row) == 0 ? 1 : -2;
      break;
    case AT_END:
      rc = check_end(r, why, why_size);
      if (rc == 0) {
        r->place = DONE;
        return 0;
      }
      break;
    case DONE: return 0;
    }
    if (rc != 0) return rc;
  }
}
