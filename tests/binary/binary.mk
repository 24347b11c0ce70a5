# The CUDA binary reader (src/ptxas/binary.c, occcalc --module FILE
# without --device): refusals (fast), agreement with ptxas -v over the
# project's kernels built by nvcc for sm_80 and sm_90 as cubins, a fatbin
# and a shared library (slow, skipped without nvcc), and its fuzzer.
CHECK_TARGETS     += test-binary-cli
TEST_TARGETS      += test-binary-cli test-binary-nvcc test-fuzz-binary
SLOW_TEST_TARGETS += test-binary-nvcc test-fuzz-binary

BINARY_KERNELS = kernels/config_small.cu kernels/lab/transpose.cu \
                 tests/ptxas/kernels/smem.cu tests/ptxas/kernels/pressure.cu

.PHONY: test-binary-cli test-binary-nvcc test-fuzz-binary fuzz-binary

test-binary-cli: occcalc
	sh tests/binary/cli_test.sh ./occcalc

test-binary-nvcc: occcalc
	sh tests/binary/nvcc_test.sh ./occcalc build/binary_nvcc $(BINARY_KERNELS)

build/fuzz_binary: tests/binary/fuzz_binary.c $(PTXAS_DEPS)
	@mkdir -p build
	$(CLANG) $(FUZZ_FLAGS) -o $@ tests/binary/fuzz_binary.c $(PTXAS_SRCS) -l:libstdc++.a

# Seeds: the cubins and fatbins test-binary-nvcc left, where it ran.
fuzz-binary: build/fuzz_binary
	rm -rf build/fuzz_binary_corpus && mkdir -p build/fuzz_binary_corpus
	for f in build/binary_nvcc/*.cubin build/binary_nvcc/*.fatbin; do \
	  [ -f "$$f" ] && cp "$$f" build/fuzz_binary_corpus/; done; true
	./build/fuzz_binary -max_total_time=$(FUZZ_SECONDS) -max_len=65536 \
	  -artifact_prefix=build/ -print_final_stats=1 build/fuzz_binary_corpus \
	  2>build/fuzz_binary.log || { tail -40 build/fuzz_binary.log; exit 1; }
	grep -E '^(Done|stat::peak_rss)' build/fuzz_binary.log

test-fuzz-binary:
	@command -v $(CLANG) >/dev/null || { echo "skipped: no clang"; exit 77; }
	$(MAKE) --no-print-directory fuzz-binary FUZZ_SECONDS=20

# On a GPU machine: offline --module against the driver's own attributes
# of the same cubin (cuFuncGetAttribute, through --module --device).
GPU_TEST_TARGETS += test-gpu-binary
.PHONY: test-gpu-binary
test-gpu-binary: occcalc
	sh tests/binary/gpu_attrs.sh ./occcalc build/binary_gpu $(BINARY_KERNELS)
