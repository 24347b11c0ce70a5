/* unit.c - unit tests of the ptxas reader and the demangler (Criterion).
 * The golden cases (golden.sh) cover the formats; these cover what a
 * golden file cannot: chunking, long lines, stopping, every field. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptxas/demangle.h"
#include "ptxas/ptxas.h"

/* Every kernel as one text line, appended to a growing buffer. */
typedef struct trace {
  char text[1 << 16];
  size_t len;
  int stop_after; /* 0: never stop */
} trace;

static bool included;

static int record(const occ_ptxas_kernel *k, void *ctx);

static int record_reserve(const occ_ptxas_kernel *k, void *ctx) {
  included = k->smem_includes_reserve;
  return record(k, ctx);
}

static int record(const occ_ptxas_kernel *k, void *ctx) {
  trace *t = ctx;
  t->len += (size_t)snprintf(
      t->text + t->len, sizeof t->text - t->len,
      "%s|%s|%d|%lld|%lld|%lld|%lld|%lld|%lld|%d|%d|%d|%d|%ld\n", k->arch,
      k->name, k->regs_per_thread, (long long)k->smem_static_bytes,
      (long long)k->stack_bytes, (long long)k->local_bytes,
      (long long)k->spill_stores_bytes, (long long)k->spill_loads_bytes,
      (long long)k->cmem_bytes, k->barriers, k->textures, k->samplers,
      k->surfaces, k->line);
  if (t->stop_after && --t->stop_after == 0) return 42;
  return 0;
}

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  cr_assert_not_null(f, "cannot open %s", path);
  static char buf[1 << 20];
  *len = fread(buf, 1, sizeof buf, f);
  fclose(f);
  return buf;
}

static void parse_chunked(const char *data, size_t len, size_t chunk,
                          trace *t, occ_ptxas_stats *stats) {
  occ_ptxas_parser *p = occ_ptxas_new(record, t);
  cr_assert_not_null(p);
  for (size_t off = 0; off < len; off += chunk)
    occ_ptxas_feed(p, data + off, len - off < chunk ? len - off : chunk);
  occ_ptxas_finish(p);
  *stats = *occ_ptxas_get_stats(p);
  occ_ptxas_free(p);
}

Test(ptxas, chunk_size_does_not_change_the_result) {
  static const char *const files[] = {
      "tests/ptxas/logs/gencode_warnings.log",
      "tests/ptxas/logs/msbuild_crlf.log",
      "tests/ptxas/logs/bad_lines.log",
      "tests/ptxas/logs/cuobjdump_bad.txt",
      "tests/ptxas/real/templates.ptxas.log"};
  static const size_t chunks[] = {1, 2, 3, 7, 64, 4096};
  for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
    size_t len;
    const char *data = slurp(files[f], &len);
    static trace whole, part;
    occ_ptxas_stats ws, ps;
    memset(&whole, 0, sizeof whole);
    parse_chunked(data, len, len ? len : 1, &whole, &ws);
    cr_assert_gt(ws.kernels, 0, "%s: no kernel", files[f]);
    for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++) {
      memset(&part, 0, sizeof part);
      parse_chunked(data, len, chunks[c], &part, &ps);
      cr_assert_str_eq(part.text, whole.text, "%s in chunks of %zu",
                       files[f], chunks[c]);
      cr_assert_eq(ps.skipped_lines, ws.skipped_lines);
      cr_assert_eq(ps.lines, ws.lines);
    }
  }
}

Test(ptxas, every_field_of_a_used_line) {
  const char *log =
      "ptxas info    : Compiling entry function '_Z1kv' for 'sm_90a'\n"
      "ptxas info    : Function properties for _Z1kv\n"
      "    16 bytes stack frame, 4 bytes spill stores, 8 bytes spill loads\n"
      "ptxas info    : Used 255 registers, used 16 barriers, 60+4 bytes "
      "lmem, 1000+24 bytes smem, 100 bytes cmem[0], 8 bytes cmem[2], 32 "
      "bytes cumulative stack size, 3 textures, 2 samplers, 1 surfaces, 7 "
      "bytes newfield\n";
  trace t = {0};
  occ_ptxas_stats s;
  parse_chunked(log, strlen(log), strlen(log), &t, &s);
  cr_assert_str_eq(t.text,
                   "sm_90a|_Z1kv|255|1024|32|64|4|8|108|16|3|2|1|4\n");
  cr_assert_eq(s.skipped_lines, 0);
}

Test(ptxas, a_line_over_the_limit_is_skipped_and_counted) {
  size_t long_len = OCC_PTXAS_LINE_MAX + 10;
  char *data = malloc(long_len + 200);
  cr_assert_not_null(data);
  memset(data, 'x', long_len);
  data[long_len] = '\n';
  const char *tail = "ptxas info    : Compiling entry function 'k' for "
                     "'sm_80'\nptxas info    : Used 8 registers\n";
  memcpy(data + long_len + 1, tail, strlen(tail));
  size_t len = long_len + 1 + strlen(tail);
  for (size_t chunk = 1000; chunk <= len; chunk *= 8) {
    trace t = {0};
    occ_ptxas_stats s;
    parse_chunked(data, len, chunk, &t, &s);
    cr_assert_eq(s.skipped_lines, 1, "chunk %zu", chunk);
    cr_assert_eq(s.first_skipped_line, 1);
    cr_assert_str_eq(t.text, "sm_80|k|8|0|-1|-1|-1|-1|-1|-1|-1|-1|-1|3\n");
  }
  free(data);
}

Test(ptxas, a_long_name_within_the_limit_is_kept_whole) {
  size_t name_len = OCC_PTXAS_LINE_MAX - 100;
  char *data = malloc(name_len + 200);
  cr_assert_not_null(data);
  int head = sprintf(data, "ptxas info    : Compiling entry function '");
  memset(data + head, 'n', name_len);
  int rest = sprintf(data + head + name_len,
                     "' for 'sm_75'\nptxas info    : Used 9 registers\n");
  trace t = {0};
  occ_ptxas_stats s;
  parse_chunked(data, head + name_len + (size_t)rest, 4096, &t, &s);
  size_t seen = (size_t)(strchr(t.text + 6, '|') - (t.text + 6));
  cr_assert_eq(seen, name_len);
  free(data);
}

Test(ptxas, the_callback_can_stop_the_parser) {
  size_t len;
  const char *data = slurp("tests/ptxas/real/smem.ptxas.log", &len);
  trace t = {0};
  t.stop_after = 2;
  occ_ptxas_parser *p = occ_ptxas_new(record, &t);
  cr_assert_eq(occ_ptxas_feed(p, data, len), 42);
  cr_assert_eq(occ_ptxas_finish(p), 42);
  cr_assert_eq(occ_ptxas_get_stats(p)->kernels, 2);
  occ_ptxas_free(p);
}

Test(ptxas, a_read_error_is_reported) {
  FILE *f = fopen("tests/ptxas", "r"); /* a directory: fread fails */
  cr_assert_not_null(f);
  trace t = {0};
  occ_ptxas_parser *p = occ_ptxas_new(record, &t);
  cr_assert_eq(occ_ptxas_read_file(p, f), -1);
  occ_ptxas_free(p);
  fclose(f);
}

Test(demangle, names) {
  occ_demangler d = OCC_DEMANGLER_INIT;
  cr_assert_str_eq(occ_demangle(&d, "_Z2tkILi64EEvPd"), "tk<64>(double*)");
  cr_assert_str_eq(occ_demangle(&d, "_ZN8occ_test9tile_copyILi64EdEEvPT0_PKS1_i"),
                   "occ_test::tile_copy<64, double>(double*, double const*, int)");
  cr_assert_str_eq(occ_demangle(&d, "_Z3k48Pfi"), "k48(float*, int)");
  cr_assert_str_eq(occ_demangle(&d, "__globfunc__Z6kernelPfi"),
                   "kernel(float*, int)");
  cr_assert_str_eq(occ_demangle(&d, "c_linkage_saxpy"), "c_linkage_saxpy");
  cr_assert_str_eq(occ_demangle(&d, "_Zgarbage"), "_Zgarbage");
  cr_assert_str_eq(occ_demangle(&d, ""), "");
  occ_demangler_free(&d);
  occ_demangler_free(&d); /* twice is harmless */
}

/* Parses one sm_XX cuobjdump section of a kernel with SHARED:shared into
 * t; returns whether the reader says the reserve is included. */
static bool cuobjdump_sm(const char *arch, int shared, trace *t) {
  char text[512];
  snprintf(text, sizeof text,
           "Fatbin elf code:\n================\narch = %s\n\nResource usage:\n"
           " Function _Z1kv:\n  REG:10 STACK:0 SHARED:%d LOCAL:0 "
           "CONSTANT[0]:360 TEXTURE:0 SURFACE:0 SAMPLER:0\n", arch, shared);
  included = false;
  occ_ptxas_parser *p = occ_ptxas_new(record_reserve, t);
  cr_assert_not_null(p);
  occ_ptxas_feed(p, text, strlen(text));
  occ_ptxas_finish(p);
  occ_ptxas_free(p);
  return included;
}

/* cuobjdump's SHARED as printed, said to include the reserve from sm_90
 * on, where the kernel has shared memory (the command takes it off). */
Test(ptxas, cuobjdump_shared_says_the_reserve_is_included) {
  static trace t[4];
  cr_expect(cuobjdump_sm("sm_90", 3072, &t[0]));
  cr_expect_not(cuobjdump_sm("sm_80", 3072, &t[1]));
  cr_expect(cuobjdump_sm("sm_120", 3072, &t[2]));
  cr_expect_not(cuobjdump_sm("sm_100", 0, &t[3]));
  cr_expect_not_null(strstr(t[0].text, "|_Z1kv|10|3072|"), "%s", t[0].text);
  cr_expect_not_null(strstr(t[1].text, "|_Z1kv|10|3072|"), "%s", t[1].text);
}

/* Without a callback the caller takes each kernel after the line that
 * completes it: the line after its callees' properties, not its Used
 * line (a callee's frame and spills come after the kernel). */
Test(ptxas, pull_a_kernel_after_its_callees) {
  static const char *lines[] = {
      "ptxas info    : Compiling entry function '_Z9recursivePi' for 'sm_90'",
      "ptxas info    : Function properties for _Z9recursivePi",
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
      "ptxas info    : Used 24 registers, used 0 barriers",
      "ptxas info    : Compile time = 2.504 ms",
      "ptxas info    : Function properties for _Z3fibi",
      "    24 bytes stack frame, 20 bytes spill stores, 20 bytes spill loads",
      "ptxas info    : Compiling entry function '_Z4leafPi' for 'sm_90'",
      "ptxas info    : Used 8 registers, used 0 barriers"};
  occ_ptxas_parser *p = occ_ptxas_new(NULL, NULL);
  cr_assert_not_null(p);
  int completed_at[2] = {-1, -1}, n = 0;
  const occ_ptxas_kernel *k;
  for (int i = 0; i < (int)(sizeof lines / sizeof *lines); i++) {
    occ_ptxas_line(p, lines[i], strlen(lines[i]));
    while ((k = occ_ptxas_next(p))) {
      cr_assert_lt(n, 2);
      if (n == 0) {
        cr_expect_str_eq(k->name, "_Z9recursivePi");
        cr_expect_eq(k->callees, 1);
        cr_expect_str_eq(k->first_callee, "_Z3fibi");
        cr_expect_eq(k->callee_stack_bytes, 24);
        cr_expect_eq(k->callee_spill_stores_bytes, 20);
        cr_expect_eq(k->callee_spill_loads_bytes, 20);
      }
      completed_at[n++] = i;
    }
  }
  occ_ptxas_finish(p);
  while ((k = occ_ptxas_next(p))) {
    cr_expect_str_eq(k->name, "_Z4leafPi");
    cr_expect_eq(k->callees, 0);
    cr_expect_eq(k->callee_stack_bytes, OCC_PTXAS_UNKNOWN);
    completed_at[n++] = 99;
  }
  cr_expect_eq(n, 2);
  cr_expect_eq(completed_at[0], 7, "the first kernel came at line %d", completed_at[0]);
  cr_expect_eq(completed_at[1], 99);
  occ_ptxas_free(p);
}
