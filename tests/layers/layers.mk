# The layers of src/ (core text db ptxas model render live inject cli,
# lowest first) and the library's boundary.
# - test-layers: includes point down only, no include cycle, the core
#   includes no stdio, cJSON or CUDA header, and every symbol a layer's
#   objects use is defined in that layer or below (nm; layers.sh; under a
#   second).
# - test-lib: lib_test.c includes src/libocc.h alone and links
#   build/libocc.a alone (no command line, no live backend, no CUDA).
# - test-walk (slow: gdb, minutes): the calls between layers while occcalc
#   computes and writes typed configurations, a --ptxas log and a run over
#   a fake program's records (walk/walk.sh), recorded by
#   gdb on a build of its own whose every call stays a call (no
#   sibling-call jumps), so that the layers a call crosses can be read
#   from the stack.
CHECK_TARGETS     += test-layers test-lib
CHECK_BINS        += build/lib_test
TEST_TARGETS      += test-layers test-lib test-walk
SLOW_TEST_TARGETS += test-walk

.PHONY: test-layers test-lib test-walk

test-layers: occcalc $(INJECT_LIB)
	sh tests/layers/layers.sh

build/lib_test: tests/layers/lib_test.c src/libocc.h $(LIBOCC)
	$(CC) $(TEST_CPPFLAGS) $(ALL_CFLAGS) -o $@ tests/layers/lib_test.c $(LIBOCC) \
	  -lcjson -lm -Wl,-Bstatic -lstdc++ -Wl,-Bdynamic

test-lib: build/lib_test
	./build/lib_test

WALK_OBJS = $(patsubst build/%,build/walk/%,$(CLI_OBJS) $(RENDER_OBJS) \
              $(call obj,$(wildcard src/live/*.c)) $(MODEL_OBJS) \
              $(PTXAS_OBJS) $(DB_OBJS) $(TEXT_OBJS) $(CORE_OBJS))

build/walk/%.o: src/%.c Makefile tests/layers/layers.mk build/cshim/string | deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(DEPFLAGS) -Ibuild/cshim -std=c11 $(WARN) -O2 -g \
	  -fno-optimize-sibling-calls -c -o $@ $<

# The generated tables too, with the walk's flags (not $(CFLAGS), which
# make sanitize sets for the rest).
build/walk/gen/%.o: build/%.c Makefile tests/layers/layers.mk | deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) -std=c11 $(WARN) -O2 -g -c -o $@ $<

build/walk/occcalc: $(WALK_OBJS) build/walk/gen/gpus_table.o build/walk/gen/probe_ptx.o
	$(CC) -o $@ $^ $(LDFLAGS) $(LIBS)

# run looks for the injection library beside the binary.
build/walk/libocc_inject.so: $(INJECT_LIB)
	cp $(INJECT_LIB) $@

# WALK_FLOWS=run (or typed, ptxas) walks those flows' cases alone.
test-walk: build/walk/occcalc build/walk/libocc_inject.so build/fake_launches
	sh tests/layers/walk/walk.sh build/walk/occcalc $(WALK_FLOWS)
