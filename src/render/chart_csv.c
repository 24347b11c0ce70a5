/* chart_csv.c - the charts as one CSV table (RFC 4180): a row per point,
 * the kernel's name (empty for typed numbers) and every input in its own
 * column so a row reads alone, and "marked" 1 on the kernel's own
 * configuration. Occupancy is a fraction, as in JSON, with csv.h's
 * digits. */
#include "render/chart_out.h"

#include "render/csv.h"
#include "render/vocab.h"

#include <string.h>

void occ_chart_write_csv_header(FILE *out) {
  fprintf(out, "kernel,chart,%s,%s,%s,", occ_chart_x_key(OCC_CHART_BLOCK),
          occ_chart_x_key(OCC_CHART_REGS), occ_chart_x_key(OCC_CHART_SMEM));
  fputs("active_blocks_per_sm,active_warps_per_sm,occupancy,limited_by,"
        "marked\n",
        out);
}


void occ_chart_write_csv(FILE *out, const char *kernel,
                         const occ_chart *const *charts, size_t count) {
  for (size_t i = 0; i < count; i++) {
    const occ_chart *c = charts[i];
    for (size_t j = 0; j < c->count; j++) {
      const occ_chart_point *p = &c->points[j];
      char limiters[64];
      long long threads = c->kind == OCC_CHART_BLOCK ? p->x : c->threads_per_block;
      long long regs = c->kind == OCC_CHART_REGS ? p->x : c->regs_per_thread;
      /* Shared memory that grows with the block grows along its chart. */
      long long smem = c->kind == OCC_CHART_SMEM ? p->x
                       : c->kind == OCC_CHART_BLOCK
                           ? c->smem_bytes + c->smem_dynamic_per_thread_bytes *
                                                 (p->x - c->threads_per_block)
                           : c->smem_bytes;
      occ_csv_field(out, kernel ? kernel : "");
      fprintf(out, ",%s,%lld,%lld,%lld,%d,%d,", occ_chart_kind_name(c->kind),
              threads, regs, smem, p->active_blocks_per_sm,
              p->active_warps_per_sm);
      occ_csv_fraction(out, p->occupancy, true);
      fprintf(out, ",%s,%d\n",
              p->active_blocks_per_sm > 0
                  ? occ_limiters_keys(p->limited_by, limiters, sizeof limiters)
                  : "cannot_launch",
              j == c->marked);
    }
  }
}
