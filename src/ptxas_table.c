/* ptxas_table.c - the table of occcalc --ptxas: one row per kernel and
 * target. The kernel name is the last column so that rows stream out as
 * kernels are read (no width to measure first) and a long C++ name only
 * costs its own line's end. */
#include <inttypes.h>
#include <string.h>

#include "ptxas_out.h"
#include "report_text.h"

/* ARCH REGS SMEM STACK SPILL ! BLOCK WARPS OCC LIMITER, then KERNEL. */
#define ROW_FORMAT "%-7s %4s %6s %5s %9s %1s %5s %5s %6s %-9s "

/* Short limiter names keep the column narrow; --json has the full set. */
static const char *const short_names[OCC_LIMITER_COUNT] = {
    "warps", "blocks", "regs", "smem", "barrier"};

int occ_ptxas_table_fixed_width(void) {
  return 7 + 1 + 4 + 1 + 6 + 1 + 5 + 1 + 9 + 1 + 1 + 1 + 5 + 1 + 5 + 1 + 6 +
         1 + 9 + 1;
}

bool occ_ptxas_uses_local(const occ_ptxas_kernel *k) {
  return k->stack_bytes > 0 || k->spill_stores_bytes > 0 ||
         k->spill_loads_bytes > 0;
}

bool occ_ptxas_limiter_ties(const occ_result *r) {
  return r->launchable && (r->limited_by & (r->limited_by - 1)) != 0;
}

void occ_ptxas_table_header(FILE *out) {
  fprintf(out, ROW_FORMAT "%s\n", "ARCH", "REGS", "SMEM", "STACK",
          "SPILL", "", "BLOCK", "WARPS", "OCC", "LIMITER", "KERNEL");
}

static void bytes_text(int64_t bytes, char *out, size_t size) {
  if (bytes == OCC_PTXAS_UNKNOWN)
    snprintf(out, size, "-");
  else
    snprintf(out, size, "%" PRId64, bytes);
}

/* "stores/loads" in bytes, "-" when the report has no spill counts. */
static void spill_text(const occ_ptxas_kernel *k, char *out, size_t size) {
  if (k->spill_stores_bytes == OCC_PTXAS_UNKNOWN &&
      k->spill_loads_bytes == OCC_PTXAS_UNKNOWN) {
    snprintf(out, size, "-");
    return;
  }
  char st[24], ld[24];
  bytes_text(k->spill_stores_bytes, st, sizeof st);
  bytes_text(k->spill_loads_bytes, ld, sizeof ld);
  snprintf(out, size, "%s/%s", st, ld);
}

/* One limiter, the resource before the structural ones (a kernel held by
 * its registers is also at the block limit when the block is chosen to
 * fit); "+" when others bind too (--json lists them all). */
static void limiter_text(const occ_result *r, char *out, size_t size) {
  static const int priority[OCC_LIMITER_COUNT] = {2, 3, 4, 1, 0};
  if (!r->launchable) {
    snprintf(out, size, "no-launch");
    return;
  }
  int count = 0, first = -1;
  for (int i = 0; i < OCC_LIMITER_COUNT; i++) {
    if (!((r->limited_by >> priority[i]) & 1)) continue;
    if (first < 0) first = priority[i];
    count++;
  }
  snprintf(out, size, "%s%s", first < 0 ? "-" : short_names[first],
           count > 1 ? "+" : "");
}

static void name_text(FILE *out, const char *name, int width) {
  int len = (int)strlen(name);
  if (width <= 0 || len <= width)
    fprintf(out, "%s\n", name);
  else if (width <= 3)
    fprintf(out, "%.*s\n", width, name);
  else
    fprintf(out, "%.*s...\n", width - 3, name);
}

void occ_ptxas_table_row(FILE *out, const occ_ptxas_row *row, int name_width) {
  const occ_ptxas_kernel *k = row->kernel;
  const occ_result *r = row->report->result;
  char regs[16], smem[24], stack[24], spill[48], block[16], warps[24], occ[24],
      pct[16], limiter[64];
  snprintf(regs, sizeof regs, "%d", k->regs_per_thread);
  bytes_text(row->report->kernel->smem_static_bytes, smem, sizeof smem);
  bytes_text(k->stack_bytes, stack, sizeof stack);
  spill_text(k, spill, sizeof spill);
  snprintf(block, sizeof block, "%d%s", r->threads_per_block,
           row->choice ? "*" : "");
  snprintf(warps, sizeof warps, "%d/%d", r->active_warps_per_sm,
           r->max_warps_per_sm);
  occ_pct_text(r->occupancy, pct, sizeof pct);
  snprintf(occ, sizeof occ, "%s%%", pct);
  limiter_text(r, limiter, sizeof limiter);
  fprintf(out, ROW_FORMAT, k->arch[0] ? k->arch : "-", regs, smem, stack,
          spill, occ_ptxas_uses_local(k) ? "!" : "", block, warps, occ,
          limiter);
  name_text(out, row->demangled, name_width);
}

void occ_ptxas_table_footer(FILE *out, bool any_chosen_block,
                            bool any_limiter_ties, bool any_local) {
  if (any_chosen_block)
    fputs("* no --block: the smallest block size reaching the kernel's "
          "highest\n  occupancy (cudaOccupancyMaxPotentialBlockSize picks "
          "the largest such\n  size; --json gives both).\n",
          out);
  if (any_limiter_ties)
    fputs("+ other limits bind too (see --json's limited_by).\n", out);
  if (any_local)
    fputs("! a stack frame or register spills: local-memory traffic, "
          "whatever the\n  occupancy.\n",
          out);
}
