/* main.c - occcalc's entry point: the program is occ_main (occcalc.c), so
 * that a fuzzer can run it in-process. */
#include "cli/occcalc.h"

int main(int argc, char **argv) { return occ_main(argc, argv); }
