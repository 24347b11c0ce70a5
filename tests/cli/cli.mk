# Golden CLI cases (tests/golden/*.case), the option/man-page agreement
# and the figures the docs quote (tests/docs_check.sh).
TEST_TARGETS += test-golden test-options test-json test-files test-layers test-docs test-sentinel

test-golden: occcalc
	sh tests/golden.sh tests/golden/*.case

test-options: occcalc
	sh tests/options.sh

test-json: occcalc build/forge
	sh tests/json_keys.sh

test-files: occcalc
	sh tests/files.sh

test-layers:
	sh tests/layers.sh

test-docs: occcalc
	sh tests/docs_check.sh

test-sentinel: occcalc
	sh tests/sentinel_check.sh
