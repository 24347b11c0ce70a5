# occcalc - CUDA occupancy and warp calculator.
# `make` builds ./occcalc (it needs a C compiler, the CUDA toolkit and
# cJSON); `make test` runs the whole suite (what .ci/run runs) after
# installing the test-only packages; `make bench` runs the CPU benchmarks.
# See README.md.
#
# src/ is one folder per layer:
#   core/  the calculator, the sweep engine, charts' and suggestions' data:
#          no I/O, no cJSON, no CUDA; built as build/libocc_core.a
#   text/  how occcalc words what it says, for every layer above the core:
#          outside text escaped (text_safe.c), the one-line diagnostic
#          (occ_msg) and a reader's reason (why.h)
#   db/    the GPU database (data/gpus.json, compiled in at build time) and
#          the device a query names (select.c: one call for the calculator)
#   ptxas/ the compiler-report reader
#   model/  the item each kernel configuration becomes, with the sections
#           the options ask for, each computed once, in one call
#           (occ_model_build), before any writer runs;
#           the verifier's results and their judges, run's launch records
#   render/ the renderers: text, JSON, JSONL, CSV, SVG, entered once an
#           item (render.c); they read the model and call no layer below
#           (tests/layers/walk/ checks the calls, tests/layers/layers.sh the
#           includes and the symbols each layer's objects use)
#   live/   occcalc's live GPU backend (with inject/, the only code that
#           sees CUDA's headers), the reader of run's launch records and
#           the device each launch ran on
#   inject/ the injection library run loads into the user's program
#           (build/libocc_inject.so), a program of its own
#   cli/    options, commands, main: the sources that fill the model

# The release: --version prints it, and the man page's .TH line must say
# the same (make test-options checks it).
VERSION  = 0.2.0
PREFIX  ?= /usr/local
CUDA    ?= /usr/local/cuda
NVCC    ?= $(CUDA)/bin/nvcc
CC      ?= cc
CFLAGS  ?= -O2 -g
# Warnings are errors only where asked (CI: make WERROR=1), so that a
# user's newer compiler with a new warning still builds and installs.
WERROR  ?=
WARN     = -Wall -Wextra $(if $(WERROR),-Werror)
ALL_CPPFLAGS = -D_POSIX_C_SOURCE=200809L -DOCC_VERSION='"$(VERSION)"' \
               -Isrc -Ibuild $(CPPFLAGS)
ALL_CFLAGS   = -std=c11 $(WARN) $(CFLAGS)
# Each object's header dependencies, written by the compiler beside it
# (build/**/*.d) and read back below.
DEPFLAGS     = -MMD -MP

obj = $(patsubst src/%.c,build/%.o,$(1))
CORE_OBJS  = $(call obj,$(wildcard src/core/*.c))
TEXT_OBJS  = $(call obj,$(wildcard src/text/*.c))
DB_OBJS    = $(call obj,$(filter-out $(DB_GEN_SRC),$(wildcard src/db/*.c)))
PTXAS_OBJS = $(call obj,$(wildcard src/ptxas/*.c))
MODEL_OBJS = $(call obj,$(wildcard src/model/*.c))
LIVE_OBJS  = $(call obj,$(wildcard src/live/*.c)) \
             build/probe_ptx.o
# The injection library's own sources (see "occcalc run" below).
INJECT_SRCS = $(filter-out src/inject/preload.c,$(wildcard src/inject/*.c))
RENDER_OBJS = $(call obj,$(wildcard src/render/*.c))
CLI_OBJS   = $(call obj,$(wildcard src/cli/*.c))
HDRS       = $(wildcard src/*/*.h)
CORE_LIB   = build/libocc_core.a

# The database compiled in: build/gpus_gen (a build tool, src/db/gpus_gen.c)
# loads data/gpus.json with the loader of --data and writes it as C tables.
DB_GEN_SRC  = src/db/gpus_gen.c
DB_DATA_OBJ = build/gpus_table.o
# The loader of --data and its look-ups, without the compiled-in tables:
# what the generator and the tools that read a JSON database link.
DB_LOADER_OBJS = build/db/gpudb_load.o build/db/gpudb_lookup.o build/db/devfields.o

# The library behind one header (src/libocc.h): core, database, reader,
# model and renderers, without the command line and the live backend;
# what a test or another program links.
LIBOCC_OBJS = $(CORE_OBJS) $(TEXT_OBJS) $(DB_OBJS) $(DB_DATA_OBJ) $(PTXAS_OBJS) \
              $(MODEL_OBJS) $(RENDER_OBJS)
LIBOCC = build/libocc.a

# Everything but main(), for the tests that drive the program's parts.
LIB_OBJS = $(filter-out build/cli/main.o,$(CLI_OBJS)) $(RENDER_OBJS) \
           $(LIVE_OBJS) $(MODEL_OBJS) $(PTXAS_OBJS) $(DB_OBJS) $(DB_DATA_OBJ) \
           $(TEXT_OBJS) $(CORE_LIB)

# The product's link: libc and libcjson, a normal shared library (cJSON
# writes every JSON document, src/render/json_write.h, and reads --data,
# src/db/gpudb_load.c; Debian packages no static libcjson). No CUDA library
# (src/live/gpu_driver.c opens the driver, and src/live/cudart.c the CUDA runtime
# whose occupancy API verify asks, with dlopen when a live command runs, so
# ./occcalc starts on machines without an NVIDIA driver or CUDA, and no
# other run pays for the driver's or the runtime's (static: ~34,000
# instructions, ~80 us a run) start-up); the C++ runtime's demangler linked
# statically (a dynamic libstdc++ costs every run ~0.7 ms of loading).
# tests/db/hostile/links_cjson.sh checks that libcjson is NEEDED.
CJSON_LIBS = -lcjson
CUDA_LIBS  = -ldl
LIBS       = $(CJSON_LIBS) -lm $(CUDA_LIBS) -Wl,-Bstatic -lstdc++ -Wl,-Bdynamic
# What a test of the core and the database links: no CUDA.
CORE_DB_LIBS = $(DB_OBJS) $(DB_DATA_OBJ) $(CORE_LIB) $(CJSON_LIBS) -lm -ldl

.PHONY: all deps test-deps test bench bench-gpu test-gpu clean install sanitize format format-check

all: occcalc

# Installs the Debian packages the goals on make's command line need when
# they are missing (as root), or names them and the targets that need
# them, before anything compiles (tests/harness/deps.sh): every compile
# and link waits on it (an order-only prerequisite), so that the README's
# `make` and `make test` are the whole set-up on a fresh machine. `make`
# and the GPU goals need cJSON alone; `make check` Criterion too; the rest
# of the suite its tools (one apt-get run: two at once would fight over
# dpkg's lock).
deps:
	@sh tests/harness/deps.sh $(or $(MAKECMDGOALS),all)

test-deps:
	@sh tests/harness/deps.sh test

occcalc: $(CLI_OBJS) $(LIB_OBJS)
	$(CC) $(ALL_CFLAGS) -o $@ build/cli/main.o $(LIB_OBJS) $(LDFLAGS) $(LIBS)

$(LIBOCC): $(LIBOCC_OBJS)
	rm -f $@ && ar rcs $@ $(LIBOCC_OBJS)

build/%.o: src/%.c Makefile | deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(DEPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

$(CORE_LIB): $(CORE_OBJS)
	rm -f $@ && ar rcs $@ $(CORE_OBJS)

# The generator links the loader but not gpudb_builtin.o, which needs the
# tables it makes. A gpus.json the loader refuses fails here, with its
# message, and leaves no table behind.
build/gpus_gen: $(DB_GEN_SRC) $(DB_LOADER_OBJS) $(CORE_LIB) | deps
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ $(DB_GEN_SRC) $(DB_LOADER_OBJS) \
	  $(CORE_LIB) $(CJSON_LIBS) -lm

build/gpus_table.c: data/gpus.json build/gpus_gen
	./build/gpus_gen data/gpus.json > $@.tmp || { rm -f $@.tmp; exit 1; }
	mv $@.tmp $@

build/gpus_table.o: build/gpus_table.c | deps
	$(CC) $(ALL_CPPFLAGS) $(DEPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

# Only the live backend sees CUDA's headers.
$(call obj,$(wildcard src/live/*.c)): ALL_CPPFLAGS += -I$(CUDA)/include
# Where the toolkit keeps libcudart, off the loader's path: cudart.c looks
# there after the loader's path.
build/live/cudart.o: ALL_CPPFLAGS += -DOCC_CUDA_LIB_DIR='"$(CUDA)/lib64"'
# jitlink.c looks for nvJitLink where cudart.c looks for the runtime.
build/live/jitlink.o: ALL_CPPFLAGS += -DOCC_CUDA_LIB_DIR='"$(CUDA)/lib64"'

# cupti_profiler_host.h includes C++'s <string> without using it; an empty
# one lets the C compiler read the header unchanged.
build/live/counter.o build/live/sampler.o: ALL_CPPFLAGS += -Ibuild/cshim
build/live/counter.o build/live/sampler.o: build/cshim/string
build/cshim/string:
	mkdir -p build/cshim && : > $@

# The probe kernel, built to PTX and embedded. compute_75 is the oldest
# target nvcc 13 accepts; the driver JIT-compiles the PTX for the device.
build/probe.ptx: src/live/probe.cu
	@mkdir -p build
	$(NVCC) -ptx -arch=compute_75 -o $@ $<

build/probe_ptx.c: build/probe.ptx src/live/embed.sh
	sh src/live/embed.sh build/probe.ptx occ_probe_ptx > $@

build/probe_ptx.o: build/probe_ptx.c | deps
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

# ---- occcalc run: the injection library -------------------------------
# build/libocc_inject.so is loaded into the user's program by the CUDA
# driver (CUDA_INJECTION64_PATH), so it is built position-independent in
# its own tree (build/inject/), exports only InitializeInjection, and links
# no CUDA library: CUPTI is opened with dlopen in the program, where the
# driver is already loaded. It shares the Range Profiler code (counter.c)
# and the rule by which a library is opened (dl.c) with occcalc. occcalc finds it beside itself (build/, or
# $(PREFIX)/lib/occcalc/ after make install).
INJECT_LIB  = build/libocc_inject.so
all: $(INJECT_LIB)
INJECT_OBJS = $(patsubst src/%.c,build/inject/%.o,$(INJECT_SRCS) src/live/counter.c \
              src/live/dl.c)

build/inject/%.o: src/%.c Makefile build/cshim/string | deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(DEPFLAGS) -I$(CUDA)/include -Ibuild/cshim $(ALL_CFLAGS) \
	  -fPIC -fvisibility=hidden -c -o $@ $<

# libocc_preload.so goes into the program's LD_PRELOAD beside the
# injection library (src/inject/preload.c): it exports cuptiSubscribe and
# cuptiSubscribe_v2 alone, passing each call on, and records a refusal of
# the program's own CUPTI client. Built with the injection library (an
# order-only prerequisite), so every run that has the one has the other.
PRELOAD_LIB = build/libocc_preload.so
$(INJECT_LIB): $(INJECT_OBJS) | $(PRELOAD_LIB)
	$(CC) $(ALL_CFLAGS) -shared -Wl,-z,defs -o $@ $(INJECT_OBJS) -ldl -lpthread

# Never sanitized: a sanitizer's runtime must come first in a process,
# and this library is preloaded into programs that were not built with it
# (`make sanitize` runs every program occcalc runs with it).
PRELOAD_CFLAGS = $(filter-out -fsanitize=%,$(ALL_CFLAGS))
build/preload/preload.o: src/inject/preload.c Makefile | deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(DEPFLAGS) -I$(CUDA)/include $(PRELOAD_CFLAGS) \
	  -fPIC -fvisibility=hidden -c -o $@ $<
$(PRELOAD_LIB): build/preload/preload.o
	$(CC) $(PRELOAD_CFLAGS) -shared -Wl,-z,defs -o $@ $< -ldl
# ---- end of occcalc run ------------------------------------------------

# ---- tests -------------------------------------------------------------
# tests/ has one folder per feature (calculator, cli, db, json, ptxas, amd,
# cluster, verify, run, lab, layers, build, docs), each with its make
# fragment, its golden cases (FEATURE/cases/*.case, run by
# tests/harness/golden.sh) and its unit tests, and folders per role:
# fuzz/, bench/, survey/ (the GPU surveys' records) and harness/.
# Each part of the suite is a make target. A target passes with status 0,
# is skipped with status 77 (it prints why, e.g. "skipped: no GPU"), and
# fails otherwise. The fragments add their targets to these lists:
#   CHECK_TARGETS      make check: unit, golden, options, JSON contracts and
#                      layers; under a minute, needs only cJSON and Criterion
#   UNIT_TARGETS       make test-unit: every Criterion binary
#   TEST_TARGETS       make test: the whole CPU suite (what .ci/run runs)
#   SLOW_TEST_TARGETS  make test-slow: the slow part of TEST_TARGETS (gdb,
#                      fuzzers, sanitizers, nvcc, a fresh build)
#   GPU_TEST_TARGETS   make test-gpu: on a machine with a GPU
#   BENCH_TARGETS, GPU_BENCH_TARGETS: make bench, make bench-gpu
TEST_CPPFLAGS = $(ALL_CPPFLAGS) -Itests/harness
CHECK_TARGETS =
CHECK_BINS =
UNIT_TARGETS =
TEST_TARGETS =
SLOW_TEST_TARGETS =
GPU_TEST_TARGETS =
BENCH_TARGETS =
GPU_BENCH_TARGETS =

include $(wildcard tests/*/*.mk)
-include $(wildcard build/*.d build/*/*.d build/*/*/*.d)

RUN_TARGETS = sh tests/harness/run_targets.sh "$(MAKE)"

.PHONY: check test-unit test-slow

# The binaries first, in parallel under make -j, then the targets in turn.
# What check builds, it builds with -Werror, as CI does (.ci/run): a
# warning in a changed file fails here first.
check: WERROR = 1
check: all $(CHECK_BINS)
	+@$(RUN_TARGETS) $(CHECK_TARGETS)

test-unit: $(UNIT_TARGETS)

test: all
	+@$(RUN_TARGETS) $(TEST_TARGETS)

test-slow: all
	+@$(RUN_TARGETS) $(SLOW_TEST_TARGETS)

test-gpu: all
	+@$(RUN_TARGETS) $(GPU_TEST_TARGETS)

bench: all
	+@$(RUN_TARGETS) $(BENCH_TARGETS)

bench-gpu: all
	+@$(RUN_TARGETS) $(GPU_BENCH_TARGETS)

# ASan and UBSan over the whole CPU suite, in a separate build tree.
sanitize:
	$(MAKE) clean
	$(MAKE) test CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
	$(MAKE) clean

# The C layout (.clang-format). make format FILES="a.c b.h" formats those
# files in place (default: the files of tests/harness/formatted.txt);
# make format-check fails when a file of that list is not formatted. The
# list grows a file at a time, when a file is reformatted whole in a
# commit of its own (HACKING.md): src/ is not reformatted at once.
CLANG_FORMAT ?= clang-format
FORMATTED = $(shell cat tests/harness/formatted.txt)
FILES ?= $(FORMATTED)
format:
	$(CLANG_FORMAT) -i $(FILES)

format-check:
	@command -v $(CLANG_FORMAT) >/dev/null || { echo "skipped: no $(CLANG_FORMAT)"; exit 77; }
	@bad=""; for f in $(FORMATTED); do \
	  $(CLANG_FORMAT) "$$f" | cmp -s "$$f" - || bad="$$bad $$f"; done; \
	  [ -z "$$bad" ] || { echo "format-check: not formatted (make format FILES=...):$$bad"; exit 1; }; \
	  echo "format-check: $(words $(FORMATTED)) files formatted"

install: occcalc $(INJECT_LIB)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 occcalc $(DESTDIR)$(PREFIX)/bin/occcalc
	install -d $(DESTDIR)$(PREFIX)/lib/occcalc
	install -m 755 $(INJECT_LIB) $(DESTDIR)$(PREFIX)/lib/occcalc/libocc_inject.so
	install -m 755 $(PRELOAD_LIB) $(DESTDIR)$(PREFIX)/lib/occcalc/libocc_preload.so
	install -m 644 man/occcalc.1 $(DESTDIR)$(PREFIX)/share/man/man1/occcalc.1

clean:
	rm -rf build occcalc
