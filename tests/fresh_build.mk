# The README's two commands on a fresh machine (issue 17): a clean clone
# built with cJSON's header hidden in a private mount namespace
# (tests/fresh_build.sh). Needs root for unshare -m, else skipped; builds
# the whole tree once more (about a minute on 2 cores).
TEST_TARGETS += test-fresh-build

.PHONY: test-fresh-build

test-fresh-build:
	sh tests/fresh_build.sh
