/* lines.h - the line splitters of the compiler-report readers (ptxas.h,
 * amdgpu_remarks.h) and of occcalc --ptxas. Two shapes over one contract:
 * occ_lines is pushed bytes in chunks of any size and hands each complete
 * line to a callback of its own layer's reader; occ_line_reader is pulled
 * by a caller in a higher layer, which asks for the next complete line and
 * so never is called back. Memory is fixed when either is set up: a line
 * longer than its limit is never buffered, only reported as overlong, so
 * the reader counts it without holding it. */
#ifndef OCC_PTXAS_LINES_H
#define OCC_PTXAS_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* One complete line: s[0, len), without its '\n' (a '\r' before it is
 * kept), or s NULL and len 0 for a line over the limit. A non-zero return
 * stops the splitter: occ_lines_feed and occ_lines_finish return it. */
typedef int (*occ_line_fn)(void *ctx, const char *s, size_t len);

typedef struct occ_lines {
  occ_line_fn fn;
  void *ctx;
  size_t max; /* the longest line handed over, in bytes */
  char *buf;  /* the start of a line split across chunks (max bytes) */
  size_t len;
  bool pending;  /* buf holds the start of an unfinished line */
  bool overflow; /* the unfinished line is over max */
} occ_lines;

/* Sets l up for lines of at most max bytes, each handed to fn with ctx.
 * Returns 0, or -1 when out of memory. occ_lines_free frees what it
 * allocated (safe after a failed init or on a zeroed occ_lines). */
int occ_lines_init(occ_lines *l, size_t max, occ_line_fn fn, void *ctx);
void occ_lines_free(occ_lines *l);

/* Hands over every line that data[0, len) completes and keeps the start of
 * an unfinished one. Returns 0, or fn's first non-zero value, where it
 * stopped (the rest of data then unread). */
int occ_lines_feed(occ_lines *l, const char *data, size_t len);

/* Hands over the unfinished last line (a stream without a final '\n'), if
 * any. Returns 0 or fn's value. */
int occ_lines_finish(occ_lines *l);

/* Feeds in, to its end, in chunks of a buffer allocated into *chunk on
 * the first call (the reader frees it), unless *stopped, the reader's
 * record of fn's first non-zero value, is or becomes set. Returns 0 at the
 * end of in (the reader then finishes), *stopped, or -1 on a read error
 * or when out of memory. */
int occ_lines_read_file(occ_lines *l, FILE *in, char **chunk, int *stopped);

/* The pull splitter: reads a file descriptor with read(2), which returns
 * what a pipe holds where stdio would wait for a whole buffer, and only
 * when no complete line is buffered, so a caller that handles each line
 * before it asks for the next sees every line as soon as it has arrived. */
typedef struct occ_line_reader {
  int fd;
  size_t max; /* the longest line handed over, in bytes */
  char *buf;  /* cap bytes: the lines read and not yet handed over */
  size_t cap;
  size_t start; /* buf[start, end) is unread; no '\n' in buf[start, scanned) */
  size_t end;
  size_t scanned;
  bool overflow; /* the line being read is over max: its bytes dropped */
  bool at_eof;
} occ_line_reader;

/* Sets r up to read fd (left open) in lines of at most max bytes. Returns
 * 0, or -1 when out of memory. occ_line_reader_free frees what it
 * allocated (safe after a failed init or on a zeroed occ_line_reader). */
int occ_line_reader_init(occ_line_reader *r, int fd, size_t max);
void occ_line_reader_free(occ_line_reader *r);

/* The next complete line, as occ_line_fn receives one: *s, *len set to
 * bytes valid until the next call (without the '\n'; a '\r' before it is
 * kept), or *s NULL and *len 0 for a line over the limit; an unfinished
 * last line (no final '\n') is a line. Returns 1 with a line, 0 at the end
 * of the input, or -1 with errno on a read error. */
int occ_line_reader_next(occ_line_reader *r, const char **s, size_t *len);

#endif
