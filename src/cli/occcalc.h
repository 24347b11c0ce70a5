/* occcalc.h - the whole program as a function, for main() and for the
 * command-line fuzzer (tests/fuzz/fuzz_cli.c). */
#ifndef OCC_OCCCALC_H
#define OCC_OCCCALC_H

/* Runs occcalc with argv (argv[0] the program's name) and returns its exit
 * status. Writes to stdout and stderr; never exits; keeps no state from
 * one call to the next (all it allocates is freed, getopt restarted). */
int occ_main(int argc, char **argv);

#endif
