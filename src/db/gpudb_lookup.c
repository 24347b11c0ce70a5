/* gpudb_lookup.c - answers from the database's tables, whichever built
 * them (gpudb_load.c from JSON, or the compiled-in ones): a board by
 * name, an architecture by capability or target, the nearest names when
 * none matches, and the listing. */
#include "db/gpudb_impl.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Lower-case letters and digits only, vendor and brand words dropped. */
void occ_gpudb_normalize(const char *in, char out[NORM_MAX]) {
  static const char *const words[] = {"nvidia", "geforce", "tesla", "quadro",
                                      "amd", "radeon", "instinct"};
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

const entry *occ_gpudb_find_arch_entry(const occ_gpudb_tables *t, int major, int minor) {
  for (size_t i = 0; i < t->arch_count; i++)
    if (t->archs[i].device.cc_major == major &&
        t->archs[i].device.cc_minor == minor)
      return &t->archs[i];
  return NULL;
}

const occ_gpudb_amd_entry *occ_gpudb_find_amd_entry(const occ_gpudb_tables *t,
                                                const char *gfx) {
  for (size_t i = 0; i < t->amd_arch_count; i++)
    if (strcmp(t->amd_archs[i].arch.name, gfx) == 0) return &t->amd_archs[i];
  return NULL;
}

const occ_gpudb_tables *occ_gpudb_tables_of(const occ_gpudb *db) { return &db->t; }

const char *occ_gpudb_default_gpu(const occ_gpudb *db) {
  return occ_gpudb_string(&db->t, db->t.default_gpu);
}

/* The device of e as handed out: the tables leave its source and the
 * entry it comes from unset. */
static void copy_device(const entry *e, occ_device *device) {
  *device = e->device;
  device->source = "database";
  snprintf(device->limits_from, sizeof device->limits_from, "%s",
           e->device.name);
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

/* Keeps the three nearest entries seen so far, best[] in order of dist[]
 * (an unused slot's distance is (size_t)-1): entry i at distance d goes in
 * after those as near, so that of equals the first seen stays first. */
static void keep_nearest(size_t best[3], size_t dist[3], size_t i, size_t d) {
  for (int slot = 0; slot < 3; slot++) {
    if (d < dist[slot]) {
      for (int k = 2; k > slot; k--) best[k] = best[k - 1], dist[k] = dist[k - 1];
      best[slot] = i;
      dist[slot] = d;
      return;
    }
  }
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
    keep_nearest(best, dist, i, d);
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
  occ_gpudb_normalize(name, key);
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
  const entry *e = occ_gpudb_find_arch_entry(&db->t, major, minor);
  if (e) {
    copy_device(e, device);
    return 0;
  }
  /* Nearest by numeric distance of the capability (in 64 bits: the
   * capability may come from a program's records or a driver). */
  int64_t want = (int64_t)major * 10 + minor;
  near[0] = '\0';
  for (int round = 0; round < 3; round++) {
    const entry *best = NULL;
    int64_t best_d = INT64_MAX;
    for (size_t i = 0; i < db->t.arch_count; i++) {
      const occ_device *d = &db->t.archs[i].device;
      int64_t cc = (int64_t)d->cc_major * 10 + d->cc_minor;
      int64_t dist = cc > want ? cc - want : want - cc;
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

/* ---- AMD look-ups ---------------------------------------------------- */

size_t occ_gpudb_amd_arch_count(const occ_gpudb *db) { return db->t.amd_arch_count; }
size_t occ_gpudb_amd_gpu_count(const occ_gpudb *db) { return db->t.amd_gpu_count; }

static void amd_strings(const occ_gpudb *db, const occ_gpudb_amd_entry *e,
                        const char **family, const char **source) {
  if (family) *family = occ_gpudb_string(&db->t, e->family);
  if (source) *source = occ_gpudb_string(&db->t, e->source);
}

static void amd_gpu_of(const occ_gpudb_amd_entry *e, occ_amd_gpu *gpu) {
  memset(gpu, 0, sizeof *gpu);
  snprintf(gpu->name, sizeof gpu->name, "%s", e->name);
  gpu->arch = e->arch;
  gpu->cu_count = e->cu_count;
  gpu->devices_per_board = e->devices_per_board;
}

void occ_gpudb_amd_arch_at(const occ_gpudb *db, size_t i, occ_amd_arch *arch,
                           const char **family, const char **source) {
  *arch = db->t.amd_archs[i].arch;
  amd_strings(db, &db->t.amd_archs[i], family, source);
}

void occ_gpudb_amd_gpu_at(const occ_gpudb *db, size_t i, occ_amd_gpu *gpu,
                          const char **family, const char **source) {
  amd_gpu_of(&db->t.amd_gpus[i], gpu);
  amd_strings(db, &db->t.amd_gpus[i], family, source);
}

int occ_gpudb_catalog(const occ_gpudb *db, occ_gpu_catalog *c) {
  const occ_gpudb_tables *t = &db->t;
  size_t nv = t->gpu_count + t->arch_count;
  size_t amd = t->amd_gpu_count + t->amd_arch_count;
  *c = (occ_gpu_catalog){.gpu_count = t->gpu_count,
                         .arch_count = t->arch_count,
                         .amd_gpu_count = t->amd_gpu_count,
                         .amd_arch_count = t->amd_arch_count};
  /* One block: the NVIDIA entries, then AMD's. */
  c->storage = calloc(1, nv * sizeof *c->gpus + amd * sizeof *c->amd_gpus + 1);
  if (!c->storage) return -1;
  c->gpus = c->storage;
  c->archs = c->gpus + t->gpu_count;
  c->amd_gpus = (occ_listed_amd *)(c->archs + t->arch_count);
  c->amd_archs = c->amd_gpus + t->amd_gpu_count;
  for (size_t i = 0; i < t->gpu_count; i++)
    entry_at(db, &t->gpus[i], &c->gpus[i].device, &c->gpus[i].family,
             &c->gpus[i].reference);
  for (size_t i = 0; i < t->arch_count; i++)
    entry_at(db, &t->archs[i], &c->archs[i].device, &c->archs[i].family,
             &c->archs[i].reference);
  for (size_t i = 0; i < t->amd_gpu_count; i++) {
    occ_listed_amd *l = &c->amd_gpus[i];
    amd_gpu_of(&t->amd_gpus[i], &l->gpu);
    l->board = true;
    amd_strings(db, &t->amd_gpus[i], &l->family, &l->reference);
  }
  for (size_t i = 0; i < t->amd_arch_count; i++) {
    occ_listed_amd *l = &c->amd_archs[i];
    l->gpu.arch = t->amd_archs[i].arch;
    l->gpu.cu_count = -1;
    amd_strings(db, &t->amd_archs[i], &l->family, &l->reference);
  }
  return 0;
}

/* Writes up to three names of list (targets or boards) nearest to key. */
static void amd_nearest(const occ_gpudb *db, const char *key, bool boards,
                        char *near, size_t size) {
  const occ_gpudb_amd_entry *list = boards ? db->t.amd_gpus : db->t.amd_archs;
  size_t count = boards ? db->t.amd_gpu_count : db->t.amd_arch_count;
  size_t best[3] = {0, 0, 0}, dist[3] = {(size_t)-1, (size_t)-1, (size_t)-1};
  for (size_t i = 0; i < count; i++) {
    size_t d = edit_distance(key, list[i].arch.name);
    for (int a = 0; boards && a <= list[i].alias_count; a++) {
      size_t da = edit_distance(key, occ_gpudb_string(&db->t, list[i].match_keys[a]));
      if (da < d) d = da;
    }
    keep_nearest(best, dist, i, d);
  }
  if (size) near[0] = '\0';
  for (int slot = 0; slot < 3 && dist[slot] != (size_t)-1; slot++) {
    size_t used = strlen(near);
    const occ_gpudb_amd_entry *e = &list[best[slot]];
    snprintf(near + used, size - used, "%s%s", slot ? ", " : "",
             boards ? e->name : e->arch.name);
  }
}

int occ_gpudb_find_amd_arch(const occ_gpudb *db, const char *name,
                            occ_amd_arch *arch, char *near, size_t near_size) {
  char key[OCC_AMD_NAME_MAX];
  size_t n = 0;
  for (; name[n] && name[n] != ':' && n + 1 < sizeof key; n++)
    key[n] = (char)tolower((unsigned char)name[n]);
  key[n] = '\0';
  const occ_gpudb_amd_entry *e =
      name[n] == '\0' || name[n] == ':' ? occ_gpudb_find_amd_entry(&db->t, key) : NULL;
  if (e) {
    *arch = e->arch;
    return 0;
  }
  amd_nearest(db, key, false, near, near_size);
  return -1;
}

int occ_gpudb_find_amd_gpu(const occ_gpudb *db, const char *name,
                           occ_amd_gpu *gpu, char *near, size_t near_size) {
  char key[NORM_MAX];
  occ_gpudb_normalize(name, key);
  for (size_t i = 0; key[0] && i < db->t.amd_gpu_count; i++) {
    const occ_gpudb_amd_entry *e = &db->t.amd_gpus[i];
    for (int a = 0; a <= e->alias_count; a++) {
      if (strcmp(key, occ_gpudb_string(&db->t, e->match_keys[a])) == 0) {
        amd_gpu_of(e, gpu);
        return 0;
      }
    }
  }
  amd_nearest(db, key, true, near, near_size);
  return -1;
}
