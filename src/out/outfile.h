/* outfile.h - output files written whole or not at all: into a temporary
 * file beside the target, renamed over it only once everything is
 * written, so a failed run never leaves a truncated or partial file and
 * never touches an existing one. */
#ifndef OCC_OUTFILE_H
#define OCC_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

typedef void (*occ_outfile_fn)(FILE *f, const void *context);

/* Writes path with write(f, context). Returns 0; or, after one line on
 * err, 2 when the file cannot be created there, 1 when writing failed. */
int occ_outfile_write(const char *path, occ_outfile_fn write,
                      const void *context, FILE *err);

/* Checks, creating nothing, that path can be written: not a directory,
 * in a directory that exists and is writable. Returns 0, or 2 after one
 * line on err. */
int occ_outfile_check(const char *path, FILE *err);

/* DIR/N-LABEL.EXT into buf: LABEL with every character but letters,
 * digits, '_', '.' and '-' replaced by '_' and cut to 120 characters
 * ("kernel" when label is NULL). */
void occ_outfile_name(char *buf, size_t size, const char *dir, long n,
                      const char *label, const char *ext);

#endif
