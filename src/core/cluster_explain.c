/* cluster_explain.c - the cluster steps of --explain (cluster_explain.h). */
#include "core/cluster_explain.h"

#include <string.h>

/* The cluster steps are one section's. */
typedef occ_step_list builder;

static occ_step *step(builder *b, const char *key, const char *title,
                      occ_explain_op op, const char *text, const char *joiner) {
  return occ_step_add(b, key, title, op, text, joiner);
}

/* The step keys of the domain groups: domains of one size are one step. */
static const char *const group_keys[] = {
    "cluster_domains_1", "cluster_domains_2", "cluster_domains_3",
    "cluster_domains_4", "cluster_domains_5", "cluster_domains_6",
    "cluster_domains_7", "cluster_domains_8"};
/* The same at launch, where the SM holds another count (occ.h). */
static const char *const launch_group_keys[] = {
    "cluster_launch_domains_1", "cluster_launch_domains_2",
    "cluster_launch_domains_3", "cluster_launch_domains_4",
    "cluster_launch_domains_5", "cluster_launch_domains_6",
    "cluster_launch_domains_7", "cluster_launch_domains_8"};
enum { GROUP_KEYS = sizeof group_keys / sizeof group_keys[0] };

/* The names one derivation of the domains' clusters uses: the API's
 * count's, or the count the SM holds at launch. */
typedef struct domain_names {
  const char *const *keys;
  const char *more;          /* the key past GROUP_KEYS groups */
  const char *blocks_per_sm; /* the operand: blocks per SM under clusters */
  const char *clusters;      /* the result: a group's clusters */
} domain_names;

static const domain_names api_names = {group_keys, "cluster_domains_more",
                                       "cluster.blocks_per_sm",
                                       "domain_clusters"};
static const domain_names launch_names = {
    launch_group_keys, "cluster_launch_domains_more",
    "cluster.at_launch.blocks_per_sm", "launch_domain_clusters"};

/* One step per run of equal domains (the layout is stored largest
 * first), each domain's share as occ_cluster_max_active computed it. */
static void domains(builder *b, const occ_cluster_result *r,
                    const domain_names *names) {
  int group = 0;
  for (int i = 0; i < r->domain_count;) {
    int j = i;
    while (j < r->domain_count && r->domain_sms[j] == r->domain_sms[i])
      j++;
    const char *key = group < GROUP_KEYS ? names->keys[group] : names->more;
    bool fits = r->domain_sms[i] >= r->cluster_size;
    occ_step *s = step(
        b, key, "clusters of domains", fits ? OCC_OP_MUL : OCC_OP_EXCEEDS,
        fits ? "{0} {0:domain} of {1} SMs: {0} x floor({1} x {2} / {3}) = {r} "
               "clusters"
             : "{0} {0:domain} of {1} SMs: fewer SMs than the {3} {3:block} of a "
               "cluster, {r} {r:cluster}",
        NULL);
    occ_step_operand(s, "domains", j - i, "domains");
    occ_step_operand(s, "cluster.domains_sms", r->domain_sms[i], "sms");
    occ_step_operand(s, names->blocks_per_sm, r->cluster_blocks_per_sm, "blocks");
    occ_step_operand(s, "cluster.size", r->cluster_size, "blocks");
    occ_step_result(s, names->clusters, (double)r->domain_clusters[i] * (j - i),
           "clusters");
    group++;
    i = j;
  }
}

static void occupancy(builder *b, const occ_device *d, const occ_result *res,
                      const occ_cluster_result *r) {
  occ_step *s =
      step(b, "cluster_max_active", "clusters active at once", OCC_OP_SUM,
           "clusters active at once on the GPU: {r} "
           "(cudaOccupancyMaxActiveClusters)",
           NULL);
  occ_step_result(s, "cluster.max_active_clusters", (double)r->max_active_clusters,
         "clusters");
  s = step(b, "cluster_active_blocks", "blocks active at once", OCC_OP_MUL,
           "{0} {0:cluster} x {1} {1:block} = {r} {r:block} at once", NULL);
  occ_step_operand(s, "cluster.max_active_clusters", (double)r->max_active_clusters,
          "clusters");
  occ_step_operand(s, "cluster.size", r->cluster_size, "blocks");
  occ_step_result(s, "cluster_active_blocks", (double)r->active_blocks, "blocks");
  s = step(
      b, "cluster_blocks_without", "blocks without clusters", OCC_OP_MUL,
      r->limited_by_cluster
          ? "without clusters {0} {0:block} x {1} SMs = {r}: limited by cluster"
          : "without clusters {0} {0:block} x {1} SMs = {r}: not lowered by "
            "the cluster",
      NULL);
  occ_step_operand(s, "without_clusters.active_blocks_per_sm",
                   res->active_blocks_per_sm, "blocks");
  occ_step_operand(s, "device.sm_count", d->sm_count, "sms");
  occ_step_result(s, "cluster_blocks_without_clusters",
         (double)r->blocks_without_clusters, "blocks");
  s = step(b, "cluster_occupancy", "occupancy under the cluster launch",
           OCC_OP_DIV,
           "{0} {0:block} x {1} {1:warp} / ({2} SMs x {3} {3:warp}) = "
           "{r} %",
           NULL);
  occ_step_operand(s, "cluster_active_blocks", (double)r->active_blocks, "blocks");
  occ_step_operand(s, "warps_per_block", res->warps_per_block, "warps");
  occ_step_operand(s, "device.sm_count", d->sm_count, "sms");
  occ_step_operand(s, "max_warps_per_sm", res->max_warps_per_sm, "warps");
  occ_step_result(s, "cluster.occupancy", r->occupancy, "fraction");
}

/* The cluster launch where the SM holds what the driver's configuration
 * gives (res->launch_active_blocks_per_sm): l, the cluster rule over that
 * count, from the cap on. Only where it differs from the API's count. */
static void at_launch(builder *b, const occ_device *d, const occ_result *res,
                      const occ_cluster_result *l) {
  occ_step *s = step(b, "cluster_launch_blocks_per_sm",
                     "blocks per SM under clusters at launch", OCC_OP_MIN,
                     "at launch, blocks per SM: the smaller of {0} and the "
                     "cap of {1} = {r}",
                     NULL);
  occ_step_operand(s, "without_clusters.at_launch.active_blocks_per_sm",
                   res->launch_active_blocks_per_sm, "blocks");
  occ_step_operand(s, "device.cluster_max_blocks_per_sm",
                   d->cluster_max_blocks_per_sm, "blocks");
  occ_step_result(s, "cluster.at_launch.blocks_per_sm", l->cluster_blocks_per_sm,
                  "blocks");
  domains(b, l, &launch_names);
  s = step(b, "cluster_launch_max_active", "clusters active at once at launch",
           OCC_OP_SUM, "clusters active at once at launch: {r}", NULL);
  occ_step_result(s, "at_launch.max_active_clusters",
                  (double)l->max_active_clusters, "clusters");
  s = step(b, "cluster_launch_occupancy", "occupancy at launch under clusters",
           OCC_OP_DIV,
           "{0} {0:cluster} x {1} {1:block} x {2} {2:warp} / ({3} SMs x {4} "
           "{4:warp}) = {r} % at launch",
           NULL);
  occ_step_operand(s, "at_launch.max_active_clusters",
                   (double)l->max_active_clusters, "clusters");
  occ_step_operand(s, "cluster.size", l->cluster_size, "blocks");
  occ_step_operand(s, "warps_per_block", res->warps_per_block, "warps");
  occ_step_operand(s, "device.sm_count", d->sm_count, "sms");
  occ_step_operand(s, "max_warps_per_sm", res->max_warps_per_sm, "warps");
  occ_step_result(s, "cluster.at_launch.occupancy", l->occupancy, "fraction");
}

static void cluster_waves(builder *b, const occ_cluster_waves *w) {
  if (!w || w->clusters_per_wave <= 0)
    return;
  occ_step *s =
      step(b, "cluster_waves", "waves in clusters", OCC_OP_DIV,
           "{0} {0:cluster} in the grid / {1} per wave = {r} waves", NULL);
  occ_step_operand(s, "cluster.waves.grid_clusters", (double)w->grid_clusters,
          "clusters");
  occ_step_operand(s, "cluster.waves.clusters_per_wave", (double)w->clusters_per_wave,
          "clusters");
  occ_step_result(s, "cluster.waves.waves", w->waves, "waves");
}

size_t occ_explain_cluster(const occ_device *d, const occ_result *res,
                           const occ_cluster *cluster,
                           const occ_cluster_result *r,
                           const occ_cluster_result *launch,
                           const occ_cluster_waves *waves, occ_step *steps,
                           size_t max) {
  builder b = {steps, max, 0, OCC_EXPLAIN_SECTION_CLUSTER, {0}};
  occ_step *s = step(&b, "cluster_size", "blocks per cluster", OCC_OP_MUL,
                     "a cluster of {0} x {1} x {2} = {r} {r:block}", NULL);
  for (int i = 0; i < 3; i++)
    occ_step_operand(s, "cluster.dims", cluster->dim[i], "blocks");
  occ_step_result(s, "cluster.size", r->cluster_size, "blocks");
  if (!r->layout_known) {
    /* The reason is a static sentence without placeholders. */
    step(&b, "cluster_unknown", "no cluster domains", OCC_OP_NOTE,
         r->unknown_reason, NULL);
    return b.count;
  }
  s = step(&b, "cluster_blocks_per_sm", "blocks per SM under clusters",
           OCC_OP_MIN,
           "blocks per SM: the smaller of {0} and the cluster "
           "launch's cap of {1} = {r}",
           NULL);
  occ_step_operand(s, "without_clusters.active_blocks_per_sm",
                   res->active_blocks_per_sm, "blocks");
  occ_step_operand(s, "device.cluster_max_blocks_per_sm", d->cluster_max_blocks_per_sm,
          "blocks");
  occ_step_result(s, "cluster.blocks_per_sm", r->cluster_blocks_per_sm, "blocks");
  domains(&b, r, &api_names);
  occupancy(&b, d, res, r);
  if (launch && launch->layout_known &&
      launch->cluster_blocks_per_sm != r->cluster_blocks_per_sm)
    at_launch(&b, d, res, launch);
  cluster_waves(&b, waves);
  return b.count;
}

/* The figures of sections 7 to 9 that a cluster launch changes. */
static const char *const cluster_less[][2] = {
    {"active_blocks_per_sm", "without_clusters.active_blocks_per_sm"},
    {"active_warps_per_sm", "without_clusters.active_warps_per_sm"},
    {"occupancy", "without_clusters.occupancy"},
    {"at_launch.active_blocks_per_sm",
     "without_clusters.at_launch.active_blocks_per_sm"},
    {"at_launch.active_warps_per_sm",
     "without_clusters.at_launch.active_warps_per_sm"},
    {"at_launch.occupancy", "without_clusters.at_launch.occupancy"},
    {"waves.grid_blocks", "without_clusters.waves.grid_blocks"},
    {"waves.blocks_per_wave", "without_clusters.waves.blocks_per_wave"},
    {"waves.waves", "without_clusters.waves.waves"}};

static void rename_value(occ_explain_value *v) {
  for (size_t i = 0; i < sizeof cluster_less / sizeof *cluster_less; i++) {
    if (v->name && strcmp(v->name, cluster_less[i][0]) == 0) {
      v->name = cluster_less[i][1];
      return;
    }
  }
}

void occ_explain_name_without_clusters(occ_step *steps, size_t count) {
  for (size_t i = 0; i < count; i++) {
    for (int j = 0; j < steps[i].operand_count; j++)
      rename_value(&steps[i].operands[j]);
    if (steps[i].has_result) rename_value(&steps[i].result);
  }
}
