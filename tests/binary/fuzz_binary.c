/* fuzz_binary.c - libFuzzer target for the CUDA binary reader
 * (src/ptxas/binary.c): any bytes as a cubin, fatbin or host ELF; every
 * kernel found must have a NUL-terminated name and sane fields. Seeded
 * with the cubins and fatbins nvcc builds in test-binary-nvcc. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ptxas/binary.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* A copy of exactly size bytes, so ASan sees any read past the end. */
  unsigned char *image = malloc(size ? size : 1);
  if (!image) return 0;
  memcpy(image, data, size);
  occ_binary *b = NULL;
  char why[256];
  if (occ_binary_open(image, size, &b, why, sizeof why) == OCC_BINARY_OK) {
    const occ_ptxas_kernel *k;
    while ((k = occ_binary_next(b))) {
      if (strlen(k->name) >= size || k->regs_per_thread < 0 ||
          k->smem_static_bytes < 0 || k->barriers < 0 ||
          k->arch[OCC_PTXAS_ARCH_MAX - 1] != '\0')
        abort();
    }
  } else if (!memchr(why, '\0', sizeof why) || why[0] == '\0') {
    abort();
  }
  occ_binary_free(b);
  free(image);
  return 0;
}
