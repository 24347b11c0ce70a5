/* explain.c - the derivation step by step, as a lab worksheet would show
 * it, with this case's numbers: the steps of core/explain.c, each line its
 * prose with the values filled in. Nothing is computed here. */
#include <stdio.h>
#include <string.h>

#include "core/amd_explain.h"
#include "render/amd_out.h"
#include "render/explain_out.h"
#include "render/report_text.h"
#include "render/vocab.h"
#include "text/text_safe.h"

/* A bounded string being written. */
typedef struct text_buf {
  char *buf;
  size_t size, used;
} text_buf;

static void put(text_buf *t, const char *s, size_t n) {
  for (size_t i = 0; i < n && t->used + 1 < t->size; i++) t->buf[t->used++] = s[i];
  t->buf[t->used] = '\0';
}

static void put_str(text_buf *t, const char *s) { put(t, s, strlen(s)); }

static void put_value(text_buf *t, const occ_explain_value *v) {
  char num[48];
  if (strcmp(v->unit, "fraction") == 0)
    occ_pct_text(v->value, num, sizeof num);
  else if (strcmp(v->unit, "waves") == 0)
    snprintf(num, sizeof num, "%.2f", v->value);
  else
    snprintf(num, sizeof num, "%lld", (long long)v->value);
  put_str(t, num);
}

/* What a step's placeholders read besides its own values: NVIDIA's
 * report, or an AMD item. */
typedef struct explain_src {
  const occ_report *rep;
  const occ_amd_item *amd;
} explain_src;

static const char *section_title(const explain_src *src, int section) {
  return src->amd ? occ_amd_explain_section_title(section)
                  : occ_explain_section_title(section);
}

static int limit_index(const char *name) {
  for (int i = 0; i < OCC_LIMITER_COUNT; i++) {
    const char *key = occ_limiter_key(i);
    if (strncmp(name, "limits.", 7) == 0 && strcmp(name + 7, key) == 0) return i;
  }
  return -1;
}

/* "16 (warps), 32 (blocks), 10 (registers),\n45 (shared memory)": the
 * list breaks before shared memory to keep the worksheet in 80 columns. */
static void put_list(text_buf *t, const explain_src *src, const occ_step *s) {
  for (int i = 0; i < s->operand_count; i++) {
    int limit = limit_index(s->operands[i].name);
    /* AMD's lists break after four operands, for the same 80 columns. */
    if (i > 0) put_str(t, (src->amd ? i == 4 : limit == 3) ? ",\n" : ", ");
    put_value(t, &s->operands[i]);
    put_str(t, " (");
    put_str(t, src->amd ? occ_amd_value_label(s->operands[i].name)
                        : occ_limiter_label(limit));
    put_str(t, ")");
  }
}

/* One placeholder (see occ_step.text) of n bytes. */
static void put_field(text_buf *t, const explain_src *src, const occ_step *s,
                      const char *f, size_t n) {
  char detail[400];
  const occ_report *rep = src->rep;
  const occ_amd_item *amd = src->amd;
  if (n == 4 && memcmp(f, "list", 4) == 0) {
    put_list(t, src, s);
  } else if (n == 8 && memcmp(f, "limiters", 8) == 0) {
    if (amd)
      occ_amd_limiter_words(amd->result.limiters, detail, sizeof detail);
    else
      occ_limiters_words(rep->result->limited_by, detail, sizeof detail);
    put_str(t, detail);
  } else if (amd && n == 12 && memcmp(f, "hip_limiters", 12) == 0) {
    occ_amd_limiter_words(amd->result.hip_limiters, detail, sizeof detail);
    put_str(t, detail);
  } else if (amd && n == 7 && memcmp(f, "reasons", 7) == 0) {
    occ_amd_reasons_text(amd->result.reasons, detail, sizeof detail);
    put_str(t, detail);
  } else if (rep && n == 6 && memcmp(f, "reason", 6) == 0) {
    occ_reason_detail(rep->device, rep->kernel, rep->result, detail, sizeof detail);
    put_str(t, detail);
  } else {
    const occ_explain_value *v = NULL;
    if (f[0] == 'r') v = &s->result;
    else if (f[0] >= '0' && f[0] - '0' < s->operand_count) v = &s->operands[f[0] - '0'];
    if (!v) return;
    if (n == 1) {
      put_value(t, v);
    } else if (n > 2 && f[1] == ':') {
      put(t, f + 2, n - 2);
      if (v->value != 1) put_str(t, "s");
    }
  }
}

static void step_text(const explain_src *src, const occ_step *s, char *buf,
                      size_t size) {
  text_buf t = {buf, size, 0};
  if (size == 0) return;
  buf[0] = '\0';
  for (const char *p = s->text; *p;) {
    const char *close = *p == '{' ? strchr(p, '}') : NULL;
    if (!close) {
      put(&t, p++, 1);
      continue;
    }
    put_field(&t, src, s, p + 1, (size_t)(close - p - 1));
    p = close + 1;
  }
}

void occ_explain_step_text(const occ_report *rep, const occ_step *s, char *buf,
                           size_t size) {
  explain_src src = {rep, NULL};
  step_text(&src, s, buf, size);
}

void occ_amd_explain_step_text(const occ_amd_item *amd, const occ_step *s, char *buf,
                               size_t size) {
  explain_src src = {NULL, amd};
  step_text(&src, s, buf, size);
}


/* Writes text, indenting each line it starts. */
static void write_indented(FILE *out, const char *text) {
  for (const char *p = text; *p; p++) {
    fputc(*p, out);
    if (*p == '\n') fputs("   ", out);
  }
}

/* The steps under their section titles, each line indented. */
static void print_steps(FILE *out, const explain_src *src, const occ_step *steps,
                        size_t n) {
  char text[512];
  int section = 0;
  for (size_t i = 0; i < n; i++) {
    const occ_step *s = &steps[i];
    bool joins = s->joiner && s->section == section;
    if (s->section != section) {
      section = s->section;
      fprintf(out, "\n\n%d. %s", section, section_title(src, section));
    }
    if (joins) write_indented(out, s->joiner);
    else fputs("\n   ", out);
    step_text(src, s, text, sizeof text);
    write_indented(out, text);
  }
  fputc('\n', out);
}

void occ_print_explain(FILE *out, const occ_report *rep) {
  char cc[16];
  occ_cc_text(rep->device, cc, sizeof cc);
  char name[4 * sizeof rep->device->name];
  fprintf(out, "Occupancy of a %d-thread block on %s (cc %s)",
          rep->result->threads_per_block,
          occ_text_safe(rep->device->name, name, sizeof name), cc);
  explain_src src = {rep, NULL};
  print_steps(out, &src, rep->steps, rep->step_count);
}

void occ_print_amd_explain(FILE *out, const occ_amd_item *it, const occ_step *steps,
                           size_t n) {
  char name[4 * OCC_AMD_NAME_MAX + 256];
  fprintf(out, "Occupancy of a %d-thread workgroup on ", it->kernel.threads_per_block);
  if (it->board)
    fprintf(out, "%s (%s)", occ_text_safe(it->board, name, sizeof name), it->arch.name);
  else
    fprintf(out, "%s", it->arch.name);
  explain_src src = {NULL, it};
  print_steps(out, &src, steps, n);
  /* The remark's own figure: the compiler's word, not a step of a rule. */
  if (it->compiler.present && it->compiler.occupancy_waves_per_simd >= 0)
    fprintf(out, "   the compiler printed Occupancy %d: %s\n",
            it->compiler.occupancy_waves_per_simd,
            it->compiler.agrees ? "it agrees" : "it DIFFERS from occcalc");
}
