# CPU benchmarks of the calculator (not tests: nothing here is timed in a
# test). `make bench` runs every BENCH_TARGETS entry.
BENCH_TARGETS += bench-core bench-process bench-callgrind

build/bench_core: tests/bench_core.c $(DB_OBJS) $(DB_DATA_OBJ) $(CORE_LIB)
	$(CC) $(ALL_CPPFLAGS) -I$(CUDA)/include $(ALL_CFLAGS) -o $@ $< $(CORE_DB_LIBS)

bench-core: build/bench_core
	./build/bench_core

# The floor a report's start-up is measured against, and the timer.
build/bench_floor_calc: tests/bench_floor_calc.c
	@mkdir -p build
	$(CC) $(ALL_CPPFLAGS) -I$(CUDA)/include $(ALL_CFLAGS) -o $@ $<

build/bench_spawn: tests/bench_spawn.c
	@mkdir -p build
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ $<

bench-process: occcalc build/bench_floor_calc build/bench_spawn
	sh tests/bench_process.sh

bench-callgrind: occcalc build/bench_floor_calc
	sh tests/bench_callgrind.sh

# A missed target fails `make bench` (OCC_BENCH_TIGHTEN makes targets
# harder; bench_verdict.sh). A test, not a benchmark: instruction counts.
TEST_TARGETS += test-bench-fails
test-bench-fails: occcalc build/bench_floor_calc
	sh tests/bench_fails.sh "$(MAKE)"
