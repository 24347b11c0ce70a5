# The thread block cluster survey on the GPU at hand
# (kernels/cluster_survey.cu): the occupancy API's clusters per cluster size
# at one block per SM, the scheduling domains seen on the hardware, and a
# grid of register caps, block sizes, shared memory and cluster sizes with
# the measured co-resident clusters and their placement. Its output on the
# H100 and the H200 is tests/data/{h100,h200}-cluster-{domains,grid}.csv,
# which tests/cluster_rule.c checks the offline rule against.
build/cluster_survey: kernels/cluster_survey.cu kernels/survey_device.cuh
	@mkdir -p build
	$(NVCC) -O2 -arch=sm_90 -o $@ $<

cluster-survey: build/cluster_survey
	./build/cluster_survey domains > build/cluster-domains.csv
	./build/cluster_survey grid > build/cluster-grid.csv
	@grep '^#' build/cluster-domains.csv
	@echo "cluster-survey: $$(grep -c '^[0-9]' build/cluster-grid.csv) configurations in build/cluster-grid.csv"

.PHONY: cluster-survey

# The offline cluster rule against every row of the surveys and the
# database's layouts (tests/cluster_rule.c), and the live probe's cluster
# timeline on synthetic records (tests/cluster_timeline.c); CPU only.
TEST_TARGETS += test-cluster
CLUSTER_UNIT_SRCS = tests/cluster_rule.c tests/cluster_timeline.c
build/cluster_rule: $(CLUSTER_UNIT_SRCS) tests/db_fixture.h build/live/cluster_timeline.o $(DB_OBJS) $(DB_DATA_OBJ) $(CORE_LIB)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ $(CLUSTER_UNIT_SRCS) build/live/cluster_timeline.o $(CORE_DB_LIBS) -lcriterion

# The live verification's judge and sweep cases (tests/cluster_verify.c)
# link the program's objects, as build/unit_program does; no GPU is used.
build/cluster_verify: tests/cluster_verify.c $(LIB_OBJS)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ tests/cluster_verify.c $(LIB_OBJS) $(LIBS) -lcriterion

# --cluster's value, the sweep's cluster counts and the live cluster JSON
# (tests/cluster_cli.c), linked as build/cluster_verify is.
build/cluster_cli: tests/cluster_cli.c tests/db_fixture.h $(LIB_OBJS)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ tests/cluster_cli.c $(LIB_OBJS) $(LIBS) -lcriterion

test-cluster: build/cluster_rule build/cluster_verify build/cluster_cli
	./build/cluster_rule --short-filename
	./build/cluster_verify --short-filename
	./build/cluster_cli --short-filename

.PHONY: test-cluster

# The live cluster probe on the GPU at hand (tests/cluster_gpu.c): skipped
# (77) without a GPU of compute capability 9.0 or newer.
GPU_TEST_TARGETS += test-gpu-cluster
build/cluster_gpu: tests/cluster_gpu.c $(LIB_OBJS)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ tests/cluster_gpu.c $(LIB_OBJS) $(LIBS)

test-gpu-cluster: build/cluster_gpu
	./build/cluster_gpu

.PHONY: test-gpu-cluster

# jitlink.c looks for nvJitLink where cudart.c looks for the runtime.
build/live/jitlink.o: ALL_CPPFLAGS += -DOCC_CUDA_LIB_DIR='"$(CUDA)/lib64"'

# Nsight Compute's cluster figures (recorded on an H100 by
# tests/cluster_ncu_record.sh, a GPU tool) against occcalc's ncu object.
TEST_TARGETS += test-cluster-ncu
test-cluster-ncu: occcalc
	sh tests/cluster_ncu.sh

# The cold 1000-case sweep (target: at most 10 s on an H100); with
# OCCCALC_BEFORE=PATH side by side with another binary. A GPU benchmark.
GPU_BENCH_TARGETS += bench-gpu-sweep-cold
bench-gpu-sweep-cold: occcalc
	sh tests/bench_sweep_cold.sh
