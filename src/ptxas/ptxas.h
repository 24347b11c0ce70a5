/* ptxas.h - a streaming reader of the compiler's resource reports: the
 * output of `ptxas -v` (as nvcc prints it, mixed with other compiler
 * output, from CUDA 2.x to 13.x) and of `cuobjdump --dump-resource-usage`.
 *
 * The caller feeds bytes in chunks of any size; each kernel is handed to a
 * callback as soon as its lines are read: at the line after its resource
 * line and its callees' properties (see occ_ptxas_kernel.callees), or at
 * the end of the input. Memory is fixed when the
 * parser is created, whatever the input's size: a line longer than
 * OCC_PTXAS_LINE_MAX is skipped and counted, never buffered. No I/O here
 * beyond occ_ptxas_read_file's fread. */
#ifndef OCC_PTXAS_H
#define OCC_PTXAS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The longest line kept; longer lines are counted as skipped. Template
 * kernel names of large C++ libraries run to a few thousand characters. */
#define OCC_PTXAS_LINE_MAX 65536

/* Target names ("sm_90", "sm_100a") are shorter than this. */
#define OCC_PTXAS_ARCH_MAX 16

/* A field the report did not carry (CUDA 2-3 logs have no spill counts,
 * cuobjdump has no barrier count). */
#define OCC_PTXAS_UNKNOWN (-1)

typedef enum occ_ptxas_source {
  OCC_PTXAS_FROM_PTXAS,     /* a `ptxas info : Used ...` line */
  OCC_PTXAS_FROM_CUOBJDUMP, /* a cuobjdump `REG:... SHARED:...` line */
  OCC_PTXAS_FROM_BINARY     /* a cubin's sections, read by binary.h: its
                               shared memory is the .nv.shared section's
                               size, which for sm_90 and newer includes the
                               per-block reserve (smem_includes_reserve) */
} occ_ptxas_source;

/* One kernel compiled for one target, as the compiler reported it. Sizes
 * are bytes per block (shared) or per thread (stack, local, spills). */
typedef struct occ_ptxas_kernel {
  const char *name;      /* as printed (mangled); NUL-terminated, valid only
                            during the callback */
  char arch[OCC_PTXAS_ARCH_MAX]; /* "sm_90", or "" when the report names no
                                    target */
  occ_ptxas_source source;
  int regs_per_thread;
  int64_t smem_static_bytes;   /* "a+b bytes smem" of old logs: a + b;
                                  cuobjdump's SHARED as printed */
  /* cuobjdump's SHARED for an sm_90+ target includes the shared memory the
   * system reserves per block whenever the kernel has shared memory of
   * its own (measured with CUDA 13.0: SHARED:2048 where ptxas and
   * cudaFuncGetAttributes say 1024, SHARED:0 where they say 0). The
   * reader only says so; the caller, who knows the device, takes the
   * reserve off (one rule, ptxas_cmd.c). False for ptxas's lines and for
   * a section that names no target (a cubin's: the caller decides). */
  bool smem_includes_reserve;
  int64_t stack_bytes;         /* stack frame, or the cumulative stack size
                                  when larger; OCC_PTXAS_UNKNOWN if absent */
  int64_t local_bytes;         /* "lmem" of old logs, cuobjdump LOCAL;
                                  OCC_PTXAS_UNKNOWN if absent */
  int64_t spill_stores_bytes;  /* OCC_PTXAS_UNKNOWN if absent */
  int64_t spill_loads_bytes;   /* OCC_PTXAS_UNKNOWN if absent */
  int64_t cmem_bytes;          /* summed over constant banks; UNKNOWN if
                                  absent (sm_90 and newer print none) */
  /* The non-entry functions ptxas reports right after the kernel (its
   * "Function properties for NAME" after the kernel's Compile time): in a
   * whole-program build, the functions the kernel calls that were not
   * inlined (nvcc 13.0: recursive() calling fib() is followed by fib's
   * properties). Their frames and spills are the kernel's local-memory
   * traffic too; a callee shared with a later kernel is reported once,
   * after its first caller. callees 0: none reported (the three fields
   * then OCC_PTXAS_UNKNOWN). */
  int callees;
  const char *first_callee;    /* the first one's name; valid only during
                                  the callback; NULL when none */
  int64_t callee_stack_bytes;  /* the largest callee frame */
  int64_t callee_spill_stores_bytes; /* summed over the callees */
  int64_t callee_spill_loads_bytes;
  int barriers;                /* OCC_PTXAS_UNKNOWN if absent */
  int textures;                /* OCC_PTXAS_UNKNOWN if absent, also below */
  int samplers;
  int surfaces;
  /* The largest block the kernel may be launched with: its
   * __launch_bounds__ (or required block size) as a cubin records it; 0
   * where none is known (compiler reports do not print it). */
  int max_threads_per_block;
  long line;                   /* 1-based input line of the resource line */
} occ_ptxas_kernel;

/* Called once per kernel and target. A non-zero return stops the parser;
 * occ_ptxas_feed and occ_ptxas_finish then return that value. */
typedef int (*occ_ptxas_fn)(const occ_ptxas_kernel *kernel, void *ctx);

typedef struct occ_ptxas_stats {
  long lines;            /* lines read */
  long kernels;          /* kernels handed to the callback */
  long skipped_lines;    /* report lines that did not parse: bad or absurd
                            numbers, truncated fields, binary bytes, lines
                            over OCC_PTXAS_LINE_MAX */
  long first_skipped_line; /* 1-based, 0 when none */
  long incomplete;       /* kernels announced but with no resource line */
} occ_ptxas_stats;

typedef struct occ_ptxas_parser occ_ptxas_parser;

/* Creates a parser; NULL when out of memory. Free with occ_ptxas_free.
 * fn NULL: no callback; the caller takes each kernel with occ_ptxas_next
 * after each occ_ptxas_line and after occ_ptxas_finish (what occcalc
 * does, so that the reader calls nothing above it). */
occ_ptxas_parser *occ_ptxas_new(occ_ptxas_fn fn, void *ctx);

/* Without a callback: the next kernel the last line (or finish)
 * completed, valid until the next call into the parser; NULL when there
 * is no more. */
const occ_ptxas_kernel *occ_ptxas_next(occ_ptxas_parser *parser);

void occ_ptxas_free(occ_ptxas_parser *parser);

/* The per-block reserve of every sm_90+ architecture of data/gpus.json:
 * what a caller takes off a SHARED that includes it (smem_includes_reserve)
 * for a target the database does not know. */
#define OCC_PTXAS_RESERVE_FALLBACK_BYTES 1024

/* Feeds len bytes (a chunk may end mid-line). Returns 0, or the callback's
 * non-zero value that stopped the parser. */
int occ_ptxas_feed(occ_ptxas_parser *parser, const char *data, size_t len);

/* Ends the input: parses a last line without a newline. Returns as
 * occ_ptxas_feed. */
int occ_ptxas_finish(occ_ptxas_parser *parser);

/* Hands over one line s[0, len), without its '\n' (a caller that splits
 * the input itself, as occcalc --ptxas does to decide the reader line by
 * line): s NULL for a line over OCC_PTXAS_LINE_MAX, counted as skipped.
 * Do not mix with occ_ptxas_feed. Returns as occ_ptxas_feed. */
int occ_ptxas_line(occ_ptxas_parser *parser, const char *s, size_t len);

/* Feeds a whole stream and finishes. Returns 0, the callback's value, or
 * -1 when reading failed (errno set by the stream). */
int occ_ptxas_read_file(occ_ptxas_parser *parser, FILE *in);

/* The counts so far. */
const occ_ptxas_stats *occ_ptxas_get_stats(const occ_ptxas_parser *parser);

#endif
