/* chart.c - the charts' data (see chart.h for the contract). */
#include "core/chart.h"

#include <stdlib.h>
#include <string.h>

/* The range of x a kind sweeps: first, last and step. */
static void chart_range(const occ_sweep *s, occ_chart_kind kind,
                        int block_step, int64_t *first, int64_t *last,
                        int64_t *step) {
  switch (kind) {
  case OCC_CHART_BLOCK:
    *step = block_step > 0 ? block_step : s->warp_size;
    *first = *step;
    *last = s->max_threads_per_block;
    break;
  case OCC_CHART_REGS:
    *first = 0;
    *step = 1;
    *last = s->max_regs_per_thread;
    break;
  case OCC_CHART_SMEM:
    *first = 0;
    *step = s->smem_unit_bytes;
    *last = occ_sweep_smem_max_bytes(s);
    break;
  }
}

static int64_t kernel_x(const occ_chart *c) {
  switch (c->kind) {
  case OCC_CHART_BLOCK: return c->threads_per_block;
  case OCC_CHART_REGS: return c->regs_per_thread;
  case OCC_CHART_SMEM: return c->smem_bytes;
  }
  return 0;
}

static occ_status eval_at(const occ_sweep *s, const occ_chart *c, int64_t x,
                          occ_chart_point *p) {
  int threads = c->kind == OCC_CHART_BLOCK ? (int)x : c->threads_per_block;
  int regs = c->kind == OCC_CHART_REGS ? (int)x : c->regs_per_thread;
  /* Shared memory that grows with the block grows along the block chart. */
  int64_t smem = c->kind == OCC_CHART_SMEM ? x
                 : c->kind == OCC_CHART_BLOCK
                     ? c->smem_bytes + c->smem_dynamic_per_thread_bytes *
                                           (x - c->threads_per_block)
                     : c->smem_bytes;
  occ_sweep_point sp;
  occ_status status = occ_sweep_eval(s, threads, regs, smem, &sp);
  if (status != OCC_OK) return status;
  p->x = x;
  p->active_blocks_per_sm = sp.active_blocks_per_sm;
  p->active_warps_per_sm = sp.active_warps_per_sm;
  p->occupancy = sp.occupancy;
  p->limited_by = sp.limited_by;
  return OCC_OK;
}

static void set_fixed(const occ_sweep *s, const occ_kernel *k,
                      occ_chart_kind kind, occ_chart *c) {
  memset(c, 0, sizeof *c);
  c->kind = kind;
  memcpy(c->device_name, s->device.name, sizeof c->device_name);
  c->device_name[sizeof c->device_name - 1] = '\0';
  c->cc_major = s->device.cc_major;
  c->cc_minor = s->device.cc_minor;
  c->max_warps_per_sm = s->max_warps_per_sm;
  c->threads_per_block = (int)occ_block_threads(k);
  c->regs_per_thread = k->regs_per_thread;
  c->smem_bytes = k->smem_static_bytes + occ_kernel_smem_dynamic_bytes(k);
  c->smem_dynamic_per_thread_bytes = k->smem_dynamic_per_thread_bytes;
}

occ_status occ_chart_build(const occ_sweep *s, const occ_kernel *kernel,
                           occ_chart_kind kind, int block_step,
                           occ_chart *c) {
  set_fixed(s, kernel, kind, c);
  int64_t first = 0, last = 0, step = 1;
  chart_range(s, kind, block_step, &first, &last, &step);
  c->grid_step = step;
  size_t grid = last >= first ? (size_t)((last - first) / step + 1) : 0;
  c->points = calloc(grid + 1, sizeof *c->points);
  if (!c->points) return OCC_ERR_NOMEM;
  int64_t mark = kernel_x(c);
  bool mark_done = false;
  occ_status status = OCC_OK;
  for (size_t i = 0; i < grid && status == OCC_OK; i++) {
    int64_t x = first + (int64_t)i * step;
    if (!mark_done && mark <= x) {
      c->marked = c->count;
      mark_done = true;
      if (mark < x) status = eval_at(s, c, mark, &c->points[c->count++]);
    }
    if (status == OCC_OK) status = eval_at(s, c, x, &c->points[c->count++]);
  }
  if (status == OCC_OK && !mark_done) {
    c->marked = c->count;
    status = eval_at(s, c, mark, &c->points[c->count++]);
  }
  if (status != OCC_OK) {
    occ_chart_free(c);
    return status;
  }
  c->marked_launchable = c->points[c->marked].active_blocks_per_sm > 0;
  return OCC_OK;
}

void occ_chart_free(occ_chart *c) {
  free(c->points);
  c->points = NULL;
  c->count = 0;
}
