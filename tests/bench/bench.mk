# Benchmarks (not tests: nothing in a test is timed). `make bench` runs
# BENCH_TARGETS on the CPU, `make bench-gpu` GPU_BENCH_TARGETS on a GPU
# machine. BENCHMARKS.md gives each one's targets and last figures.
BENCH_TARGETS     += bench-core bench-process bench-callgrind bench-charts bench-ptxas \
                     bench-run-records bench-report bench-run-attribute
GPU_BENCH_TARGETS += bench-gpu-sweep-cold bench-gpu-run bench-gpu-run-lab \
                     bench-gpu-run-torch-cache bench-gpu-run-torch-stats bench-gpu-run-small

.PHONY: $(BENCH_TARGETS) $(GPU_BENCH_TARGETS)

# The core's table engine against cuda_occupancy.h on every configuration.
build/bench_core: tests/bench/core.c $(DB_OBJS) $(DB_DATA_OBJ) $(CORE_LIB)
	$(CC) $(TEST_CPPFLAGS) -I$(CUDA)/include $(ALL_CFLAGS) -o $@ $< $(CORE_DB_LIBS)

bench-core: build/bench_core
	./build/bench_core

# The floor a report's start-up is measured against, and the timer.
build/bench_floor_calc: tests/bench/floor_calc.c
	@mkdir -p build
	$(CC) $(TEST_CPPFLAGS) -I$(CUDA)/include $(ALL_CFLAGS) -o $@ $<

build/bench_spawn: tests/bench/spawn.c
	@mkdir -p build
	$(CC) $(TEST_CPPFLAGS) $(ALL_CFLAGS) -o $@ $<

bench-process: occcalc build/bench_floor_calc build/bench_spawn
	sh tests/bench/process.sh

bench-callgrind: occcalc build/bench_floor_calc
	sh tests/bench/callgrind.sh

# Sweep engine vs occ_compute vs cuda_occupancy.h on one grid, then the
# wall time of a whole `--chart all --suggest` run.
build/bench_charts: tests/bench/charts.c tests/harness/ref_header.h $(DB_OBJS) $(DB_DATA_OBJ) $(CORE_LIB)
	$(CC) $(TEST_CPPFLAGS) -I$(CUDA)/include $(ALL_CFLAGS) -o $@ $< $(CORE_DB_LIBS)

bench-charts: build/bench_charts occcalc
	./build/bench_charts
	sh tests/bench/charts_wall.sh

# The compiler-report reader's throughput and peak RSS on synthetic logs.
bench-ptxas: occcalc
	sh tests/bench/ptxas.sh ./occcalc build/bench

# occcalc run over a program that varies its configuration 40,000 times,
# in every format, and the demangler bomb.
bench-run-records: occcalc $(INJECT_LIB) build/forge
	sh tests/bench/run_records.sh

# The attribution of sampled runs at job scale: 10 s of back-to-back
# kernels sampled every 25 us; fails past 1 s after the program or 200 MB.
build/bench_attribute: tests/bench/attribute.c build/model/attribute.o
	$(CC) $(TEST_CPPFLAGS) $(ALL_CFLAGS) -o $@ $< build/model/attribute.o -lm

bench-run-attribute: build/bench_attribute
	./build/bench_attribute

# `occcalc report` at job scale: 8 ranks x 100 configurations, 64 x 1,000
# and 64 x 5,000 of generated reports with C++ template names, and a row
# of 40,000 metrics; fails past 5 s or 300 MB at 64 x 5,000, or where time
# grows faster than the ranks x configurations or the metrics.
bench-report: occcalc build/forge $(INJECT_LIB)
	sh tests/bench/report.sh

# GPU: the cold 1000-case sweep (target: at most 10 s on an H100); with
# OCCCALC_BEFORE=PATH side by side with another binary.
bench-gpu-sweep-cold: occcalc
	sh tests/bench/sweep_cold.sh

# GPU: a live report's start-up against a program that asks the runtime.
build/bench_floor: tests/bench/floor.c build/probe_ptx.o
	$(CC) $(TEST_CPPFLAGS) -I$(CUDA)/include $(ALL_CFLAGS) -o $@ tests/bench/floor.c build/probe_ptx.o $(LDFLAGS) \
	  -L$(CUDA)/lib64 -lcudart_static -ldl -lpthread -lrt

bench-gpu-run: occcalc build/bench_floor
	sh tests/bench/gpu.sh

# GPU: the overhead of occcalc run against Nsight Compute's on the lab's
# reduction program, and on a small CUDA graph program.
bench-gpu-run-lab: occcalc $(INJECT_LIB)
	sh tests/bench/run_ncu.sh

bench-gpu-run-small: occcalc $(INJECT_LIB) build/run_graphs
	BENCH_PROG="build/run_graphs 3" sh tests/bench/run_ncu.sh

# GPU: a PyTorch program beside ncu with each cache policy, and its launch
# statistics beside ncu's launch by launch (skipped without PyTorch).
bench-gpu-run-torch-cache: occcalc $(INJECT_LIB)
	sh tests/bench/run_torch_cache.sh

bench-gpu-run-torch-stats: occcalc $(INJECT_LIB)
	sh tests/bench/run_torch_stats.sh

# A missed target fails `make bench` (OCC_BENCH_TIGHTEN makes every target
# harder; verdict.sh). A test, not a benchmark: it counts instructions.
TEST_TARGETS += test-bench-fails
test-bench-fails: occcalc build/bench_floor_calc
	sh tests/bench/fails.sh "$(MAKE)"
