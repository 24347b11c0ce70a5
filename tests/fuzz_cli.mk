# The command line under hostile input: the fuzzer of the whole
# program in-process (tests/fuzz/fuzz_cli.c), the table of hostile command
# lines (tests/hostile-cli/) and the pipe test. `make fuzz-cli` runs the
# fuzzer for FUZZ_SECONDS (default 60).
TEST_TARGETS += test-hostile-cli test-fuzz-cli

FUZZ_SECONDS ?= 60
CLANG ?= clang
# Everything the program is made of but main() and the build tool.
FUZZ_CLI_SRCS = $(filter-out src/cli/main.c $(DB_GEN_SRC),$(wildcard src/*/*.c)) \
                build/gpus_table.c build/probe_ptx.c

.PHONY: fuzz-cli test-fuzz-cli test-hostile-cli

build/fuzz_cli: tests/fuzz/fuzz_cli.c $(FUZZ_CLI_SRCS) $(HDRS) build/cshim/string
	$(CLANG) $(ALL_CPPFLAGS) -I$(CUDA)/include -Ibuild/cshim -std=c11 $(WARN) -g -O1 \
	  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	  -o $@ tests/fuzz/fuzz_cli.c $(FUZZ_CLI_SRCS) -lcjson -lm -ldl -l:libstdc++.a

# The seeds are kept; libFuzzer's finds go to build/fuzz_cli_corpus.
fuzz-cli: build/fuzz_cli
	@mkdir -p build/fuzz_cli_corpus
	./build/fuzz_cli -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 \
	  -rss_limit_mb=2048 -artifact_prefix=build/fuzz-cli- -print_final_stats=1 \
	  build/fuzz_cli_corpus tests/fuzz/cli-seeds \
	  2>build/fuzz_cli.log & pid=$$!; \
	  wait $$pid || { tail -40 build/fuzz_cli.log; exit 1; }; \
	  if test -e /tmp/occcalc-fuzz-cli-$$pid; then \
	    rm -f /tmp/occcalc-fuzz-cli-$$pid; \
	    echo "fuzz-cli: left /tmp/occcalc-fuzz-cli-$$pid behind"; exit 1; fi
	grep -E '^(Done|stat::peak_rss)' build/fuzz_cli.log

test-fuzz-cli:
	@command -v $(CLANG) >/dev/null || { echo "skipped: no clang"; exit 77; }
	$(MAKE) --no-print-directory fuzz-cli FUZZ_SECONDS=20

test-hostile-cli: occcalc
	sh tests/hostile-cli/run.sh
