/* log_kind.h - which reader a compiler report calls for, decided line by
 * line: the first line that only one vendor's tools write names the
 * reader (ptxas.h or amdgpu_remarks.h), wherever it comes in the input,
 * so that a caller can hand each line over as it arrives instead of
 * reading ahead. Lines both could write (warnings, source, a command line)
 * decide nothing. */
#ifndef OCC_LOG_KIND_H
#define OCC_LOG_KIND_H

#include <stddef.h>

typedef enum occ_log_kind {
  OCC_LOG_UNDECIDED, /* the line could be either's */
  OCC_LOG_NVIDIA,    /* "ptxas info|warning|error|fatal :" or cuobjdump's
                        "REG:N ..." resource line */
  OCC_LOG_AMD        /* a -Rpass-analysis=kernel-resource-usage remark */
} occ_log_kind;

/* The reader line s[0, len) (no '\n'; a '\r' may end it) calls for. */
occ_log_kind occ_log_line_kind(const char *s, size_t len);

/* Whose a kind is, for a diagnostic: "NVIDIA's (ptxas or cuobjdump)",
 * "AMD's (clang's kernel-resource-usage remarks)". */
const char *occ_log_kind_words(occ_log_kind kind);

#endif
