/* out_pattern.h - Nsight Compute's report-name patterns for `occcalc run
 * --output`: one file per rank of an srun, mpirun or torchrun
 * job. A pure function: the process id, the host name and the
 * environment come from the caller. */
#ifndef OCC_OUT_PATTERN_H
#define OCC_OUT_PATTERN_H

#include <stdbool.h>
#include <stddef.h>

/* What a pattern may name. lookup returns an environment variable's value,
 * or NULL when it is not set (getenv, or a test's table). */
typedef struct occ_pattern_env {
  long pid;
  const char *host;
  const char *(*lookup)(const char *name, void *context);
  void *context;
} occ_pattern_env;

/* Expands pattern into out (size bytes, NUL-terminated):
 *   %p        the process id;
 *   %h        the host name;
 *   %q{NAME}  the environment variable NAME (letters, digits, _), which
 *             must be set (an empty value is allowed);
 *   %%        a %.
 * Any other % is an error, as is a result of size bytes or more. Returns
 * true, or false with why (why_size bytes) saying which part and why, in
 * the words `occcalc: --output: PATTERN: <why>` can end with. */
bool occ_out_pattern_expand(const char *pattern, const occ_pattern_env *env,
                            char *out, size_t size, char *why, size_t why_size);

/* Whether pattern holds a % at all (then it is expanded per process). */
bool occ_out_pattern_has(const char *pattern);

#endif
