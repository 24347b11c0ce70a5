# AMD GPUs: the calculator (src/core/amd.c), the database's AMD entries and
# the compiler-remark reader (src/ptxas/amdgpu_remarks.c). Its golden cases
# are tests/amd/cases; its fuzzers are in tests/fuzz/fuzz.mk.
# - test-amd-unit: Criterion: HIP's rule against a table written from
#   clr's formula, bad input, the database's AMD entries, the remark reader
#   over logs clang-19 produced (tests/amd/data/, made by make_logs.sh).
# - test-amd-llvm: the differential test against LLVM itself: every AMD
#   architecture of data/gpus.json that llc-19 knows, each wave size and CU
#   mode, ~1,500 kernels per llc run (amd_llvm_diff.c); any difference
#   from llc's "; Occupancy:" fails. Skipped (77) without llc-19.
UNIT_TARGETS      += test-amd-unit
CHECK_TARGETS     += test-amd-unit
CHECK_BINS        += build/unit_amd
TEST_TARGETS      += test-amd-unit test-amd-llvm
SLOW_TEST_TARGETS += test-amd-llvm

.PHONY: test-amd-unit test-amd-llvm

AMD_LLC ?= llc-19

build/amd_llvm_diff: tests/amd/amd_llvm_diff.c $(DB_LOADER_OBJS) $(CORE_LIB) | deps
	$(CC) $(TEST_CPPFLAGS) $(ALL_CFLAGS) -o $@ tests/amd/amd_llvm_diff.c $(DB_LOADER_OBJS) \
	  $(CORE_LIB) $(CJSON_LIBS) -lm

test-amd-llvm: build/amd_llvm_diff
	@if ! command -v $(AMD_LLC) >/dev/null 2>&1; then \
	  echo "skipped: no $(AMD_LLC) (Debian: apt-get install llvm-19)"; exit 77; fi
	@rm -rf build/amd-llvm && mkdir -p build/amd-llvm
	./build/amd_llvm_diff $(AMD_LLC) data/gpus.json build/amd-llvm

AMD_UNIT_SRCS = tests/amd/amd_unit.c tests/amd/amd_remarks_unit.c

build/unit_amd: $(AMD_UNIT_SRCS) $(PTXAS_OBJS) $(DB_OBJS) $(DB_DATA_OBJ) $(CORE_LIB) | deps
	$(CC) $(TEST_CPPFLAGS) $(ALL_CFLAGS) -o $@ $(AMD_UNIT_SRCS) $(PTXAS_OBJS) \
	  $(CORE_DB_LIBS) -lcriterion -l:libstdc++.a

test-amd-unit: build/unit_amd
	./build/unit_amd --short-filename
