# The command line: option parsing (test_cli.c), --help and the man page
# naming the same options with the man page's examples run (options.sh),
# output files written whole or not at all (files.sh), and hostile command
# lines (tests/cli/hostile/: golden cases with control characters, run by
# bash, and what a case cannot say). Its golden cases are tests/cli/cases.
UNIT_TARGETS  += test-cli-unit
CHECK_TARGETS += test-cli-unit test-options
CHECK_BINS    += build/unit_cli
TEST_TARGETS  += test-cli-unit test-options test-files test-hostile-cli

.PHONY: test-cli-unit test-options test-files test-hostile-cli

build/unit_cli: tests/cli/test_cli.c tests/harness/db_fixture.h $(LIB_OBJS)
	$(CC) $(TEST_CPPFLAGS) $(ALL_CFLAGS) -o $@ tests/cli/test_cli.c $(LIB_OBJS) $(LIBS) -lcjson -lcriterion

test-cli-unit: build/unit_cli
	./build/unit_cli --short-filename

test-options: occcalc
	sh tests/cli/options.sh

test-files: occcalc
	sh tests/cli/files.sh

test-hostile-cli: occcalc
	sh tests/cli/hostile/run.sh
