# The JSON contract (schema 3, the man page's "JSON OUTPUT") on every kind
# of document occcalc writes without a GPU (json_keys.sh; needs jq and
# python3), and occcalc's JSON printer and writer (render/json_write.h):
# exact integers, the fewest digits that read back, U+FFFD for invalid
# UTF-8, cJSON's layout otherwise, the stream the same as the tree
# (json_write_test.c).
UNIT_TARGETS  += test-json-unit
CHECK_TARGETS += test-json-unit test-json
CHECK_BINS    += build/json_write_test build/forge
TEST_TARGETS  += test-json-unit test-json

.PHONY: test-json test-json-unit

test-json: occcalc $(INJECT_LIB) build/forge
	sh tests/json/json_keys.sh

JSON_WRITE_SRCS = tests/json/json_write_test.c src/render/json_write.c
JSON_WRITE_DEPS = $(JSON_WRITE_SRCS) tests/harness/json_parsed.h src/render/json_write.h src/core/utf8.h

build/json_write_test: $(JSON_WRITE_DEPS)
	@mkdir -p build
	$(CC) $(TEST_CPPFLAGS) $(ALL_CFLAGS) -o $@ $(JSON_WRITE_SRCS) -lcriterion -lcjson

build/json_write_test_san: $(JSON_WRITE_DEPS)
	@mkdir -p build
	$(CC) $(TEST_CPPFLAGS) -std=c11 $(WARN) $(SAN_FLAGS) -o $@ $(JSON_WRITE_SRCS) -lcriterion -lcjson

test-json-unit: build/json_write_test
	./build/json_write_test
