/* amd_out.c - an AMD configuration written as text, worksheet, JSON, CSV
 * and a remark log's table row (see amd_out.h). Every number is read from
 * the item; nothing is recomputed here. */
#include "render/amd_out.h"

#include <inttypes.h>
#include <string.h>

#include "render/csv.h"
#include "render/report.h"
#include "text/text_safe.h"

/* The limits in the order every writer lists them: each a waves-per-SIMD
 * count of the result (-1: not applicable), its limiter bit, its JSON key
 * and its label in AMD's words; and the reasons HIP's rule differs from
 * LLVM's, in bit order (occ_amd_reason), each a JSON key and a sentence. */
typedef struct occ_amd_limit_row {
  const char *key;   /* "vgprs" */
  const char *label; /* "VGPRs" */
  unsigned bit;      /* occ_amd_limiter */
} occ_amd_limit_row;

#define OCC_AMD_LIMIT_COUNT 6
#define OCC_AMD_REASON_COUNT 7

static const occ_amd_limit_row limit_rows[OCC_AMD_LIMIT_COUNT] = {
    {"wave_slots", "wave slots", OCC_AMD_LIMITER_WAVE_SLOTS},
    {"vgprs", "VGPRs", OCC_AMD_LIMITER_VGPRS},
    {"agprs", "AGPRs", OCC_AMD_LIMITER_AGPRS},
    {"sgprs", "SGPRs", OCC_AMD_LIMITER_SGPRS},
    {"lds", "LDS", OCC_AMD_LIMITER_LDS},
    {"workgroups", "workgroup slots", OCC_AMD_LIMITER_WORKGROUPS},
};

static const occ_amd_limit_row *occ_amd_limit_rows(void) { return limit_rows; }

static int occ_amd_limit_value(const occ_amd_result *r, int i) {
  switch (i) {
  case 0: return r->max_waves_per_simd;
  case 1: return r->waves_by_vgprs;
  case 2: return r->waves_by_agprs;
  case 3: return r->waves_by_sgprs;
  /* LDS unused: the rule divides by one byte and never binds. */
  case 4: return r->lds_blocks < 0 ? -1 : r->waves_by_lds;
  case 5: return r->waves_by_workgroups;
  }
  return -1;
}

static const struct {
  const char *key, *text;
} reasons[OCC_AMD_REASON_COUNT] = {
    {"max_waves", "HIP caps a SIMD at another number of waves"},
    {"vgpr_file", "HIP sizes the VGPR file or its granule otherwise"},
    {"sgpr_rule", "HIP limits SGPRs by its own rule (800 per SIMD)"},
    {"workgroup_slots", "HIP models no workgroup slots"},
    {"lds", "HIP counts LDS per CU and dynamic LDS the compiler cannot see"},
    {"block_size", "the compiler assumed a larger block (--max-block)"},
    {"rounding", "LLVM counts waves per SIMD, HIP whole blocks per CU"},
};

static const char *occ_amd_reason_key(int i) {
  return i >= 0 && i < OCC_AMD_REASON_COUNT ? reasons[i].key : NULL;
}

static const char *occ_amd_reason_text(int i) {
  return i >= 0 && i < OCC_AMD_REASON_COUNT ? reasons[i].text : NULL;
}

static bool wgp_mode(const occ_amd_item *it) {
  return it->arch.wgp_mode && !it->kernel.cu_mode;
}

/* "CU", or "WGP" where a workgroup's waves spread over a work-group
 * processor (2 CUs): the unit of HIP's blocks and of LDS. */
static const char *unit(const occ_amd_item *it) { return wgp_mode(it) ? "WGP" : "CU"; }

static void heading(FILE *out, const occ_amd_item *it) {
  if (it->board)
    fprintf(out, "%s (%s, %d CUs, from the database)\n", it->board, it->arch.name,
            it->cu_count);
  else
    fprintf(out, "%s (an architecture, from the database)\n", it->arch.name);
}

/* "VGPRs", "VGPRs and LDS", "wave slots, VGPRs and LDS". */
static void limiter_names(const occ_amd_result *r, char *buf, size_t size) {
  const occ_amd_limit_row *rows = occ_amd_limit_rows();
  int total = 0, seen = 0;
  for (int i = 0; i < OCC_AMD_LIMIT_COUNT; i++) total += (r->limiters & rows[i].bit) != 0;
  size_t n = 0;
  buf[0] = '\0';
  for (int i = 0; i < OCC_AMD_LIMIT_COUNT; i++)
    if (r->limiters & rows[i].bit) {
      seen++;
      n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s%s",
                            seen == 1 ? "" : seen == total ? " and " : ", ",
                            rows[i].label);
    }
}

static void write_reasons(FILE *out, const occ_amd_result *r, const char *indent) {
  for (int i = 0; i < OCC_AMD_REASON_COUNT; i++)
    if (r->reasons >> i & 1u) fprintf(out, "%s- %s\n", indent, occ_amd_reason_text(i));
}

void occ_amd_limiter_words(unsigned limiters, char *buf, size_t size) {
  occ_amd_result r = {.limiters = limiters};
  limiter_names(&r, buf, size);
}

void occ_amd_reasons_text(unsigned reasons_set, char *buf, size_t size) {
  size_t n = 0;
  buf[0] = '\0';
  for (int i = 0; i < OCC_AMD_REASON_COUNT; i++)
    if (reasons_set >> i & 1u)
      n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s- %s", n ? "\n" : "",
                            occ_amd_reason_text(i));
}

const char *occ_amd_value_label(const char *name) {
  static const struct {
    const char *suffix, *label;
  } labels[] = {
      {"limits.wave_slots", "wave slots"}, {"limits.vgprs", "VGPRs"},
      {"limits.agprs", "AGPRs"},           {"limits.sgprs", "SGPRs"},
      {"limits.lds", "LDS"},               {"limits.workgroups", "workgroup slots"},
      {"hip.max_waves_per_simd", "HIP's cap"}, {"hip.waves_by_vgprs", "VGPRs"},
      {"hip.waves_by_sgprs", "SGPRs"},
  };
  size_t len = strlen(name);
  for (size_t i = 0; i < sizeof labels / sizeof *labels; i++) {
    size_t n = strlen(labels[i].suffix);
    if (len >= n && strcmp(name + len - n, labels[i].suffix) == 0) return labels[i].label;
  }
  return name;
}

void occ_amd_write_report(FILE *out, const occ_amd_item *it) {
  const occ_amd_kernel *k = &it->kernel;
  const occ_amd_result *r = &it->result;
  char hip_lim[96];
  heading(out, it);
  fprintf(out, "\nKernel\n");
  fprintf(out, "  block           %5d threads (%dx%dx%d): %d wavefront%s of %d lanes\n",
          k->threads_per_block, it->block[0], it->block[1], it->block[2],
          r->waves_per_block, r->waves_per_block == 1 ? "" : "s", r->wave_size);
  fprintf(out, "  inactive lanes  %5d\n", r->inactive_lanes);
  fprintf(out, "  VGPRs           %5d per lane\n", k->vgprs);
  if (it->arch.addressable_agprs > 0) fprintf(out, "  AGPRs           %5d per lane\n", k->agprs);
  if (k->sgprs == OCC_AMD_SGPRS_UNKNOWN)
    fprintf(out, "  SGPRs               - (not given: no SGPR limit applied)\n");
  else
    fprintf(out, "  SGPRs           %5d per wave\n", k->sgprs);
  fprintf(out, "  LDS             %5" PRId64 " B static + %" PRId64 " B dynamic\n",
          k->lds_bytes, k->lds_dynamic_bytes);
  fprintf(out, "  compiled for    %5d threads per workgroup at most\n",
          k->max_threads_per_block);
  if (it->arch.wgp_mode)
    fprintf(out, "  mode              %s mode\n", wgp_mode(it) ? "WGP" : "CU");
  fprintf(out, "\nAllocated per wave\n");
  fprintf(out, "  VGPRs           %5d per lane (%d used, granule %d)\n",
          r->vgprs_allocated, r->vgprs_total, r->vgpr_granule);
  fprintf(out, "\nWaves per SIMD allowed by (LLVM's rule, the compiler's)\n");
  const occ_amd_limit_row *rows = occ_amd_limit_rows();
  for (int i = 0; i < OCC_AMD_LIMIT_COUNT; i++) {
    int v = occ_amd_limit_value(r, i);
    if (v < 0)
      fprintf(out, "  %-16s    -\n", rows[i].label);
    else
      fprintf(out, "  %-16s%5d%s\n", rows[i].label, v,
              r->limiters & rows[i].bit ? "  <- limiter" : "");
  }
  char lim[96];
  limiter_names(r, lim, sizeof lim);
  occ_amd_limiter_words(r->hip_limiters, hip_lim, sizeof hip_lim);
  fprintf(out, "\nOccupancy of the launch (HIP's rule, the %d-thread block)\n",
          k->threads_per_block);
  fprintf(out, "  blocks per %-3s  %5d\n", unit(it), r->active_blocks_per_cu);
  fprintf(out, "  occupancy       %5.1f %% (limited by %s)\n", 100.0 * r->hip_occupancy,
          hip_lim);
  fprintf(out, "\nThe compiler's occupancy (LLVM's rule, workgroups of up to %d)\n",
          k->max_threads_per_block);
  fprintf(out, "  waves per SIMD  %5d of %d (the compiler's \"Occupancy\")\n",
          r->waves_per_simd, r->max_waves_per_simd);
  fprintf(out, "  occupancy       %5.1f %% (limited by %s)\n", 100.0 * r->occupancy, lim);
  if (r->rules_differ) {
    fprintf(out, "  blocks per %-3s  %5d; HIP's rule differs because\n", unit(it),
            r->llvm_blocks_per_cu);
    write_reasons(out, r, "    ");
  }
  if (it->compiler.present)
    fprintf(out, "  compiler says   %5d waves per SIMD (%s)\n",
            it->compiler.occupancy_waves_per_simd,
            it->compiler.agrees ? "agrees" : "DIFFERS from occcalc");
}

/* JSON ------------------------------------------------------------------ */

static void add_count(cJSON *obj, const char *key, int64_t v) {
  if (v < 0)
    cJSON_AddNullToObject(obj, key);
  else
    occ_json_add_int(obj, key, v);
}

static cJSON *device_json(const occ_amd_item *it) {
  const occ_amd_arch *a = &it->arch;
  bool w64 = it->result.wave_size == 64;
  cJSON *d = cJSON_CreateObject();
  cJSON_AddStringToObject(d, "vendor", "amd");
  cJSON_AddStringToObject(d, "name", it->board ? it->board : a->name);
  cJSON_AddStringToObject(d, "source", "database");
  cJSON_AddStringToObject(d, "arch", a->name);
  add_count(d, "cu_count", it->board ? it->cu_count : -1);
  occ_json_add_int(d, "simds_per_cu", a->simds_per_cu);
  cJSON_AddBoolToObject(d, "wgp_mode", wgp_mode(it));
  occ_json_add_int(d, "max_waves_per_simd", a->max_waves_per_simd);
  occ_json_add_int(d, "max_threads_per_block", a->max_threads_per_block);
  occ_json_add_int(d, "vgprs_per_simd", w64 ? a->vgprs_per_simd_wave64 : a->vgprs_per_simd_wave32);
  occ_json_add_int(d, "vgpr_granule", w64 ? a->vgpr_granule_wave64 : a->vgpr_granule_wave32);
  occ_json_add_int(d, "addressable_vgprs", a->addressable_vgprs);
  occ_json_add_int(d, "addressable_agprs", a->addressable_agprs);
  cJSON_AddBoolToObject(d, "unified_vgpr_file", a->unified_vgpr_file);
  occ_json_add_int(d, "addressable_sgprs", a->addressable_sgprs);
  occ_json_add_int(d, "lds_per_cu_bytes", a->lds_per_cu_bytes);
  add_count(d, "lds_per_wgp_bytes", a->lds_per_wgp_bytes ? a->lds_per_wgp_bytes : -1);
  occ_json_add_int(d, "lds_per_block_bytes", a->lds_per_block_bytes);
  return d;
}

cJSON *occ_amd_json_listed(const occ_amd_arch *arch, const char *board, int cu_count,
                           const char *family, const char *reference) {
  occ_amd_item it = {.arch = *arch, .board = board, .cu_count = cu_count};
  it.result.wave_size = arch->default_wave_size;
  cJSON *d = device_json(&it);
  if (!d || !cJSON_AddStringToObject(d, "family", family ? family : "") ||
      !cJSON_AddStringToObject(d, "reference", reference ? reference : "")) {
    cJSON_Delete(d);
    return NULL;
  }
  return d;
}

static cJSON *kernel_json(const occ_amd_item *it) {
  const occ_amd_kernel *k = &it->kernel;
  cJSON *o = cJSON_CreateObject();
  if (it->name) {
    cJSON_AddStringToObject(o, "name", it->name);
    cJSON_AddStringToObject(o, "mangled_name", it->mangled_name ? it->mangled_name : it->name);
  } else {
    cJSON_AddNullToObject(o, "name");
    cJSON_AddNullToObject(o, "mangled_name");
  }
  cJSON *block = cJSON_AddArrayToObject(o, "block");
  for (int i = 0; i < 3; i++) cJSON_AddItemToArray(block, cJSON_CreateNumber(it->block[i]));
  occ_json_add_int(o, "wave_size", it->result.wave_size);
  cJSON_AddBoolToObject(o, "cu_mode", k->cu_mode);
  occ_json_add_int(o, "vgprs_per_thread", k->vgprs);
  occ_json_add_int(o, "agprs_per_thread", k->agprs);
  add_count(o, "sgprs_per_wave", k->sgprs);
  occ_json_add_int(o, "lds_per_block_bytes", k->lds_bytes);
  occ_json_add_int(o, "lds_dynamic_bytes", k->lds_dynamic_bytes);
  occ_json_add_int(o, "max_threads_per_block", k->max_threads_per_block);
  return o;
}

static cJSON *hip_json(const occ_amd_item *it) {
  const occ_amd_result *r = &it->result;
  cJSON *h = cJSON_CreateObject();
  occ_json_add_int(h, "max_waves_per_simd", r->hip_max_waves_per_simd);
  occ_json_add_int(h, "vgprs_per_simd", r->hip_vgprs_per_simd);
  occ_json_add_int(h, "vgpr_granule", r->hip_vgpr_granule);
  add_count(h, "waves_by_vgprs", r->hip_waves_by_vgprs);
  add_count(h, "waves_by_sgprs", r->hip_waves_by_sgprs);
  occ_json_add_int(h, "waves_per_simd", r->hip_waves_per_simd);
  occ_json_add_int(h, "threads_per_cu", r->hip_threads_per_cu);
  occ_json_add_int(h, "blocks_by_waves", r->hip_blocks_by_waves);
  add_count(h, "blocks_by_lds", r->hip_blocks_by_lds);
  return h;
}

static cJSON *compiler_json(const occ_amd_item *it) {
  if (!it->compiler.present) return cJSON_CreateNull();
  const occ_amd_compiler *c = &it->compiler;
  cJSON *o = cJSON_CreateObject();
  add_count(o, "occupancy_waves_per_simd", c->occupancy_waves_per_simd);
  cJSON_AddBoolToObject(o, "agrees", c->agrees);
  add_count(o, "scratch_bytes_per_lane", c->scratch_bytes_per_lane);
  add_count(o, "sgpr_spills", c->sgpr_spills);
  add_count(o, "vgpr_spills", c->vgpr_spills);
  if (c->dynamic_stack < 0)
    cJSON_AddNullToObject(o, "dynamic_stack");
  else
    cJSON_AddBoolToObject(o, "dynamic_stack", c->dynamic_stack == 1);
  return o;
}

static void add_limiters(cJSON *by, unsigned limiters) {
  const occ_amd_limit_row *rows = occ_amd_limit_rows();
  for (int i = 0; by && i < OCC_AMD_LIMIT_COUNT; i++)
    if (limiters & rows[i].bit) cJSON_AddItemToArray(by, cJSON_CreateString(rows[i].key));
}

/* LLVM's rule: the compiler's figure, for workgroups of up to
 * max_threads_per_block (--max-block). */
static cJSON *compiler_rule_json(const occ_amd_item *it) {
  const occ_amd_result *r = &it->result;
  cJSON *c = cJSON_CreateObject();
  occ_json_add_int(c, "max_threads_per_block", it->kernel.max_threads_per_block);
  cJSON *limits = cJSON_AddObjectToObject(c, "limits");
  const occ_amd_limit_row *rows = occ_amd_limit_rows();
  for (int i = 0; i < OCC_AMD_LIMIT_COUNT; i++)
    add_count(limits, rows[i].key, occ_amd_limit_value(r, i));
  add_limiters(cJSON_AddArrayToObject(c, "limited_by"), r->limiters);
  occ_json_add_int(c, "waves_per_simd", r->waves_per_simd);
  occ_json_add_int(c, "max_waves_per_simd", r->max_waves_per_simd);
  cJSON_AddNumberToObject(c, "occupancy", r->occupancy);
  occ_json_add_int(c, "blocks_per_sm", r->llvm_blocks_per_cu);
  return c;
}

cJSON *occ_amd_json(const occ_amd_item *it) {
  const occ_amd_result *r = &it->result;
  cJSON *root = occ_json_root();
  if (!root) return NULL;
  cJSON_AddItemToObject(root, "device", device_json(it));
  cJSON_AddItemToObject(root, "kernel", kernel_json(it));
  occ_json_add_int(root, "threads_per_block", it->kernel.threads_per_block);
  occ_json_add_int(root, "waves_per_block", r->waves_per_block);
  occ_json_add_int(root, "inactive_threads", r->inactive_lanes);
  cJSON *alloc = cJSON_AddObjectToObject(root, "allocated");
  occ_json_add_int(alloc, "vgprs_total", r->vgprs_total);
  occ_json_add_int(alloc, "vgpr_granule", r->vgpr_granule);
  occ_json_add_int(alloc, "vgprs_allocated", r->vgprs_allocated);
  occ_json_add_int(root, "simds", r->simds);
  occ_json_add_int(root, "active_blocks_per_sm", r->active_blocks_per_cu);
  cJSON_AddNumberToObject(root, "occupancy", r->hip_occupancy);
  add_limiters(cJSON_AddArrayToObject(root, "limited_by"), r->hip_limiters);
  cJSON_AddItemToObject(root, "hip", hip_json(it));
  cJSON_AddItemToObject(root, "compiler_rule", compiler_rule_json(it));
  cJSON_AddBoolToObject(root, "differs_from_api", r->rules_differ);
  cJSON *why = cJSON_AddArrayToObject(root, "differs_because");
  for (int i = 0; i < OCC_AMD_REASON_COUNT; i++)
    if (r->reasons >> i & 1u) cJSON_AddItemToArray(why, cJSON_CreateString(occ_amd_reason_key(i)));
  cJSON_AddItemToObject(root, "compiler", compiler_json(it));
  return root;
}

/* CSV ------------------------------------------------------------------- */

void occ_amd_csv_header(FILE *out) {
  fputs("kernel,arch,device,wave_size,threads_per_block,waves_per_block,"
        "vgprs_per_thread,agprs_per_thread,sgprs_per_wave,lds_per_block_bytes,"
        "lds_dynamic_bytes,max_threads_per_block,vgprs_allocated,", out);
  fputs("occupancy,active_blocks_per_sm,limited_by,", out);
  const occ_amd_limit_row *rows = occ_amd_limit_rows();
  for (int i = 0; i < OCC_AMD_LIMIT_COUNT; i++)
    fprintf(out, "compiler_rule_limit_%s,", rows[i].key);
  fputs("compiler_rule_limited_by,compiler_rule_waves_per_simd,compiler_rule_occupancy,"
        "differs_from_api,compiler_occupancy_waves_per_simd\n", out);
}

static void csv_count(FILE *out, int64_t v) {
  if (v >= 0) fprintf(out, "%" PRId64, v);
  fputc(',', out);
}

/* The limiters' keys, space-separated (a CSV field). */
static const char *limiter_keys(unsigned limiters, char *lim, size_t size) {
  const occ_amd_limit_row *rows = occ_amd_limit_rows();
  size_t n = 0;
  lim[0] = '\0';
  for (int i = 0; i < OCC_AMD_LIMIT_COUNT; i++)
    if (limiters & rows[i].bit)
      n += (size_t)snprintf(lim + n, n < size ? size - n : 0, "%s%s", n ? " " : "",
                            rows[i].key);
  return lim;
}

void occ_amd_csv_row(FILE *out, const occ_amd_item *it) {
  const occ_amd_kernel *k = &it->kernel;
  const occ_amd_result *r = &it->result;
  occ_csv_field(out, it->name);
  fputc(',', out);
  occ_csv_field(out, it->arch.name);
  fputc(',', out);
  occ_csv_field(out, it->board);
  fprintf(out, ",%d,%d,%d,%d,%d,", r->wave_size, k->threads_per_block, r->waves_per_block,
          k->vgprs, k->agprs);
  csv_count(out, k->sgprs);
  fprintf(out, "%" PRId64 ",%" PRId64 ",%d,%d,", k->lds_bytes, k->lds_dynamic_bytes,
          k->max_threads_per_block, r->vgprs_allocated);
  char lim[96];
  fprintf(out, "%.4f,%d,", r->hip_occupancy, r->active_blocks_per_cu);
  occ_csv_field(out, limiter_keys(r->hip_limiters, lim, sizeof lim));
  fputc(',', out);
  for (int i = 0; i < OCC_AMD_LIMIT_COUNT; i++) csv_count(out, occ_amd_limit_value(r, i));
  occ_csv_field(out, limiter_keys(r->limiters, lim, sizeof lim));
  fprintf(out, ",%d,%.4f,%s,", r->waves_per_simd, r->occupancy,
          r->rules_differ ? "true" : "false");
  if (it->compiler.present && it->compiler.occupancy_waves_per_simd >= 0)
    fprintf(out, "%d", it->compiler.occupancy_waves_per_simd);
  fputc('\n', out);
}

/* The remark log's table ------------------------------------------------ */

void occ_amd_table_header(FILE *out, const occ_amd_item *first) {
  fprintf(out, "on %s, wave %d, blocks of %d threads: OCC and BLOCKS per %s are\n"
               "the launch's (HIP's rule); WAVES/SIMD the compiler's (LLVM's rule,\n"
               "workgroups of up to %d threads)\n\n",
          first->board ? first->board : first->arch.name, first->result.wave_size,
          first->kernel.threads_per_block, unit(first),
          first->kernel.max_threads_per_block);
  fprintf(out, "%5s %5s %5s %6s %10s %8s %5s %6s  %s\n", "VGPRS", "AGPRS", "SGPRS", "LDS",
          "WAVES/SIMD", "COMPILER", "OCC", "BLOCKS", "KERNEL");
}

void occ_amd_table_row(FILE *out, const occ_amd_item *it) {
  const occ_amd_kernel *k = &it->kernel;
  const occ_amd_result *r = &it->result;
  char name[200];
  occ_text_safe(it->name ? it->name : "?", name, sizeof name);
  char agprs[16] = "-", sgprs[16] = "-", compiler[16] = "-";
  if (it->arch.addressable_agprs > 0) snprintf(agprs, sizeof agprs, "%d", k->agprs);
  if (k->sgprs >= 0) snprintf(sgprs, sizeof sgprs, "%d", k->sgprs);
  if (it->compiler.present && it->compiler.occupancy_waves_per_simd >= 0)
    snprintf(compiler, sizeof compiler, "%s%d", it->compiler.agrees ? "" : "!= ",
             it->compiler.occupancy_waves_per_simd);
  fprintf(out, "%5d %5s %5s %6" PRId64 " %7d/%-2d %8s %4.0f%% %6d  %s\n", k->vgprs, agprs,
          sgprs, k->lds_bytes, r->waves_per_simd, r->max_waves_per_simd, compiler,
          100.0 * r->hip_occupancy, r->active_blocks_per_cu, name);
}
