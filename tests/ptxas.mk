# The ptxas/cuobjdump reader: its tests, fuzz target and
# benchmark. `make fuzz-ptxas` runs its fuzzer for FUZZ_SECONDS (default 60).
TEST_TARGETS += test-ptxas-golden test-ptxas-unit test-ptxas-real \
                test-ptxas-cli test-ptxas-nvcc test-ptxas-sanitize \
                test-ptxas-fuzz
BENCH_TARGETS += bench-ptxas

PTXAS_SRCS = $(wildcard src/ptxas/*.c) src/core/cc.c
PTXAS_DEPS = $(PTXAS_SRCS) $(wildcard src/ptxas/*.h)
SAN_FLAGS = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
            -fno-sanitize-recover=all
FUZZ_SECONDS ?= 60
CLANG ?= clang

.PHONY: test-ptxas-golden test-ptxas-unit test-ptxas-real test-ptxas-cli \
        test-ptxas-nvcc \
        test-ptxas-sanitize test-ptxas-fuzz fuzz-ptxas bench-ptxas

build/ptxas_dump: tests/ptxas/dump.c $(PTXAS_DEPS)
	@mkdir -p build
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ tests/ptxas/dump.c $(PTXAS_SRCS) -l:libstdc++.a

build/ptxas_dump_san: tests/ptxas/dump.c $(PTXAS_DEPS)
	@mkdir -p build
	$(CC) $(ALL_CPPFLAGS) -std=c11 $(WARN) $(SAN_FLAGS) -o $@ tests/ptxas/dump.c $(PTXAS_SRCS) -l:libstdc++.a

build/ptxas_unit: tests/ptxas/unit.c $(PTXAS_DEPS)
	@mkdir -p build
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ tests/ptxas/unit.c $(PTXAS_SRCS) -lcriterion -l:libstdc++.a

build/ptxas_unit_san: tests/ptxas/unit.c $(PTXAS_DEPS)
	@mkdir -p build
	$(CC) $(ALL_CPPFLAGS) -std=c11 $(WARN) $(SAN_FLAGS) -o $@ tests/ptxas/unit.c $(PTXAS_SRCS) -lcriterion -l:libstdc++.a

# Every historical form: CUDA 2-3's missing target and split lmem/smem,
# a TAB after info, MSBuild's prefix, CRLF, textures, non-entry
# functions, cuobjdump's per-section resource lines, nvcc 13.0's blocks.
test-ptxas-golden: build/ptxas_dump
	sh tests/ptxas/golden.sh build/ptxas_dump tests/ptxas/golden

# What render/json_write.h adds to cJSON: exact integers, U+FFFD for invalid
# UTF-8, cJSON's own text otherwise.
JSON_WRITE_DEPS = tests/ptxas/json_write_test.c tests/json_parsed.h \
                  src/render/json_write.c src/render/json_write.h src/core/utf8.h

build/json_write_test: $(JSON_WRITE_DEPS)
	@mkdir -p build
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ tests/ptxas/json_write_test.c src/render/json_write.c -lcriterion -lcjson

build/json_write_test_san: $(JSON_WRITE_DEPS)
	@mkdir -p build
	$(CC) $(ALL_CPPFLAGS) -std=c11 $(WARN) $(SAN_FLAGS) -o $@ tests/ptxas/json_write_test.c src/render/json_write.c -lcriterion -lcjson

test-ptxas-unit: build/ptxas_unit build/json_write_test
	./build/ptxas_unit
	./build/json_write_test

# Reports of nvcc 13.0 and cuobjdump 13.0 kept from the GPU machine: ptxas'
# numbers must agree with cuobjdump's on this machine too, which has none.
test-ptxas-real: build/ptxas_dump
	for b in pressure smem templates; do \
	  sh tests/ptxas/agree.sh build/ptxas_dump tests/ptxas/real/$$b.ptxas.log \
	     tests/ptxas/real/$$b.cuobjdump.txt || exit 1; done

# occcalc --ptxas end to end: the gate, --jsonl through jq, bad inputs.
test-ptxas-cli: occcalc
	sh tests/ptxas/cli_test.sh

test-ptxas-nvcc: build/ptxas_dump
	sh tests/ptxas/nvcc_test.sh build/ptxas_dump build/nvcc_test \
	   tests/kernels/*.cu $(wildcard kernels/*.cu)

test-ptxas-sanitize: build/ptxas_dump_san build/ptxas_unit_san build/json_write_test_san
	sh tests/ptxas/golden.sh build/ptxas_dump_san tests/ptxas/golden
	./build/ptxas_unit_san
	./build/json_write_test_san

build/fuzz_ptxas: tests/ptxas/fuzz.c $(PTXAS_DEPS)
	@mkdir -p build
	$(CLANG) $(ALL_CPPFLAGS) -std=c11 $(WARN) -g -O1 \
	  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	  -o $@ tests/ptxas/fuzz.c $(PTXAS_SRCS) -l:libstdc++.a

build/fuzz_corpus: $(wildcard tests/ptxas/golden/*)
	@mkdir -p build
	rm -rf $@ && mkdir -p $@
	for f in tests/ptxas/golden/*.log tests/ptxas/golden/*.txt \
	         tests/ptxas/real/*.log tests/ptxas/real/*.txt; do \
	  cp "$$f" $@/; done

# Seeded from the golden cases; fails on any crash, leak or sanitizer
# report (libFuzzer exits non-zero and leaves a crash-* file in build/).
fuzz-ptxas: build/fuzz_ptxas build/fuzz_corpus
	./build/fuzz_ptxas -max_total_time=$(FUZZ_SECONDS) -max_len=8192 \
	  -artifact_prefix=build/ -print_final_stats=1 build/fuzz_corpus \
	  2>build/fuzz.log || { tail -40 build/fuzz.log; exit 1; }
	grep -E '^(Done|stat::peak_rss)' build/fuzz.log

test-ptxas-fuzz:
	@command -v $(CLANG) >/dev/null || { echo "skipped: no clang"; exit 77; }
	$(MAKE) --no-print-directory fuzz-ptxas FUZZ_SECONDS=20

bench-ptxas: occcalc
	sh tests/ptxas/bench.sh ./occcalc build/bench
