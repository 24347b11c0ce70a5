# The explore features: the sweep engine, charts and suggestions.
# (Their Criterion unit tests, tests/test_explore.c, run in test-unit.)
TEST_TARGETS += test-sweep test-explore-golden test-explore-svg
BENCH_TARGETS += bench-explore

build/sweep_check: tests/sweep_check.c tests/ref_header.h $(DB_OBJS) $(DB_DATA_OBJ) $(CORE_LIB)
	$(CC) $(ALL_CPPFLAGS) -I$(CUDA)/include $(ALL_CFLAGS) -o $@ $< $(CORE_DB_LIBS)

build/bench_explore: tests/bench_explore.c tests/ref_header.h $(DB_OBJS) $(DB_DATA_OBJ) $(CORE_LIB)
	$(CC) $(ALL_CPPFLAGS) -I$(CUDA)/include $(ALL_CFLAGS) -o $@ $< $(CORE_DB_LIBS)

# The sweep engine against cuda_occupancy.h and occ_compute on every
# architecture's full grid.
test-sweep: build/sweep_check
	./build/sweep_check

# Golden CLI cases of charts and suggestions (the format of tests/golden).
test-explore-golden: occcalc
	sh tests/golden.sh tests/golden-explore/*.case

# The SVG charts' structure (skips without xmllint).
test-explore-svg: occcalc
	sh tests/svg_check.sh

# Sweep engine vs occ_compute vs cuda_occupancy.h on one grid, then the
# wall time of a whole `--chart all --suggest` run.
bench-explore: build/bench_explore occcalc
	./build/bench_explore
	sh tests/bench_explore_wall.sh
