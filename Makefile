# occcalc - CUDA occupancy and warp calculator.
# `make` builds ./occcalc; `make test` runs the whole suite (what .ci/run
# runs); `make bench` runs the CPU benchmarks. See README.md.

PREFIX  ?= /usr/local
CUDA    ?= /usr/local/cuda
CC      ?= cc
CFLAGS  ?= -O2 -g
WARN     = -Wall -Wextra -Werror
ALL_CPPFLAGS = -D_POSIX_C_SOURCE=200809L -Isrc -Ibuild $(CPPFLAGS)
ALL_CFLAGS   = -std=c11 $(WARN) $(CFLAGS)
LIBS     = -lcjson -lm

SRCS     = $(wildcard src/*.c)
OBJS     = $(SRCS:src/%.c=build/%.o) build/gpus_data.o
LIB_OBJS = $(filter-out build/main.o,$(OBJS))
HDRS     = $(wildcard src/*.h)

.PHONY: all deps test bench bench-gpu test-gpu clean install sanitize

# Each part of the suite is a make target listed in TEST_TARGETS (CPU) or
# GPU_TEST_TARGETS; tests/*.mk add their own. A target passes with status
# 0, is skipped with status 77 (it prints why, e.g. "skipped: no GPU"), and
# fails otherwise. BENCH_TARGETS and GPU_BENCH_TARGETS likewise.
TEST_TARGETS =
GPU_TEST_TARGETS =
BENCH_TARGETS =
GPU_BENCH_TARGETS =

all: deps occcalc

# Installs the Debian packages the build needs when they are missing (as
# root), or names them and stops.
deps:
	@sh tests/deps.sh

occcalc: $(OBJS)
	$(CC) $(ALL_CFLAGS) -o $@ $(OBJS) $(LDFLAGS) $(LIBS)

build/%.o: src/%.c $(HDRS) | build
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

build/gpus_data.c: data/gpus.json src/embed.sh | build
	sh src/embed.sh data/gpus.json occ_builtin_gpus_json > $@

build/gpus_data.o: build/gpus_data.c
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

build:
	mkdir -p build

include $(wildcard tests/*.mk)

test: all
	@sh tests/run_targets.sh "$(MAKE)" $(TEST_TARGETS)

test-gpu: all
	@sh tests/run_targets.sh "$(MAKE)" $(GPU_TEST_TARGETS)

bench: all
	@sh tests/run_targets.sh "$(MAKE)" $(BENCH_TARGETS)

bench-gpu: all
	@sh tests/run_targets.sh "$(MAKE)" $(GPU_BENCH_TARGETS)

# ASan and UBSan over the whole CPU suite, in a separate build tree.
sanitize:
	$(MAKE) clean
	$(MAKE) test CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
	$(MAKE) clean

install: occcalc
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 occcalc $(DESTDIR)$(PREFIX)/bin/occcalc
	install -m 644 man/occcalc.1 $(DESTDIR)$(PREFIX)/share/man/man1/occcalc.1

clean:
	rm -rf build occcalc
