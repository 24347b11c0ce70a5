# Criterion unit tests. The core's, the database's, the chart writers' and
# the explanation's (tests/test_core.c, tests/test_explore.c,
# tests/test_explain.c) link libocc_core.a, the
# database and the writers, without the CUDA runtime; the verifier's, the
# command line's and the library opener's (tests/test_verify.c,
# tests/test_cli.c, tests/test_dl.c) link the whole program but main(); the injection
# library's counters logic (tests/test_inject_counters.c) links its object.
TEST_TARGETS += test-unit test-lib

CORE_UNIT_SRCS = tests/test_core.c tests/test_explore.c tests/test_explain.c tests/test_config.c \
                 tests/test_report_rows.c \
                 $(wildcard tests/test_db*.c)

# The writers read the model (run_out.c its cluster section): its objects too.
UNIT_RENDER_OBJS = $(RENDER_OBJS) $(MODEL_OBJS)

build/unit_core: $(CORE_UNIT_SRCS) tests/db_fixture.h tests/json_parsed.h $(UNIT_RENDER_OBJS) $(DB_OBJS) $(DB_DATA_OBJ) $(CORE_LIB)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ $(CORE_UNIT_SRCS) $(UNIT_RENDER_OBJS) $(CORE_DB_LIBS) -lcjson -lcriterion

PROGRAM_UNIT_SRCS = tests/test_verify.c tests/test_cli.c tests/test_dl.c

build/unit_program: $(PROGRAM_UNIT_SRCS) tests/db_fixture.h tests/json_parsed.h $(LIB_OBJS)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ $(PROGRAM_UNIT_SRCS) $(LIB_OBJS) $(LIBS) -lcjson -lcriterion

# The injection library's counters logic against a fake Range Profiler
# (tests/test_inject_counters.c).
build/unit_inject: tests/test_inject_counters.c build/inject/inject/inject_counters.o
	$(CC) $(ALL_CPPFLAGS) -I$(CUDA)/include -Ibuild/cshim $(ALL_CFLAGS) \
	  -o $@ $^ -lcriterion -lpthread

test-unit: build/unit_core build/unit_program build/unit_inject
	./build/unit_core --short-filename
	./build/unit_program --short-filename
	./build/unit_inject --short-filename

# The library's boundary: tests/lib_test.c includes src/libocc.h alone and
# links build/libocc.a alone (no command line, no live backend, no CUDA).
build/lib_test: tests/lib_test.c src/libocc.h $(LIBOCC)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ tests/lib_test.c $(LIBOCC) \
	  -lcjson -lm -Wl,-Bstatic -lstdc++ -Wl,-Bdynamic

test-lib: build/lib_test
	./build/lib_test
