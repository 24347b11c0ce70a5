# occcalc run over forged records: tests/run/forge.c writes
# records as the injection library or a hostile program would;
# tests/run/records_test.sh runs occcalc on them (OCCCALC= and FORGE= run
# the same cases on another build); tests/run/records_unit.c drives the
# reader's caps and the hash index directly.
TEST_TARGETS += test-run-records

build/forge: tests/run/forge.c src/model/launch_record.h
	@mkdir -p build
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ $<

build/records_unit: tests/run/records_unit.c build/live/records.o build/cli/run_index.o \
                    $(DB_OBJS) $(DB_DATA_OBJ) $(CORE_LIB)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -o $@ tests/run/records_unit.c \
	  build/live/records.o build/cli/run_index.o $(CORE_DB_LIBS) $(LDFLAGS) -lcriterion

test-run-records: occcalc $(INJECT_LIB) build/forge build/records_unit
	./build/records_unit --short-filename
	sh tests/run/records_test.sh

# The targets for a program that varies its configuration 40,000
# times, in every format, and for the demangler bomb (a CPU benchmark).
BENCH_TARGETS += bench-run-records
bench-run-records: occcalc $(INJECT_LIB) build/forge
	sh tests/run/bench_records.sh
