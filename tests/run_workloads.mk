# occcalc run on real workloads (issue 21): --output's patterns
# (tests/run/pattern_unit.c) and the merge of several run --json files
# (tests/run/merge_unit.c).
TEST_TARGETS += test-run-workloads

build/pattern_unit: tests/run/pattern_unit.c build/live/out_pattern.o
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ tests/run/pattern_unit.c \
	  build/live/out_pattern.o $(LDFLAGS) -lcriterion

test-run-workloads: build/pattern_unit
	./build/pattern_unit --short-filename
