/* cluster_text.c - the report's "Thread block clusters" section: what the
 * model's cluster section holds (model/cluster.h), nothing recomputed. */
#include <inttypes.h>

#include "render/report.h"
#include "render/report_text.h"
#include "render/vocab.h"

static void print_domains(FILE *out, const occ_cluster_result *c) {
  fputs("  domains        ", out);
  for (int i = 0; i < c->domain_count; i++)
    fprintf(out, " %d", c->domain_sms[i]);
  fprintf(out, " SMs; %d of %d hold a cluster\n", c->domains_fitting,
          c->domain_count);
}

static void print_cluster_waves(FILE *out, const occ_cluster_waves *w) {
  fprintf(out,
          "  grid            %6" PRId64 " clusters (%" PRId64 " per wave)\n",
          w->grid_clusters, w->clusters_per_wave);
  if (w->clusters_per_wave > 0)
    fprintf(out,
            "  waves           %6.2f (%" PRId64 " full, %" PRId64
            " clusters in the last)\n",
            w->waves, w->full_waves, w->tail_clusters);
}

void occ_print_cluster(FILE *out, const occ_report *rep) {
  const occ_cluster *k = rep->cluster;
  const occ_cluster_result *c = rep->cluster_result;
  if (!k || !c)
    return;
  fprintf(out, "\nThread block clusters\n");
  fprintf(out, "  cluster         %6d blocks (%dx%dx%d%s)\n", c->cluster_size,
          k->dim[0], k->dim[1], k->dim[2],
          k->non_portable ? ", non-portable" : "");
  if (!c->layout_known) {
    fprintf(out, "  active          unknown:\n  %s\n", c->unknown_reason);
    return;
  }
  fprintf(out,
          "  blocks per SM   %6d (%d without clusters; a cluster launch's "
          "cap: %d)\n",
          c->cluster_blocks_per_sm, c->blocks_per_sm,
          rep->device->cluster_max_blocks_per_sm);
  print_domains(out, c);
  fprintf(out,
          "  active          %6" PRId64 " clusters at once on the GPU (%" PRId64
          " blocks)\n",
          c->max_active_clusters, c->active_blocks);
  char pct[32], limiters[96];
  occ_pct_text(c->occupancy, pct, sizeof pct);
  if (c->limited_by_cluster)
    fprintf(out,
            "  occupancy       %6s %% (limited by cluster: %" PRId64
            " blocks at once without)\n",
            pct, c->blocks_without_clusters);
  else
    fprintf(
        out, "  occupancy       %6s %% (limited by %s)\n", pct,
        occ_limiters_words(rep->result->limited_by, limiters, sizeof limiters));
  if (rep->cluster_waves)
    print_cluster_waves(out, rep->cluster_waves);
}
