/* verdict.h - verdict.sh's rule for the benchmarks written in
 * C: one line with the figure, the target and their ratio, "met" or
 * "MISSED", and OCC_BENCH_TIGHTEN=F making the target F times harder. */
#ifndef OCC_TESTS_BENCH_VERDICT_H
#define OCC_TESTS_BENCH_VERDICT_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* Prints the verdict of figure against target (more_is_better: figure >=
 * target, else figure <= target) and returns whether it was met. */
static inline bool bench_verdict(const char *label, double figure,
                                 const char *unit, bool more_is_better,
                                 double target) {
  const char *env = getenv("OCC_BENCH_TIGHTEN");
  double k = env ? strtod(env, NULL) : 1;
  if (!(k > 0)) k = 1;
  target = more_is_better ? target * k : target / k;
  bool met = more_is_better ? figure >= target : figure <= target;
  printf("  %-44s %.3g %s (target %s %.4g %s, ratio %.2f) %s\n", label,
         figure, unit, more_is_better ? ">=" : "<=", target, unit,
         figure / target, met ? "met" : "MISSED");
  return met;
}

#endif
