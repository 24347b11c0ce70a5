/* render.c - one item in the chosen format (see render.h). */
#include "render/render.h"

#include <string.h>

#include "core/exit.h"
#include "render/amd_out.h"
#include "render/chart_out.h"
#include "render/cluster_verify_out.h"
#include "render/explain_out.h"
#include "render/json_write.h"
#include "render/outfile.h"
#include "render/ptxas_out.h"
#include "render/report.h"
#include "render/report_text.h"
#include "render/suggest_out.h"
#include "text/text_safe.h"
#include "render/verify_out.h"

/* The kernel's name in a chart's title: the readable one (NULL for typed
 * numbers). */
static const char *chart_kernel_name(const occ_item *item) {
  return item->readable ? item->readable : item->name;
}

static void svg_writer(FILE *f, const void *context) {
  const occ_item *item = context;
  occ_chart_write_svg(f, chart_kernel_name(item), item->charts->list,
                      item->charts->count);
}

/* The SVG file of one configuration: --svg FILE, or with several
 * DIR/N-LABEL.svg, N counting the configurations from 1. */
static int write_svg(const occ_render *r, const occ_item *item) {
  if (!r->many)
    return occ_outfile_write(r->svg_path, "--svg", svg_writer, item,
                             r->err);
  if (r->written >= OCC_OUTFILE_MAX_FILES) {
    occ_msg(r->err, "--svg: stopped at %d files in '%s' (the most one run "
            "writes; select fewer kernels)", OCC_OUTFILE_MAX_FILES,
            r->svg_path);
    return OCC_EXIT_FAILURE;
  }
  char path[4096];
  occ_outfile_name(path, sizeof path, r->svg_path, r->written + 1,
                   item->label, ".svg");
  return occ_outfile_write(path, "--svg", svg_writer, item, r->err);
}

/* Charts after a text report: on the terminal, or into the SVG file. */
static int text_charts(const occ_render *r, const occ_item *item) {
  if (r->svg_path) return write_svg(r, item);
  fputc('\n', r->out);
  occ_chart_print_term(r->out, item->charts->list, item->charts->count,
                       r->ascii || !occ_chart_locale_is_utf8());
  return OCC_EXIT_OK;
}

/* --- the writers --- */

/* The report of item; name is what it calls the kernel (NULL: nothing). */
static occ_report report_of(const occ_item *item, const char *name) {
  return (occ_report){item->device, &item->kernel, name, &item->result,
                      item->has_waves ? &item->waves : NULL,
                      item->has_ncu ? &item->ncu : NULL,
                      item->explanation ? item->explanation->steps : NULL,
                      item->explanation ? item->explanation->count : 0,
                      NULL, item->has_cluster ? &item->cluster : NULL,
                      item->has_cluster ? &item->cluster_result : NULL,
                      item->has_cluster_waves ? &item->cluster_waves : NULL,
                      item->has_waves ? &item->waves_without_clusters : NULL,
                      item->has_cluster ? &item->launch_cluster_result : NULL};
}

static void print_live(const occ_render *r, const occ_item *item) {
  if (item->verify) {
    fputc('\n', r->out);
    occ_print_verify(r->out, item->device, item->gpu_ordinal, item->verify);
    if (item->cluster_verify) {
      fputc('\n', r->out);
      occ_print_cluster_verify(r->out, item->cluster_verify);
    }
  } else if (item->module) {
    fputc('\n', r->out);
    occ_print_module_check(r->out, item->module, &item->result,
                           item->verdict == OCC_VERDICT_AGREE);
  }
}

/* An AMD item in text: its report or worksheet, a remark log's kernel
 * under its name. */
static int write_amd_text(occ_render *r, const occ_item *item) {
  const occ_amd_item *amd = item->amd;
  if (r->written > 0) fputc('\n', r->out);
  if (r->many && amd->name) {
    char name[160];
    fprintf(r->out, "== %s ==\n", occ_text_safe(amd->name, name, sizeof name));
  }
  if (r->explain && item->explanation)
    occ_print_amd_explain(r->out, amd, item->explanation->steps,
                          item->explanation->count);
  else
    occ_amd_write_report(r->out, amd);
  return OCC_EXIT_OK;
}

static int write_text(occ_render *r, const occ_item *item) {
  if (item->amd) return write_amd_text(r, item);
  /* A compiler report's kernel is named in its heading; a module's by its
   * readable name, as a person reads it. */
  const char *name = item->readable ? item->readable : item->name;
  occ_report rep = report_of(item, item->ptxas ? NULL : name);
  if (r->written > 0) fputc('\n', r->out);
  if (item->ptxas)
    occ_ptxas_print_heading(r->out, item->ptxas, item->readable,
                            item->choice ? item->kernel.block[0] : 0,
                            item->choice, item->block_best);
  else if (item->choice)
    occ_block_choice_print(r->out, item->device, item->choice);
  (r->explain ? occ_print_explain : occ_print_report)(r->out, &rep);
  if (r->ncu) occ_print_ncu(r->out, &rep);
  print_live(r, item);
  int rc = item->charts ? text_charts(r, item) : OCC_EXIT_OK;
  if (rc != OCC_EXIT_OK || !item->suggestion) return rc;
  fputc('\n', r->out);
  occ_suggest_print(r->out, item->device, item->suggestion);
  return OCC_EXIT_OK;
}

static int write_table(occ_render *r, const occ_item *item) {
  if (item->amd) {
    if (r->written == 0) occ_amd_table_header(r->out, item->amd);
    occ_amd_table_row(r->out, item->amd);
    return OCC_EXIT_OK;
  }
  occ_report rep = report_of(item, item->name);
  occ_ptxas_row row = {item->ptxas, item->readable, &rep, item->choice,
                       item->block_best};
  if (r->written == 0) {
    int fixed = occ_ptxas_table_fixed_width();
    r->name_width = r->columns == 0 ? 0
                    : r->columns - fixed > 12 ? r->columns - fixed : 12;
    /* With --gpu or --arch, ARCH still shows the report's target: say
     * which device every row was computed on. */
    if (r->fixed_device) {
      char cc[16], name[4 * sizeof r->fixed_device->name];
      occ_cc_text(r->fixed_device, cc, sizeof cc);
      fprintf(r->out, "on %s (cc %s):\n",
              occ_text_safe(r->fixed_device->name, name, sizeof name), cc);
    }
    occ_ptxas_table_header(r->out);
  }
  occ_ptxas_table_row(r->out, &row, r->name_width);
  r->any_chosen_block |= item->choice != NULL && !item->block_best;
  r->any_ties |= occ_ptxas_limiter_ties(&item->result);
  r->any_local |= occ_ptxas_uses_local(item->ptxas);
  return OCC_EXIT_OK;
}

static int write_table_csv(const occ_render *r, const occ_item *item) {
  if (item->amd) {
    if (r->written == 0) occ_amd_csv_header(r->out);
    occ_amd_csv_row(r->out, item->amd);
    return OCC_EXIT_OK;
  }
  occ_report rep = report_of(item, item->name);
  occ_ptxas_row row = {item->ptxas, item->readable, &rep, item->choice,
                       item->block_best};
  if (r->written == 0) occ_ptxas_csv_header(r->out);
  occ_ptxas_csv_row(r->out, &row);
  return OCC_EXIT_OK;
}

static int write_csv(const occ_render *r, const occ_item *item) {
  /* An AMD target has no charts: its CSV is the report's row. */
  if (item->amd) {
    if (r->written == 0) occ_amd_csv_header(r->out);
    occ_amd_csv_row(r->out, item->amd);
    return OCC_EXIT_OK;
  }
  if (r->written == 0) occ_chart_write_csv_header(r->out);
  if (item->charts)
    occ_chart_write_csv(r->out, item->label, item->charts->list,
                        item->charts->count);
  return OCC_EXIT_OK;
}

static int write_svg_stdout(const occ_render *r, const occ_item *item) {
  if (item->charts)
    occ_chart_write_svg(r->out, chart_kernel_name(item), item->charts->list,
                        item->charts->count);
  return OCC_EXIT_OK;
}

static cJSON *live_json(const occ_item *item) {
  if (item->verify) return occ_json_verify(item->gpu_ordinal, item->verify);
  if (item->module)
    return occ_json_module_check(item->module, &item->result,
                                 item->verdict == OCC_VERDICT_AGREE);
  return cJSON_CreateNull();
}

/* The sections the options ask for, after the report's members: built as
 * trees before anything is written, so that running out of memory writes
 * nothing. */
enum { SECTION_MAX = 5 };
typedef struct sections {
  const char *key[SECTION_MAX];
  cJSON *tree[SECTION_MAX];
  int count;
} sections;

static bool add_section(sections *s, const char *key, cJSON *tree) {
  s->key[s->count] = key;
  s->tree[s->count++] = tree;
  return tree != NULL;
}

static void free_sections(sections *s) {
  for (int i = 0; i < s->count; i++) cJSON_Delete(s->tree[i]);
  s->count = 0;
}

static int build_sections(const occ_render *r, const occ_item *item,
                          sections *s) {
  bool ok = true;
  if (r->verify_key)
    ok = add_section(s, "verify", live_json(item));
  /* --device N --cluster C: the cluster launch verified (null with
   * --no-verify). */
  if (ok && r->cluster_verify_key)
    ok = add_section(s, "cluster_verify",
                     item->cluster_verify
                         ? occ_json_cluster_verify(item->cluster_verify)
                         : cJSON_CreateNull());
  int rc = OCC_EXIT_OK;
  if (ok && item->charts) {
    ok = add_section(s, "charts",
                     occ_chart_json(item->charts->list, item->charts->count));
    if (ok && r->svg_path) rc = write_svg(r, item);
  }
  if (ok && item->explanation && item->amd) {
    ok = add_section(s, "explain",
                     occ_json_amd_explain(item->amd, item->explanation->steps,
                                          item->explanation->count));
  } else if (ok && item->explanation) {
    occ_report rep = report_of(item, item->name);
    ok = add_section(s, "explain", occ_json_explain(&rep));
  }
  if (ok && rc == OCC_EXIT_OK && item->suggestion)
    ok = add_section(s, "suggest", occ_suggest_json(item->suggestion));
  if (ok && rc == OCC_EXIT_OK) return rc;
  free_sections(s);
  if (ok) return rc;
  occ_msg(r->err, "out of memory writing JSON");
  return OCC_EXIT_FAILURE;
}

/* The item's document, written as it is described (no tree of the
 * report): the report's members, what a compiler report adds, the
 * sections. The kernel's names follow occ_json_kernel's rule: the
 * readable name, and the symbol it was demangled from. */
static void item_json(occ_render *r, occ_jw *w, const occ_item *item,
                      sections *s) {
  occ_report rep = report_of(item,
                             item->readable ? item->readable : item->name);
  rep.mangled_name = item->readable ? item->name : NULL;
  occ_jw_object(w, NULL);
  occ_jw_report_members(w, &rep, &r->device_text);
  if (item->ptxas) {
    occ_ptxas_row row = {item->ptxas, item->readable, &rep, item->choice,
                         item->block_best};
    occ_jw_ptxas_members(w, &row);
  } else {
    occ_jw_null(w, "compiler");
    occ_jw_block_choice(w, item->choice, item->block_best);
  }
  for (int i = 0; i < s->count; i++) occ_jw_item(w, s->key[i], s->tree[i]);
  s->count = 0; /* the writer took them */
  occ_jw_close(w);
}

/* An AMD item's document: its own object (render/amd_out.c), built as a
 * tree, with the sections added; NULL when out of memory. */
static cJSON *amd_json(const occ_item *item, sections *s) {
  cJSON *doc = occ_amd_json(item->amd);
  for (int i = 0; doc && i < s->count; i++) {
    if (!cJSON_AddItemToObject(doc, s->key[i], s->tree[i])) {
      cJSON_Delete(doc);
      doc = NULL;
      break;
    }
    s->tree[i] = NULL; /* the document's now */
  }
  free_sections(s);
  return doc;
}

static int write_json(occ_render *r, const occ_item *item) {
  sections s = {.count = 0};
  int rc = build_sections(r, item, &s);
  if (rc != OCC_EXIT_OK) return rc;
  cJSON *amd = item->amd ? amd_json(item, &s) : NULL;
  if (item->amd && !amd) {
    occ_msg(r->err, "out of memory writing JSON");
    return OCC_EXIT_FAILURE;
  }
  bool lines = r->format == OCC_FORMAT_JSONL;
  if (!lines) fputs(!r->many ? "" : r->written == 0 ? "[\n" : ",\n", r->out);
  occ_jw w;
  occ_jw_stream(&w, r->out, !lines);
  if (amd)
    occ_jw_item(&w, NULL, amd);
  else
    item_json(r, &w, item, &s);
  if (!occ_jw_end_stream(&w)) { /* not expected: nothing is allocated */
    occ_msg(r->err, "out of memory writing JSON");
    return OCC_EXIT_FAILURE;
  }
  if (lines) {
    putc('\n', r->out);
    if (r->flush_each) fflush(r->out);
  } else if (!r->many) {
    fputc('\n', r->out);
  }
  return OCC_EXIT_OK;
}

static int write_item(occ_render *r, const occ_item *item) {
  int rc = OCC_EXIT_OK;
  switch (r->format) {
  case OCC_FORMAT_TEXT: rc = write_text(r, item); break;
  case OCC_FORMAT_TABLE: rc = write_table(r, item); break;
  case OCC_FORMAT_JSON:
  case OCC_FORMAT_JSONL: rc = write_json(r, item); break;
  case OCC_FORMAT_CSV: rc = write_csv(r, item); break;
  case OCC_FORMAT_TABLE_CSV: rc = write_table_csv(r, item); break;
  case OCC_FORMAT_SVG: rc = write_svg_stdout(r, item); break;
  }
  if (rc == OCC_EXIT_OK && r->format == OCC_FORMAT_TABLE && r->svg_path &&
      item->charts)
    rc = write_svg(r, item);
  return rc;
}

int occ_render_item(occ_render *r, const occ_item *item) {
  int rc = write_item(r, item);
  if (rc == OCC_EXIT_OK) r->written++;
  return rc;
}

void occ_render_end(occ_render *r) {
  if (!occ_render_open(r)) return;
  if (r->format == OCC_FORMAT_JSON)
    fputs("\n]\n", r->out);
  else
    occ_ptxas_table_footer(r->out, r->any_chosen_block, r->any_ties,
                           r->any_local);
}
