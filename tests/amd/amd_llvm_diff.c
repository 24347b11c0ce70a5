/* amd_llvm_diff.c - the AMD calculator (src/core/amd.c) against LLVM
 * itself: for every AMD architecture of the database that llc knows, and
 * every wave size (and CU mode on gfx10+), it writes one .ll file of many
 * kernels that use given VGPRs (an inline-asm clobber of v(N-1)), AGPRs
 * (a(N-1)), SGPRs (s(N-1)), LDS (an addrspace(3) global the kernel
 * stores to) and a fixed flat workgroup size, compiles it with
 * `llc -mtriple=amdgcn-amd-amdhsa -mcpu=gfxNNN`, reads each kernel's
 * "; NumSgprs:", "; NumVgprs:", "; NumAgprs:", "; TotalNumVgprs:",
 * "; LDSByteSize:" and "; Occupancy:", and compares the occupancy with
 * occ_amd_compute's waves_per_simd for what the kernel really used (and
 * the total VGPRs with TotalNumVgprs). Any difference fails.
 *
 * usage: amd_llvm_diff LLC DATABASE.json WORKDIR
 * Exit status: 0 no difference, 1 differences or a kernel llc did not
 * report, 2 usage or set-up error, 77 skipped (no llc). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/amd.h"
#include "db/gpudb.h"

#define CASES_MAX 4096

typedef struct probe {
  int vgprs, agprs, sgprs; /* registers clobbered: v(N-1), a(N-1), s(N-1) */
  int lds_bytes;
  int block; /* amdgpu-flat-work-group-size "N,N" */
} probe;

/* What llc printed for one kernel; -1 where it printed nothing. */
typedef struct report {
  int num_sgprs, num_vgprs, num_agprs, total_vgprs, lds_bytes, occupancy;
} report;

typedef struct config {
  int wave_size;
  bool cu_mode;
} config;

static uint32_t lcg_state = 12345;
static int lcg(int n) {
  lcg_state = lcg_state * 1103515245u + 12345u;
  return (int)((lcg_state >> 8) % (uint32_t)n);
}

static const int blocks[] = {1, 32, 64, 65, 96, 128, 192, 256, 320, 384, 512, 640, 768, 1024};
#define NBLOCKS ((int)(sizeof blocks / sizeof blocks[0]))
static const int lds_sizes[] = {0, 1, 100, 1024, 2048, 3000, 4096, 6144, 8192, 10000,
                                12288, 16384, 20000, 21846, 24576, 32768, 32769,
                                40000, 49152, 65536};
#define NLDS ((int)(sizeof lds_sizes / sizeof lds_sizes[0]))

static void add(probe *p, int *n, int v, int a, int s, int lds, int block) {
  if (*n < CASES_MAX) p[(*n)++] = (probe){v, a, s, lds, block};
}

/* The cases for one architecture: each register and LDS dimension swept
 * alone over its whole range, crossed with block sizes, then a
 * deterministic random mix of all of them. */
static int make_cases(const occ_amd_arch *a, probe *p) {
  int n = 0;
  int max_v = a->addressable_vgprs > 256 ? 256 : a->addressable_vgprs; /* arch VGPRs */
  int max_a = a->addressable_agprs;
  int max_s = a->addressable_sgprs;
  int max_lds = a->lds_per_block_bytes;
  for (int v = 1; v <= max_v; v++) add(p, &n, v, 0, 0, 0, 64);
  for (int v = 1; v <= max_v; v += 9)
    for (int b = 0; b < NBLOCKS; b++) add(p, &n, v, 0, 0, 0, blocks[b]);
  for (int ag = 1; max_a && ag <= max_a; ag += 5)
    for (int v = 1; v <= max_v; v += 51) add(p, &n, v, ag, 0, 0, blocks[ag % NBLOCKS]);
  for (int s = 1; s <= max_s; s++) {
    add(p, &n, 8, 0, s, 0, 64);
    add(p, &n, 8, 0, s, 0, 256);
  }
  for (int l = 0; l < NLDS; l++)
    for (int b = 0; b < NBLOCKS; b++)
      if (lds_sizes[l] <= max_lds) add(p, &n, 4, 0, 0, lds_sizes[l], blocks[b]);
  for (int i = 0; i < 300; i++) {
    int lds = lcg(4) == 0 ? 0 : 1 + lcg(max_lds);
    add(p, &n, 1 + lcg(max_v), max_a && lcg(2) ? lcg(max_a + 1) : 0, lcg(max_s + 1), lds,
        1 + lcg(a->max_threads_per_block));
  }
  return n;
}

static int write_ll(const char *path, const probe *p, int n) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  for (int i = 0; i < n; i++) {
    if (p[i].lds_bytes)
      fprintf(f, "@lds%d = internal addrspace(3) global [%d x i8] undef, align 4\n", i,
              p[i].lds_bytes);
    fprintf(f, "define amdgpu_kernel void @k%d() #%d {\n", i, i);
    if (p[i].vgprs) fprintf(f, "  call void asm sideeffect \"\", \"~{v%d}\"()\n", p[i].vgprs - 1);
    if (p[i].agprs) fprintf(f, "  call void asm sideeffect \"\", \"~{a%d}\"()\n", p[i].agprs - 1);
    if (p[i].sgprs) fprintf(f, "  call void asm sideeffect \"\", \"~{s%d}\"()\n", p[i].sgprs - 1);
    if (p[i].lds_bytes) fprintf(f, "  store volatile i8 0, ptr addrspace(3) @lds%d\n", i);
    fprintf(f, "  ret void\n}\nattributes #%d = { \"amdgpu-flat-work-group-size\"=\"%d,%d\" }\n",
            i, p[i].block, p[i].block);
  }
  return fclose(f);
}

/* Reads llc's assembly: a line "kN:" starts kernel N; its "; Key: value"
 * comments follow. */
static int read_reports(FILE *in, report *r, int n) {
  for (int i = 0; i < n; i++) r[i] = (report){-1, -1, -1, -1, -1, -1};
  char line[4096];
  int cur = -1;
  while (fgets(line, sizeof line, in)) {
    int k, v;
    char colon;
    if (sscanf(line, "k%d%c", &k, &colon) == 2 && colon == ':' && k >= 0 && k < n) {
      cur = k;
      continue;
    }
    if (cur < 0) continue;
    if (sscanf(line, " ; NumSgprs: %d", &v) == 1) r[cur].num_sgprs = v;
    else if (sscanf(line, " ; NumVgprs: %d", &v) == 1) r[cur].num_vgprs = v;
    else if (sscanf(line, " ; NumAgprs: %d", &v) == 1) r[cur].num_agprs = v;
    else if (sscanf(line, " ; TotalNumVgprs: %d", &v) == 1) r[cur].total_vgprs = v;
    else if (sscanf(line, " ; LDSByteSize: %d", &v) == 1) r[cur].lds_bytes = v;
    else if (sscanf(line, " ; Occupancy: %d", &v) == 1) r[cur].occupancy = v;
  }
  return 0;
}

/* True when llc -mcpu=help lists gfx. */
static bool llc_knows(const char *llc, const char *gfx) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "%s -mtriple=amdgcn-amd-amdhsa -mcpu=help 2>&1", llc);
  FILE *p = popen(cmd, "r");
  if (!p) return false;
  char line[512];
  bool found = false;
  size_t len = strlen(gfx);
  while (fgets(line, sizeof line, p)) {
    char *s = line + strspn(line, " ");
    if (strncmp(s, gfx, len) == 0 && s[len] == ' ') found = true;
  }
  pclose(p);
  return found;
}

typedef struct totals {
  long cases, diffs, missing;
} totals;

static void check_one(const occ_amd_arch *a, const config *c, const probe *p,
                      const report *r, int i, totals *t) {
  t->cases++;
  if (r->occupancy < 0 || r->num_vgprs < 0 || r->num_sgprs < 0) {
    if (t->missing++ < 5) fprintf(stderr, "%s: kernel k%d: llc printed no Occupancy\n", a->name, i);
    return;
  }
  occ_amd_kernel k = {.wave_size = c->wave_size, .cu_mode = c->cu_mode,
                      .threads_per_block = p->block, .max_threads_per_block = p->block,
                      .vgprs = r->num_vgprs, .agprs = r->num_agprs > 0 ? r->num_agprs : 0,
                      .sgprs = r->num_sgprs, .lds_bytes = r->lds_bytes > 0 ? r->lds_bytes : 0};
  occ_amd_result res;
  occ_amd_status st = occ_amd_compute(a, &k, &res);
  bool total_ok = r->total_vgprs < 0 || st != OCC_AMD_OK || res.vgprs_total == r->total_vgprs;
  if (st == OCC_AMD_OK && res.waves_per_simd == r->occupancy && total_ok) return;
  if (t->diffs++ < 20)
    fprintf(stderr,
            "%s wave%d%s k%d: vgprs %d agprs %d sgprs %d lds %d block %d: llc Occupancy %d "
            "TotalNumVgprs %d; occcalc %s waves_per_simd %d vgprs_total %d "
            "(vgpr %d sgpr %d lds %d wg %d)\n",
            a->name, c->wave_size, c->cu_mode ? " cumode" : "", i, r->num_vgprs, r->num_agprs,
            r->num_sgprs, r->lds_bytes, p->block, r->occupancy, r->total_vgprs,
            occ_amd_strerror(st), st ? -1 : res.waves_per_simd, st ? -1 : res.vgprs_total,
            st ? -1 : res.waves_by_vgprs, st ? -1 : res.waves_by_sgprs,
            st ? -1 : res.waves_by_lds, st ? -1 : res.waves_by_workgroups);
}

/* One llc run: every case of a on configuration c. */
static int run_config(const char *llc, const char *dir, const occ_amd_arch *a,
                      const config *c, totals *t) {
  static probe cases[CASES_MAX];
  static report reports[CASES_MAX];
  int n = make_cases(a, cases);
  char ll[512], cmd[1400];
  snprintf(ll, sizeof ll, "%s/%s-w%d%s.ll", dir, a->name, c->wave_size, c->cu_mode ? "-cu" : "");
  if (write_ll(ll, cases, n) != 0) {
    fprintf(stderr, "amd_llvm_diff: %s: cannot write\n", ll);
    return -1;
  }
  char attrs[128] = "";
  if (a->wave32 && a->wave64)
    snprintf(attrs, sizeof attrs, " -mattr=%s%s", c->wave_size == 64 ? "+wavefrontsize64" : "+wavefrontsize32",
             c->cu_mode ? ",+cumode" : "");
  snprintf(cmd, sizeof cmd, "%s -mtriple=amdgcn-amd-amdhsa -mcpu=%s%s -o - %s", llc, a->name,
           attrs, ll);
  FILE *p = popen(cmd, "r");
  if (!p) return -1;
  read_reports(p, reports, n);
  if (pclose(p) != 0) {
    fprintf(stderr, "amd_llvm_diff: failed: %s\n", cmd);
    return -1;
  }
  for (int i = 0; i < n; i++) check_one(a, c, &cases[i], &reports[i], i, t);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fputs("usage: amd_llvm_diff LLC DATABASE.json WORKDIR\n", stderr);
    return 2;
  }
  char err[512];
  occ_gpudb *db = occ_gpudb_load_file(argv[2], err, sizeof err);
  if (!db) {
    fprintf(stderr, "amd_llvm_diff: %s\n", err);
    return 2;
  }
  totals t = {0, 0, 0};
  int targets = 0, runs = 0;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (size_t i = 0; i < occ_gpudb_amd_arch_count(db); i++) {
    occ_amd_arch a;
    occ_gpudb_amd_arch_at(db, i, &a, NULL, NULL);
    if (!llc_knows(argv[1], a.name)) {
      printf("amd-llvm: %s: not known to %s, not compared\n", a.name, argv[1]);
      continue;
    }
    targets++;
    const config configs[] = {{64, false}, {32, false}, {32, true}, {64, true}};
    for (size_t c = 0; c < sizeof configs / sizeof configs[0]; c++) {
      if ((configs[c].wave_size == 64 && !a.wave64) || (configs[c].wave_size == 32 && !a.wave32) ||
          (configs[c].cu_mode && !a.wgp_mode))
        continue;
      if (run_config(argv[1], argv[3], &a, &configs[c], &t) != 0) {
        occ_gpudb_free(db);
        return 1;
      }
      runs++;
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  occ_gpudb_free(db);
  double secs = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
  printf("amd-llvm: %ld kernels, %d targets, %d llc runs, %.1f s: %ld differences, %ld "
         "unreported\n",
         t.cases, targets, runs, secs, t.diffs, t.missing);
  if (targets == 0) {
    puts("amd-llvm: no target compared");
    return 1;
  }
  return t.diffs || t.missing ? 1 : 0;
}
