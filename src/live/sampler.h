/* sampler.h - `occcalc run --measure sample`: occcalc samples the GPUs
 * with CUPTI's PM sampling (sm__warps_active.sum, sm__cycles_active.sum
 * at a fixed GPU-time interval) for the program's whole life, from a
 * child process of its own, never from inside the program: the
 * program's launches are not replayed or serialised, every process and
 * every graph node is covered.
 *
 * Why a child: the sampler is the one part of occcalc that holds a GPU's
 * counters, and a GPU whose sampler ended without Stop and Disable was
 * seen refusing every later profiler with CUPTI_ERROR_HARDWARE_BUSY, and
 * new contexts, for the rest of that machine's life. The child dies with
 * occcalc (PR_SET_PDEATHSIG, and the end of its control pipe), so even a
 * SIGKILL of occcalc ends the sampling cleanly; it ignores the terminal's
 * SIGINT and SIGQUIT (the program's ^C), and stops cleanly on SIGTERM and
 * SIGHUP. Samples go to a temporary file (model/pm_sample.h), read
 * after the program by live/sample_file.c; the status of each device
 * through a pipe. */
#ifndef OCC_SAMPLER_H
#define OCC_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "model/pm_sample.h"

typedef struct occ_sampler_spec {
  int device;              /* the only ordinal sampled, or -1 for all */
  uint64_t interval_ns;    /* the sampling interval */
  bool wait_started;       /* occ_sampler_start returns once sampling
                              runs; else once the counters were claimed
                              (sampling starts beside the program) */
  bool gate;               /* make the gate (gate_fd, gate_env) */
} occ_sampler_spec;

typedef struct occ_sampler {
  pid_t pid;               /* the child; 0 when none */
  int control_fd;          /* closed to stop it */
  int status_fd;           /* its statuses */
  int samples_fd;          /* the samples' file, unlinked */
  /* The gate: the program's first launch waits (inject.c) until this
   * pipe's only write end, the child's, is closed, which it is once
   * every device samples or has failed, or when the child ends. The
   * read end is inherited by the program; gate_env (OCC_ENV_GATE) names
   * it as "FD:DEV:INODE". -1 and "" without spec->gate. */
  int gate_fd;
  char gate_env[64];
  occ_sampler_status status; /* the last status read */
  /* The samples' file's bytes to read (the final status's; the child
   * may still write past them), or UINT64_MAX where it ended without
   * one. */
  uint64_t samples_bytes;
} occ_sampler;

/* Starts sampling every device (or spec->device) and waits until each
 * is claimed (its counters found free or busy) or, with
 * spec->wait_started, has started: 0 with s->status the devices' states,
 * or -1 with why (no child, no file). Per device failures (no support,
 * no permission, counters busy) are in the status, not here. */
int occ_sampler_start(const occ_sampler_spec *spec, occ_sampler *s,
                      char *why, size_t why_size);

/* Asks the child to stop and reads its final status into s->status,
 * once the samples reach covered_to (CUPTI's clock, the launch records'
 * too: the last launch's end), or, where covered_to is 0, the moment it
 * was asked; every sample up to then is in the file. The child then
 * stops and disables sampling and ends on its own.
 * Returns 0, or -1 with why (the child died: its status is the first
 * one, with why). The samples stay in s->samples_fd (rewound; read
 * s->samples_bytes of them) until occ_sampler_close. */
int occ_sampler_stop(occ_sampler *s, uint64_t covered_to, char *why,
                     size_t why_size);

/* Closes what occ_sampler_start opened; a child still running is
 * stopped first. Its Disable is not waited for (sampler.c). */
void occ_sampler_close(occ_sampler *s);

#endif
