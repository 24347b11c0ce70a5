/* outfile.h - output files (--svg, run's --output): written whole or not
 * at all where that can be, and in place where the target is a stream.
 *
 * - A regular file, existing or new, is written to a temporary file
 *   beside it and renamed over it once everything is written: a failed
 *   run leaves an existing file as it was and creates none. The new file
 *   keeps the old one's mode (and, where occcalc may, its owner); a new
 *   one gets 0666 less the umask. Being a new file, it is no longer
 *   shared with the old one's other hard links, which keep the old
 *   content. A symbolic link is followed: the file it names is replaced
 *   and the link stays; a link to nothing is refused.
 * - A character device (/dev/null, /dev/tty), a FIFO, and /dev/stdout,
 *   /dev/stderr, /dev/fd/N and /proc/self/fd/N are written in place, never
 *   replaced nor created: the /dev/std* and fd names write to occcalc's
 *   own descriptor, at its offset. A socket or a block device is refused.
 * - Every error names the option given and the errno's text: 2 when the
 *   file cannot be created or opened (a usage error: nothing was written),
 *   1 when writing failed (/dev/full: "No space left on device"). */
#ifndef OCC_OUTFILE_H
#define OCC_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* At most this many files in one --svg directory (about 35 MB, 3 s):
 * past it the run stops with status 1. A compiler log of a million
 * kernels would otherwise write about 35 GB; a chart per kernel of more
 * than a thousand is not read, and --kernel selects fewer. */
#define OCC_OUTFILE_MAX_FILES 1000

typedef void (*occ_outfile_fn)(FILE *f, const void *context);

/* An output file: resolved (occ_outfile_prepare), then written. */
typedef struct occ_outfile {
  FILE *f;            /* write here, once started */
  const char *option; /* "--svg", "--output": named in messages */
  const char *given;  /* the path as the user gave it */
  char target[4096];  /* the real path: what the temporary file replaces,
                         or the stream opened in place */
  char tmp[4200];     /* the temporary file; "" when written in place */
  int alias;          /* the descriptor a /dev/std* name stands for, or -1 */
  bool in_place;      /* a character device or a FIFO */
} occ_outfile;

/* Resolves path as option's file (a symbolic link to the file it names)
 * and checks, creating nothing, that it can be written: a stream that
 * can be opened for writing, or a regular file whose folder takes a new
 * file (tried: a temporary file is created and removed); not a folder,
 * not "FILE/". Resolving before a program runs means that the program
 * cannot redirect the file by putting a symbolic link in its place.
 * Returns 0, or 2 after one line on err. */
int occ_outfile_prepare(occ_outfile *o, const char *path, const char *option,
                        FILE *err);

/* Opens a prepared o for writing: 0 with o->f open, or 2 after one line
 * on err. */
int occ_outfile_start(occ_outfile *o, FILE *err);

/* occ_outfile_prepare, then occ_outfile_start. */
int occ_outfile_open(occ_outfile *o, const char *path, const char *option,
                     FILE *err);

/* Closes o's file and, for a regular file, renames it over the target.
 * Returns 0, or 1 after one line on err naming the errno (the temporary
 * file is removed). */
int occ_outfile_commit(occ_outfile *o, FILE *err);

/* Closes o's file and removes the temporary file, writing nothing more
 * (a run interrupted by a signal). */
void occ_outfile_discard(occ_outfile *o);

/* open, write(f, context), commit: 0, 1 or 2 as they return. */
int occ_outfile_write(const char *path, const char *option,
                      occ_outfile_fn write, const void *context, FILE *err);

/* occ_outfile_prepare alone, for a check before any work: 0 or 2. */
int occ_outfile_check(const char *path, const char *option, FILE *err);

/* --svg DIR with several configurations: "DIR/" (a trailing slash) is
 * created when missing, with mode 0777 less the umask (its parent must
 * exist); the caller then checks that DIR is a folder. Returns 0, or 2
 * after one line on err. */
int occ_outfile_mkdir(const char *path, const char *option, FILE *err);

/* DIR/N-LABEL.EXT into buf: LABEL with every character but letters,
 * digits, '_', '.' and '-' replaced by '_' and cut to 120 characters
 * ("kernel" when label is NULL). */
void occ_outfile_name(char *buf, size_t size, const char *dir, long n,
                      const char *label, const char *ext);

#endif
