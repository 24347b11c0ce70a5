/* records.h - the reader of the launch records a program under
 * `occcalc run` leaves in its records' file (model/launch_record.h).
 *
 * The program can write anything into that file (any process of its tree
 * knows the path), so nothing in it is trusted: every field of a record
 * is checked against its range and a record that fails is skipped and
 * counted, never shown; a string without its NUL is refused, not
 * terminated. The file is read in large blocks from where the last read
 * stopped, holes skipped (SEEK_DATA), and no further than the caps below,
 * whatever its size. An all-zero block reads as a hole: whether a hole is
 * reported as data depends on the file system, and the count must not. */
#ifndef OCC_RECORDS_H
#define OCC_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/launch_record.h"

/* Nothing at or past this offset of the file is read. */
#define OCC_RECORDS_MAX_BYTES ((uint64_t)1 << 30)
/* Records kept (about 0.9 GB of memory). */
#define OCC_RECORDS_MAX 1000000
/* Device ordinals a record may name: 0 to this - 1. */
#define OCC_RECORD_DEVICES 64

/* Called with each record accepted, in file order; the pointer is into
 * the set's array (valid until the next read grows it). */
typedef void (*occ_record_fn)(const occ_launch_record *record, void *context);

typedef struct occ_records {
  occ_launch_record *at;     /* the records accepted, in file order */
  size_t count, capacity;
  size_t skipped_count;      /* blocks refused (all-zero blocks aside) */
  uint64_t first_skipped_offset; /* the first one's place in the file */
  char first_skipped_why[128];
  size_t partial_bytes;      /* an incomplete record at the end of the file
                                when last read (the program's last write, or
                                stray bytes once it has exited) */
  uint64_t partial_offset;   /* where it begins */
  char unread_why[160];      /* why the file was not read to its end: a cap
                                or a read error; "" when it was */
  bool out_of_memory;        /* reading stopped: no memory for a record */
  uint64_t max_bytes;        /* caps; 0 (the zeroed set): the defaults */
  size_t max_records;
  unsigned char *buffer;     /* the reader's */
} occ_records;

/* What one OCC_RECORD_BYTES block is. */
typedef enum occ_record_verdict {
  OCC_RECORD_BAD = -1,  /* refused: why says which field and its range */
  OCC_RECORD_EMPTY = 0, /* all zero bytes: a hole */
  OCC_RECORD_OK = 1     /* *out holds it, its strings zero-padded */
} occ_record_verdict;

occ_record_verdict occ_record_check(const unsigned char *block,
                                    occ_launch_record *out, char *why,
                                    size_t why_size);

/* Reads the whole records of fd from *offset on, up to its end or a cap,
 * into set, calling fn (may be NULL) with each record accepted; *offset
 * ends past the last whole record read. A read error or a cap ends the
 * reading with the reason in set->unread_why, and running out of memory
 * with set->out_of_memory: later calls read nothing. Returns the records
 * added. */
size_t occ_records_read(occ_records *set, int fd, uint64_t *offset,
                        occ_record_fn fn, void *context);

/* Adds the records of size bytes of a file's contents read from offset
 * (whole blocks; a partial one at the end counts in partial_bytes). The
 * same checks and caps as occ_records_read, for a file already in
 * memory. Returns the records added. */
size_t occ_records_add(occ_records *set, const unsigned char *bytes,
                       size_t size, uint64_t offset, occ_record_fn fn,
                       void *context);

/* The latest end of a record (CUPTI's clock), or 0 where the set may lack
 * some (a cap, a read error, out of memory): what PM sampling must cover
 * once the program has ended. */
uint64_t occ_records_last_end(const occ_records *set);

/* Frees what set holds and zeroes it; NULL-safe. */
void occ_records_free(occ_records *set);

#endif
