/* pattern_unit.c - --output's patterns (src/live/out_pattern.c): %p %h
 * %q{NAME} %%, and every malformed or unset pattern refused with why. */
#include <criterion/criterion.h>
#include <string.h>

#include "live/out_pattern.h"

static const char *table(const char *name, void *context) {
  (void)context;
  if (strcmp(name, "OMPI_COMM_WORLD_RANK") == 0)
    return "3";
  if (strcmp(name, "EMPTY") == 0)
    return "";
  if (strcmp(name, "SLURM_PROCID") == 0)
    return "17";
  return NULL;
}

static const occ_pattern_env env = {4242, "node07", table, NULL};

static void expands(const char *pattern, const char *want) {
  char out[256], why[200] = "";
  cr_assert(
      occ_out_pattern_expand(pattern, &env, out, sizeof out, why, sizeof why),
      "'%s' refused: %s", pattern, why);
  cr_assert_str_eq(out, want, "'%s'", pattern);
}

static void refuses(const char *pattern, size_t size, const char *why_has) {
  char out[256], why[200] = "";
  cr_assert(size <= sizeof out);
  cr_assert_not(
      occ_out_pattern_expand(pattern, &env, out, size, why, sizeof why),
      "'%s' accepted as '%s'", pattern, out);
  cr_assert(strstr(why, why_has), "'%s': why '%s' lacks '%s'", pattern, why,
            why_has);
}

Test(pattern, plain_text_unchanged) {
  expands("", "");
  expands("run.json", "run.json");
  expands("dir/run", "dir/run");
}

Test(pattern, each_pattern) {
  expands("%p", "4242");
  expands("%h", "node07");
  expands("%%", "%");
  expands("%q{OMPI_COMM_WORLD_RANK}", "3");
  expands("%q{EMPTY}", "");
}

Test(pattern, ranks_and_hosts_in_one_name) {
  expands("report.%q{OMPI_COMM_WORLD_RANK}.json", "report.3.json");
  expands("out/%h-%p-r%q{SLURM_PROCID}.json", "out/node07-4242-r17.json");
  expands("100%%-%p%%", "100%-4242%");
  expands("%%p", "%p"); /* %% first: the p after it is text */
}

Test(pattern, unset_variable_is_an_error) {
  refuses("r%q{UNSET}.json", 256, "UNSET is not set");
}

Test(pattern, malformed_patterns) {
  refuses("a%", 256, "is not a pattern");
  refuses("%x", 256, "'%x' is not a pattern");
  refuses("%P", 256, "accepted: %p, %h, %q{NAME}, %%");
  refuses("%q", 256, "%q{NAME}");
  refuses("%qRANK", 256, "%q{NAME}");
  refuses("%q{}", 256, "end with }");
  refuses("%q{RANK", 256, "end with }");
  refuses("%q{A-B}", 256, "end with }");
}

Test(pattern, length_limit) {
  expands("abc", "abc");
  char out[4], why[100];
  cr_assert(occ_out_pattern_expand("abc", &env, out, 4, why, sizeof why));
  cr_assert_str_eq(out, "abc");
  refuses("abcd", 4, "longer than 3 bytes");
  refuses("%p", 4, "longer than 3 bytes"); /* 4242 */
  refuses("x", 0, "no room");
}

Test(pattern, has_pattern) {
  cr_assert(occ_out_pattern_has("r.%p"));
  cr_assert_not(occ_out_pattern_has("run.json"));
}
