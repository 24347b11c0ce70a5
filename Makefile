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

.PHONY: all deps test test-unit test-diff test-cli bench clean install sanitize

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

build/diff_occupancy: tests/diff_occupancy.c $(LIB_OBJS)
	$(CC) $(ALL_CPPFLAGS) -I$(CUDA)/include $(ALL_CFLAGS) -o $@ $< $(LIB_OBJS) $(LIBS)

clean:
	rm -rf build occcalc
