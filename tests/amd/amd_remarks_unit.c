/* amd_remarks_unit.c - the reader of AMD's kernel-resource-usage remarks
 * (src/ptxas/amdgpu_remarks.c) over logs clang 19 wrote
 * (tests/amd/data/make_logs.sh), and each kernel's occupancy, computed
 * from what the log says it used, against the compiler's own figure. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/amd.h"
#include "db/gpudb.h"
#include "ptxas/amdgpu_remarks.h"
#include "ptxas/log_kind.h"

#define KERNELS_MAX 16

typedef struct seen {
  int count;
  occ_amdgpu_kernel k[KERNELS_MAX];
  char names[KERNELS_MAX][32];
} seen;

static int collect(const occ_amdgpu_kernel *k, void *ctx) {
  seen *s = ctx;
  if (s->count < KERNELS_MAX) {
    s->k[s->count] = *k;
    snprintf(s->names[s->count], sizeof s->names[0], "%s", k->name);
    s->k[s->count].name = s->names[s->count];
  }
  s->count++;
  return 0;
}

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  cr_assert(f, "%s", path);
  static char buf[1 << 16];
  *len = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[*len] = '\0';
  return buf;
}

/* Reads text fed in chunks of chunk bytes. */
static occ_amdgpu_stats read_text(const char *text, size_t len, size_t chunk, seen *s) {
  memset(s, 0, sizeof *s);
  occ_amdgpu_parser *p = occ_amdgpu_new(collect, s);
  cr_assert(p);
  for (size_t at = 0; at < len; at += chunk)
    cr_assert_eq(occ_amdgpu_feed(p, text + at, len - at < chunk ? len - at : chunk), 0);
  cr_assert_eq(occ_amdgpu_finish(p), 0);
  occ_amdgpu_stats st = *occ_amdgpu_get_stats(p);
  occ_amdgpu_free(p);
  return st;
}

static occ_amdgpu_stats read_log(const char *path, seen *s) {
  size_t len;
  const char *text = slurp(path, &len);
  return read_text(text, len, len ? len : 1, s);
}

/* The kernels' maximum flat workgroup sizes (kernels.cl): OpenCL's
 * default is 256 where the kernel gives none. */
static int max_block(const char *name) {
  return strcmp(name, "saxpy") == 0 ? 64 : strcmp(name, "wide") == 0 ? 128 : 256;
}

typedef struct log_case {
  const char *file;
  const char *arch;
  int wave;
  bool total_form, agprs;
} log_case;

static const log_case logs[] = {
    {"clang19-gfx908.log", "gfx908", 0, false, true},
    {"clang19-gfx90a-color.log", "gfx90a", 0, false, true},
    {"clang19-gfx942.log", "gfx942", 0, false, true},
    {"clang19-gfx942-totalsgprs.log", "gfx942", 0, true, true},
    {"clang19-gfx1030.log", "gfx1030", 0, false, false},
    {"clang19-gfx1100.log", "gfx1100", 0, false, false},
    {"clang19-gfx1100-crlf.log", "gfx1100", 0, false, false},
    {"clang19-gfx1100-wave64.log", "gfx1100", 64, false, false},
    {"clang19-gfx1201.log", "gfx1201", 0, false, false},
};

Test(amd_remarks, every_log_every_kernel_matches_the_compiler) {
  char err[256], near[128], path[256];
  occ_gpudb *db = occ_gpudb_load_builtin(err, sizeof err);
  cr_assert(db, "%s", err);
  for (size_t i = 0; i < sizeof logs / sizeof logs[0]; i++) {
    snprintf(path, sizeof path, "tests/amd/data/%s", logs[i].file);
    seen s;
    occ_amdgpu_stats st = read_log(path, &s);
    cr_assert_eq(s.count, 4, "%s", path);
    cr_expect_eq(st.skipped_lines, 0, "%s", path);
    cr_expect_eq(st.incomplete, 0, "%s", path);
    const char *names[] = {"reduce", "saxpy", "wide", "stencil"};
    for (int j = 0; j < 4; j++) {
      const occ_amdgpu_kernel *k = &s.k[j];
      cr_expect_str_eq(k->name, names[j], "%s", path);
      cr_expect_str_eq(k->arch, logs[i].arch, "%s", path);
      cr_expect_eq(k->wave_size, logs[i].wave, "%s", path);
      cr_expect_eq(k->sgprs_total_form, logs[i].total_form, "%s", path);
      cr_expect_eq(k->agprs >= 0, logs[i].agprs, "%s %s", path, k->name);
      cr_expect(k->sgprs > 0 && k->vgprs > 0 && k->occupancy_waves_per_simd > 0);
      cr_expect_eq(k->scratch_bytes_per_lane, 0);
      cr_expect(k->dynamic_stack == 0 || k->dynamic_stack == 1);
      cr_expect_eq(k->sgpr_spills, 0);
      cr_expect_eq(k->vgpr_spills, 0);
      cr_expect_eq(k->lds_bytes, j == 0 ? 1024 : j == 3 ? 32768 : 0, "%s %s", path, k->name);
      occ_amd_arch a;
      cr_assert_eq(occ_gpudb_find_amd_arch(db, k->arch, &a, near, sizeof near), 0);
      occ_amd_kernel in = {.wave_size = k->wave_size, .threads_per_block = max_block(k->name),
                           .vgprs = k->vgprs, .agprs = k->agprs > 0 ? k->agprs : 0,
                           .sgprs = k->sgprs, .lds_bytes = k->lds_bytes};
      occ_amd_result r;
      cr_assert_eq(occ_amd_compute(&a, &in, &r), OCC_AMD_OK);
      cr_expect_eq(r.waves_per_simd, k->occupancy_waves_per_simd, "%s %s: occcalc %d, clang %d",
                   path, k->name, r.waves_per_simd, k->occupancy_waves_per_simd);
    }
  }
  occ_gpudb_free(db);
}

/* Colour, CRLF and the TotalSGPRs form read as the plain log does. */
Test(amd_remarks, variants_read_alike) {
  seen plain, crlf, total;
  read_log("tests/amd/data/clang19-gfx1100.log", &plain);
  read_log("tests/amd/data/clang19-gfx1100-crlf.log", &crlf);
  cr_assert_eq(plain.count, crlf.count);
  for (int j = 0; j < plain.count; j++) {
    cr_expect_str_eq(plain.k[j].name, crlf.k[j].name);
    cr_expect_eq(plain.k[j].vgprs, crlf.k[j].vgprs);
    cr_expect_eq(plain.k[j].lds_bytes, crlf.k[j].lds_bytes);
    cr_expect_eq(plain.k[j].line, crlf.k[j].line);
  }
  read_log("tests/amd/data/clang19-gfx942.log", &plain);
  read_log("tests/amd/data/clang19-gfx942-totalsgprs.log", &total);
  for (int j = 0; j < plain.count; j++) {
    cr_expect_eq(plain.k[j].sgprs, total.k[j].sgprs);
    cr_expect_not(plain.k[j].sgprs_total_form);
    cr_expect(total.k[j].sgprs_total_form);
  }
}

Test(amd_remarks, byte_by_byte_equals_whole) {
  size_t len;
  const char *text = slurp("tests/amd/data/clang19-gfx90a-color.log", &len);
  seen whole, bytes;
  read_text(text, len, len, &whole);
  read_text(text, len, 1, &bytes);
  cr_assert_eq(whole.count, 4);
  cr_assert_eq(bytes.count, 4);
  for (int j = 0; j < 4; j++) {
    cr_expect_str_eq(whole.k[j].name, bytes.k[j].name);
    cr_expect_eq(whole.k[j].occupancy_waves_per_simd, bytes.k[j].occupancy_waves_per_simd);
    cr_expect_eq(whole.k[j].sgprs, bytes.k[j].sgprs);
  }
}

/* A log of two compilations: each kernel gets the target of the command
 * line before it. */
Test(amd_remarks, two_targets) {
  seen s;
  read_log("tests/amd/data/clang19-two-targets.log", &s);
  cr_assert_eq(s.count, 8);
  cr_expect_str_eq(s.k[0].arch, "gfx90a");
  cr_expect_str_eq(s.k[7].arch, "gfx1030");
  cr_expect_eq(s.k[0].agprs, 0);
  cr_expect_eq(s.k[7].agprs, OCC_AMDGPU_UNKNOWN);
}

Test(amd_remarks, other_forms_and_bad_lines) {
  const char *text =
      "hipcc --offload-arch=gfx90a --offload-arch=gfx942 -c k.hip\n"
      "remark: k.hip:9:0: Function Name: _Z4sumPf [-Rpass-analysis=kernel-resource-usage]\n"
      "remark: k.hip:9:0:     TotalSGPRs: 16 [-Rpass-analysis=kernel-resource-usage]\n"
      "remark: k.hip:9:0:     VGPRs: 5 [-Rpass-analysis=kernel-resource-usage]\n"
      "remark: k.hip:9:0:     AGPRs: 12x [-Rpass-analysis=kernel-resource-usage]\n"
      "remark: k.hip:9:0:     Occupancy [waves/SIMD]: 8 [-Rpass-analysis=kernel-resource-usage]\r\n"
      "k.hip:9:0: remark: some other remark [-Rpass-analysis=kernel-resource-usage]\n"
      "warning: VGPRs: 7 is not a remark\n"
      "k.hip:20:0: remark:     VGPRs: 3 [-Rpass-analysis=kernel-resource-usage]\n";
  seen s;
  occ_amdgpu_stats st = read_text(text, strlen(text), strlen(text), &s);
  cr_assert_eq(s.count, 1);
  cr_expect_str_eq(s.k[0].name, "_Z4sumPf");
  cr_expect_str_eq(s.k[0].arch, ""); /* two targets named: which is unknown */
  cr_expect_eq(s.k[0].sgprs, 16);
  cr_expect(s.k[0].sgprs_total_form);
  cr_expect_eq(s.k[0].vgprs, 3); /* the later line of the same open kernel */
  cr_expect_eq(s.k[0].agprs, OCC_AMDGPU_UNKNOWN);
  cr_expect_eq(s.k[0].occupancy_waves_per_simd, 8);
  cr_expect_eq(s.k[0].lds_bytes, OCC_AMDGPU_UNKNOWN);
  cr_expect_eq(st.skipped_lines, 1); /* "12x" */
  cr_expect_eq(st.first_skipped_line, 5);
  cr_expect_eq(st.incomplete, 0);
}

Test(amd_remarks, field_without_kernel_and_huge_line) {
  static char text[OCC_AMDGPU_LINE_MAX + 200];
  strcpy(text, "x.cl:1:1: remark:     VGPRs: 3 [-Rpass-analysis=kernel-resource-usage]\n");
  size_t n = strlen(text);
  memset(text + n, 'a', OCC_AMDGPU_LINE_MAX + 10);
  n += OCC_AMDGPU_LINE_MAX + 10;
  text[n++] = '\n';
  seen s;
  occ_amdgpu_stats st = read_text(text, n, 4096, &s);
  cr_expect_eq(s.count, 0);
  cr_expect_eq(st.skipped_lines, 2);
  cr_expect_eq(st.lines, 2);
}

/* A NUL in a remark line marks it binary, skipped, however the line
 * arrives: whole in one chunk or split across several. */
Test(amd_remarks, nul_line_skipped_in_any_chunks) {
  static const char text[] = "k.cl:1:1: remark:\0    VGPRs: 3 "
                             "[-Rpass-analysis=kernel-resource-usage]\n";
  size_t len = sizeof text - 1;
  for (size_t chunk = 1; chunk <= len; chunk++) {
    seen s;
    occ_amdgpu_stats st = read_text(text, len, chunk, &s);
    cr_expect_eq(st.lines, 1, "chunk %zu", chunk);
    cr_expect_eq(st.skipped_lines, 1, "chunk %zu", chunk);
    cr_expect_eq(st.first_skipped_line, 1, "chunk %zu", chunk);
  }
}

/* The first line only one vendor writes decides; a log's every other line
 * decides nothing or the same. */
static occ_log_kind first_kind(const char *text, size_t len, long *disagree) {
  occ_log_kind first = OCC_LOG_UNDECIDED;
  *disagree = 0;
  for (const char *p = text, *end = text + len; p < end;) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
    occ_log_kind k = occ_log_line_kind(p, n);
    if (first == OCC_LOG_UNDECIDED) first = k;
    else if (k != OCC_LOG_UNDECIDED && k != first) (*disagree)++;
    p += n + 1;
  }
  return first;
}

Test(amd_remarks, tells_logs_apart) {
  size_t len;
  long disagree;
  const char *amd = slurp("tests/amd/data/clang19-gfx908.log", &len);
  cr_expect_eq(first_kind(amd, len, &disagree), OCC_LOG_AMD);
  cr_expect_eq(disagree, 0);
  const char *lines[] = {
      "ptxas info    : Used 27 registers, used 1 barriers, 4096 bytes smem",
      "1>  ptxas info\t: Compiling entry function '_Z1kv' for 'sm_90'",
      "ptxas warning : Value of threads per SM for entry _Z1kv is out of range",
      "\tREG:32 STACK:0 SHARED:1024 LOCAL:0 CONSTANT[0]:568 TEXTURE:0"};
  for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
    cr_expect_eq(occ_log_line_kind(lines[i], strlen(lines[i])), OCC_LOG_NVIDIA, "%s",
                 lines[i]);
  const char *neither[] = {
      "k.cl:3:1: warning: unused variable 'x' [-Wunused-variable]",
      "clang -x hip --offload-arch=gfx90a -Rpass-analysis=kernel-resource-usage k.hip",
      "ptxas.log: no such file", "Function _Z1kv:", "REG:"};
  for (size_t i = 0; i < sizeof neither / sizeof *neither; i++)
    cr_expect_eq(occ_log_line_kind(neither[i], strlen(neither[i])), OCC_LOG_UNDECIDED,
                 "%s", neither[i]);
}
