/* ptxas_table.c - the table of occcalc --ptxas: one row per kernel and
 * target. The kernel name is the last column so that rows stream out as
 * kernels are read (no width to measure first) and a long C++ name only
 * costs its own line's end. */
#include <inttypes.h>
#include <string.h>

#include "render/csv.h"
#include "render/ptxas_out.h"
#include "render/report_text.h"
#include "render/vocab.h"
#include "text/text_safe.h"

/* ARCH REGS SMEM STACK SPILL ! BLOCK WARPS OCC LIMITER, then KERNEL; the
 * header's format, and the widths occ_ptxas_table_row pads to. */
#define ROW_FORMAT "%-7s %4s %6s %5s %9s %1s %5s %5s %6s %-9s "

int occ_ptxas_table_fixed_width(void) {
  return 7 + 1 + 4 + 1 + 6 + 1 + 5 + 1 + 9 + 1 + 1 + 1 + 5 + 1 + 5 + 1 + 6 +
         1 + 9 + 1;
}

bool occ_ptxas_uses_local(const occ_ptxas_kernel *k) {
  return k->stack_bytes > 0 || k->spill_stores_bytes > 0 ||
         k->spill_loads_bytes > 0 || k->callee_stack_bytes > 0 ||
         k->callee_spill_stores_bytes > 0 || k->callee_spill_loads_bytes > 0;
}

bool occ_ptxas_limiter_ties(const occ_result *r) {
  return r->launchable && (r->limited_by & (r->limited_by - 1)) != 0;
}

void occ_ptxas_table_header(FILE *out) {
  fprintf(out, ROW_FORMAT "%s\n", "ARCH", "REGS", "SMEM", "STACK",
          "SPILL", "", "BLOCK", "WARPS", "OCC", "LIMITER", "KERNEL");
}

/* A row is built in one buffer and written with one call: a log of a
 * million kernels spends its time here, and printf's format parsing per
 * field costs more than the reading does. */
typedef struct line {
  char text[256];
  size_t len;
} line;

static void put(line *l, const char *s, int width, bool left) {
  size_t n = strlen(s);
  size_t pad = (int)n < width ? (size_t)width - n : 0;
  if (l->len + n + pad + 1 >= sizeof l->text) return; /* fields are short */
  if (!left) {
    memset(l->text + l->len, ' ', pad);
    l->len += pad;
  }
  memcpy(l->text + l->len, s, n);
  l->len += n;
  if (left) {
    memset(l->text + l->len, ' ', pad);
    l->len += pad;
  }
  l->text[l->len++] = ' ';
}

/* Decimal digits of v >= 0 ending at end (exclusive, NUL included);
 * returns the start. */
static char *digits(int64_t v, char *end) {
  *--end = '\0';
  do *--end = (char)('0' + v % 10); while ((v /= 10) > 0);
  return end;
}

static const char *bytes_text(int64_t bytes, char *buf, size_t size) {
  return bytes == OCC_PTXAS_UNKNOWN ? "-" : digits(bytes, buf + size);
}

/* "stores/loads" in bytes, "-" when the report has no spill counts. */
static const char *spill_text(const occ_ptxas_kernel *k, char *out,
                              size_t size) {
  if (k->spill_stores_bytes == OCC_PTXAS_UNKNOWN &&
      k->spill_loads_bytes == OCC_PTXAS_UNKNOWN)
    return "-";
  char st[24], ld[24];
  snprintf(out, size, "%s/%s", bytes_text(k->spill_stores_bytes, st, sizeof st),
           bytes_text(k->spill_loads_bytes, ld, sizeof ld));
  return out;
}

/* One limiter, the resource before the structural ones (a kernel held by
 * its registers is also at the block limit when the block is chosen to
 * fit); "+" when others bind too (--json lists them all). */
static const char *limiter_text(const occ_result *r, char *out, size_t size) {
  static const int priority[OCC_LIMITER_COUNT] = {
      OCC_LIMIT_INDEX_REGISTERS, OCC_LIMIT_INDEX_SHARED_MEMORY,
      OCC_LIMIT_INDEX_BARRIERS, OCC_LIMIT_INDEX_BLOCKS, OCC_LIMIT_INDEX_WARPS};
  if (!r->launchable) return "no-launch";
  int first = -1;
  for (int i = 0; i < OCC_LIMITER_COUNT && first < 0; i++)
    if ((r->limited_by >> priority[i]) & 1) first = priority[i];
  snprintf(out, size, "%s%s", first < 0 ? "-" : occ_limiter_short_label(first),
           occ_ptxas_limiter_ties(r) ? "+" : "");
  return out;
}

/* "62.5%": formatting a double is slow and consecutive rows mostly repeat
 * the same warps, so the last text is kept. */
static const char *occ_text(const occ_result *r) {
  static int last_active = -1, last_max = -1;
  static char text[24];
  if (r->active_warps_per_sm != last_active ||
      r->max_warps_per_sm != last_max) {
    occ_pct_text(r->occupancy, text, sizeof text - 1);
    strcat(text, "%");
    last_active = r->active_warps_per_sm;
    last_max = r->max_warps_per_sm;
  }
  return text;
}

/* The name ends the row where it fits the column; a longer one gets a
 * line of its own below the row, indented, so that names that differ only
 * past the column's width (template arguments, a suffix) stay apart, and
 * is cut with "..." only past the whole width. */
static void write_line(FILE *out, const line *l, const char *raw_name,
                       int width) {
  char safe[4096];
  const char *name = occ_text_safe(raw_name, safe, sizeof safe);
  int len = (int)strlen(name);
  if (width <= 0 || len <= width) {
    fwrite(l->text, 1, l->len, out);
    fputs(name, out);
    putc('\n', out);
    return;
  }
  size_t row = l->len;
  while (row > 0 && l->text[row - 1] == ' ') row--;
  fwrite(l->text, 1, row, out);
  int room = width + occ_ptxas_table_fixed_width() - 2;
  if (len <= room)
    fprintf(out, "\n  %s\n", name);
  else
    fprintf(out, "\n  %.*s...\n", room - 3, name);
}

void occ_ptxas_table_row(FILE *out, const occ_ptxas_row *row, int name_width) {
  const occ_ptxas_kernel *k = row->kernel;
  const occ_result *r = row->report->result;
  char regs[16], smem[24], stack[24], spill[48], block[16], warps[24],
      limiter[16];
  line l = {.len = 0};
  put(&l, k->arch[0] ? k->arch : "-", 7, true);
  put(&l, digits(k->regs_per_thread, regs + sizeof regs), 4, false);
  put(&l, bytes_text(row->report->kernel->smem_static_bytes, smem, sizeof smem),
      6, false);
  put(&l, bytes_text(k->stack_bytes, stack, sizeof stack), 5, false);
  put(&l, spill_text(k, spill, sizeof spill), 9, false);
  put(&l, occ_ptxas_uses_local(k) ? "!" : "", 1, true);
  /* The digits end one short of the buffer, leaving room for the mark. */
  char *b = digits(r->threads_per_block, block + sizeof block - 1);
  if (row->choice && !row->block_best) {
    block[sizeof block - 2] = '*';
    block[sizeof block - 1] = '\0';
  }
  put(&l, b, 5, false);
  snprintf(warps, sizeof warps, "%d/%d", r->active_warps_per_sm,
           r->max_warps_per_sm);
  put(&l, warps, 5, false);
  put(&l, occ_text(r), 6, false);
  put(&l, limiter_text(r, limiter, sizeof limiter), 9, true);
  write_line(out, &l, row->demangled, name_width);
}

void occ_ptxas_table_footer(FILE *out, bool any_chosen_block,
                            bool any_limiter_ties, bool any_local) {
  if (any_chosen_block)
    fputs("* no block known: the smallest block size reaching the kernel's "
          "highest\n  occupancy (cudaOccupancyMaxPotentialBlockSize picks "
          "the largest such\n  size; --json gives both), a guess "
          "--min-occupancy does not pass.\n",
          out);
  if (any_limiter_ties)
    fputs("+ other limits bind too (see --json's limited_by).\n", out);
  if (any_local)
    fputs("! a stack frame or register spills, the kernel's or its callees': "
          "local-memory\n  traffic, whatever the occupancy.\n",
          out);
}

/* Columns a UTF-8 text takes (one a code point). */
static size_t columns(const char *s) {
  size_t n = 0;
  for (; *s; s++) n += ((unsigned char)*s & 0xC0) != 0x80;
  return n;
}

/* Cuts text to at most width columns, ending it with "..." when cut, at a
 * code point's boundary. */
static void fit(char *text, size_t width) {
  if (columns(text) <= width || width < 4) return;
  size_t n = 0, i = 0;
  for (; text[i] && n < width - 3; i++) n += ((unsigned char)text[i] & 0xC0) != 0x80;
  while (i > 0 && ((unsigned char)text[i] & 0xC0) == 0x80) i--;
  memcpy(text + i, "...", 4);
}

void occ_ptxas_print_heading(FILE *out, const occ_ptxas_kernel *k,
                             const char *readable, int chosen_block,
                             const occ_block_choice *choice, bool block_best) {
  char name[4096], where[96];
  snprintf(where, sizeof where, " (%s%sline %ld)", k->arch, k->arch[0] ? ", " : "",
           (long)k->line);
  occ_text_safe(readable, name, sizeof name);
  fit(name, 80 - 3 - columns(where));
  fprintf(out, "== %s%s\n", name, where);
  if (k->callees) {
    char callee[80];
    occ_text_safe(k->first_callee, callee, sizeof callee);
    fit(callee, 40);
    fprintf(out, "   calls %s%s (reported after it by ptxas): a %lld-byte stack\n"
            "   frame, %lld B of spill stores and %lld B of spill loads: "
            "local-memory\n   traffic that the occupancy below does not show\n",
            callee, k->callees > 1 ? " and others" : "", (long long)k->callee_stack_bytes,
            (long long)(k->callee_spill_stores_bytes > 0 ? k->callee_spill_stores_bytes : 0),
            (long long)(k->callee_spill_loads_bytes > 0 ? k->callee_spill_loads_bytes : 0));
  }
  if (choice && block_best)
    fprintf(out, "   --block best: %d threads (cudaOccupancyMaxPotentialBlockSize's"
            " choice)\n", chosen_block);
  else if (choice)
    fprintf(out, "   no --block: %d threads, the smallest block reaching "
            "the highest\n   occupancy (cudaOccupancyMaxPotentialBlockSize "
            "picks %d)\n", chosen_block, choice->block_size);
  fputc('\n', out);
}

/* ---- the table as CSV ---- */

/* The columns, named by the --jsonl key each holds (a dotted path into the
 * object), in the same units: sizes in bytes, the occupancy a fraction
 * (csv.h's digits), the block XxYxZ, the limiting factors joined by '+',
 * unknown (null) an empty field. */
static const char *const csv_columns[] = {
    "kernel.name", "kernel.mangled_name", "compiler.arch", "compiler.source",
    "compiler.line", "device.name", "device.cc", "kernel.block",
    "kernel.regs_per_thread", "kernel.smem_static_bytes",
    "kernel.smem_dynamic_bytes", "kernel.barriers", "compiler.stack_bytes",
    "compiler.local_bytes", "compiler.spill_stores_bytes",
    "compiler.spill_loads_bytes", "threads_per_block", "limits.warps",
    "limits.blocks", "limits.registers", "limits.shared_memory",
    "limits.barriers", "limited_by", "active_blocks_per_sm",
    "active_warps_per_sm", "max_warps_per_sm", "occupancy", "launchable",
    "block_choice.rule"};

void occ_ptxas_csv_header(FILE *out) {
  size_t n = sizeof csv_columns / sizeof *csv_columns;
  for (size_t i = 0; i < n; i++)
    fprintf(out, "%s%s", csv_columns[i], i + 1 < n ? "," : "\n");
}

static void csv_int(FILE *out, int64_t v, bool known) {
  fputc(',', out);
  if (known) fprintf(out, "%" PRId64, v);
}

static void csv_text(FILE *out, const char *text) {
  fputc(',', out);
  occ_csv_field(out, text);
}

void occ_ptxas_csv_row(FILE *out, const occ_ptxas_row *row) {
  const occ_ptxas_kernel *k = row->kernel;
  const occ_report *rep = row->report;
  const occ_kernel *kn = rep->kernel;
  const occ_result *r = rep->result;
  char cc[16], block[48], keys[96];
  occ_csv_field(out, row->demangled ? row->demangled : k->name);
  csv_text(out, k->name);
  csv_text(out, k->arch[0] ? k->arch : NULL);
  csv_text(out, k->source == OCC_PTXAS_FROM_CUOBJDUMP ? "cuobjdump"
                : k->source == OCC_PTXAS_FROM_BINARY  ? "binary"
                                                      : "ptxas");
  csv_int(out, k->line, k->source != OCC_PTXAS_FROM_BINARY);
  csv_text(out, rep->device->name);
  snprintf(cc, sizeof cc, "%d.%d", rep->device->cc_major, rep->device->cc_minor);
  csv_text(out, cc);
  snprintf(block, sizeof block, "%dx%dx%d", kn->block[0], kn->block[1], kn->block[2]);
  csv_text(out, block);
  csv_int(out, kn->regs_per_thread, true);
  csv_int(out, kn->smem_static_bytes, true);
  csv_int(out, occ_kernel_smem_dynamic_bytes(kn), true);
  csv_int(out, kn->barriers, true);
  csv_int(out, k->stack_bytes, k->stack_bytes != OCC_PTXAS_UNKNOWN);
  csv_int(out, k->local_bytes, k->local_bytes != OCC_PTXAS_UNKNOWN);
  csv_int(out, k->spill_stores_bytes, k->spill_stores_bytes != OCC_PTXAS_UNKNOWN);
  csv_int(out, k->spill_loads_bytes, k->spill_loads_bytes != OCC_PTXAS_UNKNOWN);
  csv_int(out, r->threads_per_block, true);
  for (int i = 0; i < OCC_LIMITER_COUNT; i++) {
    int limit = occ_result_limit(r, i);
    csv_int(out, limit, limit != OCC_UNLIMITED);
  }
  csv_text(out, occ_limiters_keys(r->limited_by, keys, sizeof keys));
  csv_int(out, r->active_blocks_per_sm, true);
  csv_int(out, r->active_warps_per_sm, true);
  csv_int(out, r->max_warps_per_sm, true);
  fputc(',', out);
  occ_csv_fraction(out, r->occupancy, true);
  csv_text(out, r->launchable ? "true" : "false");
  csv_text(out, !row->choice ? NULL : row->block_best ? "best" : "smallest");
  fputc('\n', out);
}
