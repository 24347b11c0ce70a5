/* inject_turns.h - the processes of one `occcalc run` take turns for a
 * GPU's counters: a GPU's performance counters serve one
 * profiling session at a time, and a second process that opens one gets
 * CUPTI_ERROR_HARDWARE_BUSY. A turn is a POSIX record lock on a byte of
 * the run's lock file (its records' file with ".lock" appended, made
 * by occcalc before the program starts and removed after it), one byte per GPU,
 * named by the GPU's PCI address so that CUDA_VISIBLE_DEVICES cannot make two
 * names of one GPU. A process that wants the turn holds a shared lock on the
 * byte beside it, which the holder sees and yields to after its slice.
 *
 * Nobody waits: a process whose GPU's turn is held goes on unmeasured
 * and tries again at its next launch. Waiting could deadlock ranks that
 * wait for each other in a collective (the holder blocked in an
 * all-reduce never reaches the launch where it would yield), and a GPU
 * used by no other process is never held back. Record locks are the
 * process's: a child does not inherit them, and they go when the process
 * ends, however it ends. Plain POSIX, no CUDA: tests/run/turns_unit.c
 * drives it with processes of its own. */
#ifndef OCC_INJECT_TURNS_H
#define OCC_INJECT_TURNS_H

#include <stdbool.h>
#include <stdint.h>

/* Opens records_path + ".lock", which occcalc made (src/live/run.c);
 * -1 when it cannot (turns are then not taken: the process profiles as
 * it would alone). */
int occ_turns_open(const char *records_path);

/* The GPU's key: its PCI domain, bus and device. */
uint64_t occ_turns_key(int pci_domain, int pci_bus, int pci_device);

/* Takes the GPU's turn if it is free, without waiting; if not, marks the
 * process as wanting it (until it gets it). */
bool occ_turns_try(int fd, uint64_t key);

/* Whether another process wants the turn this one holds. */
bool occ_turns_wanted(int fd, uint64_t key);

/* Gives the turn back. */
void occ_turns_give(int fd, uint64_t key);

#endif
