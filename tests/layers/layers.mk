# The walk (tests/walk/walk.sh): the calls between layers while occcalc
# computes and writes typed configurations, recorded by gdb on a build of
# its own whose every call stays a call (no sibling-call jumps), so the
# layers a call crosses can be read from the stack.
TEST_TARGETS += test-walk

WALK_OBJS = $(patsubst build/%,build/walk/%,$(CLI_OBJS) $(RENDER_OBJS) \
              $(call obj,$(wildcard src/live/*.c)) $(MODEL_OBJS) \
              $(PTXAS_OBJS) $(DB_OBJS) $(CORE_OBJS))

build/walk/%.o: src/%.c $(HDRS) Makefile tests/walk.mk build/cshim/string | deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) -Ibuild/cshim -std=c11 $(WARN) -O2 -g \
	  -fno-optimize-sibling-calls -c -o $@ $<

# The generated tables too, with the walk's flags (not $(CFLAGS), which
# make sanitize sets for the rest).
build/walk/gen/%.o: build/%.c Makefile tests/walk.mk | deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) -std=c11 $(WARN) -O2 -g -c -o $@ $<

build/walk/occcalc: $(WALK_OBJS) build/walk/gen/gpus_table.o build/walk/gen/probe_ptx.o
	$(CC) -o $@ $^ $(LDFLAGS) $(LIBS)

test-walk: build/walk/occcalc
	sh tests/walk/walk.sh build/walk/occcalc
