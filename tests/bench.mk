# CPU benchmarks of the calculator (not tests: nothing here is timed in a
# test). `make bench` runs every BENCH_TARGETS entry.
BENCH_TARGETS += bench-core bench-process

build/bench_core: tests/bench_core.c $(DB_OBJS) $(DB_DATA_OBJ) $(CORE_LIB)
	$(CC) $(ALL_CPPFLAGS) -I$(CUDA)/include $(ALL_CFLAGS) -o $@ $< $(CORE_DB_LIBS)

bench-core: build/bench_core
	./build/bench_core

bench-process: occcalc
	sh tests/bench_process.sh
