/* vocab.c - the limiters' names, one row each (see vocab.h). */
#include "render/vocab.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

typedef struct limiter_words {
  const char *key, *label, *short_label;
} limiter_words;

static const limiter_words words[OCC_LIMITER_COUNT] = {
    [OCC_LIMIT_INDEX_WARPS] = {"warps", "warps", "warps"},
    [OCC_LIMIT_INDEX_BLOCKS] = {"blocks", "blocks", "blocks"},
    [OCC_LIMIT_INDEX_REGISTERS] = {"registers", "registers", "regs"},
    [OCC_LIMIT_INDEX_SHARED_MEMORY] = {"shared_memory", "shared memory",
                                       "smem"},
    [OCC_LIMIT_INDEX_BARRIERS] = {"barriers", "barriers", "barrier"},
};

static const char *const chart_x_keys[OCC_CHART_KIND_COUNT] = {
    [OCC_CHART_BLOCK] = "threads_per_block",
    [OCC_CHART_REGS] = "regs_per_thread",
    [OCC_CHART_SMEM] = "smem_bytes",
};

const char *occ_chart_x_key(occ_chart_kind kind) { return chart_x_keys[kind]; }

static const limiter_words *row(int index) {
  static const limiter_words unknown = {"?", "?", "?"};
  return index >= 0 && index < OCC_LIMITER_COUNT ? &words[index] : &unknown;
}

const char *occ_limiter_key(int index) { return row(index)->key; }
const char *occ_limiter_label(int index) { return row(index)->label; }
const char *occ_limiter_short_label(int index) { return row(index)->short_label; }

const char *occ_unlimited_reason(const occ_result *result, int index) {
  switch (index) {
  case OCC_LIMIT_INDEX_REGISTERS: return "no registers used";
  case OCC_LIMIT_INDEX_SHARED_MEMORY: return "no shared memory used";
  case OCC_LIMIT_INDEX_BARRIERS:
    return result->barriers_per_sm == 0 ? "no barrier limit on this architecture"
                                        : "no barriers used";
  }
  return "no limit";
}

/* Appends text to out (cut at size); used is out's length so far. */
static size_t append(char *out, size_t size, size_t used, const char *text) {
  int n = snprintf(out + used, size - used, "%s", text);
  size_t end = used + (n > 0 ? (size_t)n : 0);
  return end < size ? end : size - 1;
}

const char *occ_limiters_keys(unsigned limited_by, char *out, size_t size) {
  size_t used = 0;
  out[0] = '\0';
  for (int i = 0; i < OCC_LIMITER_COUNT; i++) {
    if (!((limited_by >> i) & 1)) continue;
    if (used) used = append(out, size, used, "+");
    used = append(out, size, used, words[i].key);
  }
  if (!used) append(out, size, 0, "none");
  return out;
}

const char *occ_limiters_words(unsigned limited_by, char *out, size_t size) {
  int total = 0, count = 0;
  for (int i = 0; i < OCC_LIMITER_COUNT; i++) total += (limited_by >> i) & 1;
  size_t used = 0;
  out[0] = '\0';
  for (int i = 0; i < OCC_LIMITER_COUNT; i++) {
    if (!((limited_by >> i) & 1)) continue;
    const char *sep = count == 0 ? "" : count == total - 1 ? " and " : ", ";
    used = append(out, size, append(out, size, used, sep), words[i].label);
    count++;
  }
  return out;
}

const char *occ_waves_words(const occ_waves *w, char *out, size_t size) {
  if (w->tail_blocks == 0)
    snprintf(out, size, "%" PRId64 " full, no tail", w->full_waves);
  else
    snprintf(out, size, "%" PRId64 " full, then a tail of %" PRId64 " block%s",
             w->full_waves, w->tail_blocks, w->tail_blocks == 1 ? "" : "s");
  return out;
}
