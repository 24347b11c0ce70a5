/* libocc.h - the library behind occcalc, in one header (as cmark.h is
 * libcmark's): what a test or another program includes and links
 * (build/libocc.a, with -lcjson -lm and the C++ runtime for the
 * demangler), without the command line and without CUDA.
 *
 *   core   occ_compute, occ_waves_compute, the sweep, charts,
 *          suggestions, the explanation's steps, AMD's occupancy by
 *          LLVM's and HIP's rules (occ_amd_compute), compute
 *          capabilities' names (occ_parse_cc) (core/)
 *   db     the GPU database: occ_gpudb_load_builtin, occ_gpudb_load_file;
 *          the device a query names: occ_gpudb_select, occ_gpudb_resolve
 *          (db/)
 *   ptxas  the compiler-report reader, AMD's remark reader and the
 *          demangler (ptxas/)
 *   model  the item of one kernel configuration, computed once with the
 *          sections asked for; occ_amd_item for an AMD one; the live
 *          verifier's results and their judges (model/verify.h), run's
 *          launch records and measurements (model/)
 *   render the renderers of an item, of a verification and of run's
 *          report: text, JSON, CSV, SVG (render/)
 *
 * The live GPU backend (live/: the driver, CUPTI, reading run's records)
 * and the injection library (inject/) are occcalc's, not the library's:
 * they fill the model's results. */
#ifndef OCC_LIBOCC_H
#define OCC_LIBOCC_H

#include "core/amd.h"
#include "core/cc.h"
#include "core/chart.h"
#include "core/explain.h"
#include "core/ncu.h"
#include "core/occ.h"
#include "core/suggest.h"
#include "core/sweep.h"
#include "db/gpudb.h"
#include "db/select.h"
#include "model/amd_item.h"
#include "model/measure.h"
#include "model/model.h"
#include "model/verify.h"
#include "ptxas/amdgpu_remarks.h"
#include "ptxas/demangle.h"
#include "ptxas/ptxas.h"
#include "render/amd_out.h"
#include "render/chart_out.h"
#include "render/explain_out.h"
#include "render/json_write.h"
#include "render/cluster_verify_out.h"
#include "render/ncu_rows.h"
#include "render/ptxas_out.h"
#include "render/render.h"
#include "render/report.h"
#include "render/run_out.h"
#include "render/suggest_out.h"
#include "render/verify_out.h"

#endif
