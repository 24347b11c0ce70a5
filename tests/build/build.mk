# The README's two commands on a fresh machine: a clean clone
# built with cJSON's header hidden in a private mount namespace
# (tests/build/fresh_build.sh). Needs root for unshare -m, else skipped; builds
# the whole tree once more (about 10 s on the 2-core development machine).
TEST_TARGETS      += test-fresh-build
SLOW_TEST_TARGETS += test-fresh-build

.PHONY: test-fresh-build

test-fresh-build:
	sh tests/build/fresh_build.sh
