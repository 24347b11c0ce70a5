# The libFuzzer targets (clang, ASan and UBSan): the compiler-report
# reader, the database loader (with the calculator, charts and suggestions
# on every device it accepts), the whole command line in-process, run's
# records and report, occcalc report's merge, and AMD's remark reader. `make fuzz` runs each for
# FUZZ_SECONDS (default 60), `make fuzz-NAME` one; `make test` runs each
# for 20 s (test-fuzz-NAME, skipped without clang). Seeds are kept in
# tests/fuzz/*-seeds; a crash leaves its input in build/: copy it to the
# seeds as a regression case.
FUZZ_TARGETS = test-fuzz-ptxas test-fuzz-db test-fuzz-cli test-fuzz-run \
               test-fuzz-report test-fuzz-amd test-fuzz-amd-db
TEST_TARGETS      += $(FUZZ_TARGETS)
SLOW_TEST_TARGETS += $(FUZZ_TARGETS)

FUZZ_SECONDS ?= 60
CLANG ?= clang
# Warnings without -Werror: the product's sources are held to WERROR=1 by
# the compiler that builds them (make, in CI); clang's own warnings here
# are shown, not fatal.
FUZZ_FLAGS = $(TEST_CPPFLAGS) -std=c11 -Wall -Wextra -g -O1 \
             -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all

.PHONY: fuzz fuzz-ptxas fuzz-db fuzz-cli fuzz-run fuzz-report fuzz-amd fuzz-amd-db $(FUZZ_TARGETS)

fuzz: fuzz-ptxas fuzz-db fuzz-cli fuzz-run fuzz-report fuzz-amd

# Each test-fuzz-NAME runs fuzz-NAME for 20 s.
$(FUZZ_TARGETS):
	@command -v $(CLANG) >/dev/null || { echo "skipped: no clang"; exit 77; }
	$(MAKE) --no-print-directory $(@:test-%=%) FUZZ_SECONDS=20

# ---- the compiler-report reader
build/fuzz_ptxas: tests/fuzz/fuzz_ptxas.c $(PTXAS_DEPS)
	@mkdir -p build
	$(CLANG) $(FUZZ_FLAGS) -o $@ tests/fuzz/fuzz_ptxas.c $(PTXAS_SRCS) -l:libstdc++.a

# Seeded from the reader's golden logs and the real reports.
build/fuzz_corpus: $(wildcard tests/ptxas/logs/*)
	@mkdir -p build
	rm -rf $@ && mkdir -p $@
	for f in tests/ptxas/logs/*.log tests/ptxas/logs/*.txt \
	         tests/ptxas/real/*.log tests/ptxas/real/*.txt; do \
	  cp "$$f" $@/; done

fuzz-ptxas: build/fuzz_ptxas build/fuzz_corpus
	./build/fuzz_ptxas -max_total_time=$(FUZZ_SECONDS) -max_len=8192 \
	  -artifact_prefix=build/ -print_final_stats=1 build/fuzz_corpus \
	  2>build/fuzz.log || { tail -40 build/fuzz.log; exit 1; }
	grep -E '^(Done|stat::peak_rss)' build/fuzz.log

# ---- the database loader, the core and the writers (not the compiled-in
# tables: the input is the database). Without comparison tracing: the
# sweep tables of one device are tens of thousands of occ_compute calls,
# and tracing their comparisons made a run ten times slower; the loader's
# keys are found through libFuzzer's strcmp hooks all the same.
DB_FUZZ_SRCS = tests/fuzz/fuzz_db.c src/db/gpudb_load.c src/db/gpudb_lookup.c src/db/devfields.c \
               src/db/rank_report.c \
               $(wildcard src/core/*.c) $(wildcard src/model/*.c) \
               $(wildcard src/render/*.c) $(wildcard src/text/*.c)

build/fuzz_db: $(DB_FUZZ_SRCS) $(HDRS)
	@mkdir -p build
	$(CLANG) $(FUZZ_FLAGS) -fno-sanitize-coverage=trace-cmp -o $@ $(DB_FUZZ_SRCS) -lcjson -lm

# Seeded from tests/fuzz/db-seeds (data/gpus.json and small variants).
fuzz-db: build/fuzz_db
	mkdir -p build/fuzz_db_corpus
	./build/fuzz_db -max_total_time=$(FUZZ_SECONDS) -max_len=32768 \
	  -timeout=10 -rss_limit_mb=2048 -artifact_prefix=build/ \
	  -print_final_stats=1 build/fuzz_db_corpus tests/fuzz/db-seeds \
	  2>build/fuzz_db.log || { tail -40 build/fuzz_db.log; exit 1; }
	grep -E '^(Done|stat::peak_rss)|cov: .*DONE' build/fuzz_db.log

# ---- the whole command line in-process: everything the program is made
# of but main() and the build tool; the C++ runtime static, as the product
# links it (the demangler's callback form is exported by libstdc++.a alone).
FUZZ_PROGRAM_SRCS = $(filter-out src/cli/main.c $(DB_GEN_SRC),$(wildcard src/*/*.c)) \
                    build/gpus_table.c build/probe_ptx.c

build/fuzz_cli: tests/fuzz/fuzz_cli.c $(FUZZ_PROGRAM_SRCS) $(HDRS) build/cshim/string
	$(CLANG) $(FUZZ_FLAGS) -I$(CUDA)/include -Ibuild/cshim \
	  -o $@ tests/fuzz/fuzz_cli.c $(FUZZ_PROGRAM_SRCS) -lcjson -lm -ldl -l:libstdc++.a

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

# ---- run's records and report, in-process. Seeded from tests/fuzz/run-seeds
# (records forged by tests/run/forge.c behind the three option bytes).
build/fuzz_run: tests/fuzz/fuzz_run.c $(FUZZ_PROGRAM_SRCS) $(HDRS) build/cshim/string
	$(CLANG) $(FUZZ_FLAGS) -I$(CUDA)/include -Ibuild/cshim \
	  -o $@ tests/fuzz/fuzz_run.c $(FUZZ_PROGRAM_SRCS) -lcjson -lm -ldl -l:libstdc++.a

fuzz-run: build/fuzz_run
	@mkdir -p build/fuzz_run_corpus
	./build/fuzz_run -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 \
	  -rss_limit_mb=2048 -artifact_prefix=build/fuzz-run- -print_final_stats=1 \
	  build/fuzz_run_corpus tests/fuzz/run-seeds \
	  2>build/fuzz_run.log || { tail -40 build/fuzz_run.log; exit 1; }
	grep -E '^(Done|stat::peak_rss)' build/fuzz_run.log

# ---- occcalc report's merge: the reports' reader, the merge and its
# writers, with a dictionary of the report's keys (tests/fuzz/report.dict).
# Seeded from tests/fuzz/report-seeds (two ranks' reports of occcalc run
# over build/forge, a forged one).
# The library's layers (the reader, the merge and its writers need no
# command line and no live backend).
FUZZ_REPORT_SRCS = $(filter-out $(DB_GEN_SRC),$(wildcard src/core/*.c src/text/*.c \
                     src/db/*.c src/ptxas/*.c src/model/*.c src/render/*.c)) \
                   build/gpus_table.c

build/fuzz_report: tests/fuzz/fuzz_report.c $(FUZZ_REPORT_SRCS) $(HDRS) build/cshim/string
	$(CLANG) $(FUZZ_FLAGS) -I$(CUDA)/include -Ibuild/cshim \
	  -o $@ tests/fuzz/fuzz_report.c $(FUZZ_REPORT_SRCS) -lcjson -lm -ldl -l:libstdc++.a

fuzz-report: build/fuzz_report
	@mkdir -p build/fuzz_report_corpus
	./build/fuzz_report -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 \
	  -rss_limit_mb=2048 -dict=tests/fuzz/report.dict \
	  -artifact_prefix=build/fuzz-report- -print_final_stats=1 \
	  build/fuzz_report_corpus tests/fuzz/report-seeds \
	  2>build/fuzz_report.log || { tail -40 build/fuzz_report.log; exit 1; }
	grep -E '^(Done|stat::peak_rss)' build/fuzz_report.log

# ---- AMD's remark reader, seeded from the logs clang-19 produced
# (tests/amd/data/).
build/fuzz_amd_remarks: tests/fuzz/fuzz_amd_remarks.c src/ptxas/amdgpu_remarks.c \
                        src/ptxas/amdgpu_remarks.h src/ptxas/lines.c src/ptxas/lines.h \
                        src/ptxas/log_kind.c | deps
	@mkdir -p build
	$(CLANG) $(FUZZ_FLAGS) -o $@ tests/fuzz/fuzz_amd_remarks.c src/ptxas/amdgpu_remarks.c \
	  src/ptxas/lines.c src/ptxas/log_kind.c

fuzz-amd: build/fuzz_amd_remarks
	@rm -rf build/fuzz_amd_corpus && mkdir -p build/fuzz_amd_corpus
	cp tests/amd/data/*.log build/fuzz_amd_corpus/
	./build/fuzz_amd_remarks -max_total_time=$(FUZZ_SECONDS) -max_len=8192 -artifact_prefix=build/ \
	  -print_final_stats=1 build/fuzz_amd_corpus 2>build/fuzz_amd.log || \
	  { tail -40 build/fuzz_amd.log; exit 1; }
	grep -E '^(Done|stat::peak_rss)' build/fuzz_amd.log

# ---- the database fuzzer from a small database with AMD entries
# (tests/amd/data/fuzz-db-seed.json), so that the AMD loader is mutated too.
fuzz-amd-db: build/fuzz_db
	@rm -rf build/fuzz_amd_db_corpus && mkdir -p build/fuzz_amd_db_corpus
	cp tests/amd/data/fuzz-db-seed.json build/fuzz_amd_db_corpus/
	./build/fuzz_db -max_total_time=$(FUZZ_SECONDS) -max_len=32768 -timeout=10 -rss_limit_mb=2048 \
	  -artifact_prefix=build/ -print_final_stats=1 build/fuzz_amd_db_corpus \
	  2>build/fuzz_amd_db.log || { tail -40 build/fuzz_amd_db.log; exit 1; }
	grep -E '^(Done|stat::peak_rss)' build/fuzz_amd_db.log
