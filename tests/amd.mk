# AMD GPUs: the calculator (src/core/amd.c), the database's AMD
# entries and the compiler-remark reader (src/ptxas/amdgpu_remarks.c).
# - test-amd-unit: Criterion tests: HIP's rule against a table written from
#   clr's formula, bad input, the database's AMD entries, the remark reader
#   over logs clang-19 produced (tests/data/amd/).
# - test-amd-llvm: the differential test against LLVM itself: every AMD
#   architecture of data/gpus.json that llc-19 knows, each wave size and CU
#   mode, ~1,500 kernels per llc run (tests/amd_llvm_diff.c); any
#   difference from llc's "; Occupancy:" fails. Skipped (77) without llc-19.
# - test-amd-fuzz: the remark reader under libFuzzer, ASan and UBSan for
#   20 s, from the logs of tests/data/amd/ (clang).
# - test-amd-fuzz-db: the database fuzzer (tests/hostile_db.mk's
#   build/fuzz_db) for 20 s from a small database with AMD entries
#   (tests/data/amd/fuzz-db-seed.json), so the AMD loader is mutated too.
TEST_TARGETS += test-amd-unit test-amd-llvm test-amd-fuzz test-amd-fuzz-db

.PHONY: test-amd-unit test-amd-llvm test-amd-fuzz test-amd-fuzz-db

AMD_LLC ?= llc-19

build/amd_llvm_diff: tests/amd_llvm_diff.c build/db/gpudb.o build/db/devfields.o $(CORE_LIB) | deps
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ tests/amd_llvm_diff.c build/db/gpudb.o \
	  build/db/devfields.o $(CORE_LIB) $(CJSON_LIBS) -lm

test-amd-llvm: build/amd_llvm_diff
	@if ! command -v $(AMD_LLC) >/dev/null 2>&1; then \
	  echo "skipped: no $(AMD_LLC) (Debian: apt-get install llvm-19)"; exit 77; fi
	@rm -rf build/amd-llvm && mkdir -p build/amd-llvm
	./build/amd_llvm_diff $(AMD_LLC) data/gpus.json build/amd-llvm

AMD_UNIT_SRCS = tests/amd_unit.c tests/amd_remarks_unit.c

build/unit_amd: $(AMD_UNIT_SRCS) $(PTXAS_OBJS) $(DB_OBJS) $(DB_DATA_OBJ) $(CORE_LIB) | deps
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ $(AMD_UNIT_SRCS) $(PTXAS_OBJS) \
	  $(CORE_DB_LIBS) -lcriterion -l:libstdc++.a

test-amd-unit: build/unit_amd
	./build/unit_amd --short-filename

build/fuzz_amd_remarks: tests/amd_remarks_fuzz.c src/ptxas/amdgpu_remarks.c src/ptxas/amdgpu_remarks.h \
                        src/ptxas/lines.c src/ptxas/lines.h | deps
	@mkdir -p build
	$(CLANG) $(ALL_CPPFLAGS) -std=c11 $(WARN) -g -O1 \
	  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	  -o $@ tests/amd_remarks_fuzz.c src/ptxas/amdgpu_remarks.c src/ptxas/lines.c

# make fuzz runs the remark reader's fuzzer for FUZZ_SECONDS (default 60).
fuzz: fuzz-amd
.PHONY: fuzz-amd
fuzz-amd: build/fuzz_amd_remarks
	@mkdir -p build/fuzz_amd_corpus
	cp tests/data/amd/*.log build/fuzz_amd_corpus/
	./build/fuzz_amd_remarks -max_total_time=$(FUZZ_SECONDS) -max_len=8192 -artifact_prefix=build/ \
	  -print_final_stats=1 build/fuzz_amd_corpus 2>build/fuzz_amd.log || \
	  { tail -40 build/fuzz_amd.log; exit 1; }
	grep -E '^(Done|stat::peak_rss)' build/fuzz_amd.log

test-amd-fuzz: build/fuzz_amd_remarks
	@rm -rf build/fuzz_amd_corpus && mkdir -p build/fuzz_amd_corpus
	cp tests/data/amd/*.log build/fuzz_amd_corpus/
	./build/fuzz_amd_remarks -max_total_time=20 -max_len=8192 -artifact_prefix=build/ \
	  -print_final_stats=1 build/fuzz_amd_corpus 2>build/fuzz_amd.log || \
	  { tail -40 build/fuzz_amd.log; exit 1; }
	grep -E '^(Done|stat::peak_rss)' build/fuzz_amd.log

test-amd-fuzz-db: build/fuzz_db
	@rm -rf build/fuzz_amd_db_corpus && mkdir -p build/fuzz_amd_db_corpus
	cp tests/data/amd/fuzz-db-seed.json build/fuzz_amd_db_corpus/
	./build/fuzz_db -max_total_time=20 -max_len=32768 -timeout=10 -rss_limit_mb=2048 \
	  -artifact_prefix=build/ -print_final_stats=1 build/fuzz_amd_db_corpus \
	  2>build/fuzz_amd_db.log || { tail -40 build/fuzz_amd_db.log; exit 1; }
	grep -E '^(Done|stat::peak_rss)' build/fuzz_amd_db.log
