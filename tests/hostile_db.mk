# Hostile databases: golden cases of databases the loader must
# refuse (tests/hostile-db/*.case, the format of tests/golden.sh), the
# bound on what an accepted one can cost (bounds.sh on the corners of the
# accepted ranges), libcjson linked as a shared library (links_cjson.sh),
# and the libFuzzer target of the loader.
# `make fuzz-db`
# runs it for FUZZ_SECONDS (default 60, see tests/ptxas.mk).
TEST_TARGETS += test-hostile-db test-fuzz-db

.PHONY: test-hostile-db fuzz-db test-fuzz-db

test-hostile-db: occcalc
	sh tests/golden.sh tests/hostile-db/*.case
	sh tests/hostile-db/bounds.sh ./occcalc tests/hostile-db/corners.json
	sh tests/hostile-db/links_cjson.sh ./occcalc

# The loader, the core and the writers, built with the fuzzer and the
# sanitizers (not the compiled-in tables: the input is the database).
# Without comparison tracing: the sweep tables of one device are tens of
# thousands of occ_compute calls, and tracing their comparisons made a run
# ten times slower; the loader's keys are found through libFuzzer's
# strcmp hooks all the same.
DB_FUZZ_SRCS = tests/fuzz/fuzz_db.c src/db/gpudb.c src/db/devfields.c \
               $(wildcard src/core/*.c) $(wildcard src/model/*.c) \
               $(wildcard src/render/*.c)

build/fuzz_db: $(DB_FUZZ_SRCS) $(HDRS)
	@mkdir -p build
	$(CLANG) $(ALL_CPPFLAGS) -std=c11 $(WARN) -g -O1 \
	  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	  -fno-sanitize-coverage=trace-cmp -o $@ $(DB_FUZZ_SRCS) -lcjson -lm

# Seeded from tests/fuzz/db-seeds (data/gpus.json and small variants);
# the corpus grows in build/fuzz_db_corpus. Fails on any crash, leak or
# sanitizer report (libFuzzer exits non-zero and leaves a crash-* file in
# build/: copy it to tests/fuzz/db-seeds as a regression case).
fuzz-db: build/fuzz_db
	mkdir -p build/fuzz_db_corpus
	./build/fuzz_db -max_total_time=$(FUZZ_SECONDS) -max_len=32768 \
	  -timeout=10 -rss_limit_mb=2048 -artifact_prefix=build/ \
	  -print_final_stats=1 build/fuzz_db_corpus tests/fuzz/db-seeds \
	  2>build/fuzz_db.log || { tail -40 build/fuzz_db.log; exit 1; }
	grep -E '^(Done|stat::peak_rss)|cov: .*DONE' build/fuzz_db.log

test-fuzz-db:
	@command -v $(CLANG) >/dev/null || { echo "skipped: no clang"; exit 77; }
	$(MAKE) --no-print-directory fuzz-db FUZZ_SECONDS=20
