# Golden CLI cases (tests/golden/*.case) and the option/man-page agreement.
TEST_TARGETS += test-golden test-options test-json test-files test-layers

test-golden: occcalc
	sh tests/golden.sh tests/golden/*.case

test-options: occcalc
	sh tests/options.sh

test-json: occcalc
	sh tests/json_keys.sh

test-files: occcalc
	sh tests/files.sh

test-layers:
	sh tests/layers.sh
