/* jitlink.h - PTX compiled to a cubin on the CPU by nvJitLink, the CUDA
 * toolkit's JIT linker library, opened with dlopen (libnvJitLink.so.MAJOR
 * on the loader's path, else in the build's toolkit library directory).
 *
 * Why: the driver's JIT compiles one module at a time per process (on the
 * H100, 80 probe variants on 16 threads took 18.1 s, 226 ms each, as many
 * as one by one), while nvJitLink's handles are independent: 112 variants
 * on 16 threads took 1.9 s. A sweep's probes are compiled this way before
 * it starts. Only src/live/ includes this header.
 */
#ifndef OCC_JITLINK_H
#define OCC_JITLINK_H

#include <stdbool.h>
#include <stddef.h>

/* Opens the library once per process (call before any thread compiles);
 * false with one line in err when it is not there. */
bool occ_jitlink_open(char *err, size_t err_size);

/* Compiles NUL-terminated ptx for sm_<major><minor> with at most max_regs
 * registers per thread into *cubin (malloc'ed, the caller frees) of *size
 * bytes. Thread-safe once opened. Returns 0, or -1 with err set (the
 * linker's log appended where it left one). */
int occ_jitlink_compile(const char *ptx, int cc_major, int cc_minor,
                        int max_regs, void **cubin, size_t *size, char *err,
                        size_t err_size);

#endif
