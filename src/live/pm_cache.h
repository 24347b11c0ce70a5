/* pm_cache.h - a GPU's PM-sampling counter availability image, kept
 * between runs. Reading it from the GPU is the slowest step of the
 * sampler's set-up (0.14 to 0.28 s on an H100 and an H200, where
 * configuring from it takes 0.005 s), and it is the same run after run
 * for one chip under one driver and one CUPTI. The file is named by all
 * three, checked by its size and a checksum, and written whole (a
 * temporary file renamed), so that a reader never sees half of one. A
 * stale image makes the configuration fail, and the sampler then reads
 * it afresh (sampler.c). */
#ifndef OCC_PM_CACHE_H
#define OCC_PM_CACHE_H

#include <stddef.h>
#include <stdint.h>

/* The image's path in dir for the chip, CUPTI version and driver
 * version: 0, or -1 when it does not fit (or the chip's name has a
 * character other than a letter, a digit, '-' or '_'). */
int occ_pm_cache_path(char *path, size_t size, const char *dir,
                      const char *chip, uint32_t cupti_version,
                      int driver_version);

/* The directory: $XDG_CACHE_HOME/occcalc, else $HOME/.cache/occcalc,
 * made (mode 0700) where missing. 0, or -1 with none. */
int occ_pm_cache_dir(char *dir, size_t size);

/* The image in path, malloc'd, with its size: NULL when there is none or
 * the file is not a whole one (wrong magic, size or checksum). */
uint8_t *occ_pm_cache_read(const char *path, size_t *size);

/* Writes the image to path (through path.PID, renamed). 0, or -1. */
int occ_pm_cache_write(const char *path, const uint8_t *image, size_t size);

#endif
