# occcalc run: the launcher, the injection library, the records, the
# report, and occcalc report. Its golden cases are tests/run/cases.
# CPU:
# - test-run-unit (Criterion): the injection library's counters logic
#   against a fake Range Profiler (inject_counters_unit.c), the records'
#   reader caps and hash index (records_unit.c), --output's patterns
#   (pattern_unit.c), the merge of several run --json files
#   (merge_unit.c), the counters' turns between processes (turns_unit.c),
#   the records joined into measured rows by the model, each row computed
#   on its device, and the launches and the sampler's status handed to
#   the attribution (rows_unit.c).
# - test-run: the launcher's statuses, usage errors, the library's exports
#   and the report's path with fake records (cpu_test.sh, fake_launches.c).
# - test-run-hostile: hostile programs, descriptors, signals and output
#   paths (hostile_test.sh).
# - test-run-records: records a hostile program forged (forge.c,
#   records_test.sh; OCCCALC= and FORGE= run the same cases on another
#   build).
# - test-run-workloads: --output's patterns end to end
#   (output_patterns.sh), `occcalc report` over two ranks' files and bad,
#   forged, repeated and extreme ones, and a closed stdout (report.sh),
#   output names up to 255 bytes (long_names.sh).
# - test-run-plural: a count of one is singular in run's text: every
#   template with a count read from the writers' sources, and forged runs
#   at counts of one and two (plural.py).
# - test-run-attribute: achieved occupancy from PM samples (--measure
#   sample): the attribution over synthetic sample streams and launch
#   records (shared samples split by the kernels' rates, an allocation
#   failing, a part past an SM's warps), and the samples' reader
#   (attribute_unit.c).
# - test-run-trace: --trace's Chrome trace read back (trace_test.sh,
#   trace_check.py).
# - test-run-timeline: --svg's timeline read back as XML (timeline_test.sh,
#   timeline_forge.py).
# - test-run-trace-view (slow: a browser): a forged run's --trace opened in
#   Chrome DevTools' Performance panel in a headless Chromium, what it
#   parsed read back and the page photographed (trace_view.sh,
#   trace_view.py); skipped without Chromium, which CI does not install.
# GPU: the records of launches.cu against what it launched, and achieved
# occupancy against Nsight Compute when ncu is present (test-gpu-run);
# every launch's SM configuration and blocks per SM against ncu's
# (carveouts.cu); two processes of one run on one GPU both measured
# (turns.cu); a CUDA graph's program beside ncu --graph-profiling node,
# with each cache policy (graphs.cu); a PyTorch program's own profiler
# refused and reported (test-gpu-run-client). gpu-driver-calls (no test,
# no target) logs the small program's and the sampler's calls into the
# NVIDIA driver (tests/bench/driver_calls.c and .py).
UNIT_TARGETS     += test-run-unit test-run-attribute
CHECK_TARGETS    += test-run-unit test-run-attribute
CHECK_BINS       += build/unit_run_inject build/records_unit build/pattern_unit \
                    build/merge_unit build/turns_unit build/attribute_unit \
                    build/rows_unit build/pm_cache_unit
TEST_TARGETS     += test-run-trace test-run-timeline test-run-trace-view
SLOW_TEST_TARGETS += test-run-trace-view
TEST_TARGETS     += test-run-unit test-run test-run-hostile test-run-records \
                    test-run-workloads test-run-plural
GPU_TEST_TARGETS += test-gpu-run test-gpu-run-carveouts test-gpu-run-turns \
                    test-gpu-run-graphs test-gpu-run-sample test-gpu-run-client

.PHONY: test-run-trace test-run-timeline test-run-trace-view test-run-attribute test-gpu-run-sample test-run-unit test-run test-run-hostile test-run-records test-run-workloads test-run-plural \
        test-gpu-run test-gpu-run-carveouts test-gpu-run-turns test-gpu-run-graphs \
        test-gpu-run-client

build/unit_run_inject: tests/run/inject_counters_unit.c build/inject/inject/inject_counters.o
	$(CC) $(TEST_CPPFLAGS) -I$(CUDA)/include -Ibuild/cshim $(ALL_CFLAGS) \
	  -o $@ $^ -lcriterion -lpthread

build/records_unit: tests/run/records_unit.c build/live/records.o build/model/run_index.o \
                    $(DB_OBJS) $(DB_DATA_OBJ) $(CORE_LIB)
	$(CC) $(TEST_CPPFLAGS) $(ALL_CFLAGS) -o $@ tests/run/records_unit.c \
	  build/live/records.o build/model/run_index.o $(CORE_DB_LIBS) $(LDFLAGS) -lcriterion

build/pm_cache_unit: tests/run/pm_cache_unit.c build/live/pm_cache.o $(CORE_LIB)
	$(CC) $(TEST_CPPFLAGS) $(ALL_CFLAGS) -o $@ tests/run/pm_cache_unit.c \
	  build/live/pm_cache.o $(LDFLAGS) -lcriterion

build/pattern_unit: tests/run/pattern_unit.c build/live/out_pattern.o
	$(CC) $(TEST_CPPFLAGS) $(ALL_CFLAGS) -o $@ tests/run/pattern_unit.c \
	  build/live/out_pattern.o $(LDFLAGS) -lcriterion

build/merge_unit: tests/run/merge_unit.c $(LIBOCC)
	$(CC) $(TEST_CPPFLAGS) $(ALL_CFLAGS) -o $@ tests/run/merge_unit.c \
	  $(LIBOCC) $(LDFLAGS) -lcjson -lm -lcriterion -Wl,-Bstatic -lstdc++ \
	  -Wl,-Bdynamic

build/rows_unit: tests/run/rows_unit.c $(LIBOCC)
	$(CC) $(TEST_CPPFLAGS) $(ALL_CFLAGS) -o $@ tests/run/rows_unit.c \
	  $(LIBOCC) $(LDFLAGS) -lcjson -lm -lcriterion -Wl,-Bstatic -lstdc++ \
	  -Wl,-Bdynamic

build/turns_unit: tests/run/turns_unit.c src/inject/inject_turns.c src/inject/inject_turns.h
	$(CC) $(TEST_CPPFLAGS) $(ALL_CFLAGS) -o $@ tests/run/turns_unit.c \
	  src/inject/inject_turns.c $(LDFLAGS) -lcriterion

test-run-unit: build/unit_run_inject build/records_unit build/pattern_unit build/merge_unit \
               build/turns_unit build/rows_unit build/pm_cache_unit
	./build/unit_run_inject --short-filename
	./build/records_unit --short-filename
	./build/pattern_unit --short-filename
	./build/merge_unit --short-filename
	./build/turns_unit --short-filename
	./build/pm_cache_unit --short-filename
	./build/rows_unit --short-filename

build/fake_launches: tests/run/fake_launches.c src/model/launch_record.h
	@mkdir -p build
	$(CC) $(TEST_CPPFLAGS) $(ALL_CFLAGS) -o $@ $<

build/named_launch: tests/run/named_launch.c src/model/launch_record.h
	@mkdir -p build
	$(CC) $(TEST_CPPFLAGS) $(ALL_CFLAGS) -o $@ $<

build/forge: tests/run/forge.c src/model/launch_record.h
	@mkdir -p build
	$(CC) $(TEST_CPPFLAGS) $(ALL_CFLAGS) -o $@ $<

# A program with its own CUPTI client, over fake CUPTIs: the program's
# refuses (39, CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED), another
# in the global scope would accept (libocc_preload.so's tests).
CUPTI_FAKE = build/cupti_fake
$(CUPTI_FAKE)/libfakecupti_program.so: tests/run/fake_cupti.c
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CPPFLAGS) -I$(CUDA)/include $(ALL_CFLAGS) -fPIC -shared \
	  -DVERDICT=39 -o $@ $<
$(CUPTI_FAKE)/libfakecupti_other.so: tests/run/fake_cupti.c
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CPPFLAGS) -I$(CUDA)/include $(ALL_CFLAGS) -fPIC -shared \
	  -DVERDICT=0 -o $@ $<
$(CUPTI_FAKE)/libcupti_user.so: tests/run/cupti_user.c $(CUPTI_FAKE)/libfakecupti_program.so
	$(CC) $(TEST_CPPFLAGS) -I$(CUDA)/include $(ALL_CFLAGS) -fPIC -shared \
	  -o $@ $< -L$(CUPTI_FAKE) -lfakecupti_program -Wl,-rpath,'$$ORIGIN'
build/cupti_client: tests/run/cupti_client.c $(CUPTI_FAKE)/libcupti_user.so \
                    $(CUPTI_FAKE)/libfakecupti_other.so
	$(CC) $(TEST_CPPFLAGS) $(ALL_CFLAGS) -o $@ $< -ldl

test-run: occcalc $(INJECT_LIB) build/fake_launches build/cupti_client
	sh tests/run/cpu_test.sh

test-run-hostile: occcalc $(INJECT_LIB) build/fake_launches build/named_launch
	sh tests/run/hostile_test.sh

test-run-records: occcalc $(INJECT_LIB) build/forge
	sh tests/run/records_test.sh

test-run-plural: occcalc $(INJECT_LIB) build/forge
	python3 tests/run/plural.py ./occcalc build/forge

test-run-workloads: occcalc build/forge
	sh tests/run/output_patterns.sh
	sh tests/run/report.sh
	sh tests/run/long_names.sh

build/run_launches: tests/run/launches.cu
	@mkdir -p build
	$(NVCC) -O2 -arch=native -o $@ $<

build/run_carveouts: tests/run/carveouts.cu
	@mkdir -p build
	$(NVCC) -O2 -arch=native -o $@ $<

build/run_turns: tests/run/turns.cu
	@mkdir -p build
	$(NVCC) -O2 -arch=native -o $@ $<

build/run_graphs: tests/run/graphs.cu
	@mkdir -p build
	$(NVCC) -O2 -arch=native -o $@ $<

test-gpu-run: occcalc $(INJECT_LIB)
	sh tests/run/gpu_test.sh

test-gpu-run-carveouts: occcalc $(INJECT_LIB) build/run_carveouts
	sh tests/run/carveouts.sh build/run_carveouts

test-gpu-run-turns: occcalc $(INJECT_LIB) build/run_turns
	sh tests/run/turns.sh build/run_turns

test-gpu-run-graphs: occcalc $(INJECT_LIB) build/run_graphs
	sh tests/run/graphs.sh build/run_graphs

# --wrap=realloc: the test makes the attribution's allocations fail.
build/attribute_unit: tests/run/attribute_unit.c build/model/attribute.o \
                      build/model/measure.o build/live/sample_file.o $(LIB_OBJS)
	$(CC) $(TEST_CPPFLAGS) $(ALL_CFLAGS) -o $@ tests/run/attribute_unit.c \
	  $(LIB_OBJS) $(LDFLAGS) -Wl,--wrap=realloc $(LIBS)

test-run-attribute: build/attribute_unit
	./build/attribute_unit

# --measure sample beside Nsight Compute (sample_gpu.sh): serial kernels
# (serial.cu), a CUDA graph (graphs.cu), a PyTorch program with a
# captured graph and two torchrun ranks on one GPU; a second run refused
# and runs one after another taking turns; a SIGKILL, SIGTERM or SIGHUP of
# occcalc leaves the GPU to the next profiler.
test-gpu-run-sample: occcalc $(INJECT_LIB)
	sh tests/run/sample_gpu.sh serial graphs torch ranks busy kill signals

# A PyTorch program's own torch.profiler, refused, and the report saying
# so (client_gpu.sh, torch_profiled.py).
test-gpu-run-client: occcalc $(INJECT_LIB)
	sh tests/run/client_gpu.sh

test-run-trace: occcalc $(INJECT_LIB) build/forge build/fake_launches
	sh tests/run/trace_test.sh

test-run-timeline: occcalc $(INJECT_LIB) build/forge build/timeline_unit
	sh tests/run/timeline_test.sh

test-run-trace-view: occcalc $(INJECT_LIB) build/forge
	sh tests/run/trace_view.sh

# The sample reader and the attribution under any bytes (libFuzzer,
# tests/fuzz/fuzz_samples.c); test-fuzz-samples runs it 20 s, skipped
# without clang.
TEST_TARGETS      += test-fuzz-samples
SLOW_TEST_TARGETS += test-fuzz-samples
.PHONY: fuzz-samples test-fuzz-samples
build/fuzz_samples: tests/fuzz/fuzz_samples.c $(FUZZ_PROGRAM_SRCS) $(HDRS) build/cshim/string
	$(CLANG) $(FUZZ_FLAGS) -I$(CUDA)/include -Ibuild/cshim \
	  -o $@ tests/fuzz/fuzz_samples.c $(FUZZ_PROGRAM_SRCS) -lcjson -lm -ldl -l:libstdc++.a

fuzz-samples: build/fuzz_samples
	@mkdir -p build/fuzz_samples_corpus
	./build/fuzz_samples -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 \
	  -rss_limit_mb=2048 -artifact_prefix=build/fuzz-samples- -print_final_stats=1 \
	  build/fuzz_samples_corpus 2>build/fuzz_samples.log || { tail -40 build/fuzz_samples.log; exit 1; }
	grep -E '^(Done|stat::peak_rss)' build/fuzz_samples.log

test-fuzz-samples:
	@command -v $(CLANG) >/dev/null || { echo "skipped: no clang"; exit 77; }
	$(MAKE) --no-print-directory fuzz-samples FUZZ_SECONDS=20

# Overhead beside Nsight Compute (sample_bench.py, judged by
# tests/bench/run_sample.sh): the graph program, and a PyTorch training
# loop (skipped without PyTorch), alone, under occcalc run (PM sampling)
# and under ncu, alternating.
GPU_BENCH_TARGETS += bench-gpu-run-sample bench-gpu-run-sample-torch
.PHONY: bench-gpu-run-sample bench-gpu-run-sample-torch
bench-gpu-run-sample: occcalc $(INJECT_LIB) build/run_graphs
	REPS=$${REPS:-5} sh tests/bench/run_sample.sh ./occcalc build/run_graphs 3

bench-gpu-run-sample-torch: occcalc $(INJECT_LIB)
	@python3 -c 'import torch' 2>/dev/null || { echo "skipped: no PyTorch"; exit 77; }
	REPS=$${REPS:-3} sh tests/bench/run_sample.sh ./occcalc python3 tests/run/torch_graph.py 20

# Not a benchmark (it has no target): the small program's calls into the
# NVIDIA driver alone and under occcalc run, and the sampler's set-up
# among them (docs/run.md, "The sampler's set-up as the driver sees it").
build/driver_calls.so: tests/bench/driver_calls.c
	@mkdir -p build
	$(CC) $(ALL_CFLAGS) -shared -fPIC -o $@ $< -ldl

.PHONY: gpu-driver-calls
gpu-driver-calls: occcalc $(INJECT_LIB) build/run_graphs build/driver_calls.so
	@nvidia-smi -L >/dev/null 2>&1 || { echo "skipped: no GPU"; exit 77; }
	python3 tests/bench/driver_calls.py ./occcalc build/driver_calls.so build/run_graphs 3

build/timeline_unit: tests/run/timeline_unit.c $(LIB_OBJS)
	$(CC) $(TEST_CPPFLAGS) $(ALL_CFLAGS) -o $@ tests/run/timeline_unit.c \
	  $(LIB_OBJS) $(LDFLAGS) $(LIBS)
