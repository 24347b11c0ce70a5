/* explain.c - the derivation as data (see explain.h for the contract).
 * Every number is read from the occ_result, the kernel or the device;
 * which steps appear follows what the core did (the same conditions its
 * compute_* functions test). */
#include "core/explain.h"

#include <string.h>

/* Appends steps while there is room and counts them all. */
typedef struct builder {
  const occ_device *d;
  const occ_kernel *k;
  const occ_result *r;
  occ_step_list list;
} builder;

occ_step *occ_step_add(occ_step_list *list, const char *key, const char *title,
                       occ_explain_op op, const char *text, const char *joiner) {
  occ_step *s = list->count < list->max ? &list->steps[list->count] : &list->spare;
  list->count++;
  memset(s, 0, sizeof *s);
  s->key = key;
  s->section = list->section;
  s->title = title;
  s->operation = op;
  s->text = text;
  s->joiner = joiner;
  return s;
}

void occ_step_operand(occ_step *s, const char *name, double v, const char *unit) {
  if (s->operand_count < OCC_EXPLAIN_MAX_OPERANDS)
    s->operands[s->operand_count++] = (occ_explain_value){name, v, unit, false};
}

void occ_step_result(occ_step *s, const char *name, double v, const char *unit) {
  s->has_result = true;
  s->result = (occ_explain_value){name, v, unit, false};
}

static occ_step *step(builder *b, const char *key, const char *title,
                      occ_explain_op op, const char *text, const char *joiner) {
  return occ_step_add(&b->list, key, title, op, text, joiner);
}

/* A limit of 0 blocks: what is needed is over what is allowed. */
static void exceeds(builder *b, const char *key, const char *text,
                    const char *need, double need_v, const char *cap,
                    double cap_v, const char *unit, const char *limit) {
  occ_step *s = step(b, key, "cannot fit", OCC_OP_EXCEEDS, text, NULL);
  occ_step_operand(s, need, need_v, unit);
  occ_step_operand(s, cap, cap_v, unit);
  occ_step_result(s, limit, 0, "blocks");
}

/* A limit that does not apply because the kernel uses none of it. */
static occ_step *no_limit(builder *b, const char *key, const char *text,
                          const char *joiner, const char *zero, double zero_v,
                          const char *unit, const char *limit) {
  occ_step *s = step(b, key, "no limit", OCC_OP_NO_LIMIT, text, joiner);
  occ_step_operand(s, zero, zero_v, unit);
  occ_step_result(s, limit, OCC_UNLIMITED, "blocks");
  s->result.unlimited = true;
  return s;
}

static void warps(builder *b) {
  const occ_device *d = b->d;
  const occ_result *r = b->r;
  b->list.section = 1;
  occ_step *s = step(b, "warps_per_block", "warps per block", OCC_OP_CEIL_DIV,
                     "{0} {0:thread} / {1} {1:thread} per warp, rounded up = {r} {r:warp}", NULL);
  occ_step_operand(s, "kernel.threads_per_block", r->threads_per_block, "threads");
  occ_step_operand(s, "device.warp_size", d->warp_size, "threads");
  occ_step_result(s, "warps_per_block", r->warps_per_block, "warps");
  s = step(b, "inactive_threads", "inactive threads", OCC_OP_MUL_SUB,
           "{0} x {1} - {2} = {r} inactive {r:thread} in the last warp", NULL);
  occ_step_operand(s, "warps_per_block", r->warps_per_block, "warps");
  occ_step_operand(s, "device.warp_size", d->warp_size, "threads");
  occ_step_operand(s, "kernel.threads_per_block", r->threads_per_block, "threads");
  occ_step_result(s, "inactive_threads", r->inactive_threads, "threads");

  b->list.section = 2;
  if (r->threads_per_block > d->max_threads_per_block) {
    exceeds(b, "limit_warps", "{0} {0:thread} exceed the {1} a block may have: 0 blocks",
            "kernel.threads_per_block", r->threads_per_block,
            "device.max_threads_per_block", d->max_threads_per_block, "threads",
            "limits.warps");
    return;
  }
  s = step(b, "max_warps_per_sm", "warps per SM", OCC_OP_FLOOR_DIV,
           "{0} {0:thread} per SM / {1} = {r} {r:warp} per SM", NULL);
  occ_step_operand(s, "device.max_threads_per_sm", d->max_threads_per_sm, "threads");
  occ_step_operand(s, "device.warp_size", d->warp_size, "threads");
  occ_step_result(s, "max_warps_per_sm", r->max_warps_per_sm, "warps");
  s = step(b, "limit_warps", "blocks by warps", OCC_OP_FLOOR_DIV,
           "{0} / {1} {1:warp} per block = {r} {r:block}", NULL);
  occ_step_operand(s, "max_warps_per_sm", r->max_warps_per_sm, "warps");
  occ_step_operand(s, "warps_per_block", r->warps_per_block, "warps");
  occ_step_result(s, "limits.warps", r->limit_warps, "blocks");
}

static void blocks(builder *b) {
  b->list.section = 3;
  occ_step *s = step(b, "limit_blocks", "blocks per SM", OCC_OP_VALUE,
                     "an SM of this architecture holds at most {r} {r:block}", NULL);
  occ_step_operand(s, "device.max_blocks_per_sm", b->d->max_blocks_per_sm, "blocks");
  occ_step_result(s, "limits.blocks", b->r->limit_blocks, "blocks");
}

static void registers_per_block(builder *b) {
  const occ_device *d = b->d;
  const occ_result *r = b->r;
  occ_step *s = step(b, "regs_per_block", "registers per block", OCC_OP_MUL,
                     "per block: {0} x {1} {1:warp} = {r} registers", NULL);
  occ_step_operand(s, "allocated.regs_per_warp", r->regs_per_warp, "registers");
  occ_step_operand(s, "warps_per_block", r->warps_per_block, "warps");
  occ_step_result(s, "allocated.regs_per_block", r->regs_per_block, "registers");
  s = step(b, "regs_per_block_cap", "registers a block may have", OCC_OP_VALUE,
           "a block may have {r}", "; ");
  occ_step_operand(s, "device.regs_per_block", d->regs_per_block, "registers");
  occ_step_result(s, "device.regs_per_block", d->regs_per_block, "registers");
  if (r->regs_per_block_checked == r->regs_per_block) return;
  s = step(b, "regs_per_block_checked", "registers checked per block",
           OCC_OP_MUL_ROUND_UP,
           "(checked as {r}: the hardware rounds warps up to a multiple of {2})", NULL);
  occ_step_operand(s, "allocated.regs_per_warp", r->regs_per_warp, "registers");
  occ_step_operand(s, "warps_per_block", r->warps_per_block, "warps");
  occ_step_operand(s, "device.reg_block_warp_multiple", d->reg_block_warp_multiple, "warps");
  occ_step_result(s, "regs_per_block_checked", r->regs_per_block_checked, "registers");
}

static void registers_per_sm(builder *b) {
  const occ_device *d = b->d;
  const occ_result *r = b->r;
  occ_step *s = step(b, "regs_per_sub_partition", "registers per sub-partition",
                     OCC_OP_FLOOR_DIV,
                     "{0} registers per SM / {1} sub-partitions = {r} per sub-partition",
                     NULL);
  occ_step_operand(s, "device.regs_per_sm", d->regs_per_sm, "registers");
  occ_step_operand(s, "device.sub_partitions", d->sub_partitions, "sub_partitions");
  occ_step_result(s, "regs_per_sub_partition", r->regs_per_sub_partition, "registers");
  s = step(b, "warps_per_sub_partition", "warps per sub-partition", OCC_OP_FLOOR_DIV,
           "{0} / {1} = {r} {r:warp} each", NULL);
  occ_step_operand(s, "regs_per_sub_partition", r->regs_per_sub_partition, "registers");
  occ_step_operand(s, "allocated.regs_per_warp", r->regs_per_warp, "registers");
  occ_step_result(s, "warps_per_sub_partition", r->warps_per_sub_partition, "warps");
  s = step(b, "warps_per_sm_by_regs", "warps per SM by registers", OCC_OP_MUL,
           "{0} x {1} = {r} {r:warp} per SM", ", ");
  occ_step_operand(s, "warps_per_sub_partition", r->warps_per_sub_partition, "warps");
  occ_step_operand(s, "device.sub_partitions", d->sub_partitions, "sub_partitions");
  occ_step_result(s, "warps_per_sm_by_regs", r->warps_per_sm_by_regs, "warps");
  s = step(b, "limit_regs", "blocks by registers", OCC_OP_FLOOR_DIV,
           "{0} / {1} {1:warp} per block = {r} {r:block}", NULL);
  occ_step_operand(s, "warps_per_sm_by_regs", r->warps_per_sm_by_regs, "warps");
  occ_step_operand(s, "warps_per_block", r->warps_per_block, "warps");
  occ_step_result(s, "limits.registers", r->limit_regs, "blocks");
}

static void registers(builder *b) {
  const occ_device *d = b->d;
  const occ_kernel *k = b->k;
  const occ_result *r = b->r;
  b->list.section = 4;
  if (k->regs_per_thread > d->max_regs_per_thread) {
    exceeds(b, "limit_regs", "{0} registers per thread exceed the maximum {1}: 0 blocks",
            "kernel.regs_per_thread", k->regs_per_thread,
            "device.max_regs_per_thread", d->max_regs_per_thread, "registers",
            "limits.registers");
    return;
  }
  occ_step *s = step(b, "regs_per_warp_raw", "registers per warp", OCC_OP_MUL,
                     "{0} x {1} = {r} registers per warp", NULL);
  occ_step_operand(s, "kernel.regs_per_thread", k->regs_per_thread, "registers");
  occ_step_operand(s, "device.warp_size", d->warp_size, "threads");
  occ_step_result(s, "regs_per_warp_raw", r->regs_per_warp_raw, "registers");
  bool rounded = r->regs_per_warp != r->regs_per_warp_raw;
  s = step(b, "regs_per_warp", "registers allocated per warp", OCC_OP_ROUND_UP,
           rounded ? "rounded up to a multiple of {1} = {r}"
                   : "(a multiple of the {1}-register unit)",
           rounded ? ", " : " ");
  occ_step_operand(s, "regs_per_warp_raw", r->regs_per_warp_raw, "registers");
  occ_step_operand(s, "device.reg_alloc_unit", d->reg_alloc_unit, "registers");
  occ_step_result(s, "allocated.regs_per_warp", r->regs_per_warp, "registers");
  registers_per_block(b);
  if (r->limit_regs == 0) {
    exceeds(b, "limit_regs", "the block needs more than that: 0 blocks",
            "regs_per_block_checked", r->regs_per_block_checked,
            "device.regs_per_block", d->regs_per_block, "registers",
            "limits.registers");
  } else if (r->limit_regs == OCC_UNLIMITED) {
    no_limit(b, "limit_regs", "no registers used: no limit", NULL,
             "allocated.regs_per_warp", r->regs_per_warp, "registers",
             "limits.registers");
  } else {
    registers_per_sm(b);
  }
}

static void smem_request(builder *b) {
  const occ_device *d = b->d;
  const occ_kernel *k = b->k;
  const occ_result *r = b->r;
  occ_step *s = step(b, "smem_requested_bytes", "shared memory requested", OCC_OP_SUM,
                     "{0} static + {1} dynamic + {2} reserved = {r} bytes", NULL);
  occ_step_operand(s, "kernel.smem_static_bytes", (double)k->smem_static_bytes, "bytes");
  occ_step_operand(s, "kernel.smem_dynamic_bytes", (double)occ_kernel_smem_dynamic_bytes(k),
                   "bytes");
  occ_step_operand(s, "device.reserved_smem_per_block_bytes",
          (double)d->reserved_smem_per_block_bytes, "bytes");
  occ_step_result(s, "smem_requested_bytes", (double)r->smem_requested_bytes, "bytes");
  if (r->smem_per_block_bytes != r->smem_requested_bytes) {
    s = step(b, "smem_per_block_bytes", "shared memory allocated per block",
             OCC_OP_ROUND_UP, "rounded up to a multiple of {1} = {r}", ",\n");
    occ_step_operand(s, "smem_requested_bytes", (double)r->smem_requested_bytes, "bytes");
    occ_step_operand(s, "device.smem_alloc_unit_bytes", d->smem_alloc_unit_bytes, "bytes");
    occ_step_result(s, "allocated.smem_per_block_bytes", (double)r->smem_per_block_bytes, "bytes");
  }
  s = step(b, "smem_block_cap_bytes", "shared memory a block may have", OCC_OP_SUM,
           r->smem_optin ? "a block may have {r} bytes (opted in above the default limit)"
                         : "a block may have {r} bytes",
           NULL);
  if (r->smem_optin)
    occ_step_operand(s, "device.smem_per_block_optin_bytes",
            (double)d->smem_per_block_optin_bytes, "bytes");
  else
    occ_step_operand(s, "device.smem_per_block_bytes", (double)d->smem_per_block_bytes, "bytes");
  occ_step_operand(s, "device.reserved_smem_per_block_bytes",
          (double)d->reserved_smem_per_block_bytes, "bytes");
  occ_step_result(s, "smem_block_cap_bytes", (double)r->smem_block_cap_bytes, "bytes");
}

/* The SM's shared-memory configuration: the whole SM without a carveout;
 * else the preference rounded to a configuration, or larger when one
 * block needs more. */
static void smem_config(builder *b) {
  const occ_device *d = b->d;
  const occ_kernel *k = b->k;
  const occ_result *r = b->r;
  occ_step *s;
  if (d->smem_config_count == 0) {
    s = step(b, "smem_config_bytes", "shared memory of the SM", OCC_OP_VALUE,
             r->carveout_ignored ? "the SM has {0} bytes of shared memory "
                                   "(no carveout before cc 7.0: preference ignored)"
                                 : "the SM has {0} bytes of shared memory",
             NULL);
    occ_step_operand(s, "device.smem_per_sm_bytes", (double)d->smem_per_sm_bytes, "bytes");
    occ_step_result(s, "allocated.api_smem_config_bytes", (double)r->smem_config_bytes, "bytes");
    return;
  }
  bool preference = k->carveout_pct != OCC_CARVEOUT_DEFAULT;
  int64_t wanted = d->smem_per_sm_bytes, own;
  if (preference) occ_launch_smem_terms(d, k, &wanted, &own);
  s = step(b, "smem_wanted_bytes", "shared memory asked of the SM",
           preference ? OCC_OP_PERCENT_OF : OCC_OP_VALUE,
           preference ? "carveout {0} % of {1} bytes"
                      : "no carveout preference: the SM's {0} bytes",
           NULL);
  if (preference) occ_step_operand(s, "carveout_pct", k->carveout_pct, "percent");
  occ_step_operand(s, "device.smem_per_sm_bytes", (double)d->smem_per_sm_bytes, "bytes");
  occ_step_result(s, "smem_wanted_bytes", (double)wanted, "bytes");
  s = step(b, "smem_preference_bytes", "shared-memory configuration preferred",
           OCC_OP_SMEM_CONFIG, "as a configuration the SM supports = {r} bytes", ",\n");
  occ_step_operand(s, "smem_wanted_bytes", (double)wanted, "bytes");
  occ_step_result(s, "smem_preference_bytes", (double)r->smem_preference_bytes, "bytes");
  if (r->smem_config_bytes == r->smem_preference_bytes) return;
  s = step(b, "smem_config_bytes", "shared-memory configuration used",
           OCC_OP_SMEM_CONFIG,
           "one block needs more: the smallest configuration that holds it is {r} bytes",
           NULL);
  occ_step_operand(s, "allocated.smem_per_block_bytes", (double)r->smem_per_block_bytes, "bytes");
  occ_step_result(s, "allocated.api_smem_config_bytes", (double)r->smem_config_bytes, "bytes");
}

/* Where the SM holds more at launch than the API's rule (see occ.h). */
static void smem_launch(builder *b) {
  const occ_result *r = b->r;
  if (r->launch_limit_smem == r->limit_smem) return;
  int64_t pref, own;
  occ_launch_smem_terms(b->d, b->k, &pref, &own);
  step(b, "launch_note", "the launch rule", OCC_OP_NOTE,
       "at launch the driver counts only the blocks' own shared memory\n"
       "against the carveout (measured on H100 and H200; the API does not):", NULL);
  if (own == 0) {
    no_limit(b, "launch_limit_smem",
             "the kernel has none: shared memory does not limit it at launch", NULL,
             "smem_own_bytes", 0, "bytes", "launch_limit_smem");
    return;
  }
  occ_step *s = step(b, "launch_blocks_by_carveout", "blocks the carveout holds",
                     OCC_OP_FLOOR_DIV, "{0} / {1} = {r} {r:block}", NULL);
  occ_step_operand(s, "smem_carveout_bytes", (double)pref, "bytes");
  occ_step_operand(s, "smem_own_bytes", (double)own, "bytes");
  occ_step_result(s, "launch_blocks_by_carveout", (double)(pref / own), "blocks");
  s = step(b, "launch_smem_wanted_bytes", "shared memory for those blocks", OCC_OP_MUL,
           "x {1} = {r} bytes", ", ");
  occ_step_operand(s, "launch_blocks_by_carveout", (double)(pref / own), "blocks");
  occ_step_operand(s, "allocated.smem_per_block_bytes", (double)r->smem_per_block_bytes, "bytes");
  occ_step_result(s, "launch_smem_wanted_bytes", (double)(pref / own * r->smem_per_block_bytes),
         "bytes");
  s = step(b, "launch_smem_config_bytes", "configuration at launch", OCC_OP_SMEM_CONFIG,
           "so it configures {r} bytes", ",\n");
  occ_step_operand(s, "launch_smem_wanted_bytes", (double)(pref / own * r->smem_per_block_bytes),
          "bytes");
  occ_step_result(s, "at_launch.smem_config_bytes", (double)r->launch_smem_config_bytes, "bytes");
  s = step(b, "launch_limit_smem", "blocks by shared memory at launch", OCC_OP_FLOOR_DIV,
           "{0} / {1} = {r} {r:block} at launch", NULL);
  occ_step_operand(s, "at_launch.smem_config_bytes", (double)r->launch_smem_config_bytes, "bytes");
  occ_step_operand(s, "allocated.smem_per_block_bytes", (double)r->smem_per_block_bytes, "bytes");
  occ_step_result(s, "launch_limit_smem", r->launch_limit_smem, "blocks");
}

/* The configuration the driver chooses where it is not the API's and not
 * the carveout rule's (the default preference, blocks with no shared
 * memory of their own), and the L1 cache it leaves. */
static void smem_driver_config(builder *b) {
  const occ_device *d = b->d;
  const occ_result *r = b->r;
  int64_t config = r->launch_smem_config_bytes;
  if (config == 0) return;
  if (config != r->smem_config_bytes && r->launch_limit_smem == r->limit_smem) {
    int64_t blocks, wanted;
    occ_launch_config_terms(d, b->k, r, &blocks, &wanted);
    occ_step *s = step(b, "launch_smem_config_bytes", "configuration at launch",
                       OCC_OP_SMEM_CONFIG,
                       "at launch the driver configures {r} bytes, room for {1} {1:block}\n"
                       "(as measured on H100 and H200; the API assumes the most)",
                       NULL);
    occ_step_operand(s, "launch_smem_wanted_bytes", (double)wanted, "bytes");
    occ_step_operand(s, "launch_blocks_provided", (double)blocks, "blocks");
    occ_step_result(s, "at_launch.smem_config_bytes", (double)config, "bytes");
  }
  if (d->l1_smem_bytes == 0) return;
  /* A configuration no survey backs is marked where it is used. */
  bool assumed = r->smem_config_basis == OCC_FIGURE_ASSUMED;
  occ_step *s = step(b, "l1_bytes", "L1 data cache at launch", OCC_OP_SUB,
                     assumed ? "{0} - {1} = {r} bytes left to the L1 data cache\n"
                               "(assumed: the driver's choice was never surveyed "
                               "on this architecture)"
                             : "{0} - {1} = {r} bytes left to the L1 data cache",
                     NULL);
  occ_step_operand(s, "device.l1_smem_bytes", (double)d->l1_smem_bytes, "bytes");
  occ_step_operand(s, "at_launch.smem_config_bytes", (double)config, "bytes");
  occ_step_result(s, "at_launch.l1_bytes", (double)(d->l1_smem_bytes - config), "bytes");
}

static void shared_memory(builder *b) {
  const occ_result *r = b->r;
  b->list.section = 5;
  smem_request(b);
  if (r->limit_smem == 0) {
    exceeds(b, "limit_smem", "the block needs more than that: 0 blocks",
            "allocated.smem_per_block_bytes", (double)r->smem_per_block_bytes,
            "smem_block_cap_bytes", (double)r->smem_block_cap_bytes, "bytes",
            "limits.shared_memory");
    return;
  }
  smem_config(b);
  if (r->limit_smem == OCC_UNLIMITED) {
    no_limit(b, "limit_smem", "no shared memory used: no limit", NULL,
             "allocated.smem_per_block_bytes", (double)r->smem_per_block_bytes,
             "bytes", "limits.shared_memory");
  } else {
    occ_step *s = step(b, "limit_smem", "blocks by shared memory", OCC_OP_FLOOR_DIV,
                       "{0} / {1} = {r} {r:block}", NULL);
    occ_step_operand(s, "allocated.api_smem_config_bytes", (double)r->smem_config_bytes, "bytes");
    occ_step_operand(s, "allocated.smem_per_block_bytes", (double)r->smem_per_block_bytes, "bytes");
    occ_step_result(s, "limits.shared_memory", r->limit_smem, "blocks");
  }
  smem_launch(b);
  smem_driver_config(b);
}

static void barriers(builder *b) {
  const occ_device *d = b->d;
  const occ_kernel *k = b->k;
  const occ_result *r = b->r;
  b->list.section = 6;
  if (d->barrier_factor == 0) {
    no_limit(b, "limit_barriers", "no barrier limit on this architecture", NULL,
             "device.barrier_factor", 0, "barriers", "limits.barriers");
    return;
  }
  occ_step *s = step(b, "barriers_per_sm", "barriers per SM", OCC_OP_MUL,
                     "{0} {0:block} x {1} = {r} barriers per SM", NULL);
  occ_step_operand(s, "limits.blocks", r->limit_blocks, "blocks");
  occ_step_operand(s, "device.barrier_factor", d->barrier_factor, "barriers");
  occ_step_result(s, "barriers_per_sm", r->barriers_per_sm, "barriers");
  if (k->barriers == 0) {
    no_limit(b, "limit_barriers", "the kernel uses none: no limit", "; ",
             "kernel.barriers", 0, "barriers", "limits.barriers");
    return;
  }
  s = step(b, "limit_barriers", "blocks by barriers", OCC_OP_FLOOR_DIV,
           "/ {1} per block = {r} {r:block}", "; ");
  occ_step_operand(s, "barriers_per_sm", r->barriers_per_sm, "barriers");
  occ_step_operand(s, "kernel.barriers", k->barriers, "barriers");
  occ_step_result(s, "limits.barriers", r->limit_barriers, "blocks");
}

static const char *const limit_names[OCC_LIMITER_COUNT] = {
    "limits.warps", "limits.blocks", "limits.registers", "limits.shared_memory",
    "limits.barriers"};

static void active(builder *b) {
  const occ_result *r = b->r;
  b->list.section = 7;
  occ_step *s = step(b, "active_blocks_per_sm", "active blocks per SM", OCC_OP_MIN,
                     "the smallest of {list}\n= {r} {r:block} per SM, limited by {limiters}",
                     NULL);
  for (int i = 0; i < OCC_LIMITER_COUNT; i++)
    if (occ_result_limit(r, i) != OCC_UNLIMITED)
      occ_step_operand(s, limit_names[i], occ_result_limit(r, i), "blocks");
  occ_step_result(s, "active_blocks_per_sm", r->active_blocks_per_sm, "blocks");
  s = step(b, "active_warps_per_sm", "active warps per SM", OCC_OP_MUL,
           "{0} {0:block} x {1} {1:warp} = {r} active {r:warp}", NULL);
  occ_step_operand(s, "active_blocks_per_sm", r->active_blocks_per_sm, "blocks");
  occ_step_operand(s, "warps_per_block", r->warps_per_block, "warps");
  occ_step_result(s, "active_warps_per_sm", r->active_warps_per_sm, "warps");
}

static void occupancy(builder *b) {
  const occ_result *r = b->r;
  b->list.section = 8;
  occ_step *s = step(b, "occupancy", "occupancy", OCC_OP_DIV,
                     "{0} / {1} {1:warp} = {r} %", NULL);
  occ_step_operand(s, "active_warps_per_sm", r->active_warps_per_sm, "warps");
  occ_step_operand(s, "max_warps_per_sm", r->max_warps_per_sm, "warps");
  occ_step_result(s, "occupancy", r->occupancy, "fraction");
  if (r->launch_active_blocks_per_sm != r->active_blocks_per_sm) {
    int warps = r->launch_active_blocks_per_sm * r->warps_per_block;
    s = step(b, "launch_active_warps_per_sm", "active warps at launch", OCC_OP_MUL,
             "at launch: {0} {0:block} x {1} {1:warp} = {r} {r:warp}", NULL);
    occ_step_operand(s, "at_launch.active_blocks_per_sm", r->launch_active_blocks_per_sm, "blocks");
    occ_step_operand(s, "warps_per_block", r->warps_per_block, "warps");
    occ_step_result(s, "at_launch.active_warps_per_sm", warps, "warps");
    s = step(b, "launch_occupancy", "occupancy at launch", OCC_OP_DIV,
             "{0} / {1} = {r} %", ", ");
    occ_step_operand(s, "at_launch.active_warps_per_sm", warps, "warps");
    occ_step_operand(s, "max_warps_per_sm", r->max_warps_per_sm, "warps");
    occ_step_result(s, "at_launch.occupancy", occ_launch_occupancy(r), "fraction");
  }
  if (!r->launchable)
    step(b, "reason", "why it cannot launch", OCC_OP_NOTE, "cannot launch: {reason}",
         NULL);
}

static void grid_waves(builder *b, const occ_waves *w) {
  if (!w || w->blocks_per_wave <= 0) return;
  b->list.section = 9;
  occ_step *s = step(b, "blocks_per_wave", "blocks per wave", OCC_OP_MUL,
                     "{0} {0:block} x {1} SMs = {r} {r:block} per wave", NULL);
  occ_step_operand(s, "active_blocks_per_sm", b->r->active_blocks_per_sm, "blocks");
  occ_step_operand(s, "device.sm_count", b->d->sm_count, "sms");
  occ_step_result(s, "waves.blocks_per_wave", (double)w->blocks_per_wave, "blocks");
  s = step(b, "waves", "waves", OCC_OP_DIV, "{0} / {1} = {r} waves", "; ");
  occ_step_operand(s, "waves.grid_blocks", (double)w->grid_blocks, "blocks");
  occ_step_operand(s, "waves.blocks_per_wave", (double)w->blocks_per_wave, "blocks");
  occ_step_result(s, "waves.waves", w->waves, "waves");
}

size_t occ_explain(const occ_device *device, const occ_kernel *kernel,
                   const occ_result *result, const occ_waves *waves,
                   occ_step *steps, size_t max) {
  builder b = {device, kernel, result, {steps, max, 0, 0, {0}}};
  warps(&b);
  blocks(&b);
  registers(&b);
  shared_memory(&b);
  barriers(&b);
  active(&b);
  occupancy(&b);
  grid_waves(&b, waves);
  return b.list.count;
}
