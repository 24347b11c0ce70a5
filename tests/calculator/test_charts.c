/* Unit tests of the sweep engine, the charts' data and writers, the
 * suggestions and the carveout explorer. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "json_parsed.h"
#include "render/chart_out.h"
#include "db_fixture.h"
#include "db/gpudb.h"
#include "core/occ.h"
#include "render/suggest_out.h"
#include "core/sweep.h"


static occ_kernel kernel(int regs, int64_t static_smem, int64_t dynamic_smem,
                         int threads) {
  return test_kernel(regs, static_smem, dynamic_smem, threads, OCC_CARVEOUT_DEFAULT);
}

static occ_sweep *sweep_of(const occ_device *d, const occ_kernel *k) {
  occ_sweep *s = NULL;
  cr_assert_eq(occ_sweep_new(d, k->carveout_pct, k->barriers, &s), OCC_OK);
  return s;
}

/* Everything a writer printed, as one string (free it). */
typedef void (*writer_fn)(FILE *, const occ_chart *const *, size_t);
static char *capture(writer_fn write, const occ_chart *const *charts,
                     size_t count) {
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  cr_assert_not_null(f);
  write(f, charts, count);
  fclose(f);
  return text;
}

/* The SVG writer with a kernel's name, as a writer_fn. */
static void write_svg_named(FILE *f, const occ_chart *const *charts, size_t count) {
  occ_chart_write_svg(f, "reduce(float const*, float*)", charts, count);
}

static size_t count_lines(const char *text) {
  size_t n = 0;
  for (; *text; text++) n += *text == '\n';
  return n;
}

/* The widest line in characters (UTF-8 continuation bytes do not count). */
static int widest_line(const char *text) {
  int widest = 0, width = 0;
  for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
    if (*p == '\n') {
      widest = width > widest ? width : widest;
      width = 0;
    } else if ((*p & 0xC0) != 0x80) {
      width++;
    }
  }
  return width > widest ? width : widest;
}

TestSuite(sweep, .init = load_db, .fini = free_db);

Test(sweep, readme_example_and_the_edges) {
  occ_device d = board("H100 SXM");
  occ_kernel k = kernel(48, 4096, 0, 128);
  occ_sweep *s = sweep_of(&d, &k);
  cr_expect_eq(occ_sweep_blocks(s, 128, 48, 4096), 10);
  cr_expect_eq(occ_sweep_blocks(s, 0, 48, 4096), 0);
  cr_expect_eq(occ_sweep_blocks(s, 1025, 0, 0), 0);
  cr_expect_eq(occ_sweep_blocks(s, 128, 256, 0), 0);
  cr_expect_eq(occ_sweep_blocks(s, 128, -1, 0), 0);
  cr_expect_eq(occ_sweep_blocks(s, 128, 0, 232448), 1);
  cr_expect_eq(occ_sweep_blocks(s, 128, 0, 232449), 0);
  cr_expect_eq(occ_sweep_smem_max_bytes(s), 232448);
  occ_sweep_point p;
  cr_assert_eq(occ_sweep_eval(s, 128, 48, 4096, &p), OCC_OK);
  cr_expect_eq(p.limited_by, OCC_LIMITER_REGISTERS);
  cr_expect_eq(p.active_warps_per_sm, 40);
  /* Outside the tables the core answers, with its reasons. */
  cr_assert_eq(occ_sweep_eval(s, 2048, 0, 0, &p), OCC_OK);
  cr_expect_eq(p.active_blocks_per_sm, 0);
  cr_expect(p.limited_by & OCC_LIMITER_WARPS);
  occ_sweep_free(s);
  occ_sweep_free(NULL);
}

Test(sweep, row_of_block_sizes_matches_single_calls) {
  occ_device d = board("GTX 970");
  occ_kernel k = kernel(0, 0, 0, 1);
  occ_sweep *s = sweep_of(&d, &k);
  int row[1100];
  for (int regs = 0; regs <= 255; regs += 17)
    for (int64_t smem = 0; smem <= 50000; smem += 4999) {
      occ_sweep_blocks_by_threads(s, regs, smem, 1, 1100, row);
      for (int t = 1; t <= 1100; t++)
        cr_assert_eq(row[t - 1], occ_sweep_blocks(s, t, regs, smem),
                     "threads %d regs %d smem %lld", t, regs, (long long)smem);
    }
  occ_sweep_free(s);
}

TestSuite(chart, .init = load_db, .fini = free_db);

static void build(const occ_device *d, const occ_kernel *k, occ_chart_kind kind,
                  int step, occ_chart *c) {
  occ_sweep *s = sweep_of(d, k);
  cr_assert_eq(occ_chart_build(s, k, kind, step, c), OCC_OK);
  occ_sweep_free(s);
}

Test(chart, ranges_and_the_marked_point) {
  occ_device d = board("H100 SXM");
  occ_kernel k = kernel(48, 4096, 0, 128);
  occ_chart c;
  build(&d, &k, OCC_CHART_BLOCK, 0, &c);
  cr_expect_eq(c.count, 32); /* 32..1024 by 32, 128 on the grid */
  cr_expect_eq(c.points[c.marked].x, 128);
  cr_expect_eq(c.points[c.marked].active_warps_per_sm, 40);
  cr_expect(c.marked_launchable);
  occ_chart_free(&c);

  build(&d, &k, OCC_CHART_BLOCK, 1, &c);
  cr_expect_eq(c.count, 1024);
  occ_chart_free(&c);

  build(&d, &k, OCC_CHART_REGS, 0, &c);
  cr_expect_eq(c.count, 256);
  cr_expect_eq(c.marked, 48);
  occ_chart_free(&c);

  build(&d, &k, OCC_CHART_SMEM, 0, &c);
  cr_expect_eq(c.count, 232448 / 128 + 1);
  cr_expect_eq(c.points[c.count - 1].x, 232448);
  cr_expect_eq(c.points[c.marked].x, 4096);
  occ_chart_free(&c);
}

Test(chart, an_off_grid_kernel_is_inserted_in_order) {
  occ_device d = board("H100 SXM");
  occ_kernel k = kernel(48, 4000, 0, 100);
  occ_chart c;
  build(&d, &k, OCC_CHART_BLOCK, 0, &c);
  cr_expect_eq(c.count, 33);
  cr_expect_eq(c.marked, 3);
  cr_expect_eq(c.points[2].x, 96);
  cr_expect_eq(c.points[3].x, 100);
  cr_expect_eq(c.points[4].x, 128);
  occ_chart_free(&c);
  build(&d, &k, OCC_CHART_SMEM, 0, &c);
  cr_expect_eq(c.count, 232448 / 128 + 2);
  cr_expect_eq(c.points[c.marked].x, 4000);
  cr_expect_lt(c.points[c.marked - 1].x, 4000);
  cr_expect_gt(c.points[c.marked + 1].x, 4000);
  occ_chart_free(&c);
}

Test(chart, every_point_is_the_cores_answer) {
  occ_device d = board("A100");
  occ_kernel k = kernel(40, 2048, 10000, 192);
  k.carveout_pct = 30;
  for (int kind = 0; kind < OCC_CHART_KIND_COUNT; kind++) {
    occ_chart c;
    build(&d, &k, (occ_chart_kind)kind, 0, &c);
    for (size_t i = 0; i < c.count; i++) {
      occ_kernel at = kernel(40, 0, 12048, 192);
      at.carveout_pct = 30;
      if (kind == OCC_CHART_BLOCK) at.block[0] = (int)c.points[i].x;
      if (kind == OCC_CHART_REGS) at.regs_per_thread = (int)c.points[i].x;
      if (kind == OCC_CHART_SMEM) at.smem_dynamic_bytes = c.points[i].x;
      occ_result r;
      cr_assert_eq(occ_compute(&d, &at, &r), OCC_OK);
      cr_assert_eq(c.points[i].active_warps_per_sm, r.active_warps_per_sm,
                   "chart %d x %lld", kind, (long long)c.points[i].x);
      cr_assert_eq(c.points[i].limited_by, r.limited_by);
    }
    occ_chart_free(&c);
  }
}

static void print_unicode(FILE *f, const occ_chart *const *c, size_t n) {
  occ_chart_print_term(f, c, n, false);
}
static void print_ascii(FILE *f, const occ_chart *const *c, size_t n) {
  occ_chart_print_term(f, c, n, true);
}

Test(chart, cannot_launch_still_draws) {
  occ_device d = board("V100");
  occ_kernel k = kernel(255, 0, 0, 1024);
  occ_chart charts[OCC_CHART_KIND_COUNT];
  const occ_chart *list[OCC_CHART_KIND_COUNT];
  for (int kind = 0; kind < OCC_CHART_KIND_COUNT; kind++) {
    build(&d, &k, (occ_chart_kind)kind, 0, &charts[kind]);
    list[kind] = &charts[kind];
    cr_expect_not(charts[kind].marked_launchable);
  }
  char *text = capture(print_ascii, list, 3);
  cr_expect_not_null(strstr(text, "1024 threads: cannot launch"));
  free(text);
  char *svg = capture(write_svg_named, list, 3);
  cr_expect_not_null(strstr(svg, "1024 threads: cannot launch"));
  /* The title names the kernel and the device. */
  cr_expect_not_null(strstr(svg, "<title>occupancy of reduce(float const*, float*) on "));
  cr_expect_not_null(strstr(svg, "reduce(float const*, float*) on "));
  cr_expect_not_null(strstr(svg, "255 regs: cannot launch"));
  free(svg);
  for (int kind = 0; kind < OCC_CHART_KIND_COUNT; kind++)
    occ_chart_free(&charts[kind]);
}

Test(chart, terminal_fits_80_columns_and_ascii_is_ascii) {
  const char *boards[] = {"GTX 970", "H100 SXM", "RTX 4090", "Jetson AGX Orin"};
  for (size_t b = 0; b < sizeof boards / sizeof boards[0]; b++) {
    occ_device d = board(boards[b]);
    occ_kernel k = kernel(72, 1000, 30000, 1000);
    occ_chart charts[3];
    const occ_chart *list[3];
    for (int kind = 0; kind < 3; kind++) {
      build(&d, &k, (occ_chart_kind)kind, kind == 0 ? 1 : 0, &charts[kind]);
      list[kind] = &charts[kind];
    }
    char *u = capture(print_unicode, list, 3);
    char *a = capture(print_ascii, list, 3);
    cr_expect_leq(widest_line(u), 80, "%s", boards[b]);
    cr_expect_leq(widest_line(a), 80, "%s", boards[b]);
    cr_expect_eq(count_lines(u), count_lines(a));
    for (const unsigned char *p = (const unsigned char *)a; *p; p++)
      cr_assert_lt(*p, 128, "non-ASCII byte in --ascii output");
    cr_expect_not_null(strstr(u, "\u2588"));
    free(u);
    free(a);
    for (int kind = 0; kind < 3; kind++) occ_chart_free(&charts[kind]);
  }
}

/* The CSV writer with its header, for a kernel whose name needs quoting. */
static void write_csv(FILE *f, const occ_chart *const *charts, size_t count) {
  occ_chart_write_csv_header(f);
  occ_chart_write_csv(f, "k<1,2>", charts, count);
}

Test(chart, csv_has_a_row_per_point_and_one_marked) {
  occ_device d = board("H100 SXM");
  occ_kernel k = kernel(48, 4096, 0, 128);
  occ_chart charts[3];
  const occ_chart *list[3];
  size_t points = 0;
  for (int kind = 0; kind < 3; kind++) {
    build(&d, &k, (occ_chart_kind)kind, 0, &charts[kind]);
    list[kind] = &charts[kind];
    points += charts[kind].count;
  }
  char *csv = capture(write_csv, list, 3);
  cr_expect_eq(count_lines(csv), points + 1);
  cr_expect_not_null(strstr(csv, "\n\"k<1,2>\",block,128,48,4096,10,40,0.6250,registers,1\n"));
  cr_expect_not_null(strstr(csv, "\n\"k<1,2>\",regs,128,48,4096,10,40,0.6250,registers,1\n"));
  cr_expect_not_null(strstr(csv, "\n\"k<1,2>\",smem,128,48,4096,10,40,0.6250,registers,1\n"));
  size_t marked = 0;
  for (const char *p = csv; (p = strstr(p, ",1\n")); p++) marked++;
  cr_expect_eq(marked, 3);
  free(csv);
  for (int kind = 0; kind < 3; kind++) occ_chart_free(&charts[kind]);
}

Test(chart, locale_decides_unicode) {
  setenv("LC_ALL", "", 1);
  setenv("LC_CTYPE", "de_DE.UTF-8", 1);
  cr_expect(occ_chart_locale_is_utf8());
  setenv("LC_ALL", "C", 1);
  cr_expect_not(occ_chart_locale_is_utf8());
  setenv("LC_ALL", "C.utf8", 1);
  cr_expect(occ_chart_locale_is_utf8());
  unsetenv("LC_ALL");
  unsetenv("LC_CTYPE");
  setenv("LANG", "POSIX", 1);
  cr_expect_not(occ_chart_locale_is_utf8());
}

TestSuite(suggest, .init = load_db, .fini = free_db);

Test(suggest, gtx970_registers_are_the_limiter) {
  occ_device d = board("GTX 970");
  occ_kernel k = kernel(48, 4096, 0, 128);
  occ_suggestion s;
  cr_assert_eq(occ_suggest(&d, &k, &s), OCC_OK);
  cr_expect_eq(s.limited_by, OCC_LIMITER_REGISTERS);
  cr_expect_eq(s.active_blocks_per_sm, 10);
  cr_assert_eq(s.reg_step_count, 2);
  cr_expect_eq(s.reg_steps[0].value, 40);
  cr_expect_eq(s.reg_steps[0].active_blocks_per_sm, 12);
  cr_expect_eq(s.reg_steps[0].active_warps_per_sm, 48);
  cr_expect_float_eq(s.reg_steps[0].occupancy, 0.75, 1e-9);
  cr_expect_eq(s.reg_steps[1].value, 32);
  cr_expect_eq(s.reg_steps[1].active_blocks_per_sm, 16);
  cr_expect_eq(s.smem_step_count, 0);
  int best[] = {64, 128, 160, 256, 320, 640};
  cr_assert_eq(s.best_block_count, 6);
  for (int i = 0; i < 6; i++) cr_expect_eq(s.best_block_sizes[i], best[i]);
  cr_expect_eq(s.best_block_size, 640);
  cr_expect_eq(s.smallest_best_block_size, 64);
  cr_expect_eq(s.min_grid_size, 13 * 2);
  cr_expect_eq(s.regs_per_thread_max, 48);
  cr_expect_eq(s.smem_max_bytes, 9728); /* 98304 / 10 blocks, in 256 B units */
  cr_expect_eq(s.carveout_count, 0);
  cr_expect_eq(s.carveout_best, -1);

  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  occ_suggest_print(f, &d, &s);
  fclose(f);
  cr_expect_not_null(strstr(text, "with <= 40 registers per thread: 12 blocks, 48 warps, 75 %"));
  cr_expect_not_null(strstr(text, "__launch_bounds__(128, 12) or -maxrregcount=40"));
  cr_expect_leq(widest_line(text), 80);
  free(text);
}

Test(suggest, h100_shared_memory_is_the_limiter) {
  occ_device d = board("H100 SXM");
  occ_kernel k = kernel(32, 0, 40000, 256);
  occ_suggestion s;
  cr_assert_eq(occ_suggest(&d, &k, &s), OCC_OK);
  cr_expect_eq(s.limited_by, OCC_LIMITER_SHARED_MEMORY);
  cr_expect_eq(s.active_blocks_per_sm, 5);
  cr_expect_eq(s.reg_step_count, 0); /* fewer registers gain nothing */
  cr_assert_eq(s.smem_step_count, 3);
  /* 6 blocks: 233472 / 6 = 38912 B per block, 1024 reserved: 37888 B. */
  cr_expect_eq(s.smem_steps[0].value, 37888);
  cr_expect_eq(s.smem_steps[0].active_blocks_per_sm, 6);
  cr_expect_eq(s.smem_steps[2].active_blocks_per_sm, 8);
  cr_expect_float_eq(s.smem_steps[2].occupancy, 1.0, 1e-9);
  cr_expect_eq(s.regs_per_thread_max, 48); /* 40 warps at 48 regs still fit */
  cr_expect_eq(s.smem_max_bytes, 45568);  /* 233472 / 5 in 128 B units - 1024 */
  cr_assert_eq(s.carveout_count, d.smem_config_count);
  cr_expect_eq(s.carveout_best, d.smem_config_count - 1);
  cr_expect_eq(s.carveouts[s.carveout_best].active_blocks_per_sm, 5);
}

Test(suggest, a_smaller_carveout_keeps_the_occupancy) {
  occ_device d = board("H100 SXM");
  occ_kernel k = kernel(48, 4096, 0, 128); /* 10 blocks, by registers */
  occ_suggestion s;
  cr_assert_eq(occ_suggest(&d, &k, &s), OCC_OK);
  cr_assert_geq(s.carveout_best, 0);
  const occ_carveout_option *best = &s.carveouts[s.carveout_best];
  cr_expect_eq(best->active_blocks_per_sm, 10);
  /* 10 blocks x 5 KB (4096 + 1024 reserved) need 50 KB: the 64 KB
   * configuration, and no smaller one. */
  cr_expect_eq(best->smem_config_bytes, 65536);
  cr_expect_lt(s.carveouts[s.carveout_best - 1].active_blocks_per_sm, 10);
}

/* The explorer lists exactly the architecture's configurations, each with
 * the smallest carveout that selects it. */
Test(suggest, carveout_explorer_matches_every_architecture) {
  size_t n = occ_gpudb_arch_count(db);
  for (size_t i = 0; i < n; i++) {
    occ_device d;
    occ_gpudb_arch_at(db, i, &d, NULL, NULL);
    occ_kernel k = kernel(32, 0, 8192, 256);
    occ_suggestion s;
    cr_assert_eq(occ_suggest(&d, &k, &s), OCC_OK);
    cr_assert_eq(s.carveout_count, d.smem_config_count, "cc %d.%d", d.cc_major,
                 d.cc_minor);
    for (int c = 0; c < s.carveout_count; c++) {
      cr_expect_eq(s.carveouts[c].smem_config_bytes, d.smem_configs_bytes[c]);
      occ_kernel at = k;
      occ_result r;
      at.carveout_pct = s.carveouts[c].carveout_pct;
      cr_assert_eq(occ_compute(&d, &at, &r), OCC_OK);
      cr_expect_eq(r.smem_preference_bytes, d.smem_configs_bytes[c]);
      cr_expect_eq(r.active_blocks_per_sm, s.carveouts[c].active_blocks_per_sm);
      if (at.carveout_pct > 0) {
        at.carveout_pct--;
        cr_assert_eq(occ_compute(&d, &at, &r), OCC_OK);
        cr_expect_lt(r.smem_preference_bytes, d.smem_configs_bytes[c]);
      }
    }
  }
}

Test(suggest, best_block_sizes_agree_with_the_core) {
  size_t n = occ_gpudb_arch_count(db);
  for (size_t i = 0; i < n; i++) {
    occ_device d;
    occ_gpudb_arch_at(db, i, &d, NULL, NULL);
    for (int regs = 0; regs <= 255; regs += 5)
      for (int64_t smem = 0; smem <= 100000; smem += 12345) {
        occ_kernel k = kernel(regs, 0, smem, 64);
        occ_suggestion s;
        occ_block_choice choice;
        cr_assert_eq(occ_suggest(&d, &k, &s), OCC_OK);
        cr_assert_eq(occ_best_block_size(&d, &k, &choice), OCC_OK);
        cr_assert_eq(s.best_block_size, choice.block_size,
                     "cc %d.%d regs %d smem %lld", d.cc_major, d.cc_minor, regs,
                     (long long)smem);
        cr_assert_eq(s.smallest_best_block_size, choice.smallest_block_size);
        cr_assert_eq(s.min_grid_size, choice.min_grid_size);
      }
  }
}

Test(suggest, cannot_launch_has_steps_but_no_headroom) {
  occ_device d = board("V100");
  occ_kernel k = kernel(255, 0, 0, 1024);
  occ_suggestion s;
  cr_assert_eq(occ_suggest(&d, &k, &s), OCC_OK);
  cr_expect_not(s.launchable);
  cr_assert_geq(s.reg_step_count, 1);
  cr_expect_eq(s.reg_steps[0].value, 64); /* 64 x 1024 = the 64K per block */
  cr_expect_eq(s.reg_steps[0].active_blocks_per_sm, 1);
  cJSON *j = json_parsed(occ_suggest_json(&s));
  cr_assert_not_null(j);
  cr_expect(cJSON_IsNull(cJSON_GetObjectItem(j, "headroom")));
  cJSON_Delete(j);
}

/* The sweep cache: one sweep per device, carveout preference and barrier
 * count, shared by every later request for the same; the oldest replaced
 * when full; a suggestion on a shared sweep the same as on its own. */
Test(sweep, cache_builds_each_once) {
  occ_device h100 = board("H100 SXM"), gtx = board("GTX 970");
  occ_kernel k = kernel(48, 4096, 0, 128);
  occ_sweep_cache cache = {.count = 0};
  const occ_sweep *a = NULL, *b = NULL, *c = NULL;
  cr_assert_eq(occ_sweep_cache_get(&cache, &h100, k.carveout_pct, k.barriers, &a), OCC_OK);
  cr_assert_eq(occ_sweep_cache_get(&cache, &h100, k.carveout_pct, k.barriers, &b), OCC_OK);
  cr_expect_eq(a, b);
  cr_expect_eq(cache.built, 1);
  cr_assert_eq(occ_sweep_cache_get(&cache, &gtx, k.carveout_pct, k.barriers, &c), OCC_OK);
  cr_expect_neq(a, c);
  cr_assert_eq(occ_sweep_cache_get(&cache, &h100, 50, k.barriers, &c), OCC_OK);
  cr_expect_neq(a, c);
  cr_expect_eq(cache.built, 3);
  occ_suggestion own, shared;
  cr_assert_eq(occ_suggest(&h100, &k, &own), OCC_OK);
  cr_assert_eq(occ_suggest_on(a, &h100, &k, &shared), OCC_OK);
  cr_expect_eq(memcmp(&own, &shared, sizeof own), 0);
  /* Full: barrier counts 1..OCC_SWEEP_CACHE_SIZE + 2 push the first out. */
  for (int barriers = 1; barriers <= OCC_SWEEP_CACHE_SIZE + 2; barriers++)
    cr_assert_eq(occ_sweep_cache_get(&cache, &gtx, OCC_CARVEOUT_DEFAULT, barriers, &c), OCC_OK);
  cr_expect_eq(cache.count, OCC_SWEEP_CACHE_SIZE);
  size_t built = cache.built;
  cr_assert_eq(occ_sweep_cache_get(&cache, &h100, k.carveout_pct, k.barriers, &b), OCC_OK);
  cr_expect_eq(cache.built, built + 1);
  cr_expect_eq(occ_sweep_blocks(b, 128, 48, 4096), 10);
  occ_sweep_cache_free(&cache);
  cr_expect_eq(cache.count, 0);
}
