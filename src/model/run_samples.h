/* run_samples.h - `occcalc run --measure sample`'s samples joined to the
 * launches shown (model/attribute.h): the launch records and the
 * sampler's final status (model/pm_sample.h) as the attribution sees
 * them. The caller reads the samples (live/sample_file.h) between start
 * and finish, handing each to occ_run_attribution_add. */
#ifndef OCC_RUN_SAMPLES_H
#define OCC_RUN_SAMPLES_H

#include <stdbool.h>
#include <stddef.h>

#include "model/attribute.h"
#include "model/launch_record.h"
#include "model/pm_sample.h"

typedef struct occ_run_attribution {
  /* Parallel to the launches shown (one more, zeroed, so that none is
   * never a 0-byte allocation): the caller's to free() once started,
   * whatever start returned. */
  occ_sampled_launch *launches;
  occ_attribution attribution;
} occ_run_attribution;

/* Prepares the attribution of launches (count of them, from the
 * records). Returns 0, or -1 out of memory (then no add or finish). */
int occ_run_attribution_start(occ_run_attribution *a,
                              const occ_launch_record *const *launches,
                              size_t count);

/* Adds one sample (context: the occ_run_attribution); the shape of
 * live/sample_file.h's callback. */
void occ_run_attribution_add(const occ_pm_sample *sample, void *context);

/* Each launch's value, given the devices as the sampler's final status
 * has them; frees the attribution (not a->launches). Returns 0, or -1
 * out of memory (occ_attr_finish: the values are then made anyway). */
int occ_run_attribution_finish(occ_run_attribution *a,
                               const occ_sampler_status *status);

/* Whether a device of status was not sampled (neither sampling nor left
 * out by --device): the first one's "GPU N not sampled: why" in why. */
bool occ_run_unsampled_why(const occ_sampler_status *status, char *why,
                           size_t why_size);

#endif
