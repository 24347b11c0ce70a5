/* measure.h - the run measurements of one item (`occcalc run`): what the
 * program's launches of one configuration showed, and what the model
 * derives from it beside the theoretical result: the occupancy with the
 * SM's shared memory as the driver configured it, and the likely cause
 * when achieved falls short. Computed here once; the writers only read. */
#ifndef OCC_MEASURE_H
#define OCC_MEASURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/attribute.h"
#include "model/model.h"

typedef struct occ_measure {
  size_t launch_count;
  double total_us, mean_us;
  int32_t smem_executed_bytes;  /* the SM's shared memory as the driver
                                   configured it (recorded, or else
                                   predicted); 0: unknown */
  bool smem_config_predicted;   /* by occcalc's launch rule: CUPTI did not
                                   record it (under the profiler) */
  double launch_occupancy;      /* with that shared memory (valid with the
                                   item's device) */
  size_t counter_launch_count;  /* the launches measured */
  size_t clean_launch_count;    /* of them (PM samples), those whose
                                   samples covered them alone */
  const char *basis_why;        /* PM samples: the most common reason a
                                   measured launch is not clean, or NULL */
  size_t graph_launch_count;    /* the launches in a CUDA graph (never
                                   measured: see docs/run.md) */
  bool achieved_known;
  double achieved;              /* 0..1: replay, the mean over the
                                   measured launches; PM samples, their
                                   mean weighted by each launch's time */
  const char *achieved_why;     /* why achieved is unknown, or NULL */
  char cause[200];              /* achieved > 10 points below: why */
} occ_measure;

/* Fills m->launch_occupancy and m->cause from item (computed, with
 * waves; a NULL device leaves both unknown) and m's measurements, and an
 * SM configuration not recorded from the driver's rule (marked
 * predicted). */
void occ_measure_derive(const occ_item *item, occ_measure *m);

/* Achieved occupancy from PM samples (--measure sample) over a row's
 * launches (each NULL or attributed, model/attribute.h): the mean of the
 * launches with a value, weighted by each one's time; how many were
 * measured and how many cleanly; the most common reason a measured one
 * is not clean (basis_why), and where none has a value, the most common
 * reason (achieved_why). */
void occ_measure_from_samples(occ_measure *m,
                              const occ_sampled_launch *const *launches,
                              size_t count);

#endif
