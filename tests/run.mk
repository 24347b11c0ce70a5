# occcalc run: the launcher, the report and the injection library.
# CPU: the launcher's statuses, usage errors, the library's exports and the
# report's path with fake records (tests/run/fake_launches.c).
TEST_TARGETS += test-run
# GPU: the records of tests/run/launches.cu against what it launched, and
# achieved occupancy against Nsight Compute when ncu is present.
GPU_TEST_TARGETS += test-gpu-run

build/fake_launches: tests/run/fake_launches.c src/model/launch_record.h
	@mkdir -p build
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ $<

test-run: occcalc $(INJECT_LIB) build/fake_launches
	sh tests/run/cpu_test.sh

# Hostile programs, signals and output paths: CPU only.
TEST_TARGETS += test-run-hostile
build/named_launch: tests/run/named_launch.c src/model/launch_record.h
	@mkdir -p build
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ $<

test-run-hostile: occcalc $(INJECT_LIB) build/fake_launches build/named_launch
	sh tests/run/hostile_test.sh

build/run_launches: tests/run/launches.cu
	@mkdir -p build
	$(NVCC) -O2 -arch=native -o $@ $<

test-gpu-run: occcalc $(INJECT_LIB)
	sh tests/run/gpu_test.sh

# The overhead of occcalc run against Nsight Compute's on the lab's
# reduction program (a GPU benchmark).
GPU_BENCH_TARGETS += bench-gpu-run-lab
bench-gpu-run-lab: occcalc $(INJECT_LIB)
	sh tests/run/bench.sh

# Achieved occupancy from PM samples (--measure sample): the attribution
# over synthetic sample streams and the samples' reader. CPU only.
TEST_TARGETS += test-run-attribute
build/attribute_unit: tests/run/attribute_unit.c build/model/attribute.o \
    build/model/measure.o build/live/sample_file.o $(LIB_OBJS)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ tests/run/attribute_unit.c \
	  $(LIB_OBJS) $(LIBS)

test-run-attribute: build/attribute_unit
	./build/attribute_unit

# --measure sample on a GPU beside Nsight Compute (tests/run/sample_gpu.sh):
# serial kernels, a CUDA graph, a PyTorch program with a captured graph,
# two torchrun ranks on one GPU; a second run refused; a SIGKILL of
# occcalc leaves the GPU to the next profiler.
GPU_TEST_TARGETS += test-gpu-run-sample
test-gpu-run-sample: occcalc $(INJECT_LIB)
	sh tests/run/sample_gpu.sh serial graphs torch ranks busy kill
