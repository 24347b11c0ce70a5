/* run_item.h - a row of `occcalc run` (model/run_rows.h) computed: the
 * kernel and launch configuration its first launch recorded, on the
 * device it ran on, a cluster launch by the cluster rule beside the
 * API's, then the row's measurements derived from the item
 * (model/measure.h). The caller finds the device (live/run_device.h,
 * which may open a GPU) and demangles the name, so that this stays pure:
 * no I/O, no allocation. */
#ifndef OCC_RUN_ITEM_H
#define OCC_RUN_ITEM_H

#include "core/occ.h"
#include "model/run_rows.h"

/* Computes row->item from row->first on device (NULL: not known; the
 * item then has no device) and derives row->measure from it. readable is
 * the launch's demangled name, allocated: the row owns it from here
 * (occ_run_rows_free frees it). layout_why: where a cluster launch's
 * layout stays unknown, why, in place of the core's reason; or NULL. */
void occ_run_row_compute(occ_run_row *row, const occ_device *device,
                         char *readable, const char *layout_why);

#endif
