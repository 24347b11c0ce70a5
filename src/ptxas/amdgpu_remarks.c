/* amdgpu_remarks.c - the streaming reader of AMD's kernel-resource-usage
 * remarks (see amdgpu_remarks.h).
 *
 * A line is a remark of ours when, with ANSI escape sequences taken out and
 * a CR at its end dropped, it ends in "[-Rpass-analysis=kernel-resource-
 * usage]" and holds "remark:". Its field is the text after "remark:" (and
 * after a "FILE:LINE:COL:" location printed there), up to that tag. Every
 * other line (source snippets, carets, warnings, make's echo) is ignored,
 * but for a compiler command line, which may name the target. A kernel is
 * handed over at its "LDS Size" line (the last the compiler prints), or
 * at the next "Function Name", or at the end of the input. */
#include "ptxas/amdgpu_remarks.h"

#include "ptxas/lines.h"

#include <stdlib.h>
#include <string.h>

#define TAG "[-Rpass-analysis=kernel-resource-usage]"
#define REGS_MAX 1024
#define COUNT_MAX 1048576
#define BYTES_MAX (INT64_C(1) << 40)

struct occ_amdgpu_parser {
  occ_amdgpu_fn fn;
  void *ctx;
  occ_amdgpu_stats stats;
  int stopped;

  occ_lines lines; /* the input, split into lines */

  char *clean; /* the line without escape sequences */
  char *name;  /* the open kernel's name */
  bool open;
  occ_amdgpu_kernel kernel;
  char arch[OCC_AMDGPU_ARCH_MAX]; /* the target the log named last */
  int wave_size;                  /* and the wave size it asked for */
  char *chunk;
  occ_amdgpu_kernel ready;        /* without a callback: the kernel the */
  char *ready_name;               /* last line completed, copied */
  bool has_ready;
};

/* The first needle (n bytes) in hay (len bytes), or NULL (memmem is not
 * in POSIX). */
static const char *find(const char *hay, size_t len, const char *needle, size_t n) {
  for (size_t i = 0; n <= len && i <= len - n; i++)
    if (hay[i] == needle[0] && memcmp(hay + i, needle, n) == 0) return hay + i;
  return NULL;
}

static void kernel_reset(occ_amdgpu_kernel *k) {
  memset(k, 0, sizeof *k);
  k->sgprs = k->vgprs = k->agprs = OCC_AMDGPU_UNKNOWN;
  k->scratch_bytes_per_lane = OCC_AMDGPU_UNKNOWN;
  k->dynamic_stack = k->occupancy_waves_per_simd = OCC_AMDGPU_UNKNOWN;
  k->sgpr_spills = k->vgpr_spills = OCC_AMDGPU_UNKNOWN;
  k->lds_bytes = OCC_AMDGPU_UNKNOWN;
}

static void skip_line(occ_amdgpu_parser *p) {
  if (!p->stats.first_skipped_line) p->stats.first_skipped_line = p->stats.lines;
  p->stats.skipped_lines++;
}

/* Hands the open kernel over. */
static int emit(occ_amdgpu_parser *p) {
  if (!p->open) return 0;
  p->open = false;
  occ_amdgpu_kernel *k = &p->kernel;
  if (k->sgprs < 0 || k->vgprs < 0 || k->occupancy_waves_per_simd < 0) p->stats.incomplete++;
  k->name = p->name;
  p->stats.kernels++;
  if (p->fn) return p->fn(k, p->ctx);
  /* No callback: a copy for occ_amdgpu_next (a line completes one kernel
   * at most: the one a new "Function Name" closes). */
  p->ready = *k;
  memcpy(p->ready_name, p->name, strlen(p->name) + 1);
  p->ready.name = p->ready_name;
  p->has_ready = true;
  return 0;
}

const occ_amdgpu_kernel *occ_amdgpu_next(occ_amdgpu_parser *p) {
  if (!p->has_ready) return NULL;
  p->has_ready = false;
  return &p->ready;
}

/* Copies s[0, len) to out without ANSI escape sequences (ESC [ ... final
 * byte, or ESC and one byte) and without a final CR. Returns the length. */
static size_t strip(const char *s, size_t len, char *out) {
  size_t n = 0;
  for (size_t i = 0; i < len; i++) {
    if (s[i] == 0x1b) {
      if (i + 1 < len && s[i + 1] == '[') {
        i += 2;
        while (i < len && !((unsigned char)s[i] >= 0x40 && (unsigned char)s[i] <= 0x7e)) i++;
      } else {
        i++;
      }
      continue;
    }
    out[n++] = s[i];
  }
  if (n > 0 && out[n - 1] == '\r') n--;
  out[n] = '\0';
  return n;
}

/* A decimal in [0, max] at s, then only spaces; -1 when not. */
static int64_t number(const char *s, const char *end, int64_t max) {
  while (s < end && *s == ' ') s++;
  if (s == end || *s < '0' || *s > '9') return -1;
  int64_t v = 0;
  for (; s < end && *s >= '0' && *s <= '9'; s++) {
    v = v * 10 + (*s - '0');
    if (v > max) return -1;
  }
  while (s < end && *s == ' ') s++;
  return s == end ? v : -1;
}

static const char *skip_spaces(const char *s, const char *end) {
  while (s < end && (*s == ' ' || *s == '\t')) s++;
  return s;
}

/* Past a "FILE:LINE:COL:" location at s (the form "remark: LOC: field"),
 * or s when there is none. */
static const char *skip_location(const char *s, const char *end) {
  for (const char *q = s; q + 1 < end; q++) {
    if (*q != ':' || q[1] < '0' || q[1] > '9') continue;
    const char *r = q + 1;
    while (r < end && *r >= '0' && *r <= '9') r++;
    if (r >= end || *r != ':') continue;
    r++;
    while (r < end && *r >= '0' && *r <= '9') r++;
    if (r < end && *r == ':') return r + 1;
  }
  return s;
}

typedef enum field {
  F_NAME, F_TOTAL_SGPRS, F_SGPR_SPILL, F_SGPRS, F_VGPR_SPILL, F_VGPRS, F_AGPRS,
  F_SCRATCH, F_DYN_STACK, F_OCCUPANCY, F_LDS, F_COUNT
} field;

/* Longer keys before their prefixes ("SGPRs Spill:" before "SGPRs:"). */
static const char *const keys[F_COUNT] = {
    "Function Name:", "TotalSGPRs:", "SGPRs Spill:", "SGPRs:", "VGPRs Spill:",
    "VGPRs:", "AGPRs:", "ScratchSize [bytes/lane]:", "Dynamic Stack:",
    "Occupancy [waves/SIMD]:", "LDS Size [bytes/block]:"};

static int open_kernel(occ_amdgpu_parser *p, const char *s, const char *end) {
  int rc = emit(p);
  s = skip_spaces(s, end);
  while (end > s && end[-1] == ' ') end--;
  if (s == end) {
    skip_line(p);
    return rc;
  }
  kernel_reset(&p->kernel);
  memcpy(p->name, s, (size_t)(end - s));
  p->name[end - s] = '\0';
  memcpy(p->kernel.arch, p->arch, sizeof p->arch);
  p->kernel.wave_size = p->wave_size;
  p->kernel.line = p->stats.lines;
  p->open = true;
  return rc;
}

static bool set_field(occ_amdgpu_kernel *k, field f, const char *s, const char *end) {
  if (f == F_DYN_STACK) {
    s = skip_spaces(s, end);
    while (end > s && end[-1] == ' ') end--;
    size_t n = (size_t)(end - s);
    if (n == 4 && memcmp(s, "True", 4) == 0) k->dynamic_stack = 1;
    else if (n == 5 && memcmp(s, "False", 5) == 0) k->dynamic_stack = 0;
    else return false;
    return true;
  }
  int64_t max = f == F_SCRATCH || f == F_LDS ? BYTES_MAX
              : f == F_SGPR_SPILL || f == F_VGPR_SPILL ? COUNT_MAX : REGS_MAX;
  int64_t v = number(s, end, max);
  if (v < 0) return false;
  switch (f) {
  case F_TOTAL_SGPRS: k->sgprs = (int)v; k->sgprs_total_form = true; break;
  case F_SGPRS: k->sgprs = (int)v; break;
  case F_SGPR_SPILL: k->sgpr_spills = (int)v; break;
  case F_VGPRS: k->vgprs = (int)v; break;
  case F_VGPR_SPILL: k->vgpr_spills = (int)v; break;
  case F_AGPRS: k->agprs = (int)v; break;
  case F_SCRATCH: k->scratch_bytes_per_lane = v; break;
  case F_OCCUPANCY: k->occupancy_waves_per_simd = (int)v; break;
  case F_LDS: k->lds_bytes = v; break;
  default: return false;
  }
  return true;
}

/* One remark's field, s..end between "remark:" and the tag. */
static int parse_remark(occ_amdgpu_parser *p, const char *s, const char *end) {
  s = skip_spaces(s, end);
  for (int pass = 0; pass < 2; pass++) {
    for (int f = 0; f < F_COUNT; f++) {
      size_t len = strlen(keys[f]);
      if ((size_t)(end - s) < len || memcmp(s, keys[f], len) != 0) continue;
      if (f == F_NAME) return open_kernel(p, s + len, end);
      if (!p->open || !set_field(&p->kernel, (field)f, s + len, end)) {
        skip_line(p);
        return 0;
      }
      return f == F_LDS ? emit(p) : 0;
    }
    s = skip_spaces(skip_location(s, end), end); /* "remark: LOC: field" */
  }
  return 0; /* another remark of the same pass: not ours to read */
}

/* A command line naming targets: remember the one target, or none when it
 * names several (hipcc then reports each target's kernels in turn, and the
 * remarks do not say which), and the wave size it asks for
 * (-mwavefrontsize64, -mattr=+wavefrontsize64; -mno-wavefrontsize64 and
 * +wavefrontsize32 name 32; none: 0, the target's default). */
static void note_targets(occ_amdgpu_parser *p, const char *s) {
  static const char *const opts[] = {"-mcpu=", "--offload-arch=", "--cuda-gpu-arch=",
                                     "-march="};
  char found[OCC_AMDGPU_ARCH_MAX] = "";
  int count = 0;
  for (size_t o = 0; o < sizeof opts / sizeof opts[0]; o++) {
    for (const char *q = strstr(s, opts[o]); q; q = strstr(q + 1, opts[o])) {
      const char *v = q + strlen(opts[o]);
      if (strncmp(v, "gfx", 3) != 0) continue;
      size_t n = 3;
      while (v[n] && ((v[n] >= '0' && v[n] <= '9') || (v[n] >= 'a' && v[n] <= 'f'))) n++;
      if (n < 6 || n >= OCC_AMDGPU_ARCH_MAX) continue;
      if (count == 0 || strncmp(found, v, n) != 0 || found[n] != '\0') {
        count++;
        memcpy(found, v, n);
        found[n] = '\0';
      }
    }
  }
  if (count == 1) memcpy(p->arch, found, sizeof found);
  else if (count > 1) p->arch[0] = '\0';
  if (count > 0)
    p->wave_size = strstr(s, "no-wavefrontsize64") || strstr(s, "wavefrontsize32") ? 32
                   : strstr(s, "wavefrontsize64")                                 ? 64
                                                                                  : 0;
}

static int parse_line(occ_amdgpu_parser *p, const char *s, size_t len) {
  p->stats.lines++;
  size_t n = strip(s, len, p->clean);
  const char *c = p->clean, *end = c + n;
  size_t tag_len = sizeof TAG - 1;
  const char *remark = strstr(c, "remark:");
  if (remark && n >= tag_len && memcmp(end - tag_len, TAG, tag_len) == 0) {
    const char *field_end = end - tag_len;
    while (field_end > remark && field_end[-1] == ' ') field_end--;
    const char *field_start = remark + strlen("remark:");
    if (field_start > field_end) field_start = field_end;
    return parse_remark(p, field_start, field_end);
  }
  if (strstr(c, "gfx")) note_targets(p, c);
  return 0;
}

/* One line from the splitter. A line over OCC_AMDGPU_LINE_MAX, or one
 * with a NUL (which would end strstr early: such a line is binary) that
 * claims to be a remark, is counted and skipped unread. */
static int on_line(void *ctx, const char *s, size_t len) {
  occ_amdgpu_parser *p = ctx;
  if (s && !memchr(s, '\0', len)) return parse_line(p, s, len);
  p->stats.lines++;
  if (!s || find(s, len, "remark", 6)) skip_line(p);
  return 0;
}

occ_amdgpu_parser *occ_amdgpu_new(occ_amdgpu_fn fn, void *ctx) {
  occ_amdgpu_parser *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->fn = fn;
  p->ctx = ctx;
  p->clean = malloc(OCC_AMDGPU_LINE_MAX + 1);
  p->name = malloc(OCC_AMDGPU_LINE_MAX + 1);
  p->ready_name = fn ? NULL : malloc(OCC_AMDGPU_LINE_MAX + 1);
  if (occ_lines_init(&p->lines, OCC_AMDGPU_LINE_MAX, on_line, p) != 0 || !p->clean ||
      !p->name || (!fn && !p->ready_name)) {
    occ_amdgpu_free(p);
    return NULL;
  }
  kernel_reset(&p->kernel);
  return p;
}

void occ_amdgpu_free(occ_amdgpu_parser *p) {
  if (!p) return;
  occ_lines_free(&p->lines);
  free(p->clean);
  free(p->name);
  free(p->ready_name);
  free(p->chunk);
  free(p);
}

int occ_amdgpu_feed(occ_amdgpu_parser *p, const char *data, size_t len) {
  if (!p->stopped) p->stopped = occ_lines_feed(&p->lines, data, len);
  return p->stopped;
}

int occ_amdgpu_line(occ_amdgpu_parser *p, const char *s, size_t len) {
  if (!p->stopped) p->stopped = on_line(p, s, len);
  return p->stopped;
}

int occ_amdgpu_finish(occ_amdgpu_parser *p) {
  if (!p->stopped) p->stopped = occ_lines_finish(&p->lines);
  if (!p->stopped) p->stopped = emit(p);
  return p->stopped;
}

int occ_amdgpu_read_file(occ_amdgpu_parser *p, FILE *in) {
  int rc = occ_lines_read_file(&p->lines, in, &p->chunk, &p->stopped);
  return rc ? rc : occ_amdgpu_finish(p);
}

const occ_amdgpu_stats *occ_amdgpu_get_stats(const occ_amdgpu_parser *p) {
  return &p->stats;
}

