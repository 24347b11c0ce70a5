/* gpus_gen.c - a build tool, not part of occcalc: loads a database file
 * with the loader and checks of `occcalc --data` (gpudb_load.c) and writes its
 * tables as C (gpudb_tables.h) to stdout, so the built-in database costs a
 * run no parsing. A file the loader refuses fails the build with the
 * loader's message.
 *
 * usage: gpus_gen data/gpus.json > build/gpus_table.c */
#include <stdio.h>
#include <string.h>

#include "db/devfields.h"
#include "db/gpudb.h"
#include "db/gpudb_tables.h"

/* text and its NUL as a C string literal; bytes outside printable ASCII as
 * 3-digit octal escapes, which no following digit can extend. */
static void put_string(FILE *out, const char *text) {
  fputc('"', out);
  for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
    if (*p == '"' || *p == '\\')
      fprintf(out, "\\%c", *p);
    else if (*p < 0x20 || *p >= 0x7f)
      fprintf(out, "\\%03o", *p);
    else
      fputc(*p, out);
  }
  fputs("\\000\"", out);
}

/* The pool, one string a line; the array's size leaves out the literal's
 * own terminating NUL. */
static void put_pool(FILE *out, const occ_gpudb_tables *t) {
  fprintf(out, "static const char strings[%zu] =\n", t->strings_size);
  for (size_t at = 0; at < t->strings_size; at += strlen(t->strings + at) + 1) {
    fputs("    ", out);
    put_string(out, t->strings + at);
    fputs("\n", out);
  }
  fputs("    ;\n\n", out);
}

/* The occ_device fields outside devfields.h's table, then every field in
 * it by its member name. The tables leave source NULL. */
static void put_device(FILE *out, const occ_device *d) {
  fputs("     {.name = ", out);
  put_string(out, d->name);
  fprintf(out, ",\n      .cc_major = %d, .cc_minor = %d,\n", d->cc_major,
          d->cc_minor);
  fprintf(out, "      .max_block_dim = {%d, %d, %d},\n", d->max_block_dim[0],
          d->max_block_dim[1], d->max_block_dim[2]);
  fprintf(out, "      .smem_config_count = %d,\n      .smem_configs_bytes = {",
          d->smem_config_count);
  for (int i = 0; i < d->smem_config_count; i++)
    fprintf(out, "%s%lld", i ? ", " : "", (long long)d->smem_configs_bytes[i]);
  fputs(d->smem_config_count ? "},\n" : "0},\n", out);
  fprintf(out, "      .cluster_domain_count = %d,\n      .cluster_domain_sms = {",
          d->cluster_domain_count);
  for (int i = 0; i < d->cluster_domain_count; i++)
    fprintf(out, "%s%d", i ? ", " : "", d->cluster_domain_sms[i]);
  fprintf(out, "%s},\n      .cluster_max_blocks_per_sm = %d,\n",
          d->cluster_domain_count ? "" : "0", d->cluster_max_blocks_per_sm);
  size_t count;
  const occ_device_field *fields = occ_device_fields(&count);
  for (size_t i = 0; i < count; i++)
    fprintf(out, "      .%s = %lld,\n", fields[i].key,
            (long long)occ_device_field_get(d, &fields[i]));
  fputs("     }", out);
}

static void put_entry(FILE *out, const occ_gpudb_entry *e) {
  fputs("    {.device =\n", out);
  put_device(out, &e->device);
  fprintf(out, ",\n     .family = %u, .source = %u, .alias_count = %d,\n"
               "     .match_keys = {", (unsigned)e->family, (unsigned)e->source,
          e->alias_count);
  for (int a = 0; a <= e->alias_count; a++)
    fprintf(out, "%s%u", a ? ", " : "", (unsigned)e->match_keys[a]);
  fputs("}},\n", out);
}

static void put_entries(FILE *out, const char *name,
                        const occ_gpudb_entry *entries, size_t count) {
  fprintf(out, "static const occ_gpudb_entry %s[%zu] = {\n", name, count);
  for (size_t i = 0; i < count; i++) put_entry(out, &entries[i]);
  fputs("};\n\n", out);
}

/* An AMD entry: occ_amd_arch by member, then the board's fields. */
static void put_amd_arch(FILE *out, const occ_amd_arch *a) {
  fputs("     {.name = ", out);
  put_string(out, a->name);
  fprintf(out, ",\n      .gfx_major = %d, .wave32 = %d, .wave64 = %d,"
               " .default_wave_size = %d,\n", a->gfx_major, a->wave32, a->wave64,
          a->default_wave_size);
  fprintf(out, "      .simds_per_cu = %d, .wgp_mode = %d, .max_waves_per_simd = %d,"
               " .max_threads_per_block = %d,\n", a->simds_per_cu, a->wgp_mode,
          a->max_waves_per_simd, a->max_threads_per_block);
  fprintf(out, "      .vgprs_per_simd_wave64 = %d, .vgpr_granule_wave64 = %d,"
               " .vgprs_per_simd_wave32 = %d, .vgpr_granule_wave32 = %d,\n",
          a->vgprs_per_simd_wave64, a->vgpr_granule_wave64, a->vgprs_per_simd_wave32,
          a->vgpr_granule_wave32);
  fprintf(out, "      .addressable_vgprs = %d, .addressable_agprs = %d,"
               " .unified_vgpr_file = %d, .unified_agpr_align = %d,"
               " .addressable_sgprs = %d,\n", a->addressable_vgprs,
          a->addressable_agprs, a->unified_vgpr_file, a->unified_agpr_align,
          a->addressable_sgprs);
  fprintf(out, "      .sgpr_limit_count = %d, .sgpr_waves_at = {%d, %d, %d, %d},"
               " .sgpr_waves = {%d, %d, %d, %d},\n", a->sgpr_limit_count,
          a->sgpr_waves_at[0], a->sgpr_waves_at[1], a->sgpr_waves_at[2],
          a->sgpr_waves_at[3], a->sgpr_waves[0], a->sgpr_waves[1], a->sgpr_waves[2],
          a->sgpr_waves[3]);
  fprintf(out, "      .lds_per_cu_bytes = %d, .lds_per_wgp_bytes = %d,"
               " .lds_per_block_bytes = %d, .barriers_per_cu = %d,"
               " .barriers_per_wgp = %d,\n", a->lds_per_cu_bytes,
          a->lds_per_wgp_bytes, a->lds_per_block_bytes, a->barriers_per_cu,
          a->barriers_per_wgp);
  fprintf(out, "      .hip_max_waves_per_simd = %d, .hip_vgprs_per_simd = %d,"
               " .hip_vgpr_granule = %d, .hip_sgprs_per_simd = %d,"
               " .hip_sgpr_granule = %d, .hip_lds_per_cu_bytes = %d}",
          a->hip_max_waves_per_simd, a->hip_vgprs_per_simd, a->hip_vgpr_granule,
          a->hip_sgprs_per_simd, a->hip_sgpr_granule, a->hip_lds_per_cu_bytes);
}

static void put_amd_entries(FILE *out, const char *name,
                            const occ_gpudb_amd_entry *entries, size_t count) {
  if (count == 0) return;
  fprintf(out, "static const occ_gpudb_amd_entry %s[%zu] = {\n", name, count);
  for (size_t i = 0; i < count; i++) {
    const occ_gpudb_amd_entry *e = &entries[i];
    fputs("    {.arch =\n", out);
    put_amd_arch(out, &e->arch);
    fputs(",\n     .name = ", out);
    put_string(out, e->name);
    fprintf(out, ", .cu_count = %d, .devices_per_board = %d,\n"
                 "     .family = %u, .source = %u, .alias_count = %d,\n"
                 "     .match_keys = {", e->cu_count, e->devices_per_board,
            (unsigned)e->family, (unsigned)e->source, e->alias_count);
    for (int a = 0; a <= e->alias_count; a++)
      fprintf(out, "%s%u", a ? ", " : "", (unsigned)e->match_keys[a]);
    fputs("}},\n", out);
  }
  fputs("};\n\n", out);
}

static void put_tables(FILE *out, const char *origin, const occ_gpudb_tables *t) {
  fputs("/* Generated by gpus_gen (src/db/gpus_gen.c) from ", out);
  fputs(origin, out);
  fputs(": do not edit. */\n#include \"db/gpudb_tables.h\"\n\n", out);
  put_pool(out, t);
  put_entries(out, "archs", t->archs, t->arch_count);
  put_entries(out, "gpus", t->gpus, t->gpu_count);
  put_amd_entries(out, "amd_archs", t->amd_archs, t->amd_arch_count);
  put_amd_entries(out, "amd_gpus", t->amd_gpus, t->amd_gpu_count);
  fprintf(out, "const occ_gpudb_tables occ_builtin_gpudb_tables = {\n"
               "    .archs = archs, .arch_count = %zu,\n"
               "    .gpus = gpus, .gpu_count = %zu,\n"
               "    .amd_archs = %s, .amd_arch_count = %zu,\n"
               "    .amd_gpus = %s, .amd_gpu_count = %zu,\n"
               "    .strings = strings, .strings_size = sizeof strings,\n"
               "    .default_gpu = %u};\n",
          t->arch_count, t->gpu_count, t->amd_arch_count ? "amd_archs" : "NULL",
          t->amd_arch_count, t->amd_gpu_count ? "amd_gpus" : "NULL", t->amd_gpu_count,
          (unsigned)t->default_gpu);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fputs("usage: gpus_gen GPUS.json > TABLES.c\n", stderr);
    return 2;
  }
  char err[512];
  occ_gpudb *db = occ_gpudb_load_file(argv[1], err, sizeof err);
  if (!db) {
    fprintf(stderr, "gpus_gen: %s\n", err);
    return 1;
  }
  put_tables(stdout, argv[1], occ_gpudb_tables_of(db));
  occ_gpudb_free(db);
  if (fflush(stdout) != 0 || ferror(stdout)) {
    perror("gpus_gen: stdout");
    return 1;
  }
  return 0;
}
