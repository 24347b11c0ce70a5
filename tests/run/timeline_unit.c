/* timeline_unit.c - run's SVG timeline (render/run_timeline.c) of a
 * report built here as --measure sample leaves it, which no run without
 * a GPU gives: two GPUs, two processes, launches whose sampled values
 * are clean, marked (short, beside another kernel) and missing, and a
 * name that needs escapes. Writes the SVG to argv[1]; timeline_test.sh
 * reads it back. */
#include <stdio.h>
#include <string.h>

#include "render/run_timeline.h"

#define N 12

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: timeline_unit FILE.svg\n");
    return 2;
  }
  static occ_launch_record rec[N];
  static occ_sampled_launch smp[N];
  static const occ_launch_record *launches[2][N];
  static const occ_sampled_launch *sampled[2][N];
  occ_run_row rows[2];
  memset(rows, 0, sizeof rows);
  rows[0].item.readable = "gemm<float, 128>(float const*, float*)";
  rows[1].item.readable = "allreduce<sum>&ring";
  const uint64_t t0 = 1795279669160074501ull;
  for (int i = 0; i < N; i++) {
    occ_launch_record *r = &rec[i];
    int row = i % 2;
    r->pid = 4000 + row * 100;
    r->device = row;
    r->stream = 7 + (i % 3 == 0);
    r->start_ns = t0 + (uint64_t)i * 300000;
    r->end_ns = r->start_ns + (i % 4 == 3 ? 30000 : 400000);
    snprintf(r->name, sizeof r->name, "%s", row ? "nccl" : "_Z4gemmv");
    occ_sampled_launch *s = &smp[i];
    s->known = i % 5 != 4;
    s->achieved = 0.1 + 0.08 * i;
    s->basis = i % 4 == 3 ? OCC_BASIS_SHORT
               : i % 3 == 0 ? OCC_BASIS_CONCURRENT : OCC_BASIS_CLEAN;
    if (!s->known) {
      s->basis = OCC_BASIS_UNKNOWN;
      s->miss = OCC_MISS_LOST;
    }
    occ_attr_word(s); /* its words, as occ_attr_finish leaves them */
    size_t k = rows[row].measure.launch_count++;
    launches[row][k] = r;
    sampled[row][k] = s;
  }
  for (int row = 0; row < 2; row++) {
    rows[row].launches = launches[row];
    rows[row].sampled = sampled[row];
    rows[row].first = launches[row][0];
  }
  occ_run_report rep = {.program = "./train <fast> & \"x\"",
                        .launch_count = N, .rows = rows, .row_count = 2,
                        .measure = OCC_MEASURE_SAMPLE};
  FILE *f = fopen(argv[1], "w");
  if (!f) {
    perror(argv[1]);
    return 1;
  }
  int rc = occ_run_print_svg(f, &rep);
  return fclose(f) || rc ? 1 : 0;
}
