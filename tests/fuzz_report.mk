# `occcalc report`'s merge under hostile input: the fuzzer of the reports'
# reader, the merge and its writers (tests/fuzz/fuzz_report.c), in-process,
# with a dictionary of the report's keys (tests/fuzz/report.dict). `make
# fuzz-report` runs it for FUZZ_SECONDS (default 60); `make test` for 20 s;
# `make fuzz` with the other fuzzers.
TEST_TARGETS += test-fuzz-report
fuzz: fuzz-report

FUZZ_SECONDS ?= 60
CLANG ?= clang
# The library's layers (the reader, the merge and its writers need no
# command line and no live backend).
FUZZ_REPORT_SRCS = $(filter-out $(DB_GEN_SRC),$(wildcard src/core/*.c src/text/*.c \
                     src/db/*.c src/ptxas/*.c src/model/*.c src/render/*.c)) \
                   build/gpus_table.c

.PHONY: fuzz-report test-fuzz-report

build/fuzz_report: tests/fuzz/fuzz_report.c $(FUZZ_REPORT_SRCS) $(HDRS) build/cshim/string
	$(CLANG) $(ALL_CPPFLAGS) -I$(CUDA)/include -Ibuild/cshim -std=c11 $(WARN) -g -O1 \
	  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	  -o $@ tests/fuzz/fuzz_report.c $(FUZZ_REPORT_SRCS) -lcjson -lm -ldl -l:libstdc++.a

# Seeded from tests/fuzz/report-seeds (two ranks' reports of occcalc run
# over build/forge, a forged one); the corpus grows in
# build/fuzz_report_corpus. A crash leaves its input in
# build/fuzz-report-*: copy it to tests/fuzz/report-seeds.
fuzz-report: build/fuzz_report
	@mkdir -p build/fuzz_report_corpus
	./build/fuzz_report -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 \
	  -rss_limit_mb=2048 -dict=tests/fuzz/report.dict \
	  -artifact_prefix=build/fuzz-report- -print_final_stats=1 \
	  build/fuzz_report_corpus tests/fuzz/report-seeds \
	  2>build/fuzz_report.log || { tail -40 build/fuzz_report.log; exit 1; }
	grep -E '^(Done|stat::peak_rss)' build/fuzz_report.log

test-fuzz-report:
	@command -v $(CLANG) >/dev/null || { echo "skipped: no clang"; exit 77; }
	$(MAKE) --no-print-directory fuzz-report FUZZ_SECONDS=20
