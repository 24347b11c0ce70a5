# The ptxas/cuobjdump reader. Its golden cases are tests/ptxas/cases: the
# reader's own (keyword "reader": build/ptxas_dump over tests/ptxas/logs,
# one per historical form: CUDA 2-3's missing target and split lmem/smem, a
# TAB after info, MSBuild's prefix, CRLF, textures, non-entry functions,
# cuobjdump's per-section resource lines, nvcc 13.0's blocks) and occcalc
# --ptxas's. Its fuzzer is in tests/fuzz/fuzz.mk, its benchmark in
# tests/bench/bench.mk.
UNIT_TARGETS      += test-ptxas-unit
CHECK_TARGETS     += test-ptxas-unit
CHECK_BINS        += build/ptxas_unit
TEST_TARGETS      += test-ptxas-unit test-ptxas-real test-ptxas-cli test-ptxas-stream \
                     test-ptxas-nvcc test-ptxas-sanitize
SLOW_TEST_TARGETS += test-ptxas-nvcc test-ptxas-sanitize

PTXAS_SRCS = $(wildcard src/ptxas/*.c) src/core/cc.c
PTXAS_DEPS = $(PTXAS_SRCS) $(wildcard src/ptxas/*.h)
SAN_FLAGS = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
            -fno-sanitize-recover=all

.PHONY: test-ptxas-unit test-ptxas-real test-ptxas-cli test-ptxas-stream test-ptxas-nvcc \
        test-ptxas-sanitize

build/ptxas_dump: tests/ptxas/dump.c $(PTXAS_DEPS)
	@mkdir -p build
	$(CC) $(TEST_CPPFLAGS) $(ALL_CFLAGS) -o $@ tests/ptxas/dump.c $(PTXAS_SRCS) -l:libstdc++.a

build/ptxas_dump_san: tests/ptxas/dump.c $(PTXAS_DEPS)
	@mkdir -p build
	$(CC) $(TEST_CPPFLAGS) -std=c11 $(WARN) $(SAN_FLAGS) -o $@ tests/ptxas/dump.c $(PTXAS_SRCS) -l:libstdc++.a

build/ptxas_unit: tests/ptxas/unit.c $(PTXAS_DEPS)
	@mkdir -p build
	$(CC) $(TEST_CPPFLAGS) $(ALL_CFLAGS) -o $@ tests/ptxas/unit.c $(PTXAS_SRCS) -lcriterion -l:libstdc++.a

build/ptxas_unit_san: tests/ptxas/unit.c $(PTXAS_DEPS)
	@mkdir -p build
	$(CC) $(TEST_CPPFLAGS) -std=c11 $(WARN) $(SAN_FLAGS) -o $@ tests/ptxas/unit.c $(PTXAS_SRCS) -lcriterion -l:libstdc++.a

test-ptxas-unit: build/ptxas_unit
	./build/ptxas_unit

# Reports of nvcc 13.0 and cuobjdump 13.0 kept from the GPU machine: ptxas'
# numbers must agree with cuobjdump's on this machine too, which has none.
test-ptxas-real: build/ptxas_dump
	for b in pressure smem templates; do \
	  sh tests/ptxas/agree.sh build/ptxas_dump tests/ptxas/real/$$b.ptxas.log \
	     tests/ptxas/real/$$b.cuobjdump.txt || exit 1; done

# occcalc --ptxas end to end: the gate, --jsonl through jq, bad inputs.
test-ptxas-cli: occcalc
	sh tests/ptxas/cli_test.sh

# --ptxas - writes each row as its lines arrive, decides the reader by the
# first line only one vendor writes, and refuses a log of both kinds.
test-ptxas-stream: occcalc
	bash tests/ptxas/stream_test.sh

test-ptxas-nvcc: build/ptxas_dump
	sh tests/ptxas/nvcc_test.sh build/ptxas_dump build/nvcc_test \
	   tests/ptxas/kernels/*.cu $(wildcard kernels/*.cu) src/live/probe.cu

# The reader's golden cases, its unit tests and json_write's under ASan
# and UBSan.
test-ptxas-sanitize: build/ptxas_dump_san build/ptxas_unit_san build/json_write_test_san
	PROGRAM_SUFFIX=_san sh tests/harness/golden.sh --keyword reader tests/ptxas/cases/*.case
	./build/ptxas_unit_san
	./build/json_write_test_san
