# The explore features: sweep engine, charts, suggestions.
TEST_TARGETS += test-sweep

build/sweep_check: tests/sweep_check.c tests/ref_header.h $(LIB_OBJS)
	$(CC) $(ALL_CPPFLAGS) -I$(CUDA)/include $(ALL_CFLAGS) -o $@ $< $(LIB_OBJS) $(LIBS)

# The sweep engine against cuda_occupancy.h and occ_compute on every
# architecture's full grid.
test-sweep: build/sweep_check
	./build/sweep_check

BENCH_TARGETS += bench-explore

build/bench_explore: tests/bench_explore.c tests/ref_header.h $(LIB_OBJS)
	$(CC) $(ALL_CPPFLAGS) -I$(CUDA)/include $(ALL_CFLAGS) -o $@ $< $(LIB_OBJS) $(LIBS)

# Sweep engine vs occ_compute vs cuda_occupancy.h on one grid.
bench-explore: build/bench_explore
	./build/bench_explore
