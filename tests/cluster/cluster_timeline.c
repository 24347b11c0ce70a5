/* cluster_timeline.c - co-resident clusters and placement from synthetic
 * probe timelines (live/cluster_timeline.h). Part of make test-cluster-unit. */
#include <criterion/criterion.h>

#include "live/cluster_timeline.h"

static occ_probe_record rec(unsigned long long start, unsigned long long end,
                            unsigned smid) {
  occ_probe_record r = {start, end, smid, 0};
  return r;
}

/* Cluster 0 (SMs 0, 1) runs [0, 100); cluster 1 (SMs 2, 3) [10, 100);
 * cluster 2's block on SM 0 starts at 60 after SM 0's block of cluster 0
 * ended early, its block on SM 4 at 20: it is whole only from 60, while
 * cluster 0 is whole only until 50. Peak 2, never 3. */
Test(cluster_timeline, counts_whole_clusters_only) {
  occ_probe_record r[] = {
      rec(0, 50, 0),   rec(0, 100, 1),  /* cluster 0 */
      rec(10, 100, 2), rec(10, 100, 3), /* cluster 1 */
      rec(60, 150, 0), rec(20, 150, 4), /* cluster 2 */
  };
  occ_cluster_residency c;
  int64_t bad = -1;
  cr_assert_eq(occ_cluster_residency_compute(r, 6, 2, &c, &bad), OCC_TIMELINE_OK);
  cr_expect_eq(c.peak_clusters, 2);
  cr_expect_eq(c.clusters_sharing_sm, 0);
  /* SMs 0, 1, 4 joined by clusters 0 and 2; 2, 3 by cluster 1. */
  cr_expect_eq(c.groups, 2);
  cr_expect_eq(c.group_sms[0], 3);
  cr_expect_eq(c.group_sms[1], 2);
}

Test(cluster_timeline, sharing_and_single_block_clusters) {
  occ_probe_record r[] = {rec(0, 10, 5), rec(0, 10, 5), rec(0, 10, 6), rec(0, 10, 7)};
  occ_cluster_residency c;
  int64_t bad;
  cr_assert_eq(occ_cluster_residency_compute(r, 4, 2, &c, &bad), OCC_TIMELINE_OK);
  cr_expect_eq(c.clusters_sharing_sm, 1);
  cr_expect_eq(c.peak_clusters, 2);
  cr_assert_eq(occ_cluster_residency_compute(r, 4, 1, &c, &bad), OCC_TIMELINE_OK);
  cr_expect_eq(c.groups, -1, "clusters of one block join nothing");
  cr_expect_eq(c.peak_clusters, 4);
  /* Back to back is not overlap: [0, 10) then [10, 20). */
  occ_probe_record seq[] = {rec(0, 10, 0), rec(10, 20, 0)};
  cr_assert_eq(occ_cluster_residency_compute(seq, 2, 1, &c, &bad), OCC_TIMELINE_OK);
  cr_expect_eq(c.peak_clusters, 1);
}

Test(cluster_timeline, a_missing_record_is_named) {
  occ_probe_record r[] = {rec(0, 10, 0), rec(0, 0, 1)};
  occ_cluster_residency c;
  int64_t bad = -1;
  cr_expect_eq(occ_cluster_residency_compute(r, 2, 2, &c, &bad),
               OCC_TIMELINE_NO_RECORD);
  cr_expect_eq(bad, 1);
}
