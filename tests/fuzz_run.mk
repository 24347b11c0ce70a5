# The records of `occcalc run` under hostile input: the fuzzer
# of the records' reader and the whole report (tests/fuzz/fuzz_run.c),
# in-process. `make fuzz-run` runs it for FUZZ_SECONDS (default 60); `make
# test` for 20 s; `make fuzz` with the other fuzzers.
TEST_TARGETS += test-fuzz-run
fuzz: fuzz-run

FUZZ_SECONDS ?= 60
CLANG ?= clang
# Everything the program is made of but main() and the build tool; the
# C++ runtime static, as the product links it (the demangler's callback
# form is exported by libstdc++.a alone).
FUZZ_RUN_SRCS = $(filter-out src/cli/main.c $(DB_GEN_SRC),$(wildcard src/*/*.c)) \
                build/gpus_table.c build/probe_ptx.c

.PHONY: fuzz-run test-fuzz-run

build/fuzz_run: tests/fuzz/fuzz_run.c $(FUZZ_RUN_SRCS) $(HDRS) build/cshim/string
	$(CLANG) $(ALL_CPPFLAGS) -I$(CUDA)/include -Ibuild/cshim -std=c11 $(WARN) -g -O1 \
	  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	  -o $@ tests/fuzz/fuzz_run.c $(FUZZ_RUN_SRCS) -lcjson -lm -ldl -l:libstdc++.a

# Seeded from tests/fuzz/run-seeds (records forged by tests/run/forge.c
# behind the two option bytes); the corpus grows in build/fuzz_run_corpus.
# A crash leaves its input in build/fuzz-run-*: copy it to
# tests/fuzz/run-seeds as a regression case.
fuzz-run: build/fuzz_run
	@mkdir -p build/fuzz_run_corpus
	./build/fuzz_run -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 \
	  -rss_limit_mb=2048 -artifact_prefix=build/fuzz-run- -print_final_stats=1 \
	  build/fuzz_run_corpus tests/fuzz/run-seeds \
	  2>build/fuzz_run.log || { tail -40 build/fuzz_run.log; exit 1; }
	grep -E '^(Done|stat::peak_rss)' build/fuzz_run.log

test-fuzz-run:
	@command -v $(CLANG) >/dev/null || { echo "skipped: no clang"; exit 77; }
	$(MAKE) --no-print-directory fuzz-run FUZZ_SECONDS=20
