/* ptxas.c - the streaming reader of ptxas -v and cuobjdump resource
 * reports (see ptxas.h).
 *
 * The forms it knows (public logs of CUDA 2.x to 12.x, and nvcc and
 * cuobjdump 13.0's output; tests/ptxas/logs has one case of each):
 *
 *   ptxas info    : Compiling entry function 'NAME' for 'sm_XX'
 *   ptxas info    : Function properties for NAME
 *       N bytes stack frame, N bytes spill stores, N bytes spill loads
 *   ptxas info    : Used N registers, used N barriers, N bytes smem,
 *                   N bytes cmem[K], N bytes cumulative stack size, ...
 *
 * with CUDA 2-3's missing "for 'sm_XX'" and split "a+b bytes lmem/smem",
 * a TAB after "info", MSBuild's "1>  " prefix, CRLF line ends, "N textures",
 * non-entry functions' properties (no Used line), and
 *
 *   arch = sm_XX                        (cuobjdump, per ELF section)
 *    Function NAME:
 *     REG:N STACK:N SHARED:N LOCAL:N CONSTANT[0]:N TEXTURE:N ...
 *
 * A kernel is handed over at its resource line, so --jsonl output follows
 * the compiler as it goes. Every other line is ignored; only lines that
 * claim to be one of the above and do not parse are counted as skipped. */
#include "ptxas/ptxas.h"

#include "ptxas/lines.h"
#include "core/cc.h"

#include <stdlib.h>
#include <string.h>

/* Bounds past which a number is taken as garbage rather than a resource:
 * the calculator accepts at most 1024 registers and barriers, and no
 * memory of a GPU is near a TiB. */
#define COUNT_MAX 1048576
#define REGS_MAX 1024
#define BARRIERS_MAX 1024
#define BYTES_MAX (INT64_C(1) << 40)

/* Whose stack line comes next: the open entry's, another function's, or
 * nobody's. */
typedef enum props_owner { PROPS_NONE, PROPS_ENTRY, PROPS_OTHER } props_owner;

struct occ_ptxas_parser {
  occ_ptxas_fn fn;
  void *ctx;
  occ_ptxas_stats stats;
  int stopped;             /* the callback's non-zero value */

  occ_lines lines;         /* the input, split into lines */

  char *name;              /* the open kernel's name, NUL-terminated */
  bool open;               /* a kernel announced, its resources not read */
  occ_ptxas_source open_source;
  char entry_arch[OCC_PTXAS_ARCH_MAX];   /* from "for 'sm_XX'" */
  char cuobjdump_arch[OCC_PTXAS_ARCH_MAX]; /* from "arch = sm_XX" */
  props_owner props;
  occ_ptxas_kernel kernel; /* fields gathered for the open kernel */
  /* A kernel whose Used line is read, held for the properties of its
   * callees that may follow (occ_ptxas_kernel.callees). */
  bool held;
  occ_ptxas_kernel held_kernel;
  char first_callee[256];

  char *chunk;             /* occ_ptxas_read_file's buffer */

  /* Without a callback: the kernels the last line completed, copied, for
   * occ_ptxas_next (a line completes one at most; two slots for
   * safety). */
  struct {
    occ_ptxas_kernel kernel;
    char *name;
    char callee[256];
  } ready[2];
  int ready_count, ready_next;
};

/* ---- small scanners over [s, end) ---- */

static bool is_space(char c) { return c == ' ' || c == '\t'; }

static const char *skip_space(const char *s, const char *end) {
  while (s < end && is_space(*s)) s++;
  return s;
}

static const char *trim_end(const char *s, const char *end) {
  while (end > s && is_space(end[-1])) end--;
  return end;
}

/* If [s, end) starts with word, returns the position after it, else NULL. */
static const char *after(const char *s, const char *end, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(end - s) < n || memcmp(s, word, n) != 0) return NULL;
  return s + n;
}

/* True if [s, end) is a non-empty proper prefix of word: a field cut off
 * by a truncated line. */
static bool cut_prefix_of(const char *s, const char *end, const char *word) {
  size_t n = (size_t)(end - s);
  return n > 0 && n < strlen(word) && memcmp(s, word, n) == 0;
}

/* Parses decimal digits into *value (at most max). Returns the position
 * after the digits, or NULL when there are none or the value is over max. */
static const char *parse_num(const char *s, const char *end, int64_t max,
                             int64_t *value) {
  const char *start = s;
  int64_t v = 0;
  for (; s < end && *s >= '0' && *s <= '9'; s++) {
    v = v * 10 + (*s - '0');
    if (v > max) return NULL;
  }
  if (s == start) return NULL;
  *value = v;
  return s;
}

/* "N" or "a+b" (CUDA 2-3 split a user and a system part; both occupy the
 * resource, so they are added). */
static const char *parse_sum(const char *s, const char *end, int64_t max,
                             int64_t *value) {
  s = parse_num(s, end, max, value);
  if (s && s < end && *s == '+') {
    int64_t second;
    s = parse_num(s + 1, end, max, &second);
    if (!s || *value + second > max) return NULL;
    *value += second;
  }
  return s;
}

/* A target name: letters, digits and '_', shorter than the buffer. */
static bool copy_arch(const char *s, const char *end, char *arch) {
  size_t n = (size_t)(end - s);
  if (n == 0 || n >= OCC_PTXAS_ARCH_MAX) return false;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || c == '_'))
      return false;
  }
  memcpy(arch, s, n);
  arch[n] = '\0';
  return true;
}

/* Whether a target is sm_90 or newer (sm_90a, sm_100, ...). */
static bool arch_from_sm90(const char *arch) {
  int major, minor;
  return occ_parse_cc(arch, OCC_CC_NAME, &major, &minor) == 0 && major >= 9;
}

/* ---- records ---- */

static void skip_line(occ_ptxas_parser *p) {
  p->stats.skipped_lines++;
  if (p->stats.first_skipped_line == 0)
    p->stats.first_skipped_line = p->stats.lines;
}

static void kernel_reset(occ_ptxas_kernel *k) {
  memset(k, 0, sizeof *k);
  k->callee_stack_bytes = k->callee_spill_stores_bytes = OCC_PTXAS_UNKNOWN;
  k->callee_spill_loads_bytes = OCC_PTXAS_UNKNOWN;
  k->stack_bytes = k->local_bytes = OCC_PTXAS_UNKNOWN;
  k->spill_stores_bytes = k->spill_loads_bytes = OCC_PTXAS_UNKNOWN;
  k->cmem_bytes = OCC_PTXAS_UNKNOWN;
  k->barriers = k->textures = k->samplers = k->surfaces = OCC_PTXAS_UNKNOWN;
}

/* Opens a kernel named [s, end); an earlier one still open never got its
 * resource line and is counted as incomplete. */
static void open_kernel(occ_ptxas_parser *p, const char *s, const char *end,
                        occ_ptxas_source source) {
  if (p->open) p->stats.incomplete++;
  size_t n = (size_t)(end - s);
  memcpy(p->name, s, n);
  p->name[n] = '\0';
  p->open = true;
  p->open_source = source;
  p->props = PROPS_NONE;
  kernel_reset(&p->kernel);
}

/* Hands a kernel over: to the callback, or into a ready slot. */
static int deliver(occ_ptxas_parser *p, const occ_ptxas_kernel *k) {
  if (p->fn) return p->fn(k, p->ctx);
  if (p->ready_count == 2) return 0; /* not reached: see ready */
  int i = p->ready_count++;
  p->ready[i].kernel = *k;
  size_t n = strlen(k->name);
  memcpy(p->ready[i].name, k->name, n + 1);
  p->ready[i].kernel.name = p->ready[i].name;
  if (k->first_callee) {
    snprintf(p->ready[i].callee, sizeof p->ready[i].callee, "%s", k->first_callee);
    p->ready[i].kernel.first_callee = p->ready[i].callee;
  }
  return 0;
}

const occ_ptxas_kernel *occ_ptxas_next(occ_ptxas_parser *p) {
  if (p->ready_next < p->ready_count) return &p->ready[p->ready_next++].kernel;
  p->ready_count = p->ready_next = 0;
  return NULL;
}

static int emit(occ_ptxas_parser *p, const occ_ptxas_kernel *fields) {
  occ_ptxas_kernel k = *fields;
  k.name = p->name;
  k.source = p->open_source;
  k.line = p->stats.lines;
  memcpy(k.arch,
         p->open_source == OCC_PTXAS_FROM_PTXAS ? p->entry_arch
                                                : p->cuobjdump_arch,
         OCC_PTXAS_ARCH_MAX);
  p->open = false;
  p->props = PROPS_NONE;
  p->stats.kernels++;
  return deliver(p, &k);
}

/* Keeps a ptxas kernel, complete but for its callees, until a line that
 * is not theirs (release_held). */
static void hold(occ_ptxas_parser *p, const occ_ptxas_kernel *fields) {
  occ_ptxas_kernel *k = &p->held_kernel;
  *k = *fields;
  k->source = p->open_source;
  k->line = p->stats.lines;
  memcpy(k->arch, p->entry_arch, OCC_PTXAS_ARCH_MAX);
  p->held = true;
  p->open = false;
  p->props = PROPS_NONE;
}

static int release_held(occ_ptxas_parser *p) {
  if (!p->held) return 0;
  p->held = false;
  occ_ptxas_kernel k = p->held_kernel;
  k.name = p->name;
  k.first_callee = k.callees ? p->first_callee : NULL;
  p->stats.kernels++;
  return deliver(p, &k);
}

/* A callee's stack line, added to the held kernel. */
static void add_callee(occ_ptxas_parser *p, const occ_ptxas_kernel *c) {
  occ_ptxas_kernel *k = &p->held_kernel;
  if (c->stack_bytes > k->callee_stack_bytes) k->callee_stack_bytes = c->stack_bytes;
  if (c->spill_stores_bytes != OCC_PTXAS_UNKNOWN)
    k->callee_spill_stores_bytes = (k->callee_spill_stores_bytes > 0 ? k->callee_spill_stores_bytes : 0) +
                                   c->spill_stores_bytes;
  if (c->spill_loads_bytes != OCC_PTXAS_UNKNOWN)
    k->callee_spill_loads_bytes = (k->callee_spill_loads_bytes > 0 ? k->callee_spill_loads_bytes : 0) +
                                  c->spill_loads_bytes;
}

/* ---- ptxas lines ---- */

/* "Compiling entry function 'NAME' for 'sm_XX'" (the part in quotes after
 * "function "); CUDA 2-3 print no target. */
static bool parse_entry(occ_ptxas_parser *p, const char *s, const char *end) {
  end = trim_end(s, end);
  if (end - s < 2 || *s != '\'' || end[-1] != '\'') return false;
  const char *name = s + 1, *name_end = end - 1;
  p->entry_arch[0] = '\0';
  static const char for_word[] = "' for '";
  size_t for_len = sizeof for_word - 1;
  for (const char *q = end - 1 - for_len; q >= name; q--) {
    if (memcmp(q, for_word, for_len) == 0) {
      if (!copy_arch(q + for_len, end - 1, p->entry_arch)) return false;
      name_end = q;
      break;
    }
  }
  if (name_end == name) return false;
  open_kernel(p, name, name_end, OCC_PTXAS_FROM_PTXAS);
  return true;
}

/* "Function properties for NAME": the stack line that follows belongs to
 * the open entry if NAME is that entry, else to a non-entry function. */
static bool parse_props(occ_ptxas_parser *p, const char *s, const char *end) {
  end = trim_end(s, end);
  if (end > s && end[-1] == ':') end--;
  if (end == s) return false;
  size_t n = (size_t)(end - s);
  bool mine = p->open && p->open_source == OCC_PTXAS_FROM_PTXAS &&
              strlen(p->name) == n && memcmp(p->name, s, n) == 0;
  p->props = mine ? PROPS_ENTRY : PROPS_OTHER;
  if (!mine && p->held && p->held_kernel.callees++ == 0)
    snprintf(p->first_callee, sizeof p->first_callee, "%.*s", (int)n, s);
  return true;
}

/* The units a ptxas item may carry, after its number. */
typedef enum unit {
  U_REGISTERS, U_BARRIERS, U_SMEM, U_LMEM, U_CMEM, U_CUMULATIVE_STACK,
  U_TEXTURES, U_SAMPLERS, U_SURFACES, U_STACK_FRAME, U_SPILL_STORES,
  U_SPILL_LOADS, U_UNIT_COUNT
} unit;

/* The words after an item's number, with their lengths (matched on every
 * line of a log, so strlen is not repeated). */
#define WORD(w) {w, sizeof w - 1}
static const struct { const char *text; size_t len; } unit_words[U_UNIT_COUNT] = {
    WORD("registers"),  WORD("barriers"),
    WORD("bytes smem"), WORD("bytes lmem"),
    WORD("bytes cmem"), WORD("bytes cumulative stack size"),
    WORD("textures"),   WORD("samplers"),
    WORD("surfaces"),   WORD("bytes stack frame"),
    WORD("bytes spill stores"), WORD("bytes spill loads")};
#undef WORD

/* Which unit [s, end) names: U_UNIT_COUNT for an unknown one (a newer
 * toolkit's field: ignored), -1 for a known one cut short (truncated). */
static int match_unit(const char *s, const char *end) {
  size_t n = (size_t)(end - s);
  for (int u = 0; u < U_UNIT_COUNT; u++) {
    size_t len = unit_words[u].len;
    if (n >= len && memcmp(s, unit_words[u].text, len) == 0 &&
        (n == len || s[len] == '[' || s[len] == ' '))
      return u;
  }
  for (int u = 0; u < U_UNIT_COUNT; u++)
    if (n > 0 && n < unit_words[u].len && memcmp(s, unit_words[u].text, n) == 0)
      return -1;
  return U_UNIT_COUNT;
}

static void add_bytes(int64_t *field, int64_t value) {
  *field = (*field == OCC_PTXAS_UNKNOWN ? 0 : *field) + value;
}

/* Stores one item's value; counts are bounded tighter than bytes. */
static bool store_item(occ_ptxas_kernel *k, int u, int64_t value,
                       bool *has_regs) {
  switch (u) {
  case U_REGISTERS:
    if (value > REGS_MAX) return false;
    k->regs_per_thread = (int)value;
    *has_regs = true;
    return true;
  case U_BARRIERS:
    if (value > BARRIERS_MAX) return false;
    k->barriers = (int)value;
    return true;
  case U_SMEM: k->smem_static_bytes = value; return true;
  case U_LMEM: k->local_bytes = value; return true;
  case U_CMEM: add_bytes(&k->cmem_bytes, value); return true;
  case U_CUMULATIVE_STACK:
    if (k->stack_bytes < value) k->stack_bytes = value;
    return true;
  case U_TEXTURES:
  case U_SAMPLERS:
  case U_SURFACES:
    if (value > COUNT_MAX) return false;
    *(u == U_TEXTURES   ? &k->textures
      : u == U_SAMPLERS ? &k->samplers
                        : &k->surfaces) = (int)value;
    return true;
  case U_STACK_FRAME:
    if (k->stack_bytes < value) k->stack_bytes = value;
    return true;
  case U_SPILL_STORES: k->spill_stores_bytes = value; return true;
  case U_SPILL_LOADS: k->spill_loads_bytes = value; return true;
  default: return true; /* unknown unit: a newer field, ignored */
  }
}

/* One comma-separated item: "N unit", "a+b bytes unit" or "used N unit". */
static bool parse_item(occ_ptxas_kernel *k, const char *s, const char *end,
                       bool *has_regs) {
  s = skip_space(s, end);
  end = trim_end(s, end);
  const char *rest = after(s, end, "used ");
  if (rest) s = skip_space(rest, end);
  int64_t value = 0;
  s = parse_sum(s, end, BYTES_MAX, &value);
  if (!s || s == end || !is_space(*s)) return false;
  s = skip_space(s, end);
  int u = match_unit(s, end);
  if (u < 0) return false;
  return store_item(k, u, value, has_regs);
}

/* A list of items separated by commas into k; *has_regs tells whether a
 * register count was among them. */
static bool parse_items(occ_ptxas_kernel *k, const char *s, const char *end,
                        bool *has_regs) {
  while (s < end) {
    const char *comma = memchr(s, ',', (size_t)(end - s));
    const char *item_end = comma ? comma : end;
    if (!parse_item(k, s, item_end, has_regs)) return false;
    s = comma ? comma + 1 : end;
  }
  return true;
}

/* "Used ..." of the open entry: hands the kernel over. A Used line with no
 * open entry belongs to a non-entry function and is dropped. */
static int parse_used(occ_ptxas_parser *p, const char *s, const char *end) {
  occ_ptxas_kernel k = p->kernel;
  bool has_regs = false;
  if (!parse_items(&k, s, end, &has_regs) || !has_regs) {
    skip_line(p);
    return 0;
  }
  if (!p->open || p->open_source != OCC_PTXAS_FROM_PTXAS) return 0;
  hold(p, &k);
  return 0;
}

/* "N bytes stack frame, N bytes spill stores, N bytes spill loads". */
static void parse_stack_line(occ_ptxas_parser *p, const char *s,
                             const char *end) {
  occ_ptxas_kernel k = p->kernel;
  bool has_regs = false;
  if (!parse_items(&k, s, end, &has_regs) || has_regs) {
    skip_line(p);
    return;
  }
  if (p->props == PROPS_ENTRY && p->open) p->kernel = k;
  if (p->props == PROPS_OTHER && p->held) add_callee(p, &k);
  p->props = PROPS_NONE;
}

/* The message of a "ptxas info :" line. */
static int parse_info(occ_ptxas_parser *p, const char *s, const char *end) {
  static const char entry[] = "Compiling entry function ";
  static const char props[] = "Function properties for ";
  static const char used[] = "Used ";
  const char *rest;
  bool ok = true;
  if ((rest = after(s, end, entry)))
    ok = parse_entry(p, skip_space(rest, end), end);
  else if ((rest = after(s, end, props)))
    ok = parse_props(p, skip_space(rest, end), end);
  else if ((rest = after(s, end, used)))
    return parse_used(p, rest, end);
  else {
    const char *msg_end = trim_end(s, end);
    ok = !cut_prefix_of(s, msg_end, entry) && !cut_prefix_of(s, msg_end, props) &&
         !cut_prefix_of(s, msg_end, "Used");
  }
  if (!ok) skip_line(p);
  return 0;
}

/* After "ptxas": "info :" lines are read; warnings, errors and the
 * "ptxas FILE, line N; ..." diagnostics are other compiler chatter. */
static int parse_ptxas(occ_ptxas_parser *p, const char *s, const char *end) {
  if (s == end || !is_space(*s)) return 0;
  s = skip_space(s, end);
  const char *rest = after(s, end, "info");
  if (!rest) return 0;
  rest = skip_space(rest, end);
  if (rest == end || *rest != ':') {
    if (rest == end) skip_line(p); /* "ptxas info" cut short */
    return 0;
  }
  return parse_info(p, skip_space(rest + 1, end), end);
}

/* ---- cuobjdump lines ---- */

/* "REG:N STACK:N SHARED:N LOCAL:N CONSTANT[K]:N TEXTURE:N SURFACE:N
 * SAMPLER:N"; unknown keys of newer versions are ignored. */
static bool parse_cuobjdump_fields(occ_ptxas_kernel *k, const char *s,
                                   const char *end) {
  static const char *const keys[] = {"REG", "STACK", "SHARED", "LOCAL",
                                     "CONSTANT", "TEXTURE", "SURFACE",
                                     "SAMPLER"};
  bool has_regs = false;
  while ((s = skip_space(s, end)) < end) {
    const char *field_end = s;
    while (field_end < end && !is_space(*field_end)) field_end++;
    const char *colon = memchr(s, ':', (size_t)(field_end - s));
    const char *key_end = colon ? colon : field_end;
    const char *bracket = memchr(s, '[', (size_t)(key_end - s));
    if (bracket) key_end = bracket;
    int key = -1;
    for (int i = 0; i < 8; i++) {
      if ((size_t)(key_end - s) == strlen(keys[i]) &&
          memcmp(s, keys[i], strlen(keys[i])) == 0)
        key = i;
      else if (!colon && cut_prefix_of(s, key_end, keys[i]))
        return false;
    }
    if (key >= 0) {
      int64_t v = 0;
      if (!colon || parse_num(colon + 1, field_end, BYTES_MAX, &v) != field_end)
        return false;
      bool ok = true;
      switch (key) {
      case 0: ok = v <= REGS_MAX; k->regs_per_thread = (int)v; has_regs = true; break;
      case 1: k->stack_bytes = v; break;
      case 2: k->smem_static_bytes = v; break;
      case 3: k->local_bytes = v; break;
      case 4: add_bytes(&k->cmem_bytes, v); break;
      case 5: ok = v <= COUNT_MAX; k->textures = (int)v; break;
      case 6: ok = v <= COUNT_MAX; k->surfaces = (int)v; break;
      default: ok = v <= COUNT_MAX; k->samplers = (int)v; break;
      }
      if (!ok) return false;
    }
    s = field_end;
  }
  return has_regs;
}

static int parse_cuobjdump_resources(occ_ptxas_parser *p, const char *s,
                                     const char *end) {
  occ_ptxas_kernel k;
  kernel_reset(&k);
  if (!parse_cuobjdump_fields(&k, s, end)) {
    skip_line(p);
    return 0;
  }
  if (!p->open || p->open_source != OCC_PTXAS_FROM_CUOBJDUMP) return 0;
  /* See occ_ptxas_kernel.smem_includes_reserve. */
  k.smem_includes_reserve = arch_from_sm90(p->cuobjdump_arch) && k.smem_static_bytes > 0;
  return emit(p, &k);
}

/* "Function NAME:" opens a function; "arch = sm_XX" names the target of
 * the ELF section that follows, "Fatbin ..." starts a new section. */
static bool parse_cuobjdump(occ_ptxas_parser *p, const char *s,
                            const char *end, int *rc) {
  const char *rest;
  end = trim_end(s, end);
  if ((rest = after(s, end, "Function "))) {
    if (end[-1] != ':' || end - 1 <= rest) skip_line(p);
    else open_kernel(p, rest, end - 1, OCC_PTXAS_FROM_CUOBJDUMP);
  } else if (after(s, end, "REG:")) {
    *rc = parse_cuobjdump_resources(p, s, end);
  } else if ((rest = after(s, end, "arch = "))) {
    if (!copy_arch(skip_space(rest, end), end, p->cuobjdump_arch)) {
      p->cuobjdump_arch[0] = '\0';
      skip_line(p);
    }
  } else if (after(s, end, "Fatbin ")) {
    p->cuobjdump_arch[0] = '\0';
  } else {
    return false;
  }
  return true;
}

/* ---- lines ---- */

/* Binary bytes in a line that is no report line: counted as skipped so
 * that a damaged file does not pass silently. ESC is allowed (coloured
 * build logs). */
static bool is_binary(const char *s, const char *end) {
  for (; s < end; s++) {
    unsigned char c = (unsigned char)*s;
    if ((c < 0x20 && c != '\t' && c != 0x1b) || c == 0x7f) return true;
  }
  return false;
}

/* MSBuild prefixes each line of a parallel build with "N>" and spaces. */
static const char *skip_msbuild(const char *s, const char *end) {
  const char *q = s;
  while (q < end && *q >= '0' && *q <= '9') q++;
  if (q > s && q < end && *q == '>') return q + 1;
  return s;
}

/* Whether a line belongs to the held kernel's callees: ptxas's "Compile
 * time" after it, a non-entry function's properties, and their stack
 * line. */
static bool callee_line(const occ_ptxas_parser *p, const char *s, const char *end) {
  const char *rest = after(s, end, "ptxas");
  if (rest && rest < end && is_space(*rest)) {
    rest = after(skip_space(rest, end), end, "info");
    if (!rest || (rest = skip_space(rest, end)) == end || *rest != ':') return false;
    rest = skip_space(rest + 1, end);
    return after(rest, end, "Compile time") || after(rest, end, "Function properties for ");
  }
  return p->props == PROPS_OTHER && s < end && *s >= '0' && *s <= '9';
}

static int parse_line(occ_ptxas_parser *p, const char *s, size_t len) {
  const char *end = s + len;
  int rc = 0;
  p->stats.lines++;
  if (end > s && end[-1] == '\r') end--;
  s = skip_space(skip_msbuild(s, end), end);
  if (p->held && !callee_line(p, s, end) && (rc = release_held(p)) != 0) return rc;
  const char *rest = after(s, end, "ptxas");
  if (rest) return parse_ptxas(p, rest, end);
  if (s < end && *s >= '0' && *s <= '9') {
    const char *q = s;
    while (q < end && *q >= '0' && *q <= '9') q++;
    if (after(q, end, " bytes stack frame")) {
      parse_stack_line(p, s, end);
      return 0;
    }
  }
  if (parse_cuobjdump(p, s, end, &rc)) return rc;
  if (is_binary(s, end)) skip_line(p);
  return 0;
}

/* One line from the splitter; a line over OCC_PTXAS_LINE_MAX is counted
 * and skipped unread. */
static int on_line(void *ctx, const char *s, size_t len) {
  occ_ptxas_parser *p = ctx;
  if (!s) {
    p->stats.lines++;
    skip_line(p);
    return release_held(p);
  }
  return parse_line(p, s, len);
}

/* ---- feeding ---- */

occ_ptxas_parser *occ_ptxas_new(occ_ptxas_fn fn, void *ctx) {
  occ_ptxas_parser *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->fn = fn;
  p->ctx = ctx;
  p->name = malloc(OCC_PTXAS_LINE_MAX + 1);
  for (int i = 0; !fn && i < 2; i++)
    if (!(p->ready[i].name = malloc(OCC_PTXAS_LINE_MAX + 1))) {
      occ_ptxas_free(p);
      return NULL;
    }
  if (occ_lines_init(&p->lines, OCC_PTXAS_LINE_MAX, on_line, p) != 0 || !p->name) {
    occ_ptxas_free(p);
    return NULL;
  }
  kernel_reset(&p->kernel);
  return p;
}

void occ_ptxas_free(occ_ptxas_parser *parser) {
  if (!parser) return;
  occ_lines_free(&parser->lines);
  free(parser->name);
  free(parser->ready[0].name);
  free(parser->ready[1].name);
  free(parser->chunk);
  free(parser);
}

int occ_ptxas_feed(occ_ptxas_parser *p, const char *data, size_t len) {
  if (!p->stopped) p->stopped = occ_lines_feed(&p->lines, data, len);
  return p->stopped;
}

int occ_ptxas_line(occ_ptxas_parser *p, const char *s, size_t len) {
  if (!p->stopped) p->stopped = on_line(p, s, len);
  return p->stopped;
}

int occ_ptxas_finish(occ_ptxas_parser *p) {
  if (!p->stopped) p->stopped = occ_lines_finish(&p->lines);
  if (!p->stopped) p->stopped = release_held(p);
  if (p->open) {
    p->stats.incomplete++;
    p->open = false;
  }
  return p->stopped;
}

int occ_ptxas_read_file(occ_ptxas_parser *p, FILE *in) {
  int rc = occ_lines_read_file(&p->lines, in, &p->chunk, &p->stopped);
  return rc ? rc : occ_ptxas_finish(p);
}

const occ_ptxas_stats *occ_ptxas_get_stats(const occ_ptxas_parser *parser) {
  return &parser->stats;
}
