/* explain.c - the derivation step by step, as a lab worksheet would show
 * it, with this case's numbers: the steps of core/explain.c, each line its
 * prose with the values filled in. Nothing is computed here. */
#include <stdio.h>
#include <string.h>

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

static int limit_index(const char *name) {
  for (int i = 0; i < OCC_LIMITER_COUNT; i++) {
    const char *key = occ_limiter_key(i);
    if (strncmp(name, "limits.", 7) == 0 && strcmp(name + 7, key) == 0) return i;
  }
  return -1;
}

/* "16 (warps), 32 (blocks), 10 (registers),\n45 (shared memory)": the
 * list breaks before shared memory to keep the worksheet in 80 columns. */
static void put_list(text_buf *t, const occ_step *s) {
  for (int i = 0; i < s->operand_count; i++) {
    int limit = limit_index(s->operands[i].name);
    if (i > 0) put_str(t, limit == 3 ? ",\n" : ", ");
    put_value(t, &s->operands[i]);
    put_str(t, " (");
    put_str(t, occ_limiter_label(limit));
    put_str(t, ")");
  }
}

/* One placeholder (see occ_step.text) of n bytes. */
static void put_field(text_buf *t, const occ_report *rep, const occ_step *s,
                      const char *f, size_t n) {
  char detail[160];
  if (n == 4 && memcmp(f, "list", 4) == 0) {
    put_list(t, s);
  } else if (n == 8 && memcmp(f, "limiters", 8) == 0) {
    occ_limiters_words(rep->result->limited_by, detail, sizeof detail);
    put_str(t, detail);
  } else if (n == 6 && memcmp(f, "reason", 6) == 0) {
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

void occ_explain_step_text(const occ_report *rep, const occ_step *s, char *buf,
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
    put_field(&t, rep, s, p + 1, (size_t)(close - p - 1));
    p = close + 1;
  }
}

/* Writes text, indenting each line it starts. */
static void write_indented(FILE *out, const char *text) {
  for (const char *p = text; *p; p++) {
    fputc(*p, out);
    if (*p == '\n') fputs("   ", out);
  }
}

void occ_print_explain(FILE *out, const occ_report *rep) {
  char cc[16], text[512];
  const occ_step *steps = rep->steps;
  size_t n = rep->step_count;
  occ_cc_text(rep->device, cc, sizeof cc);
  char name[4 * sizeof rep->device->name];
  fprintf(out, "Occupancy of a %d-thread block on %s (cc %s)",
          rep->result->threads_per_block,
          occ_text_safe(rep->device->name, name, sizeof name), cc);
  int section = 0;
  for (size_t i = 0; i < n; i++) {
    const occ_step *s = &steps[i];
    bool joins = s->joiner && s->section == section;
    if (s->section != section) {
      section = s->section;
      fprintf(out, "\n\n%d. %s", section, occ_explain_section_title(section));
    }
    if (joins) write_indented(out, s->joiner);
    else fputs("\n   ", out);
    occ_explain_step_text(rep, s, text, sizeof text);
    write_indented(out, text);
  }
  fputc('\n', out);
}
