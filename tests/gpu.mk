# The live verifier (--device, verify --sweep); the product's rules for
# the probe kernel and the driver are in the top Makefile.

# CPU: the no-GPU paths (one-line error, exit 5; usage errors; no -lcuda).
TEST_TARGETS += test-gpu-offline
test-gpu-offline: occcalc
	sh tests/gpu_offline.sh

# A CUDA runtime whose occupancy API answers one block more than the real
# one (tests/gpu/cudart_shim.c): the mission and module cases run occcalc
# with OCCCALC_CUDART naming it, to see that the answer shown is cudart's;
# it needs libcudart (--no-as-needed: no symbol of it is referenced here).
CUDART_SHIM = build/cudart_shim.so
$(CUDART_SHIM): tests/gpu/cudart_shim.c
	@mkdir -p build
	$(CC) -std=c11 $(WARN) -O2 -fPIC -shared -I$(CUDA)/include -o $@ $< \
	  -L$(CUDA)/lib64 -Wl,--no-as-needed -lcudart -Wl,-rpath,$(CUDA)/lib64 -ldl

# GPU: each prints "skipped: no GPU" and exits 77 without one.
GPU_CASES = mission sweep carveout module cooperative achieved explore ncu all cluster-cli
GPU_TEST_TARGETS += $(GPU_CASES:%=test-gpu-%)
# The suite shows that the GPU tests exist: on CI this one is skipped,
# visibly, and counted as skipped.
TEST_TARGETS += test-gpu-mission
$(GPU_CASES:%=test-gpu-%): occcalc $(CUDART_SHIM)
	sh tests/gpu_tests.sh $(@:test-gpu-%=%)

# The carveout survey on the GPU at hand (kernels/carveout_survey.cu): how
# many blocks each SM holds under every preference, beside the API's answer.
# Its output on an H100 is tests/data/h100-carveout.csv, which the unit test
# core/launch_rule_matches_h100_survey checks the calculator against.
build/carveout_survey: kernels/carveout_survey.cu kernels/survey_device.cuh
	@mkdir -p build
	$(NVCC) -O2 -o $@ $<

carveout-survey: build/carveout_survey
	./build/carveout_survey > build/carveout-survey.csv
	@echo "carveout-survey: $$(($$(wc -l < build/carveout-survey.csv) - 1)) configurations in build/carveout-survey.csv"

# The configuration the driver chooses (CUPTI's sharedMemoryExecuted) under
# the default preference and every preference, beside residency; a sample
# under ncu names launch__shared_mem_config_size for the same launches.
build/config_survey: kernels/config_survey.cu kernels/survey_device.cuh
	@mkdir -p build
	$(NVCC) -O2 -o $@ $< -L$(CUDA)/lib64 -lcupti

config-survey: build/config_survey
	./build/config_survey > build/config-survey.csv
	@echo "config-survey: $$(grep -c '^[0-9]' build/config-survey.csv) configurations in build/config-survey.csv"

# The same for blocks with 0 B to 4 KB of their own memory and exact
# register caps (tests/data/h100-config-small.csv; "fine": h100-config-fine.csv).
build/config_small: kernels/config_small.cu kernels/survey_device.cuh
	@mkdir -p build
	$(NVCC) -O2 -arch=sm_90 -o $@ $< -L$(CUDA)/lib64 -lcupti

config-small: build/config_small
	./build/config_small > build/config-small.csv
	./build/config_small fine > build/config-fine.csv
	@echo "config-small: $$(grep -c '^[0-9]' build/config-small.csv) and $$(grep -c '^[0-9]' build/config-fine.csv) configurations in build/config-small.csv, build/config-fine.csv"

.PHONY: carveout-survey config-survey config-small

GPU_BENCH_TARGETS += bench-gpu-run
build/bench_floor: tests/bench_floor.c build/probe_ptx.o
	$(CC) $(ALL_CPPFLAGS) -I$(CUDA)/include $(ALL_CFLAGS) -o $@ tests/bench_floor.c build/probe_ptx.o $(LDFLAGS) \
	  -L$(CUDA)/lib64 -lcudart_static -ldl -lpthread -lrt

bench-gpu-run: occcalc build/bench_floor
	sh tests/bench_gpu.sh
