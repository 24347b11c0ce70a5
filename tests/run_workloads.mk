# occcalc run on real workloads: --output's patterns
# (tests/run/pattern_unit.c) and the merge of several run --json files
# (tests/run/merge_unit.c) and `occcalc report` over two ranks' files and
# bad ones (tests/run/report.sh), the counters' turns between processes
# (tests/run/turns_unit.c).
TEST_TARGETS += test-run-workloads

build/pattern_unit: tests/run/pattern_unit.c build/live/out_pattern.o
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ tests/run/pattern_unit.c \
	  build/live/out_pattern.o $(LDFLAGS) -lcriterion


build/merge_unit: tests/run/merge_unit.c build/db/run_merge.o
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ tests/run/merge_unit.c \
	  build/db/run_merge.o $(LDFLAGS) -lcjson -lm -lcriterion

test-run-workloads: occcalc build/forge build/pattern_unit build/merge_unit \
                    build/turns_unit
	./build/pattern_unit --short-filename
	sh tests/run/output_patterns.sh
	./build/merge_unit --short-filename
	sh tests/run/report.sh
	./build/turns_unit --short-filename

build/turns_unit: tests/run/turns_unit.c src/inject/inject_turns.c src/inject/inject_turns.h
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ tests/run/turns_unit.c \
	  src/inject/inject_turns.c $(LDFLAGS) -lcriterion

# GPU: every launch's SM configuration and blocks per SM at launch against
# ncu's under the default counters (tests/run/carveouts.cu), and two
# processes of one run on one GPU both measured (tests/run/turns.cu).
GPU_TEST_TARGETS += test-gpu-run-carveouts test-gpu-run-turns test-gpu-run-graphs

build/run_carveouts: tests/run/carveouts.cu
	@mkdir -p build
	$(NVCC) -O2 -arch=native -o $@ $<

build/run_turns: tests/run/turns.cu
	@mkdir -p build
	$(NVCC) -O2 -arch=native -o $@ $<

test-gpu-run-carveouts: occcalc $(INJECT_LIB) build/run_carveouts
	sh tests/run/carveouts.sh build/run_carveouts

test-gpu-run-turns: occcalc $(INJECT_LIB) build/run_turns
	sh tests/run/turns.sh build/run_turns

# GPU: a CUDA graph's program beside ncu --graph-profiling node, with each
# cache policy (tests/run/graphs.cu); and the small program's overhead
# against ncu's (make bench-gpu-run-small).
build/run_graphs: tests/run/graphs.cu
	@mkdir -p build
	$(NVCC) -O2 -arch=native -o $@ $<

test-gpu-run-graphs: occcalc $(INJECT_LIB) build/run_graphs
	sh tests/run/graphs.sh build/run_graphs

# A PyTorch program beside ncu with each cache policy (tests/run/
# torch_cache.sh; skipped without PyTorch).
GPU_BENCH_TARGETS += bench-gpu-run-torch-cache
bench-gpu-run-torch-cache: occcalc $(INJECT_LIB)
	sh tests/run/torch_cache.sh

# The same program's launch statistics beside ncu's, launch by launch
# (tests/run/torch_stats.sh; skipped without PyTorch).
GPU_BENCH_TARGETS += bench-gpu-run-torch-stats
bench-gpu-run-torch-stats: occcalc $(INJECT_LIB)
	sh tests/run/torch_stats.sh

GPU_BENCH_TARGETS += bench-gpu-run-small
bench-gpu-run-small: occcalc $(INJECT_LIB) build/run_graphs
	BENCH_PROG="build/run_graphs 3" sh tests/run/bench.sh
