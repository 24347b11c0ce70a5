/* suggest_text.c - the suggestions for a person. Every sentence is filled
 * from occ_suggestion's numbers; where a change gains nothing the text
 * says which limit holds instead. */

#include "render/suggest_out.h"
#include "render/report_text.h"
#include "render/vocab.h"
#include "text/text_safe.h"

/* An occupancy in percent as every text prints it (occ_pct_text: at most
 * two decimals, no trailing zeros: "62.5", "100", "16.67"). The buffer
 * is the caller's. */
typedef struct pct_buf { char text[16]; } pct_buf;

static const char *pct(double occupancy, pct_buf *b) {
  occ_pct_text(occupancy, b->text, sizeof b->text);
  return b->text;
}

static void print_now(FILE *out, const occ_device *d, const occ_suggestion *s) {
  char limiters[80], name[44];
  fprintf(out, "Suggestions for %s (CC %d.%d)\n"
               "  kernel: block %d, %d registers, %lld B shared memory\n",
          occ_text_safe(d->name, name, sizeof name), d->cc_major, d->cc_minor, s->threads_per_block,
          s->regs_per_thread, (long long)s->smem_bytes);
  if (s->launchable)
    fprintf(out, "  now: %d blocks, %d warps/SM, %s %%, limited by %s\n",
            s->active_blocks_per_sm, s->active_warps_per_sm, pct(s->occupancy, &(pct_buf){0}),
            occ_limiters_words(s->limited_by, limiters, sizeof limiters));
  else
    fprintf(out, "  now: cannot launch\n");
}

/* The list of best sizes, wrapped to 80 columns. */
static void print_block_sizes(FILE *out, const occ_suggestion *s) {
  if (s->best_block_count == 0) {
    fprintf(out, "  block size: no block size can launch this kernel\n");
    return;
  }
  fprintf(out, "  block sizes reaching the most warps (%d warps/SM, %s %%):\n   ",
          s->best_active_warps_per_sm, pct(s->best_occupancy, &(pct_buf){0}));
  int column = 3;
  for (int i = 0; i < s->best_block_count; i++) {
    char item[16];
    int len = snprintf(item, sizeof item, " %d", s->best_block_sizes[i]);
    if (column + len > 78) {
      fputs("\n   ", out);
      column = 3;
    }
    fputs(item, out);
    column += len;
  }
  fprintf(out, "\n    largest %d (what cudaOccupancyMaxPotentialBlockSize picks",
          s->best_block_size);
  if (s->sm_count > 0)
    fprintf(out, "; min grid %lld)", (long long)s->min_grid_size);
  else
    fprintf(out, "; %d block%s per SM)", s->best_active_blocks_per_sm,
            s->best_active_blocks_per_sm == 1 ? "" : "s");
  fprintf(out, ",\n    smallest %d\n", s->smallest_best_block_size);
}

/* What still holds when a resource alone gains nothing; what reads
 * "fewer registers", "less shared memory". */
static void print_nothing(FILE *out, const occ_suggestion *s, unsigned self,
                          const char *what) {
  char limiters[80];
  unsigned others = s->limited_by & ~self;
  if (!s->launchable)
    fprintf(out, "    %s alone cannot make it launch\n", what);
  else if (others)
    fprintf(out, "    %s alone gains nothing:\n      the %s limit%s "
                 "hold%s it at %d blocks/SM\n",
            what, occ_limiters_words(others, limiters, sizeof limiters),
            others & (others - 1) ? "s" : "", others & (others - 1) ? "" : "s",
            s->active_blocks_per_sm);
  else
    fprintf(out, "    %s gains nothing: %s not a limit\n", what,
            self == OCC_LIMITER_REGISTERS ? "registers are" : "it is");
}

static void print_reg_steps(FILE *out, const occ_suggestion *s) {
  bool limiting = (s->limited_by & OCC_LIMITER_REGISTERS) != 0;
  fprintf(out, "  registers%s:\n", limiting ? " (a limit)" : "");
  if (s->reg_step_count == 0) {
    print_nothing(out, s, OCC_LIMITER_REGISTERS, "a lower register count");
    return;
  }
  for (int i = 0; i < s->reg_step_count; i++) {
    const occ_suggest_step *st = &s->reg_steps[i];
    fprintf(out,
            "    with <= %lld registers per thread: %d block%s, %d warps, %s %%\n"
            "      __launch_bounds__(%d, %d) or -maxrregcount=%lld\n",
            (long long)st->value, st->active_blocks_per_sm,
            st->active_blocks_per_sm == 1 ? "" : "s", st->active_warps_per_sm,
            pct(st->occupancy, &(pct_buf){0}), s->threads_per_block,
            st->active_blocks_per_sm, (long long)st->value);
  }
}

static void print_smem_steps(FILE *out, const occ_suggestion *s) {
  bool limiting = (s->limited_by & OCC_LIMITER_SHARED_MEMORY) != 0;
  fprintf(out, "  shared memory%s:\n", limiting ? " (a limit)" : "");
  if (s->smem_step_count == 0) {
    print_nothing(out, s, OCC_LIMITER_SHARED_MEMORY, "less shared memory");
    return;
  }
  for (int i = 0; i < s->smem_step_count; i++) {
    const occ_suggest_step *st = &s->smem_steps[i];
    fprintf(out, "    with <= %lld B per block: %d block%s, %d warps, %s %%",
            (long long)st->value, st->active_blocks_per_sm,
            st->active_blocks_per_sm == 1 ? "" : "s",
            st->active_warps_per_sm, pct(st->occupancy, &(pct_buf){0}));
    if (s->smem_static_bytes == 0)
      fputc('\n', out);
    else if (st->value >= s->smem_static_bytes)
      fprintf(out, " (dynamic <= %lld B)\n",
              (long long)(st->value - s->smem_static_bytes));
    else
      fprintf(out, " (static must shrink)\n");
  }
}

static void print_headroom(FILE *out, const occ_suggestion *s) {
  if (!s->launchable) return;
  fprintf(out,
          "  headroom at %d blocks/SM: up to %d registers per thread (+%d), "
          "up to\n    %lld B shared memory per block (+%lld)\n",
          s->active_blocks_per_sm, s->regs_per_thread_max,
          s->regs_per_thread_max - s->regs_per_thread,
          (long long)s->smem_max_bytes,
          (long long)(s->smem_max_bytes - s->smem_bytes));
}

static void print_carveout(FILE *out, const occ_device *d,
                           const occ_suggestion *s) {
  if (s->carveout_count == 0) {
    fprintf(out, "  carveout: CC %d.%d has none; the SM always has %lld B\n",
            d->cc_major, d->cc_minor, (long long)d->smem_per_sm_bytes);
    return;
  }
  fprintf(out, "  carveout (cudaFuncAttributePreferredSharedMemoryCarveout):\n"
               "    carveout  smem/SM     used  blocks  warps  occupancy\n");
  for (int i = 0; i < s->carveout_count; i++) {
    const occ_carveout_option *c = &s->carveouts[i];
    fprintf(out, "    %6d %%  %4lld KB  %4lld KB  %6d  %5d  %7s %%%s\n",
            c->carveout_pct, (long long)(c->smem_config_bytes / 1024),
            (long long)(c->smem_used_bytes / 1024), c->active_blocks_per_sm,
            c->active_warps_per_sm, pct(c->occupancy, &(pct_buf){0}),
            i == s->carveout_best ? "  <- smallest at best" : "");
  }
  for (int i = 0; i < s->carveout_count; i++)
    if (s->carveouts[i].launch_active_blocks_per_sm !=
        s->carveouts[i].active_blocks_per_sm) {
      fprintf(out, "    (the occupancy API's figures; at launch the SM holds "
                   "more at %d %%: --explain)\n", s->carveouts[i].carveout_pct);
      break;
    }
  if (s->carveout_best >= 0) {
    const occ_carveout_option *c = &s->carveouts[s->carveout_best];
    fprintf(out, "    a carveout of %d %% (%lld KB) keeps %s %%; L1 keeps "
                 "the rest\n",
            c->carveout_pct, (long long)(c->smem_config_bytes / 1024),
            pct(c->occupancy, &(pct_buf){0}));
  }
}

void occ_suggest_print(FILE *out, const occ_device *device,
                       const occ_suggestion *s) {
  print_now(out, device, s);
  print_block_sizes(out, s);
  print_reg_steps(out, s);
  print_smem_steps(out, s);
  print_headroom(out, s);
  print_carveout(out, device, s);
}

void occ_block_choice_print(FILE *out, const occ_device *d,
                            const occ_block_choice *c) {
  if (c->block_size == 0) {
    fprintf(out, "--block best: no block size up to %d threads can launch; "
                 "shown at one warp\n\n", c->max_threads_per_block);
    return;
  }
  fprintf(out, "--block best: %d threads, the largest block reaching the most "
               "threads\n  per SM (cudaOccupancyMaxPotentialBlockSize's; sizes "
               "up to %d tried)\n", c->block_size, c->max_threads_per_block);
  if (c->min_grid_size > 0)
    fprintf(out, "  min grid: %lld blocks (%d per SM x %d SMs) fill the device "
                 "once\n\n", (long long)c->min_grid_size, c->active_blocks_per_sm,
            d->sm_count);
  else
    fprintf(out, "  min grid: %d block%s per SM (the SM count is unknown: give "
                 "--gpu or --sms)\n\n", c->active_blocks_per_sm,
            c->active_blocks_per_sm == 1 ? "" : "s");
}
