/* test_cli.c - the command line's parsers. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/occcalc.h"
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

Test(parse, integers_are_decimal_only) {
  int64_t v = 7;
  char why[128];
  const char *refused[] = {" 32", "\n32", "\t1", "+1", "0x10", "1e2", "32 ", "-0x1", "- 1"};
  for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
    cr_expect_eq(occ_parse_int(refused[i], 0, 255, &v, why, sizeof why), -1,
                 "'%s' accepted", refused[i]);
    cr_expect(strstr(why, "(accepted: 0 to 255)") != NULL, "%s", why);
  }
  cr_expect_eq(v, 7);
  cr_expect_eq(occ_parse_int("007", 0, 255, &v, why, sizeof why), 0);
  cr_expect_eq(v, 7);
  /* Range-checked in 64 bits before any narrowing: 2^32 + 2 is not 2. */
  cr_expect_eq(occ_parse_int("4294967298", 1, INT32_MAX, &v, why, sizeof why), -1);
  cr_expect(strstr(why, "out of range") != NULL, "%s", why);
  cr_expect_eq(occ_parse_int("18446744073709551617", 0, INT64_MAX, &v, why, sizeof why), -1);
  cr_expect_eq(occ_parse_bytes(" 4K", 1 << 30, &v, why, sizeof why), -1);
  cr_expect_eq(occ_parse_bytes("+4K", 1 << 30, &v, why, sizeof why), -1);
}

Test(parse, shapes_are_range_checked) {
  occ_shape s;
  char why[256];
  cr_expect_eq(occ_parse_shape("40x2", INT32_MAX, &s, why, sizeof why), 0);
  cr_expect(s.dim[0] == 40 && s.dim[1] == 2 && s.dim[2] == 1 && s.product == 80);
  cr_expect_str_eq(s.text, "40x2");
  const char *refused[] = {"0", "3x", "x3", "3xx2", "1x2x3x4", " 128", "4294967552",
                           "2147483648", "1x4294967298", "", "-1", "+2"};
  for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
    cr_expect_eq(occ_parse_shape(refused[i], INT32_MAX, &s, why, sizeof why), -1,
                 "'%s' accepted", refused[i]);
  /* The product saturates instead of wrapping. */
  cr_expect_eq(occ_parse_shape("2147483647x2147483647x2147483647", INT32_MAX, &s, why,
                               sizeof why), 0);
  cr_expect_eq(s.product, INT64_MAX);
}

Test(parse, block_shapes_on_a_device, .init = load_db, .fini = free_db) {
  occ_device d = board("A100");
  int b[3];
  char why[256];
  occ_shape s;
#define CHECK(text, want)                                                   \
  cr_expect_eq(occ_parse_shape(text, INT32_MAX, &s, why, sizeof why), 0);   \
  cr_expect_eq(occ_block_check(&s, &d, b, why, sizeof why), want, "%s", text)
  CHECK("40x2", 0);
  cr_expect(b[0] == 40 && b[1] == 2 && b[2] == 1);
  CHECK("8x8x16", 0);
  CHECK("1x1x65", -1);
  CHECK("64x32", -1);
  CHECK("2147483647x2147483647x2147483647", -1);
#undef CHECK
}

Test(parse, counts_or_all_and_choices) {
  occ_count_or_all c;
  char why[160];
  cr_expect_eq(occ_parse_count_or_all("all", 1, 10, &c, why, sizeof why), 0);
  cr_expect(c.all);
  cr_expect_eq(occ_parse_count_or_all("3", 1, 10, &c, why, sizeof why), 0);
  cr_expect(!c.all && c.count == 3);
  cr_expect_eq(occ_parse_count_or_all("11", 1, 10, &c, why, sizeof why), -1);
  cr_expect(strstr(why, "1 to 10 or 'all'") != NULL, "%s", why);
  static const char *const words[] = {"all", "none", NULL};
  int i = -1;
  cr_expect_eq(occ_parse_choice("none", words, &i, why, sizeof why), 0);
  cr_expect_eq(i, 1);
  cr_expect_eq(occ_parse_choice("None", words, &i, why, sizeof why), -1);
  cr_expect(strstr(why, "all or none") != NULL, "%s", why);
}

/* Runs occcalc in-process; its stderr in err (NUL-terminated). */
static int run_occcalc(const char *const *args, char *err, size_t size) {
  char *argv[32];
  int argc = 0;
  argv[argc++] = (char *)"occcalc";
  for (; *args; args++) argv[argc++] = (char *)*args;
  argv[argc] = NULL;
  fflush(stdout);
  fflush(stderr);
  FILE *tmp = tmpfile();
  cr_assert_not_null(tmp);
  int saved_out = dup(1), saved_err = dup(2), null = open("/dev/null", O_WRONLY);
  dup2(null, 1);
  dup2(fileno(tmp), 2);
  int rc = occ_main(argc, argv);
  fflush(stdout);
  fflush(stderr);
  dup2(saved_out, 1);
  dup2(saved_err, 2);
  close(saved_out);
  close(saved_err);
  close(null);
  rewind(tmp);
  size_t n = fread(err, 1, size - 1, tmp);
  err[n] = '\0';
  fclose(tmp);
  return rc;
}

/* A value the row's parser takes. */
static const char *sample_value(const occ_option *o, char *buf, size_t size) {
  switch (o->type) {
  case OCC_ARG_FLAG: return NULL;
  case OCC_ARG_COUNT:
  case OCC_ARG_COUNT_OR_ALL: snprintf(buf, size, "%lld", (long long)o->min); return buf;
  case OCC_ARG_BYTES: return "0";
  case OCC_ARG_SHAPE:
  case OCC_ARG_BLOCK: return "2";
  case OCC_ARG_PERCENT: return "50";
  case OCC_ARG_CHARTS: return "block";
  case OCC_ARG_CHOICE: return o->choices[0];
  case OCC_ARG_NAME:
  case OCC_ARG_PATH: return "-";
  }
  return NULL;
}

/* Every row says which vendor's targets it applies to, and every option
 * of one vendor, given with the other's target, is refused in one line
 * that names the target: an option added to the table cannot be
 * forgotten by the refusal. */
Test(options, every_row_names_its_vendor) {
  const occ_option *table = occ_cli_options();
  for (const occ_option *o = table; o->name; o++) {
    cr_expect_neq(o->vendor, OCC_VENDOR_UNSET, "--%s: no vendor in the option table",
                  o->name);
    if (o->vendor == OCC_VENDOR_NVIDIA || o->vendor == OCC_VENDOR_AMD)
      cr_expect(o->vendor_why && o->vendor_why[0], "--%s: no reason for the refusal",
                o->name);
  }
}

Test(options, vendor_options_refused_on_the_other_vendor) {
  /* An option that only refines another is given with it. */
  static const struct { const char *option, *with, *value; } partners[] = {
      {"step", "--chart", "block"}, {"ascii", "--chart", "block"},
      {"non-portable", "--cluster", "2"}, {"max-threads", "--suggest", NULL}};
  const occ_option *table = occ_cli_options();
  int walked = 0;
  for (const occ_option *o = table; o->name; o++) {
    if (!(o->modes & OCC_MODE_CALC) || o->vendor == OCC_VENDOR_ANY) continue;
    bool on_amd = o->vendor == OCC_VENDOR_NVIDIA;
    const char *args[16];
    int n = 0;
    if (on_amd) {
      args[n++] = "--arch"; args[n++] = "gfx90a"; args[n++] = "--vgprs"; args[n++] = "32";
    } else {
      args[n++] = "--gpu"; args[n++] = "h100"; args[n++] = "--regs"; args[n++] = "32";
    }
    args[n++] = "--block";
    args[n++] = "64";
    char flag[48], value[32];
    snprintf(flag, sizeof flag, "--%s", o->name);
    args[n++] = flag;
    const char *v = sample_value(o, value, sizeof value);
    if (v) args[n++] = v;
    for (size_t i = 0; i < sizeof partners / sizeof *partners; i++)
      if (strcmp(partners[i].option, o->name) == 0) {
        args[n++] = partners[i].with;
        if (partners[i].value) args[n++] = partners[i].value;
      }
    args[n] = NULL;
    char err[1024];
    int rc = run_occcalc(args, err, sizeof err);
    const char *want = on_amd ? "not for an AMD target (gfx90a)"
                              : "not for an NVIDIA target (H100 SXM)";
    cr_expect_eq(rc, OCC_EXIT_USAGE, "--%s: status %d: %s", o->name, rc, err);
    cr_expect(strstr(err, want) != NULL, "--%s: '%s' lacks '%s'", o->name, err, want);
    walked++;
  }
  cr_expect_geq(walked, 15);
}

Test(options, a_flag_given_a_value_is_named) {
  static const char *const cases[][2] = {
      {"--json=1", "--json=1: --json takes no value"},
      {"--csv=1", "--csv=1: --csv takes no value"},
      {"--expl=x", "--expl=x: --explain takes no value"}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const char *args[] = {"--gpu", "h100", "--regs", "32", "--block", "64", cases[i][0], NULL};
    char err[512];
    cr_expect_eq(run_occcalc(args, err, sizeof err), OCC_EXIT_USAGE);
    cr_expect(strstr(err, cases[i][1]) != NULL, "'%s' lacks '%s'", err, cases[i][1]);
  }
}

/* Static shared memory: no kernel declares more than the default
 * per-block size, which the database has at 48 KB on every CUDA
 * architecture (the man page says so); one byte more is refused on each,
 * and dynamic shared memory may pass it. */
Test(options, static_smem_above_48k_refused_on_every_arch, .init = load_db,
     .fini = free_db) {
  size_t n = occ_gpudb_arch_count(db);
  cr_assert_gt(n, 10);
  for (size_t i = 0; i < n; i++) {
    occ_device d;
    occ_gpudb_arch_at(db, i, &d, NULL, NULL);
    cr_expect_eq(d.smem_per_block_bytes, 49152, "cc %d.%d", d.cc_major, d.cc_minor);
    char cc[16], at[32], over[32];
    snprintf(cc, sizeof cc, "%d.%d", d.cc_major, d.cc_minor);
    snprintf(at, sizeof at, "%lld", (long long)d.smem_per_block_bytes);
    snprintf(over, sizeof over, "%lld", (long long)d.smem_per_block_bytes + 1);
    const char *ok[] = {"--cc", cc, "--regs", "32", "--block", "64", "--smem", at, NULL};
    const char *bad[] = {"--cc", cc, "--regs", "32", "--block", "64", "--smem", over, NULL};
    const char *dyn[] = {"--cc", cc, "--regs", "32", "--block", "64", "--dyn-smem", over, NULL};
    char err[512];
    cr_expect_eq(run_occcalc(ok, err, sizeof err), OCC_EXIT_OK, "cc %s: %s", cc, err);
    cr_expect_eq(run_occcalc(bad, err, sizeof err), OCC_EXIT_USAGE, "cc %s", cc);
    cr_expect(strstr(err, "--smem: ") && strstr(err, "more than a kernel can declare"),
              "cc %s: %s", cc, err);
    cr_expect_eq(run_occcalc(dyn, err, sizeof err), OCC_EXIT_OK, "cc %s: %s", cc, err);
  }
}
