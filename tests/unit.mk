# Criterion unit tests: every tests/test_*.c, linked with the library objects.
TEST_TARGETS += test-unit

UNIT_SRCS = $(wildcard tests/test_*.c)

build/unit_tests: $(UNIT_SRCS) $(LIB_OBJS)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ $(UNIT_SRCS) $(LIB_OBJS) $(LIBS) -lcriterion

test-unit: build/unit_tests
	./build/unit_tests --short-filename
