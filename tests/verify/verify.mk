# The live verifier (--device, verify --sweep, --module) and the library
# opener. Its golden cases are tests/verify/cases.
# - test-verify-unit (CPU, Criterion): the verifier's judges and report
#   (test_verify.c) and the rule by which a library is opened (test_dl.c),
#   linked with the program's objects; no GPU is used.
# - test-gpu-offline (CPU): the no-GPU paths (one-line error, exit 5; usage
#   errors; no CUDA library linked).
# - test-gpu-CASE (GPU, gpu_tests.sh CASE): each prints "skipped: no GPU"
#   and exits 77 without one. test-gpu-example also runs in make test, so
#   that the suite shows the GPU tests exist (skipped, and counted so).
# - test-gpu-best-block (GPU, gpu_best_block.sh): --block best offline
#   against the runtime's cudaOccupancyMaxPotentialBlockSize[VariableSMem]
#   for the kernels of best_block.cu, built with nvcc into build/.
UNIT_TARGETS     += test-verify-unit
CHECK_TARGETS    += test-verify-unit
CHECK_BINS       += build/unit_verify
TEST_TARGETS     += test-verify-unit test-gpu-offline test-gpu-example
GPU_CASES         = example sweep carveout module cooperative achieved charts ncu all \
                    cluster-cli
GPU_TEST_TARGETS += $(GPU_CASES:%=test-gpu-%) test-gpu-best-block

.PHONY: test-verify-unit test-gpu-offline $(GPU_CASES:%=test-gpu-%) test-gpu-best-block

VERIFY_UNIT_SRCS = tests/verify/test_verify.c tests/verify/test_dl.c

build/unit_verify: $(VERIFY_UNIT_SRCS) tests/harness/db_fixture.h tests/harness/json_parsed.h $(LIB_OBJS)
	$(CC) $(TEST_CPPFLAGS) $(ALL_CFLAGS) -o $@ $(VERIFY_UNIT_SRCS) $(LIB_OBJS) $(LIBS) -lcjson -lcriterion

test-verify-unit: build/unit_verify
	./build/unit_verify --short-filename

test-gpu-offline: occcalc
	sh tests/verify/gpu_offline.sh

# A CUDA runtime whose occupancy API answers one block more than the real
# one (cudart_shim.c): the example and module cases run occcalc with
# OCCCALC_CUDART naming it, to see that the answer shown is cudart's; it
# needs libcudart (--no-as-needed: no symbol of it is referenced here).
CUDART_SHIM = build/cudart_shim.so
$(CUDART_SHIM): tests/verify/cudart_shim.c
	@mkdir -p build
	$(CC) -std=c11 $(WARN) -O2 -fPIC -shared -I$(CUDA)/include -o $@ $< \
	  -L$(CUDA)/lib64 -Wl,--no-as-needed -lcudart -Wl,-rpath,$(CUDA)/lib64 -ldl

$(GPU_CASES:%=test-gpu-%): occcalc $(CUDART_SHIM)
	sh tests/verify/gpu_tests.sh $(@:test-gpu-%=%)

test-gpu-best-block: occcalc
	sh tests/verify/gpu_best_block.sh ./occcalc build/gpu_best_block
