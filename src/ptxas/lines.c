/* lines.c - the compiler-report readers' line splitter (see lines.h). */
#include "ptxas/lines.h"

#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

int occ_lines_read_file(occ_lines *l, FILE *in, char **chunk, int *stopped) {
  enum { CHUNK_BYTES = 1 << 16 };
  if (!*chunk && !(*chunk = malloc(CHUNK_BYTES))) return -1;
  size_t n;
  while ((n = fread(*chunk, 1, CHUNK_BYTES, in)) > 0) {
    if (!*stopped) *stopped = occ_lines_feed(l, *chunk, n);
    if (*stopped) return *stopped;
  }
  return ferror(in) ? -1 : 0;
}

int occ_lines_init(occ_lines *l, size_t max, occ_line_fn fn, void *ctx) {
  *l = (occ_lines){.fn = fn, .ctx = ctx, .max = max};
  l->buf = malloc(max);
  return l->buf ? 0 : -1;
}

void occ_lines_free(occ_lines *l) {
  free(l->buf);
  l->buf = NULL;
}

/* Adds part of an unfinished line; past the limit it only remembers that
 * the line is too long. */
static void append(occ_lines *l, const char *s, size_t n) {
  l->pending = true;
  if (l->overflow || n > l->max - l->len) {
    l->overflow = true;
    return;
  }
  memcpy(l->buf + l->len, s, n);
  l->len += n;
}

static int end_pending_line(occ_lines *l) {
  int rc = l->overflow ? l->fn(l->ctx, NULL, 0) : l->fn(l->ctx, l->buf, l->len);
  l->len = 0;
  l->pending = l->overflow = false;
  return rc;
}

int occ_lines_feed(occ_lines *l, const char *data, size_t len) {
  while (len > 0) {
    const char *nl = memchr(data, '\n', len);
    size_t n = nl ? (size_t)(nl - data) : len;
    int rc = 0;
    if (nl && !l->pending) {
      /* A whole line in this chunk: handed over in place, not copied. */
      rc = n > l->max ? l->fn(l->ctx, NULL, 0) : l->fn(l->ctx, data, n);
    } else {
      append(l, data, n);
      if (nl)
        rc = end_pending_line(l);
    }
    if (rc || !nl)
      return rc;
    data = nl + 1;
    len -= n + 1;
  }
  return 0;
}

int occ_lines_finish(occ_lines *l) {
  return l->pending ? end_pending_line(l) : 0;
}

/* --- the pull splitter --- */

/* Room for a line of max bytes and its '\n' after compaction, plus a read
 * of this many bytes, so a pipe's whole content is taken at once. */
enum { READ_BYTES = 1 << 16 };

int occ_line_reader_init(occ_line_reader *r, int fd, size_t max) {
  *r = (occ_line_reader){.fd = fd, .max = max, .cap = max + 1 + READ_BYTES};
  r->buf = malloc(r->cap);
  return r->buf ? 0 : -1;
}

void occ_line_reader_free(occ_line_reader *r) {
  free(r->buf);
  r->buf = NULL;
}

/* Moves the unread bytes to the front of buf, or drops them when the line
 * they start is already over the limit. */
static void compact(occ_line_reader *r) {
  size_t unread = r->end - r->start;
  if (r->overflow || unread > r->max) {
    r->overflow = true;
    unread = 0;
  } else {
    memmove(r->buf, r->buf + r->start, unread);
  }
  r->start = 0;
  r->end = r->scanned = unread;
}

/* Appends what fd holds (at least a byte, unless at its end). Returns 0 or
 * -1 with errno. */
static int refill(occ_line_reader *r) {
  compact(r);
  for (;;) {
    ssize_t n = read(r->fd, r->buf + r->end, r->cap - r->end);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) r->at_eof = true;
    r->end += (size_t)n;
    return 0;
  }
}

/* Hands over buf[start, start + n) and moves past it and its '\n'. */
static int take_line(occ_line_reader *r, size_t n, const char **s, size_t *len) {
  bool over = r->overflow || n > r->max;
  *s = over ? NULL : r->buf + r->start;
  *len = over ? 0 : n;
  r->start = r->scanned = r->start + n + (r->start + n < r->end);
  r->overflow = false;
  return 1;
}

int occ_line_reader_next(occ_line_reader *r, const char **s, size_t *len) {
  for (;;) {
    const char *nl = memchr(r->buf + r->scanned, '\n', r->end - r->scanned);
    if (nl) return take_line(r, (size_t)(nl - (r->buf + r->start)), s, len);
    r->scanned = r->end;
    if (r->at_eof) {
      if (r->start == r->end && !r->overflow) return 0;
      return take_line(r, r->end - r->start, s, len);
    }
    if (refill(r) != 0) return -1;
  }
}
