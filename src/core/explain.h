/* explain.h - the derivation of one occ_result as data: the steps a
 * worksheet shows, each an operation on named operands with its result.
 *
 * The steps restate an occ_result the caller computed; no limit is
 * recomputed beside it. Each step carries its prose as a template (see
 * occ_step.text) so the core stays free of formatting: src/render renders it
 * for the text worksheet (--explain) and for JSON.
 */
#ifndef OCC_EXPLAIN_H
#define OCC_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>

#include "core/occ.h"

/* Enough for the longest derivation (a carveout that changes at launch,
 * a grid); occ_explain says when it is not. */
#define OCC_EXPLAIN_MAX_STEPS 64
#define OCC_EXPLAIN_MAX_OPERANDS 5

/* What a step does to its operands (a, b, c in order) to get its result. */
typedef enum occ_explain_op {
  OCC_OP_VALUE,        /* a: a device or kernel property taken as is */
  OCC_OP_SUM,          /* a + b + ... */
  OCC_OP_MUL,          /* a x b */
  OCC_OP_MUL_SUB,      /* a x b - c */
  OCC_OP_SUB,          /* a - b */
  OCC_OP_CEIL_DIV,     /* a / b rounded up */
  OCC_OP_FLOOR_DIV,    /* a / b rounded down */
  OCC_OP_DIV,          /* a / b, a fraction */
  OCC_OP_ROUND_UP,     /* a rounded up to a multiple of b */
  OCC_OP_MUL_ROUND_UP, /* a x (b rounded up to a multiple of c) */
  OCC_OP_PERCENT_OF,   /* a % of b, rounded down */
  OCC_OP_SMEM_CONFIG,  /* the smallest shared-memory configuration of the
                          device holding a (the largest when none does) */
  OCC_OP_MIN,          /* the smallest operand */
  OCC_OP_EXCEEDS,      /* a is over the cap b: the result is 0 blocks */
  OCC_OP_NO_LIMIT,     /* a is 0 (nothing used): the limit does not apply */
  OCC_OP_NOTE          /* prose only: no operands, no result */
} occ_explain_op;

/* Returns the operation's name ("ceil_div", "round_up", ...). (The
 * names and titles are inline data: the renderers read them without a
 * call into the calculator.) */
static inline const char *occ_explain_op_name(occ_explain_op op) {
  static const char *const names[] = {
      "value",     "sum",       "mul",         "mul_sub",      "sub",
      "ceil_div",  "floor_div", "div",         "round_up",     "mul_round_up",
      "percent_of", "smem_config", "min",      "exceeds",      "no_limit",
      "note"};
  return (size_t)op < sizeof names / sizeof names[0] ? names[op] : "?";
}

/* Returns the title of section 1..10 ("Warps per block", ...), or NULL. */
static inline const char *occ_explain_section_title(int section) {
  static const char *const titles[] = {
      "Warps per block", "Warp limit", "Block limit", "Registers",
      "Shared memory", "Barriers", "Active blocks", "Occupancy", "Waves",
      "Thread block clusters"};
  int n = (int)(sizeof titles / sizeof titles[0]);
  return section >= 1 && section <= n ? titles[section - 1] : NULL;
}

/* A named number. Names are the report's JSON keys, with the object path
 * for nested ones ("kernel.regs_per_thread", "limits.registers",
 * "allocated.smem_per_block_bytes"), or occ_result's field name for
 * intermediate values the report does not carry. */
typedef struct occ_explain_value {
  const char *name;
  double value;        /* exact: every integer here is far below 2^53 */
  const char *unit;    /* "threads", "warps", "blocks", "registers",
                          "bytes", "percent", "fraction" (0..1), "sms",
                          "sub_partitions", "barriers", "waves" */
  bool unlimited;      /* a limit that does not apply (value meaningless) */
} occ_explain_value;

typedef struct occ_step {
  const char *key;     /* what the step derives, unique in one list */
  int section;         /* 1..10, see occ_explain_section_title */
  const char *title;   /* a short title: "registers per warp" */
  occ_explain_op operation;
  int operand_count;
  occ_explain_value operands[OCC_EXPLAIN_MAX_OPERANDS];
  bool has_result;     /* false for OCC_OP_NOTE */
  occ_explain_value result;
  /* The prose a student reads, as a template: {0}..{4} an operand's
   * value, {r} the result's; {0:warp} or {r:warp} the word, plural
   * unless the value is 1; {list} the operands as "value (limit)";
   * {limiters} the limits that bind; {reason} why a block cannot launch.
   * A '\n' starts a new line of the same step. */
  const char *text;
  /* NULL: the step starts a line; else the text continues the previous
   * step's line after this separator (", ", "; ", ",\n"). */
  const char *joiner;
} occ_step;

/* Derives the steps of result (computed by occ_compute for device and
 * kernel) into steps[0..max-1], in the order a worksheet shows them; waves
 * (NULL without a grid) adds the waves. Returns the number of steps the
 * derivation has: more than max means the list was cut. */
size_t occ_explain(const occ_device *device, const occ_kernel *kernel,
                   const occ_result *result, const occ_waves *waves,
                   occ_step *steps, size_t max);

/* A list of steps being built (by explain.c and cluster_explain.c):
 * steps are appended while there is room (max) and all are counted, so
 * the caller learns how many a whole explanation needs. */
typedef struct occ_step_list {
  occ_step *steps;
  size_t max, count;
  int section;    /* the section of the steps appended next */
  occ_step spare; /* where steps past max are written, then dropped */
} occ_step_list;

/* Appends a step of list->section and returns it (the spare when the
 * list is full). */
occ_step *occ_step_add(occ_step_list *list, const char *key, const char *title,
                       occ_explain_op op, const char *text, const char *joiner);
/* Adds an operand (up to OCC_EXPLAIN_MAX_OPERANDS) or sets the result. */
void occ_step_operand(occ_step *s, const char *name, double v, const char *unit);
void occ_step_result(occ_step *s, const char *name, double v, const char *unit);

#endif
