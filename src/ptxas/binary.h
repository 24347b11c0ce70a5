/* binary.h - the kernels of a CUDA binary, read offline: a cubin (an ELF
 * object for EM_CUDA), a fatbin (0xBA55ED50 containers of cubins and PTX),
 * or a host executable or shared library whose .nv_fatbin section holds
 * fatbins back to back. Each kernel comes back as the same record the
 * ptxas log reader hands over (ptxas.h, source OCC_PTXAS_FROM_BINARY), so
 * the caller computes it as it computes a log's.
 *
 * The reader takes the whole file image from the caller (no I/O here) and
 * trusts nothing in it: every offset and size is checked against the
 * image before it is read. */
#ifndef OCC_BINARY_H
#define OCC_BINARY_H

#include <stddef.h>

#include "ptxas/ptxas.h"

typedef struct occ_binary occ_binary;

typedef struct occ_binary_stats {
  long cubins;        /* cubin images read */
  long kernels;       /* kernels handed back so far */
  long ptx_entries;   /* fatbin PTX entries, not compiled here: skipped */
  long compressed;    /* compressed cubin entries: unread */
  long bad_entries;   /* fatbin entries or cubins refused (out of bounds,
                         not an ELF of EM_CUDA): unread */
  char first_bad[96]; /* why the first one was refused */
} occ_binary_stats;

/* Outcome of occ_binary_open. */
enum {
  OCC_BINARY_OK = 0,
  OCC_BINARY_NOT_CUDA = -1, /* why says what was expected and found */
  OCC_BINARY_NO_MEMORY = -2
};

/* Reads the containers of image[0, size) (which must outlive the reader)
 * and finds its cubins. Returns OCC_BINARY_OK with *out set, or a refusal
 * with its reason in why. */
int occ_binary_open(const unsigned char *image, size_t size, occ_binary **out,
                    char *why, size_t why_size);

/* The next kernel, valid until the next call; NULL at the end. */
const occ_ptxas_kernel *occ_binary_next(occ_binary *binary);

const occ_binary_stats *occ_binary_get_stats(const occ_binary *binary);

void occ_binary_free(occ_binary *binary);

#endif
