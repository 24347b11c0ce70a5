/* cudart.h - the CUDA runtime (cudart), the library whose occupancy API
 * (cudaOccupancyMaxActiveBlocksPerMultiprocessor) the live verifier asks.
 *
 * It is opened with dlopen by the live commands that ask it (verify,
 * --device without --no-verify, --module), never linked: every other run
 * pays nothing for it (linking the static runtime instead cost every
 * report ~34,000 more instructions, 230,856 against 196,521 under
 * callgrind, ~80 us of a ~700 us run, and doubled the binary), and
 * ./occcalc starts where there is no CUDA at all.
 * Only src/live/ includes this header (it includes CUDA's).
 */
#ifndef OCC_CUDART_H
#define OCC_CUDART_H

#include <stddef.h>

#include <cuda_runtime_api.h>

/* The runtime's entry points occcalc calls, each of the type the toolkit's
 * header declares, named as the function is. */
typedef struct occ_cudart {
  __typeof__(cudaGetErrorName) *cudaGetErrorName;
  __typeof__(cudaGetErrorString) *cudaGetErrorString;
  __typeof__(cudaSetDevice) *cudaSetDevice;
  __typeof__(cudaLibraryLoadData) *cudaLibraryLoadData;
  __typeof__(cudaLibraryUnload) *cudaLibraryUnload;
  __typeof__(cudaLibraryGetKernel) *cudaLibraryGetKernel;
  __typeof__(cudaLibraryGetKernelCount) *cudaLibraryGetKernelCount;
  __typeof__(cudaLibraryEnumerateKernels) *cudaLibraryEnumerateKernels;
  __typeof__(cudaFuncSetAttribute) *cudaFuncSetAttribute;
  __typeof__(cudaOccupancyMaxActiveBlocksPerMultiprocessor)
      *cudaOccupancyMaxActiveBlocksPerMultiprocessor;
  __typeof__(cudaOccupancyMaxActiveClusters) *cudaOccupancyMaxActiveClusters;
} occ_cudart;

/* Opens the runtime once per process and returns its entry points, or
 * NULL with err set to one line that names what is missing. The library
 * is $OCCCALC_CUDART when set, else libcudart.so.MAJOR (the toolkit's
 * major version occcalc was built with) on the loader's path, else in
 * the toolkit's library directory of the build (OCC_CUDA_LIB_DIR). */
const occ_cudart *occ_cudart_open(char *err, size_t err_size);

#endif
