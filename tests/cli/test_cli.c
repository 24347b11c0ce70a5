/* test_cli.c - the command line's parsers. */
#include <criterion/criterion.h>

#include "cli/cli.h"
#include "cli/cli.h"
#include "core/chart.h"
#include "db_fixture.h"

Test(chart, parse_chart_values) {
  unsigned charts = 0;
  char why[128];
  cr_expect_eq(occ_parse_charts("block", &charts, why, sizeof why), 0);
  cr_expect_eq(charts, 1u << OCC_CHART_BLOCK);
  cr_expect_eq(occ_parse_charts("smem,regs", &charts, why, sizeof why), 0);
  cr_expect_eq(charts, 7u);
  charts = 0;
  cr_expect_eq(occ_parse_charts("all", &charts, why, sizeof why), 0);
  cr_expect_eq(charts, 7u);
  cr_expect_eq(occ_parse_charts("pie", &charts, why, sizeof why), -1);
  cr_expect_eq(occ_parse_charts("block,", &charts, why, sizeof why), -1);
  cr_expect_eq(occ_parse_charts("", &charts, why, sizeof why), -1);
}

Test(parse, integers_are_strict) {
  int64_t v;
  char why[128];
  cr_expect_eq(occ_parse_int("48", 0, 255, &v, why, sizeof why), 0);
  cr_expect_eq(v, 48);
  cr_expect_eq(occ_parse_int("48x", 0, 255, &v, why, sizeof why), -1);
  cr_expect_eq(occ_parse_int("", 0, 255, &v, why, sizeof why), -1);
  cr_expect_eq(occ_parse_int("-1", 0, 255, &v, why, sizeof why), -1);
  cr_expect(strstr(why, "negative") != NULL);
  cr_expect_eq(occ_parse_int("99999999999999999999", 0, 255, &v, why, sizeof why), -1);
  cr_expect(strstr(why, "0 to 255") != NULL);
}

Test(parse, sizes_take_suffixes) {
  int64_t v;
  char why[160];
  cr_expect_eq(occ_parse_bytes("4K", 1 << 30, &v, why, sizeof why), 0);
  cr_expect_eq(v, 4096);
  cr_expect_eq(occ_parse_bytes("100KiB", 1 << 30, &v, why, sizeof why), 0);
  cr_expect_eq(v, 102400);
  cr_expect_eq(occ_parse_bytes("1M", 1 << 30, &v, why, sizeof why), 0);
  cr_expect_eq(v, 1 << 20);
  cr_expect_eq(occ_parse_bytes("4Q", 1 << 30, &v, why, sizeof why), -1);
  cr_expect_eq(occ_parse_bytes("K", 1 << 30, &v, why, sizeof why), -1);
  cr_expect_eq(occ_parse_bytes("2048M", 1 << 30, &v, why, sizeof why), -1);
}

Test(parse, block_shapes, .init = load_db, .fini = free_db) {
  occ_device d = board("A100");
  int b[3];
  char why[256];
  cr_expect_eq(occ_parse_block("40x2", &d, b, why, sizeof why), 0);
  cr_expect(b[0] == 40 && b[1] == 2 && b[2] == 1);
  cr_expect_eq(occ_parse_block("8x8x16", &d, b, why, sizeof why), 0);
  cr_expect_eq(occ_parse_block("1x1x65", &d, b, why, sizeof why), -1);
  cr_expect_eq(occ_parse_block("64x32", &d, b, why, sizeof why), -1);
  cr_expect_eq(occ_parse_block("0", &d, b, why, sizeof why), -1);
  cr_expect_eq(occ_parse_block("3x", &d, b, why, sizeof why), -1);
  cr_expect_eq(occ_parse_block("1x2x3x4", &d, b, why, sizeof why), -1);
}
