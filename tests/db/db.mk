# The GPU database: loading, validation and the device a command line names
# (test_db.c, test_db_select.c, test_db_validate.c); hostile databases the
# loader must refuse (tests/db/hostile/*.case, golden cases), the bound on
# what an accepted one can cost (bounds.sh on the corners of the accepted
# ranges) and libcjson linked as a shared library (links_cjson.sh). Its
# golden cases are tests/db/cases; its fuzzer is in tests/fuzz/fuzz.mk.
UNIT_TARGETS  += test-db-unit
CHECK_TARGETS += test-db-unit
CHECK_BINS    += build/unit_db
TEST_TARGETS  += test-db-unit test-hostile-db

.PHONY: test-db-unit test-hostile-db

DB_UNIT_SRCS = $(wildcard tests/db/test_db*.c)

build/unit_db: $(DB_UNIT_SRCS) tests/harness/db_fixture.h $(UNIT_RENDER_OBJS) $(DB_OBJS) $(DB_DATA_OBJ) $(CORE_LIB)
	$(CC) $(TEST_CPPFLAGS) $(ALL_CFLAGS) -o $@ $(DB_UNIT_SRCS) $(UNIT_RENDER_OBJS) \
	  $(CORE_DB_LIBS) -lcjson -lcriterion

test-db-unit: build/unit_db
	./build/unit_db --short-filename

test-hostile-db: occcalc
	sh tests/harness/golden.sh tests/db/hostile/*.case
	sh tests/db/hostile/bounds.sh ./occcalc tests/db/hostile/corners.json
	sh tests/db/hostile/links_cjson.sh ./occcalc
