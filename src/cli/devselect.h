/* devselect.h - turning --gpu / --arch / --cc / $OCCCALC_GPU / --data into
 * one occ_device, with the diagnostics a user sees when that fails: the
 * database layer resolves (db/select.h), this file words its outcome, and
 * its callers choose when each message comes. */
#ifndef OCC_DEVSELECT_H
#define OCC_DEVSELECT_H

#include <stdio.h>

#include "cli/cli.h"
#include "db/gpudb.h"
#include "db/select.h"

/* Loads the database (--data FILE or the built-in one) into *db. Returns
 * OCC_EXIT_OK, or after writing the one-line reason to err (*db NULL)
 * OCC_EXIT_FAILURE out of memory, OCC_EXIT_USAGE for a bad file. */
int occ_load_database(const occ_cli *cli, FILE *err, occ_gpudb **db);

/* The diagnostic of a selection that failed before the target's vendor
 * is known: the database did not load, --arch names an AMD target AMD's
 * table lacks, or a board's name (--gpu, $OCCCALC_GPU) is neither
 * vendor's. Returns OCC_EXIT_USAGE after writing it to err, else
 * OCC_EXIT_OK (nothing written). */
int occ_target_vendor_error(const occ_target *target, FILE *err);

/* The NVIDIA device of a resolved target, with --sms applied, and *note
 * as occ_select_device gives it. An AMD target, or an NVIDIA lookup that
 * failed (an arch that is no capability's name, an unknown capability or
 * board), is a usage error written to err: returns OCC_EXIT_USAGE, else
 * OCC_EXIT_OK. */
int occ_target_device(const occ_cli *cli, const occ_target *target,
                      occ_device *device, const char **note, FILE *err);

/* Selects the device the command line names, or the default board, and
 * applies --sms. When the default was used, *note gets the sentence to
 * print once the rest of the input is known to be good (else NULL).
 * Returns OCC_EXIT_OK or OCC_EXIT_USAGE (after the diagnostic on err). */
int occ_select_device(const occ_gpudb *db, const occ_cli *cli,
                      occ_device *device, const char **note, FILE *err);

/* Writes the boards and architectures of the database as a table or as
 * JSON. Returns OCC_EXIT_OK or OCC_EXIT_FAILURE (out of memory). */
int occ_list_gpus(const occ_gpudb *db, bool json, FILE *out);

#endif
