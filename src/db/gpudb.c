/* gpudb.c - loads the GPU database with cJSON into its tables
 * (gpudb_tables.h) and answers from the tables; the rest of occcalc sees
 * only occ_device. */
#include "db/gpudb.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/devfields.h"
#include "db/gpudb_tables.h"

#define ALIAS_MAX OCC_GPUDB_ALIAS_MAX
#define NORM_MAX 64
#define FAMILY_MAX 31 /* bytes of a family name kept */
#define EMPTY_STRING 0 /* a parsed pool starts with "" */

typedef occ_gpudb_entry entry;

/* A parsed database owns its entries and its string pool (owned_*, pool);
 * one over compiled-in tables owns neither (they are NULL). */
struct occ_gpudb {
  occ_gpudb_tables t;
  entry *owned_archs, *owned_gpus;
  char *pool;
  size_t pool_cap;
};

static void set_err(char *err, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, size, fmt, ap);
  va_end(ap);
}

/* Lower-case letters and digits only, vendor words dropped. */
static void normalize(const char *in, char out[NORM_MAX]) {
  static const char *const words[] = {"nvidia", "geforce", "tesla", "quadro"};
  char tmp[NORM_MAX];
  size_t n = 0;
  for (; *in && n + 1 < NORM_MAX; in++)
    if (isalnum((unsigned char)*in)) tmp[n++] = (char)tolower((unsigned char)*in);
  tmp[n] = '\0';
  const char *p = tmp;
  for (size_t w = 0; w < sizeof words / sizeof words[0]; w++) {
    size_t len = strlen(words[w]);
    if (strncmp(p, words[w], len) == 0 && p[len]) p += len;
  }
  snprintf(out, NORM_MAX, "%s", p);
}

int occ_parse_cc(const char *text, int *major, int *minor) {
  const char *p = text;
  if (strncmp(p, "sm_", 3) == 0) p += 3;
  else if (strncmp(p, "compute_", 8) == 0) p += 8;
  if (!isdigit((unsigned char)*p)) return -1;
  char *end;
  errno = 0;
  long a = strtol(p, &end, 10);
  if (errno) return -1;
  long b;
  if (*end == '.') {
    p = end + 1;
    if (!isdigit((unsigned char)*p)) return -1;
    b = strtol(p, &end, 10);
    if (b > 9) return -1;
  } else {
    if (p == text || a < 10) return -1; /* "90" alone needs the sm_ form */
    b = a % 10;
    a /= 10;
  }
  if ((*end == 'a' || *end == 'f') && end[1] == '\0' && p != text) end++;
  if (*end != '\0' || a < 1 || a > 99) return -1;
  *major = (int)a;
  *minor = (int)b;
  return 0;
}

static int parse_cc_string(const cJSON *item, int *major, int *minor) {
  if (!cJSON_IsString(item)) return -1;
  const char *s = item->valuestring;
  return strchr(s, '.') ? occ_parse_cc(s, major, minor) : -1;
}

/* Reads the numeric fields present in obj into dev; with required set, a
 * missing one is an error. */
static int read_fields(const cJSON *obj, occ_device *dev, bool required,
                       const char *where, char *err, size_t size) {
  size_t count;
  const occ_device_field *fields = occ_device_fields(&count);
  for (size_t i = 0; i < count; i++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, fields[i].key);
    if (!v) {
      if (required && strcmp(fields[i].key, "sm_count") != 0) {
        set_err(err, size, "%s: missing \"%s\"", where, fields[i].key);
        return -1;
      }
      continue;
    }
    double d = cJSON_IsNumber(v) ? v->valuedouble : -1;
    double max = fields[i].type == OCC_FIELD_INT ? 1e9 : 1e15;
    if (d < 0 || d > max || d != (double)(int64_t)d) {
      set_err(err, size, "%s: \"%s\" must be a whole number from 0 to %.0f",
              where, fields[i].key, max);
      return -1;
    }
    occ_device_field_set(dev, &fields[i], (int64_t)d);
  }
  return 0;
}

static int read_int_array(const cJSON *arr, int64_t *out, int max, int *count,
                          const char *where, const char *key, char *err,
                          size_t size) {
  if (!arr) return 0;
  if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) > max) {
    set_err(err, size, "%s: \"%s\" must be an array of at most %d numbers",
            where, key, max);
    return -1;
  }
  int n = 0;
  const cJSON *v;
  cJSON_ArrayForEach(v, arr) {
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 1e15) {
      set_err(err, size, "%s: \"%s\"[%d] must be a non-negative number", where,
              key, n);
      return -1;
    }
    out[n++] = (int64_t)v->valuedouble;
  }
  *count = n;
  return 0;
}

/* Appends text's first max bytes to the pool, NUL-terminated; its offset
 * in *offset. -1 with the reason in err if out of memory. The pool may
 * move: a string of it is only read through its offset. */
static int pool_add(occ_gpudb *db, const char *text, size_t max,
                    uint32_t *offset, const char *where, char *err, size_t size) {
  size_t len = strnlen(text, max), need = db->t.strings_size + len + 1;
  if (need > db->pool_cap) {
    size_t cap = db->pool_cap ? db->pool_cap : 4096;
    while (cap < need) cap *= 2;
    char *grown = cap <= UINT32_MAX ? realloc(db->pool, cap) : NULL;
    if (!grown) {
      set_err(err, size, "%s: out of memory", where);
      return -1;
    }
    db->pool = grown;
    db->pool_cap = cap;
    db->t.strings = grown;
  }
  memcpy(db->pool + db->t.strings_size, text, len);
  db->pool[db->t.strings_size + len] = '\0';
  *offset = (uint32_t)db->t.strings_size;
  db->t.strings_size = need;
  return 0;
}

/* The entry's source and family; a board without a family of its own keeps
 * its architecture's (inherited, an offset in the pool). */
static int read_strings(occ_gpudb *db, const cJSON *obj, entry *e,
                        uint32_t inherited, const char *where, char *err,
                        size_t size) {
  const cJSON *src = cJSON_GetObjectItemCaseSensitive(obj, "source");
  if (!cJSON_IsString(src) || !*src->valuestring) {
    set_err(err, size, "%s: missing \"source\" (every entry names its source)",
            where);
    return -1;
  }
  const cJSON *fam = cJSON_GetObjectItemCaseSensitive(obj, "family");
  e->family = inherited;
  return pool_add(db, src->valuestring, SIZE_MAX, &e->source, where, err, size) ||
         (cJSON_IsString(fam) &&
          pool_add(db, fam->valuestring, FAMILY_MAX, &e->family, where, err, size));
}

/* Checks the relations the calculator relies on. */
static int check_device(const occ_device *d, const char *where, char *err,
                        size_t size) {
  occ_kernel k;
  occ_result r;
  occ_kernel_init(&k);
  occ_status st = occ_compute(d, &k, &r);
  if (st != OCC_OK) {
    set_err(err, size, "%s: %s", where, occ_strerror(st));
    return -1;
  }
  if (d->smem_config_count > 0 &&
      d->smem_configs_bytes[d->smem_config_count - 1] < d->smem_per_sm_bytes) {
    set_err(err, size,
            "%s: the largest of \"smem_configs_bytes\" must be at least "
            "\"smem_per_sm_bytes\"", where);
    return -1;
  }
  return 0;
}

static int read_arch(occ_gpudb *db, const cJSON *obj, entry *e, size_t index, char *err,
                     size_t size) {
  char where[64];
  snprintf(where, sizeof where, "architectures[%zu]", index);
  memset(e, 0, sizeof *e);
  if (parse_cc_string(cJSON_GetObjectItemCaseSensitive(obj, "cc"),
                      &e->device.cc_major, &e->device.cc_minor) != 0) {
    set_err(err, size, "%s: \"cc\" must be a string like \"9.0\"", where);
    return -1;
  }
  snprintf(where, sizeof where, "architectures[%zu] (cc %d.%d)", index,
           e->device.cc_major, e->device.cc_minor);
  if (read_fields(obj, &e->device, true, where, err, size) ||
      read_strings(db, obj, e, EMPTY_STRING, where, err, size))
    return -1;
  int64_t dims[3] = {0, 0, 0};
  int ndims = 0;
  if (read_int_array(cJSON_GetObjectItemCaseSensitive(obj, "max_block_dim"),
                     dims, 3, &ndims, where, "max_block_dim", err, size))
    return -1;
  if (ndims != 3) {
    set_err(err, size, "%s: \"max_block_dim\" must hold 3 numbers", where);
    return -1;
  }
  for (int i = 0; i < 3; i++) e->device.max_block_dim[i] = (int)dims[i];
  if (read_int_array(cJSON_GetObjectItemCaseSensitive(obj, "smem_configs_bytes"),
                     e->device.smem_configs_bytes, OCC_MAX_SMEM_CONFIGS,
                     &e->device.smem_config_count, where, "smem_configs_bytes",
                     err, size))
    return -1;
  const char *family = occ_gpudb_string(&db->t, e->family);
  snprintf(e->device.name, sizeof e->device.name, "generic sm_%d%d%s%s",
           e->device.cc_major, e->device.cc_minor, family[0] ? " " : "", family);
  return check_device(&e->device, where, err, size);
}

static const entry *find_arch(const occ_gpudb_tables *t, int major, int minor) {
  for (size_t i = 0; i < t->arch_count; i++)
    if (t->archs[i].device.cc_major == major &&
        t->archs[i].device.cc_minor == minor)
      return &t->archs[i];
  return NULL;
}

/* The board's normalized name and aliases, for occ_gpudb_find_gpu. */
static int read_match_keys(occ_gpudb *db, const cJSON *obj, const char *name,
                           entry *e, const char *where, char *err, size_t size) {
  char key[NORM_MAX];
  normalize(name, key);
  if (pool_add(db, key, NORM_MAX, &e->match_keys[0], where, err, size)) return -1;
  const cJSON *aliases = cJSON_GetObjectItemCaseSensitive(obj, "aliases");
  const cJSON *a;
  cJSON_ArrayForEach(a, aliases) {
    if (!cJSON_IsString(a) || e->alias_count >= ALIAS_MAX) {
      set_err(err, size, "%s: \"aliases\" must be at most %d strings", where,
              ALIAS_MAX);
      return -1;
    }
    normalize(a->valuestring, key);
    if (pool_add(db, key, NORM_MAX, &e->match_keys[++e->alias_count], where,
                 err, size))
      return -1;
  }
  return 0;
}

static int read_gpu(occ_gpudb *db, const cJSON *obj, entry *e,
                    size_t index, char *err, size_t size) {
  char where[96];
  snprintf(where, sizeof where, "gpus[%zu]", index);
  const cJSON *name = cJSON_GetObjectItemCaseSensitive(obj, "name");
  if (!cJSON_IsString(name) || !*name->valuestring ||
      strlen(name->valuestring) >= OCC_NAME_MAX) {
    set_err(err, size, "%s: \"name\" must be a string of 1 to %d characters",
            where, OCC_NAME_MAX - 1);
    return -1;
  }
  snprintf(where, sizeof where, "gpus[%zu] (%s)", index, name->valuestring);
  int major, minor;
  if (parse_cc_string(cJSON_GetObjectItemCaseSensitive(obj, "cc"), &major,
                      &minor) != 0) {
    set_err(err, size, "%s: \"cc\" must be a string like \"9.0\"", where);
    return -1;
  }
  const entry *arch = find_arch(&db->t, major, minor);
  if (!arch) {
    set_err(err, size, "%s: no architecture entry for cc %d.%d", where, major,
            minor);
    return -1;
  }
  memset(e, 0, sizeof *e);
  e->device = arch->device;
  snprintf(e->device.name, sizeof e->device.name, "%s", name->valuestring);
  if (read_fields(obj, &e->device, false, where, err, size) ||
      read_strings(db, obj, e, arch->family, where, err, size))
    return -1;
  if (e->device.sm_count <= 0) {
    set_err(err, size, "%s: \"sm_count\" must be a positive number", where);
    return -1;
  }
  if (read_match_keys(db, obj, name->valuestring, e, where, err, size))
    return -1;
  return check_device(&e->device, where, err, size);
}

/* "origin:LINE:COL" of the byte at offset. */
static void locate(const char *text, size_t offset, const char *origin,
                   char *out, size_t size) {
  int line = 1, col = 1;
  for (size_t i = 0; i < offset; i++) {
    if (text[i] == '\n') {
      line++;
      col = 1;
    } else {
      col++;
    }
  }
  snprintf(out, size, "%s:%d:%d", origin, line, col);
}

/* Points the tables at the parsed entries, as far as they are read. */
static void publish_tables(occ_gpudb *db) {
  db->t.archs = db->owned_archs;
  db->t.gpus = db->owned_gpus;
}

/* Reads the array root[key] into *entries (zeroed first, so a partial
 * read frees cleanly). Returns 0, or -1 with the reason in err. */
static int read_array(occ_gpudb *db, const cJSON *root, const char *key,
                      entry **entries, size_t *count, const char *origin,
                      char *err, size_t size) {
  const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, key);
  if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) == 0) {
    set_err(err, size, "%s: \"%s\" must be a non-empty array", origin, key);
    return -1;
  }
  *count = (size_t)cJSON_GetArraySize(arr);
  *entries = calloc(*count, sizeof **entries);
  if (!*entries) {
    *count = 0;
    set_err(err, size, "%s: out of memory", origin);
    return -1;
  }
  publish_tables(db);
  bool gpus = strcmp(key, "gpus") == 0;
  char why[256];
  size_t i = 0;
  const cJSON *item;
  cJSON_ArrayForEach(item, arr) {
    entry *e = &(*entries)[i];
    int rc = gpus ? read_gpu(db, item, e, i, why, sizeof why)
                  : read_arch(db, item, e, i, why, sizeof why);
    if (rc != 0) {
      set_err(err, size, "%s: %s", origin, why);
      return -1;
    }
    i++;
  }
  return 0;
}

void occ_gpudb_free(occ_gpudb *db) {
  if (!db) return;
  free(db->owned_archs);
  free(db->owned_gpus);
  free(db->pool);
  free(db);
}

/* Reads the parsed document root into db. Returns 0, or -1 with the reason
 * in err. */
static int read_database(occ_gpudb *db, const cJSON *root, const char *origin,
                         char *err, size_t size) {
  const cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
  const cJSON *def = cJSON_GetObjectItemCaseSensitive(root, "default_gpu");
  uint32_t empty;
  if (!cJSON_IsNumber(schema) || schema->valueint != 1) {
    set_err(err, size, "%s: \"schema\" must be 1", origin);
    return -1;
  }
  if (pool_add(db, "", 0, &empty, origin, err, size) ||
      read_array(db, root, "architectures", &db->owned_archs, &db->t.arch_count,
                 origin, err, size) ||
      read_array(db, root, "gpus", &db->owned_gpus, &db->t.gpu_count, origin,
                 err, size))
    return -1;
  const char *name = cJSON_IsString(def) ? def->valuestring : db->t.gpus[0].device.name;
  return pool_add(db, name, OCC_NAME_MAX - 1, &db->t.default_gpu, origin, err,
                  size);
}

occ_gpudb *occ_gpudb_parse(const char *text, size_t len, const char *origin,
                           char *err, size_t err_size) {
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, false);
  if (!root) {
    char at[128];
    size_t offset = end && end >= text && end <= text + len ? (size_t)(end - text) : 0;
    const char *bad = cJSON_GetErrorPtr();
    if (bad && bad >= text && bad <= text + len) offset = (size_t)(bad - text);
    locate(text, offset, origin, at, sizeof at);
    set_err(err, err_size, "%s: malformed JSON", at);
    return NULL;
  }
  occ_gpudb *db = calloc(1, sizeof *db);
  bool ok = db && read_database(db, root, origin, err, err_size) == 0;
  if (!db) set_err(err, err_size, "%s: out of memory", origin);
  cJSON_Delete(root);
  if (!ok) {
    occ_gpudb_free(db);
    return NULL;
  }
  return db;
}

occ_gpudb *occ_gpudb_load_file(const char *path, char *err, size_t err_size) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    set_err(err, err_size, "%s: %s", path, strerror(errno));
    return NULL;
  }
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  while (buf) {
    len += fread(buf + len, 1, cap - len, f);
    if (len < cap || cap >= (1u << 26)) break;
    char *grown = realloc(buf, cap * 2);
    if (!grown) {
      free(buf);
      buf = NULL;
      break;
    }
    buf = grown;
    cap *= 2;
  }
  int read_errno = ferror(f) ? errno : 0;
  fclose(f);
  if (!buf || read_errno || len == cap) {
    set_err(err, err_size, "%s: %s", path,
            !buf ? "out of memory" : read_errno ? strerror(read_errno) : "larger than 64 MiB");
    free(buf);
    return NULL;
  }
  occ_gpudb *db = occ_gpudb_parse(buf, len, path, err, err_size);
  free(buf);
  return db;
}

occ_gpudb *occ_gpudb_from_tables(const occ_gpudb_tables *tables, char *err,
                                 size_t err_size) {
  occ_gpudb *db = calloc(1, sizeof *db);
  if (!db) {
    set_err(err, err_size, "built-in database: out of memory");
    return NULL;
  }
  db->t = *tables;
  return db;
}

const occ_gpudb_tables *occ_gpudb_tables_of(const occ_gpudb *db) { return &db->t; }

const char *occ_gpudb_default_gpu(const occ_gpudb *db) {
  return occ_gpudb_string(&db->t, db->t.default_gpu);
}

/* The device of e as handed out: the tables leave its source unset. */
static void copy_device(const entry *e, occ_device *device) {
  *device = e->device;
  device->source = "database";
}

static size_t edit_distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b), row[NORM_MAX + 1];
  for (size_t j = 0; j <= lb; j++) row[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t up = row[j];
      size_t best = diag + (a[i - 1] != b[j - 1]);
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      if (up + 1 < best) best = up + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[lb];
}

/* Writes the names of the (up to) three entries nearest to key. */
static void nearest(const occ_gpudb *db, const char *key, bool archs,
                    char *near, size_t size) {
  const occ_gpudb_tables *t = &db->t;
  const entry *list = archs ? t->archs : t->gpus;
  size_t count = archs ? db->t.arch_count : db->t.gpu_count;
  size_t best[3] = {0, 0, 0}, dist[3] = {(size_t)-1, (size_t)-1, (size_t)-1};
  for (size_t i = 0; i < count; i++) {
    size_t d = (size_t)-1;
    for (int a = 0; a <= list[i].alias_count; a++) {
      size_t da = edit_distance(key, occ_gpudb_string(t, list[i].match_keys[a]));
      if (da < d) d = da;
    }
    for (int slot = 0; slot < 3; slot++) {
      if (d < dist[slot]) {
        for (int k = 2; k > slot; k--) best[k] = best[k - 1], dist[k] = dist[k - 1];
        best[slot] = i;
        dist[slot] = d;
        break;
      }
    }
  }
  near[0] = '\0';
  for (int slot = 0; slot < 3 && dist[slot] != (size_t)-1; slot++) {
    size_t used = strlen(near);
    const occ_device *d = &list[best[slot]].device;
    if (archs)
      snprintf(near + used, size - used, "%s%d.%d", slot ? ", " : "", d->cc_major,
               d->cc_minor);
    else
      snprintf(near + used, size - used, "%s%s", slot ? ", " : "", d->name);
  }
}

int occ_gpudb_find_gpu(const occ_gpudb *db, const char *name,
                       occ_device *device, char *near, size_t near_size) {
  char key[NORM_MAX];
  normalize(name, key);
  for (size_t i = 0; key[0] && i < db->t.gpu_count; i++) {
    for (int a = 0; a <= db->t.gpus[i].alias_count; a++) {
      if (strcmp(key, occ_gpudb_string(&db->t, db->t.gpus[i].match_keys[a])) == 0) {
        copy_device(&db->t.gpus[i], device);
        return 0;
      }
    }
  }
  nearest(db, key, false, near, near_size);
  return -1;
}

int occ_gpudb_find_cc(const occ_gpudb *db, int major, int minor,
                      occ_device *device, char *near, size_t near_size) {
  const entry *e = find_arch(&db->t, major, minor);
  if (e) {
    copy_device(e, device);
    return 0;
  }
  /* Nearest by numeric distance of the capability. */
  int want = major * 10 + minor;
  near[0] = '\0';
  for (int round = 0; round < 3; round++) {
    const entry *best = NULL;
    int best_d = 1 << 30;
    for (size_t i = 0; i < db->t.arch_count; i++) {
      const occ_device *d = &db->t.archs[i].device;
      int cc = d->cc_major * 10 + d->cc_minor;
      int dist = abs(cc - want);
      char tag[16];
      snprintf(tag, sizeof tag, "%d.%d", d->cc_major, d->cc_minor);
      if (dist < best_d && !strstr(near, tag)) best = &db->t.archs[i], best_d = dist;
    }
    if (!best) break;
    size_t used = strlen(near);
    snprintf(near + used, near_size - used, "%s%d.%d", round ? ", " : "",
             best->device.cc_major, best->device.cc_minor);
  }
  return -1;
}

size_t occ_gpudb_gpu_count(const occ_gpudb *db) { return db->t.gpu_count; }
size_t occ_gpudb_arch_count(const occ_gpudb *db) { return db->t.arch_count; }

static void entry_at(const occ_gpudb *db, const entry *e, occ_device *device,
                     const char **family, const char **source) {
  copy_device(e, device);
  if (family) *family = occ_gpudb_string(&db->t, e->family);
  if (source) *source = occ_gpudb_string(&db->t, e->source);
}

void occ_gpudb_gpu_at(const occ_gpudb *db, size_t i, occ_device *device,
                      const char **family, const char **source) {
  entry_at(db, &db->t.gpus[i], device, family, source);
}

void occ_gpudb_arch_at(const occ_gpudb *db, size_t i, occ_device *device,
                       const char **family, const char **source) {
  entry_at(db, &db->t.archs[i], device, family, source);
}
