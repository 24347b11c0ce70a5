/* gpudb_load.c - loads the GPU database with cJSON into its tables
 * (gpudb_tables.h), checking every entry; gpudb_lookup.c answers from
 * the tables, and the rest of occcalc sees only occ_device. */
#include "db/gpudb_impl.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include "core/cc.h"
#include "core/cluster.h"
#include "core/utf8.h"
#include "db/devfields.h"
#include "db/gpudb_tables.h"
#include "text/why.h"


static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* The file's contract below the fields' ranges (those are the core's,
 * occ_device_check): one JSON document and nothing after it, every number
 * a plain integer, strings printable UTF-8, keys known and given once. */

/* "origin:LINE:COL" of the byte at offset of text. */
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

/* The length of the number token at p (cJSON accepted it), or 0 when it is
 * not a JSON integer: -?(0|[1-9][0-9]*) and not followed by . e E. */
static size_t integer_length(const char *p, const char *end) {
  const char *q = p;
  if (q < end && *q == '-') q++;
  if (q == end || !is_digit(*q)) return 0;
  if (*q == '0' && q + 1 < end && is_digit(q[1])) return 0;
  while (q < end && is_digit(*q)) q++;
  if (q < end && (*q == '.' || *q == 'e' || *q == 'E' || *q == '+')) return 0;
  return (size_t)(q - p);
}

/* The offset just past the string whose opening quote is at i. */
static size_t skip_string(const char *text, size_t i, size_t len) {
  for (i++; i < len && text[i] != '"'; i++)
    if (text[i] == '\\') i++;
  return i + 1;
}

/* The offset of a \u0000 escape in the string whose opening quote is at
 * i, or 0 when it has none: cJSON decodes it into a NUL byte, which would
 * end the string there ("H100\u0000SXM" read as "H100"). */
static size_t escaped_nul(const char *text, size_t i, size_t len) {
  for (i++; i < len && text[i] != '"'; i++) {
    if (text[i] != '\\') continue;
    if (len - i > 5 && strncmp(text + i + 1, "u0000", 5) == 0) return i;
    i++;
  }
  return 0;
}

static int fail_at(const char *text, size_t offset, const char *origin,
                   const char *why, char *err, size_t size) {
  char at[300];
  locate(text, offset, origin, at, sizeof at);
  snprintf(err, size, "%s: %s", at, why);
  return -1;
}

/* Checks the text around a document cJSON parsed from its first parsed
 * bytes: no NUL byte (nor \u0000 in a string), only white space after the
 * document, every number written as an integer (no fraction, exponent or
 * leading zero). Returns
 * 0, or -1 with "ORIGIN:LINE:COL: why" in err. */
static int check_syntax(const char *text, size_t len, size_t parsed,
                        const char *origin, char *err, size_t size) {
  const char *nul = memchr(text, '\0', len);
  if (nul)
    return fail_at(text, (size_t)(nul - text), origin, "a NUL byte", err, size);
  for (size_t i = parsed; i < len; i++)
    if (!strchr(" \t\r\n", text[i]))
      return fail_at(text, i, origin,
                     "text after the JSON document (one document per file)",
                     err, size);
  for (size_t i = 0; i < parsed;) {
    if (text[i] == '"') {
      size_t nul_at = escaped_nul(text, i, parsed);
      if (nul_at)
        return fail_at(text, nul_at, origin,
                       "a NUL (\\u0000) in a string", err, size);
      i = skip_string(text, i, parsed);
    } else if (text[i] == '-' || is_digit(text[i])) {
      size_t n = integer_length(text + i, text + parsed);
      if (n == 0)
        return fail_at(text, i, origin,
                       "numbers must be integers written without a fraction, "
                       "an exponent or a leading zero", err, size);
      i += n;
    } else {
      i++;
    }
  }
  return 0;
}

/* True when s is valid UTF-8 (core/utf8.h) without control characters. */
static bool printable(const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; *p;) {
    unsigned cp;
    size_t n = occ_utf8_len(p, &cp);
    if (n == 0 || cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) return false;
    p += n;
  }
  return true;
}

static bool is_device_field(const char *key) {
  size_t count;
  const occ_device_field *fields = occ_device_fields(&count);
  for (size_t i = 0; i < count; i++)
    if (strcmp(key, fields[i].key) == 0) return true;
  return false;
}

static bool is_allowed(const char *key, const char *const *allowed,
                       bool device_fields) {
  for (; *allowed; allowed++)
    if (strcmp(key, *allowed) == 0) return true;
  return device_fields && is_device_field(key);
}

/* Checks that every key of obj is one of allowed (NULL-terminated) or,
 * with device_fields, a numeric field of occ_device (devfields.h), and that
 * none is given twice. Returns 0, or -1 with "where: why" in err. */
static int check_keys(const cJSON *obj, const char *const *allowed,
                      bool device_fields, const char *where, char *err,
                      size_t size) {
  if (!cJSON_IsObject(obj)) {
    snprintf(err, size, "%s: must be an object", where);
    return -1;
  }
  for (const cJSON *a = obj->child; a; a = a->next) {
    if (!is_allowed(a->string, allowed, device_fields)) {
      bool echo = strlen(a->string) <= 40 && printable(a->string);
      snprintf(err, size, "%s: unknown key \"%s\" (see occcalc(1), DATABASE FILE)",
               where, echo ? a->string : "?");
      return -1;
    }
    for (const cJSON *b = a->next; b; b = b->next)
      if (strcmp(a->string, b->string) == 0) {
        snprintf(err, size, "%s: \"%s\" is given twice", where, a->string);
        return -1;
      }
  }
  return 0;
}


/* A database's "cc" is exactly "M.m" or "MM.m" (no leading zero). */
static int parse_cc_string(const cJSON *item, int *major, int *minor) {
  if (!cJSON_IsString(item)) return -1;
  return occ_parse_cc(item->valuestring, OCC_CC_DOTTED, major, minor);
}

/* A JSON integer (check_syntax refused every other number) as an
 * int64, saturated: a value out of a field's type then fails the range
 * check, which names the field and its range. */
static int64_t saturate(double value) {
  if (value > 4e18) return INT64_MAX / 2;
  if (value < -4e18) return INT64_MIN / 2;
  return (int64_t)value;
}

static void set_field(occ_device *dev, const occ_device_field *field,
                      int64_t value) {
  if (field->type == OCC_FIELD_INT && value > INT32_MAX) value = INT32_MAX;
  if (field->type == OCC_FIELD_INT && value < INT32_MIN) value = INT32_MIN;
  occ_device_field_set(dev, field, value);
}

/* Reads the numeric fields present in obj into dev; with required set, a
 * missing one is an error. Ranges are checked on the whole device. */
static int read_fields(const cJSON *obj, occ_device *dev, bool required,
                       const char *where, char *err, size_t size) {
  size_t count;
  const occ_device_field *fields = occ_device_fields(&count);
  for (size_t i = 0; i < count; i++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, fields[i].key);
    if (!v) {
      if (required && !fields[i].optional && strcmp(fields[i].key, "sm_count") != 0) {
        occ_whyf(err, size, "%s: missing \"%s\"", where, fields[i].key);
        return -1;
      }
      continue;
    }
    if (!cJSON_IsNumber(v)) {
      occ_whyf(err, size, "%s: \"%s\" must be an integer", where, fields[i].key);
      return -1;
    }
    set_field(dev, &fields[i], saturate(v->valuedouble));
  }
  return 0;
}

static int read_int_array(const cJSON *arr, int64_t *out, int max, int *count,
                          const char *where, const char *key, char *err,
                          size_t size) {
  if (!arr) return 0;
  if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) > max) {
    occ_whyf(err, size, "%s: \"%s\" must be an array of at most %d integers",
            where, key, max);
    return -1;
  }
  int n = 0;
  const cJSON *v;
  cJSON_ArrayForEach(v, arr) {
    if (!cJSON_IsNumber(v)) {
      occ_whyf(err, size, "%s: \"%s\"[%d] must be an integer", where, key, n);
      return -1;
    }
    out[n++] = saturate(v->valuedouble);
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
      occ_whyf(err, size, "%s: out of memory", where);
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

/* obj[key] when it is a string of min..max bytes of printable UTF-8, or
 * absent (NULL) when optional; else NULL with the reason in err. */
static const char *read_text(const cJSON *obj, const char *key, size_t min,
                             size_t max, bool *ok, const char *where,
                             char *err, size_t size) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v && min == 0) return NULL;
  size_t len = cJSON_IsString(v) ? strlen(v->valuestring) : 0;
  if (!cJSON_IsString(v) || len < min || len > max ||
      !printable(v->valuestring)) {
    occ_whyf(err, size, "%s: \"%s\" must be a string of %zu to %zu bytes of "
            "printable UTF-8", where, key, min, max);
    *ok = false;
    return NULL;
  }
  return v->valuestring;
}

/* The entry's source and family; a board without a family of its own keeps
 * its architecture's (inherited, an offset in the pool). A "comment" is a
 * string, read by people only. */
static int read_strings_to(occ_gpudb *db, const cJSON *obj, uint32_t *family,
                           uint32_t *source, uint32_t inherited,
                           const char *where, char *err, size_t size) {
  bool ok = true;
  const char *src = read_text(obj, "source", 1, SOURCE_MAX, &ok, where, err, size);
  const char *fam = ok ? read_text(obj, "family", 0, FAMILY_MAX, &ok, where, err, size)
                       : NULL;
  const cJSON *comment = cJSON_GetObjectItemCaseSensitive(obj, "comment");
  if (ok && comment && !cJSON_IsString(comment)) {
    occ_whyf(err, size, "%s: \"comment\" must be a string", where);
    ok = false;
  }
  if (!ok) return -1;
  *family = inherited;
  return pool_add(db, src, SOURCE_MAX, source, where, err, size) ||
         (fam && pool_add(db, fam, FAMILY_MAX, family, where, err, size));
}

static int read_strings(occ_gpudb *db, const cJSON *obj, entry *e,
                        uint32_t inherited, const char *where, char *err,
                        size_t size) {
  return read_strings_to(db, obj, &e->family, &e->source, inherited, where,
                         err, size);
}

int occ_device_check_text(const occ_device *d, char *out, size_t size) {
  occ_device_violation v;
  if (occ_device_check(d, &v)) return 0;
  char field[64], why[128] = "";
  if (v.index >= 0)
    snprintf(field, sizeof field, "\"%s\"[%d]", v.field, v.index);
  else
    snprintf(field, sizeof field, "\"%s\"", v.field);
  if (v.why) snprintf(why, sizeof why, " (%s)", v.why);
  if (v.min == v.max)
    snprintf(out, size, "%s must be %lld%s", field, (long long)v.min, why);
  else
    snprintf(out, size, "%s must be %s%lld to %lld%s", field,
             v.power_of_two ? "a power of two from " : "", (long long)v.min,
             (long long)v.max, why);
  return -1;
}

/* The device against the core's contract, named where it was read. */
static int check_device(const occ_device *d, const char *where, char *err,
                        size_t size) {
  char text[256];
  if (occ_device_check_text(d, text, sizeof text) == 0) return 0;
  occ_whyf(err, size, "%s: %s", where, text);
  return -1;
}

static const char *const arch_keys[] = {"cc", "family", "source", "comment",
                                        "max_block_dim", "smem_configs_bytes",
                                        NULL};
static const char *const gpu_keys[] = {"name", "cc", "aliases", "family",
                                       "source", "comment", "cluster", NULL};


/* The architecture's compute capability, new to the database. */
static int read_arch_cc(const occ_gpudb *db, const cJSON *obj, entry *e,
                        char *where, size_t where_size, char *err, size_t size) {
  if (parse_cc_string(cJSON_GetObjectItemCaseSensitive(obj, "cc"),
                      &e->device.cc_major, &e->device.cc_minor) != 0) {
    occ_whyf(err, size, "%s: \"cc\" must be a string like \"9.0\"", where);
    return -1;
  }
  size_t len = strlen(where);
  snprintf(where + len, where_size - len, " (cc %d.%d)", e->device.cc_major,
           e->device.cc_minor);
  /* Entries after e are still zero: the first match is e or its twin. */
  const entry *twin = occ_gpudb_find_arch_entry(&db->t, e->device.cc_major, e->device.cc_minor);
  if (twin != e) {
    occ_whyf(err, size, "%s: cc %d.%d is also architectures[%zu]", where,
            e->device.cc_major, e->device.cc_minor, (size_t)(twin - db->t.archs));
    return -1;
  }
  return 0;
}

static int read_arch(occ_gpudb *db, const cJSON *obj, entry *e, size_t index, char *err,
                     size_t size) {
  char where[64];
  snprintf(where, sizeof where, "architectures[%zu]", index);
  memset(e, 0, sizeof *e);
  if (check_keys(obj, arch_keys, true, where, err, size) ||
      read_arch_cc(db, obj, e, where, sizeof where, err, size) ||
      read_fields(obj, &e->device, true, where, err, size) ||
      read_strings(db, obj, e, EMPTY_STRING, where, err, size))
    return -1;
  int64_t dims[3] = {0, 0, 0};
  int ndims = 0;
  if (read_int_array(cJSON_GetObjectItemCaseSensitive(obj, "max_block_dim"),
                     dims, 3, &ndims, where, "max_block_dim", err, size))
    return -1;
  if (ndims != 3) {
    occ_whyf(err, size, "%s: \"max_block_dim\" must hold 3 integers", where);
    return -1;
  }
  for (int i = 0; i < 3; i++)
    e->device.max_block_dim[i] = (int)(dims[i] > INT32_MAX ? INT32_MAX
                                       : dims[i] < 0       ? -1
                                                           : dims[i]);
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

/* One normalized key of a board (its name or an alias) into the pool; a
 * key with no letter or digit could never be looked up. */
static int add_match_key(occ_gpudb *db, const char *text, uint32_t *offset,
                         const char *where, const char *what, char *err,
                         size_t size) {
  char key[NORM_MAX];
  occ_gpudb_normalize(text, key);
  if (!key[0]) {
    occ_whyf(err, size, "%s: %s must have a letter or a digit", where, what);
    return -1;
  }
  return pool_add(db, key, NORM_MAX, offset, where, err, size);
}

/* The board's normalized name and aliases, for occ_gpudb_find_gpu. */
static int read_match_keys_to(occ_gpudb *db, const cJSON *obj, const char *name,
                              uint32_t *match_keys, int *alias_count,
                              const char *where, char *err, size_t size) {
  if (add_match_key(db, name, &match_keys[0], where, "\"name\"", err, size))
    return -1;
  const cJSON *aliases = cJSON_GetObjectItemCaseSensitive(obj, "aliases");
  if (aliases && !cJSON_IsArray(aliases)) {
    occ_whyf(err, size, "%s: \"aliases\" must be an array", where);
    return -1;
  }
  const cJSON *a;
  cJSON_ArrayForEach(a, aliases) {
    if (!cJSON_IsString(a) || *alias_count >= ALIAS_MAX ||
        strlen(a->valuestring) >= OCC_NAME_MAX || !printable(a->valuestring)) {
      occ_whyf(err, size, "%s: \"aliases\" must be at most %d strings of at most "
              "%d bytes of printable UTF-8", where, ALIAS_MAX, OCC_NAME_MAX - 1);
      return -1;
    }
    if (add_match_key(db, a->valuestring, &match_keys[*alias_count + 1],
                      where, "an alias", err, size))
      return -1;
    (*alias_count)++;
  }
  return 0;
}

static int read_match_keys(occ_gpudb *db, const cJSON *obj, const char *name,
                           entry *e, const char *where, char *err, size_t size) {
  return read_match_keys_to(db, obj, name, e->match_keys, &e->alias_count,
                            where, err, size);
}

/* ---- AMD entries ------------------------------------------------------
 * An entry is AMD's when it has "gfx" (the target, "gfx942") in place of
 * "cc": the target name is how HIP and the compiler name an architecture,
 * so it tells the vendors apart without a field that could disagree with
 * it. Its fields are occ_amd_arch's (src/core/amd.h), all required; a board
 * names its architecture by "gfx" and brings "cu_count" (and, for a board
 * of several HIP devices, "devices_per_board"); it overrides nothing. */

static bool is_amd(const cJSON *item) {
  return cJSON_GetObjectItemCaseSensitive(item, "gfx") != NULL;
}

static size_t count_amd(const cJSON *arr) {
  size_t n = 0;
  const cJSON *item;
  cJSON_ArrayForEach(item, arr) n += is_amd(item);
  return n;
}

/* The AMD table of an array (architectures or gpus) of n entries. */
static int amd_alloc(occ_gpudb *db, bool gpus, size_t n, const char *origin,
                     char *err, size_t size) {
  if (n == 0) return 0;
  occ_gpudb_amd_entry *e = calloc(n, sizeof *e);
  if (!e) {
    occ_whyf(err, size, "%s: out of memory", origin);
    return -1;
  }
  if (gpus)
    db->owned_amd_gpus = e, db->t.amd_gpus = e;
  else
    db->owned_amd_archs = e, db->t.amd_archs = e;
  return 0;
}

#define AMD_INT(field) {#field, offsetof(occ_amd_arch, field)}
static const struct amd_int_field {
  const char *key;
  size_t offset;
} amd_int_fields[] = {
    AMD_INT(gfx_major), AMD_INT(default_wave_size), AMD_INT(simds_per_cu),
    AMD_INT(max_waves_per_simd), AMD_INT(max_threads_per_block),
    AMD_INT(vgprs_per_simd_wave64), AMD_INT(vgpr_granule_wave64),
    AMD_INT(vgprs_per_simd_wave32), AMD_INT(vgpr_granule_wave32),
    AMD_INT(addressable_vgprs), AMD_INT(addressable_agprs),
    AMD_INT(unified_agpr_align), AMD_INT(addressable_sgprs),
    AMD_INT(lds_per_cu_bytes), AMD_INT(lds_per_wgp_bytes),
    AMD_INT(lds_per_block_bytes), AMD_INT(barriers_per_cu),
    AMD_INT(barriers_per_wgp), AMD_INT(hip_max_waves_per_simd),
    AMD_INT(hip_vgprs_per_simd), AMD_INT(hip_vgpr_granule),
    AMD_INT(hip_sgprs_per_simd), AMD_INT(hip_sgpr_granule),
    AMD_INT(hip_lds_per_cu_bytes),
};
#undef AMD_INT

static const char *const amd_arch_keys[] = {
    "gfx", "family", "source", "comment", "wave_sizes", "wgp_mode",
    "unified_vgpr_file", "sgpr_waves", NULL};
static const char *const amd_gpu_keys[] = {
    "name", "gfx", "cu_count", "devices_per_board", "aliases", "family",
    "source", "comment", NULL};

static bool is_amd_int_key(const char *key) {
  for (size_t i = 0; i < sizeof amd_int_fields / sizeof amd_int_fields[0]; i++)
    if (strcmp(key, amd_int_fields[i].key) == 0) return true;
  return false;
}

/* Every key of obj is one of allowed or, with ints, an integer field of
 * occ_amd_arch; none twice. */
static int check_amd_keys(const cJSON *obj, const char *const *allowed,
                          bool ints, const char *where, char *err, size_t size) {
  if (!cJSON_IsObject(obj)) {
    occ_whyf(err, size, "%s: must be an object", where);
    return -1;
  }
  for (const cJSON *a = obj->child; a; a = a->next) {
    bool known = ints && is_amd_int_key(a->string);
    for (const char *const *k = allowed; !known && *k; k++) known = strcmp(a->string, *k) == 0;
    if (!known) {
      bool echo = strlen(a->string) <= 40 && printable(a->string);
      occ_whyf(err, size, "%s: unknown key \"%s\" of an AMD entry (see data/gpus.json's comment)",
              where, echo ? a->string : "?");
      return -1;
    }
  }
  for (const cJSON *a = obj->child; a; a = a->next)
    for (const cJSON *b = a->next; b; b = b->next)
      if (strcmp(a->string, b->string) == 0) {
        occ_whyf(err, size, "%s: \"%s\" is given twice", where, a->string);
        return -1;
      }
  return 0;
}

/* A required integer of 0..INT32_MAX. */
static int read_amd_int(const cJSON *obj, const char *key, int *out,
                        const char *where, char *err, size_t size) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > INT32_MAX) {
    occ_whyf(err, size, "%s: \"%s\" must be an integer of 0 to %d", where, key,
            INT32_MAX);
    return -1;
  }
  *out = (int)v->valuedouble;
  return 0;
}

static int read_amd_bool(const cJSON *obj, const char *key, bool *out,
                         const char *where, char *err, size_t size) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!cJSON_IsBool(v)) {
    occ_whyf(err, size, "%s: \"%s\" must be true or false", where, key);
    return -1;
  }
  *out = cJSON_IsTrue(v);
  return 0;
}

/* "wave_sizes": [32], [64] or [32, 64]; "sgpr_waves": up to 4 pairs. */
static int read_amd_arrays(const cJSON *obj, occ_amd_arch *a, const char *where,
                           char *err, size_t size) {
  const cJSON *w = cJSON_GetObjectItemCaseSensitive(obj, "wave_sizes"), *v;
  bool ok = cJSON_IsArray(w) && cJSON_GetArraySize(w) >= 1 && cJSON_GetArraySize(w) <= 2;
  const cJSON *list = ok ? w : NULL;
  cJSON_ArrayForEach(v, list) {
    if (cJSON_IsNumber(v) && v->valuedouble == 32 && !a->wave32) a->wave32 = true;
    else if (cJSON_IsNumber(v) && v->valuedouble == 64 && !a->wave64) a->wave64 = true;
    else ok = false;
  }
  if (!ok) {
    occ_whyf(err, size, "%s: \"wave_sizes\" must be [32], [64] or [32, 64]", where);
    return -1;
  }
  const cJSON *s = cJSON_GetObjectItemCaseSensitive(obj, "sgpr_waves");
  ok = cJSON_IsArray(s) && cJSON_GetArraySize(s) <= 4;
  list = ok ? s : NULL;
  cJSON_ArrayForEach(v, list) {
    const cJSON *at = cJSON_GetArrayItem(v, 0), *waves = cJSON_GetArrayItem(v, 1);
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2 || !cJSON_IsNumber(at) ||
        !cJSON_IsNumber(waves) || at->valuedouble < 0 || at->valuedouble > 1e6 ||
        waves->valuedouble < 0 || waves->valuedouble > 1e6) {
      ok = false;
      break;
    }
    a->sgpr_waves_at[a->sgpr_limit_count] = (int)at->valuedouble;
    a->sgpr_waves[a->sgpr_limit_count++] = (int)waves->valuedouble;
  }
  if (!ok) {
    occ_whyf(err, size, "%s: \"sgpr_waves\" must be up to 4 pairs [SGPRs, waves]", where);
    return -1;
  }
  return 0;
}

/* "gfx": "gfx" then 3 or 4 lower-case hex digits ("gfx90a", "gfx1100"). */
static bool valid_gfx(const char *s) {
  size_t n = strlen(s);
  if (strncmp(s, "gfx", 3) != 0 || n < 6 || n > 7) return false;
  for (size_t i = 3; i < n; i++)
    if (!isdigit((unsigned char)s[i]) && !(s[i] >= 'a' && s[i] <= 'f')) return false;
  return true;
}


static const char *read_gfx(const cJSON *obj, const char *where, char *err,
                            size_t size) {
  const cJSON *g = cJSON_GetObjectItemCaseSensitive(obj, "gfx");
  if (!cJSON_IsString(g) || !valid_gfx(g->valuestring)) {
    occ_whyf(err, size, "%s: \"gfx\" must be a target name like \"gfx942\"", where);
    return NULL;
  }
  return g->valuestring;
}

static int read_amd_arch(occ_gpudb *db, const cJSON *obj, size_t index,
                         char *err, size_t size) {
  char where[64];
  snprintf(where, sizeof where, "architectures[%zu]", index);
  const char *gfx;
  if (check_amd_keys(obj, amd_arch_keys, true, where, err, size) ||
      !(gfx = read_gfx(obj, where, err, size)))
    return -1;
  size_t len = strlen(where);
  snprintf(where + len, sizeof where - len, " (%s)", gfx);
  if (occ_gpudb_find_amd_entry(&db->t, gfx)) {
    occ_whyf(err, size, "%s: %s is given twice", where, gfx);
    return -1;
  }
  occ_gpudb_amd_entry *e = &db->owned_amd_archs[db->t.amd_arch_count];
  occ_amd_arch *a = &e->arch;
  snprintf(a->name, sizeof a->name, "%s", gfx);
  for (size_t i = 0; i < sizeof amd_int_fields / sizeof amd_int_fields[0]; i++)
    if (read_amd_int(obj, amd_int_fields[i].key,
                     (int *)((char *)a + amd_int_fields[i].offset), where, err, size))
      return -1;
  const char *why;
  if (read_amd_bool(obj, "wgp_mode", &a->wgp_mode, where, err, size) ||
      read_amd_bool(obj, "unified_vgpr_file", &a->unified_vgpr_file, where, err, size) ||
      read_amd_arrays(obj, a, where, err, size) ||
      read_strings_to(db, obj, &e->family, &e->source, EMPTY_STRING, where, err, size))
    return -1;
  if (occ_amd_arch_check(a, &why) != 0) {
    occ_whyf(err, size, "%s: %s", where, why);
    return -1;
  }
  db->t.amd_arch_count++;
  return 0;
}

static int read_amd_gpu(occ_gpudb *db, const cJSON *obj, size_t index,
                        char *err, size_t size) {
  char where[96];
  snprintf(where, sizeof where, "gpus[%zu]", index);
  bool ok = true;
  const char *name, *gfx;
  if (check_amd_keys(obj, amd_gpu_keys, false, where, err, size) ||
      !(name = read_text(obj, "name", 1, OCC_NAME_MAX - 1, &ok, where, err, size)))
    return -1;
  size_t len = strlen(where);
  snprintf(where + len, sizeof where - len, " (%s)", name);
  if (!(gfx = read_gfx(obj, where, err, size))) return -1;
  const occ_gpudb_amd_entry *arch = occ_gpudb_find_amd_entry(&db->t, gfx);
  if (!arch) {
    occ_whyf(err, size, "%s: no architecture entry for %s", where, gfx);
    return -1;
  }
  occ_gpudb_amd_entry *e = &db->owned_amd_gpus[db->t.amd_gpu_count];
  e->arch = arch->arch;
  snprintf(e->name, sizeof e->name, "%s", name);
  e->devices_per_board = 1;
  if (read_amd_int(obj, "cu_count", &e->cu_count, where, err, size) ||
      (cJSON_GetObjectItemCaseSensitive(obj, "devices_per_board") &&
       read_amd_int(obj, "devices_per_board", &e->devices_per_board, where, err, size)))
    return -1;
  if (e->cu_count < 1 || e->cu_count > OCC_DEV_SM_COUNT_MAX ||
      e->devices_per_board < 1 || e->devices_per_board > 64) {
    occ_whyf(err, size, "%s: \"cu_count\" must be 1 to %d and \"devices_per_board\" 1 to 64",
            where, OCC_DEV_SM_COUNT_MAX);
    return -1;
  }
  if (read_strings_to(db, obj, &e->family, &e->source, arch->family, where, err, size) ||
      read_match_keys_to(db, obj, name, e->match_keys, &e->alias_count, where, err, size))
    return -1;
  db->t.amd_gpu_count++;
  return 0;
}
/* ---- end of AMD entries ---------------------------------------------- */

/* The board's name and architecture; where names the board from then on. */
static const entry *read_gpu_head(const occ_gpudb *db, const cJSON *obj,
                                  const char **name, char *where,
                                  size_t where_size, char *err, size_t size) {
  bool ok = true;
  *name = read_text(obj, "name", 1, OCC_NAME_MAX - 1, &ok, where, err, size);
  if (!ok) return NULL;
  size_t len = strlen(where);
  snprintf(where + len, where_size - len, " (%s)", *name);
  int major, minor;
  if (parse_cc_string(cJSON_GetObjectItemCaseSensitive(obj, "cc"), &major,
                      &minor) != 0) {
    occ_whyf(err, size, "%s: \"cc\" must be a string like \"9.0\"", where);
    return NULL;
  }
  const entry *arch = occ_gpudb_find_arch_entry(&db->t, major, minor);
  if (!arch)
    occ_whyf(err, size, "%s: no architecture entry for cc %d.%d", where, major,
            minor);
  return arch;
}

/* A board's thread block cluster layout (core/cluster.h), optional:
 * "cluster": {"domains_sms": [...], "max_blocks_per_sm": N, "source": "..."},
 * measured by make cluster-survey. The source is checked, not kept. */
static int read_cluster(const cJSON *obj, occ_device *d, const char *where,
                        char *err, size_t size) {
  const cJSON *c = cJSON_GetObjectItemCaseSensitive(obj, "cluster");
  if (!c) return 0;
  static const char *const keys[] = {"domains_sms", "max_blocks_per_sm",
                                     "source", NULL};
  char at[128];
  snprintf(at, sizeof at, "%s: \"cluster\"", where);
  int64_t sms[OCC_CLUSTER_DOMAINS_MAX];
  int count = 0;
  bool ok = true;
  const cJSON *cap = cJSON_GetObjectItemCaseSensitive(c, "max_blocks_per_sm");
  if (check_keys(c, keys, false, at, err, size) ||
      read_int_array(cJSON_GetObjectItemCaseSensitive(c, "domains_sms"), sms,
                     OCC_CLUSTER_DOMAINS_MAX, &count, at, "domains_sms", err,
                     size) ||
      (read_text(c, "source", 1, SOURCE_MAX, &ok, at, err, size), !ok))
    return -1;
  d->cluster_domain_count = count;
  for (int i = 0; i < count; i++)
    d->cluster_domain_sms[i] = sms[i] < 0 ? -1 : sms[i] > INT32_MAX ? INT32_MAX
                                                                    : (int)sms[i];
  d->cluster_max_blocks_per_sm =
      cJSON_IsNumber(cap) && cap->valuedouble >= 1 && cap->valuedouble <= 64
          ? (int)cap->valuedouble
          : -1;
  if (!occ_cluster_layout_valid(d)) {
    occ_whyf(err, size, "%s: \"domains_sms\" must be 1 to %d positive SM counts "
            "adding up to \"sm_count\" (%d), and \"max_blocks_per_sm\" 1 to %d",
            at, OCC_CLUSTER_DOMAINS_MAX, d->sm_count, OCC_DEV_BLOCKS_PER_SM_MAX);
    return -1;
  }
  return 0;
}

static int read_gpu(occ_gpudb *db, const cJSON *obj, entry *e,
                    size_t index, char *err, size_t size) {
  char where[96];
  snprintf(where, sizeof where, "gpus[%zu]", index);
  const char *name;
  const entry *arch;
  if (check_keys(obj, gpu_keys, true, where, err, size) ||
      !(arch = read_gpu_head(db, obj, &name, where, sizeof where, err, size)))
    return -1;
  memset(e, 0, sizeof *e);
  e->device = arch->device;
  snprintf(e->device.name, sizeof e->device.name, "%s", name);
  if (read_fields(obj, &e->device, false, where, err, size) ||
      read_strings(db, obj, e, arch->family, where, err, size))
    return -1;
  if (e->device.sm_count < 1 || e->device.sm_count > OCC_DEV_SM_COUNT_MAX) {
    occ_whyf(err, size, "%s: \"sm_count\" must be 1 to %d", where,
            OCC_DEV_SM_COUNT_MAX);
    return -1;
  }
  if (read_match_keys(db, obj, name, e, where, err, size) ||
      read_cluster(obj, &e->device, where, err, size))
    return -1;
  return check_device(&e->device, where, err, size);
}

/* Points the tables at the parsed entries, as far as they are read. */
static void publish_tables(occ_gpudb *db) {
  db->t.archs = db->owned_archs;
  db->t.gpus = db->owned_gpus;
}

/* Reads the array root[key] of 1..max entries into *entries (zeroed first,
 * so a partial read frees cleanly). Returns 0, or -1 with the reason in
 * err. */
static int read_array(occ_gpudb *db, const cJSON *root, const char *key,
                      int max, entry **entries, size_t *count,
                      const char *origin, char *err, size_t size) {
  const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, key);
  if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) == 0 ||
      cJSON_GetArraySize(arr) > max) {
    occ_whyf(err, size, "%s: \"%s\" must be an array of 1 to %d entries", origin,
            key, max);
    return -1;
  }
  bool gpus = strcmp(key, "gpus") == 0;
  size_t amd = count_amd(arr);
  *count = (size_t)cJSON_GetArraySize(arr) - amd;
  if (amd_alloc(db, gpus, amd, origin, err, size)) return -1;
  if (*count == 0) {
    occ_whyf(err, size, "%s: \"%s\" must hold at least one NVIDIA entry (one with \"cc\")",
            origin, key);
    return -1;
  }
  *entries = calloc(*count, sizeof **entries);
  if (!*entries) {
    *count = 0;
    occ_whyf(err, size, "%s: out of memory", origin);
    return -1;
  }
  publish_tables(db);
  char why[512];
  size_t i = 0, nv = 0;
  const cJSON *item;
  cJSON_ArrayForEach(item, arr) {
    int rc;
    if (!is_amd(item) && i >= *count) {
      /* So an entry's index among its vendor's is its index in the file
       * (messages name entries by it). */
      occ_whyf(err, size, "%s: %s[%zu]: AMD entries (with \"gfx\") must follow "
              "the NVIDIA ones (with \"cc\")", origin, key, i);
      return -1;
    }
    if (is_amd(item))
      rc = gpus ? read_amd_gpu(db, item, i, why, sizeof why)
                : read_amd_arch(db, item, i, why, sizeof why);
    else
      rc = gpus ? read_gpu(db, item, &(*entries)[nv++], i, why, sizeof why)
                : read_arch(db, item, &(*entries)[nv++], i, why, sizeof why);
    if (rc != 0) {
      occ_whyf(err, size, "%s: %s", origin, why);
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
  free(db->owned_amd_archs);
  free(db->owned_amd_gpus);
  free(db->pool);
  free(db);
}

/* A board's key (name or alias) for the duplicate check. */
typedef struct board_key {
  const char *key;
  size_t board;
} board_key;

static int compare_keys(const void *a, const void *b) {
  const board_key *x = a, *y = b;
  int c = strcmp(x->key, y->key);
  return c ? c : (x->board > y->board) - (x->board < y->board);
}

/* The name of gpus[i] (AMD boards follow the NVIDIA ones, read_array). */
static const char *board_name(const occ_gpudb_tables *t, size_t i) {
  return i < t->gpu_count ? t->gpus[i].device.name : t->amd_gpus[i - t->gpu_count].name;
}

/* No two boards share a name or an alias (as looked up: normalized), or
 * a lookup would silently answer the first. */
static int check_unique_boards(const occ_gpudb *db, const char *origin,
                               char *err, size_t size) {
  const occ_gpudb_tables *t = &db->t;
  size_t boards = t->gpu_count + t->amd_gpu_count;
  board_key *keys = malloc(boards * (ALIAS_MAX + 1) * sizeof *keys);
  if (!keys) {
    occ_whyf(err, size, "%s: out of memory", origin);
    return -1;
  }
  size_t n = 0;
  for (size_t i = 0; i < t->gpu_count; i++)
    for (int a = 0; a <= t->gpus[i].alias_count; a++)
      keys[n++] = (board_key){occ_gpudb_string(t, t->gpus[i].match_keys[a]), i};
  for (size_t i = 0; i < t->amd_gpu_count; i++)
    for (int a = 0; a <= t->amd_gpus[i].alias_count; a++)
      keys[n++] = (board_key){occ_gpudb_string(t, t->amd_gpus[i].match_keys[a]),
                              t->gpu_count + i};
  qsort(keys, n, sizeof *keys, compare_keys);
  int rc = 0;
  for (size_t i = 1; i < n && rc == 0; i++) {
    if (strcmp(keys[i].key, keys[i - 1].key) != 0 || keys[i].board == keys[i - 1].board)
      continue;
    occ_whyf(err, size, "%s: gpus[%zu] (%s): \"%s\" (a name or alias, as looked "
            "up) also names gpus[%zu] (%s)", origin, keys[i].board,
            board_name(t, keys[i].board), keys[i].key, keys[i - 1].board,
            board_name(t, keys[i - 1].board));
    rc = -1;
  }
  free(keys);
  return rc;
}

static const char *const root_keys[] = {"schema", "default_gpu", "comment",
                                        "architectures", "gpus", NULL};

/* The board used when none is named: "default_gpu", else the first. */
static int read_default(occ_gpudb *db, const cJSON *root, const char *origin,
                        char *err, size_t size) {
  bool ok = true;
  const char *name = read_text(root, "default_gpu", 0, OCC_NAME_MAX - 1, &ok,
                               origin, err, size);
  if (!ok) return -1;
  if (!name) name = db->t.gpus[0].device.name;
  occ_device d;
  char near[256];
  if (occ_gpudb_find_gpu(db, name, &d, near, sizeof near) != 0) {
    occ_whyf(err, size, "%s: \"default_gpu\" must name a board of \"gpus\" "
            "(nearest: %s)", origin, near);
    return -1;
  }
  return pool_add(db, name, OCC_NAME_MAX - 1, &db->t.default_gpu, origin, err,
                  size);
}

/* Reads the parsed document root into db. Returns 0, or -1 with the reason
 * in err. */
static int read_database(occ_gpudb *db, const cJSON *root, const char *origin,
                         char *err, size_t size) {
  if (check_keys(root, root_keys, false, origin, err, size)) return -1;
  const cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
  const cJSON *comment = cJSON_GetObjectItemCaseSensitive(root, "comment");
  uint32_t empty;
  if (!cJSON_IsNumber(schema) || schema->valuedouble != 1) {
    occ_whyf(err, size, "%s: \"schema\" must be 1 (the format this occcalc reads)",
            origin);
    return -1;
  }
  if (comment && !cJSON_IsString(comment)) {
    occ_whyf(err, size, "%s: \"comment\" must be a string", origin);
    return -1;
  }
  return pool_add(db, "", 0, &empty, origin, err, size) ||
         read_array(db, root, "architectures", ARCH_MAX, &db->owned_archs,
                    &db->t.arch_count, origin, err, size) ||
         read_array(db, root, "gpus", GPU_MAX, &db->owned_gpus, &db->t.gpu_count,
                    origin, err, size) ||
         check_unique_boards(db, origin, err, size) ||
         read_default(db, root, origin, err, size)
             ? -1
             : 0;
}

/* The document (freed with cJSON_Delete), or NULL with
 * "ORIGIN:LINE:COL: why" in err. */
static cJSON *parse_document(const char *text, size_t len, const char *origin,
                             char *err, size_t err_size) {
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, false);
  if (!root) {
    char at[300];
    size_t offset = end && end >= text && end <= text + len ? (size_t)(end - text) : 0;
    const char *bad = cJSON_GetErrorPtr();
    if (bad && bad >= text && bad <= text + len) offset = (size_t)(bad - text);
    locate(text, offset, origin, at, sizeof at);
    occ_whyf(err, err_size, "%s: malformed JSON", at);
    return NULL;
  }
  if (check_syntax(text, len, (size_t)(end - text), origin, err, err_size)) {
    cJSON_Delete(root);
    return NULL;
  }
  return root;
}

occ_gpudb *occ_gpudb_parse(const char *text, size_t len, const char *origin,
                           char *err, size_t err_size) {
  if (len > DB_FILE_MAX) {
    occ_whyf(err, err_size, "%s: larger than %d bytes", origin, DB_FILE_MAX);
    return NULL;
  }
  cJSON *root = parse_document(text, len, origin, err, err_size);
  if (!root) return NULL;
  occ_gpudb *db = calloc(1, sizeof *db);
  bool ok = db && read_database(db, root, origin, err, err_size) == 0;
  if (!db) occ_whyf(err, err_size, "%s: out of memory", origin);
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
    occ_whyf(err, err_size, "%s: %s", path, strerror(errno));
    return NULL;
  }
  char *buf = malloc(DB_FILE_MAX + 1);
  size_t len = buf ? fread(buf, 1, DB_FILE_MAX + 1, f) : 0;
  int read_errno = ferror(f) ? errno : 0;
  fclose(f);
  if (!buf || read_errno || len > DB_FILE_MAX) {
    occ_whyf(err, err_size, "%s: %s", path,
            !buf ? "out of memory" : read_errno ? strerror(read_errno)
                                                : "larger than 1048576 bytes");
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
    occ_whyf(err, err_size, "built-in database: out of memory");
    return NULL;
  }
  db->t = *tables;
  return db;
}
