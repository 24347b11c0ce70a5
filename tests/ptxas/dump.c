/* dump.c - prints what the ptxas reader finds, one line per kernel, for the
 * golden and agreement tests:
 *   ARCH NAME regs=N smem=N stack=N local=N spill=ST/LD cmem=N barriers=N
 *   textures=N samplers=N surfaces=N
 * ("-" for a field the report did not carry, "?" for a missing target),
 * then "lines=N kernels=N skipped=N incomplete=N". Reads FILE or stdin. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ptxas/ptxas.h"

static void field(const char *key, int64_t value) {
  if (value == OCC_PTXAS_UNKNOWN) printf(" %s=-", key);
  else printf(" %s=%" PRId64, key, value);
}

static int print_kernel(const occ_ptxas_kernel *k, void *ctx) {
  (void)ctx;
  printf("%s %s %s regs=%d smem=%" PRId64,
         k->source == OCC_PTXAS_FROM_PTXAS ? "ptxas" : "cuobjdump",
         k->arch[0] ? k->arch : "?", k->name, k->regs_per_thread,
         k->smem_static_bytes);
  /* cuobjdump's SHARED with the per-block reserve in it (ptxas.h). */
  if (k->smem_includes_reserve) printf("+reserve");
  field("stack", k->stack_bytes);
  field("local", k->local_bytes);
  field("spill_st", k->spill_stores_bytes);
  field("spill_ld", k->spill_loads_bytes);
  field("cmem", k->cmem_bytes);
  field("barriers", k->barriers);
  field("textures", k->textures);
  field("samplers", k->samplers);
  field("surfaces", k->surfaces);
  if (k->callees)
    printf(" callees=%d first_callee=%s callee_stack=%" PRId64 " callee_spill=%" PRId64
           "/%" PRId64, k->callees, k->first_callee, k->callee_stack_bytes,
           k->callee_spill_stores_bytes, k->callee_spill_loads_bytes);
  printf("\n");
  return 0;
}

int main(int argc, char **argv) {
  FILE *in = stdin;
  if (argc > 1 && !(in = fopen(argv[1], "rb"))) {
    fprintf(stderr, "dump: %s: %s\n", argv[1], strerror(errno));
    return 2;
  }
  occ_ptxas_parser *p = occ_ptxas_new(print_kernel, NULL);
  if (!p || occ_ptxas_read_file(p, in) != 0) {
    fprintf(stderr, "dump: cannot read\n");
    return 1;
  }
  const occ_ptxas_stats *s = occ_ptxas_get_stats(p);
  printf("lines=%ld kernels=%ld skipped=%ld first_skipped=%ld incomplete=%ld\n",
         s->lines, s->kernels, s->skipped_lines, s->first_skipped_line,
         s->incomplete);
  occ_ptxas_free(p);
  if (in != stdin) fclose(in);
  return 0;
}
