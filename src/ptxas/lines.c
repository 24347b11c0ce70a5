/* lines.c - the compiler-report readers' line splitter (see lines.h). */
#include "ptxas/lines.h"

#include <stdlib.h>
#include <string.h>

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
