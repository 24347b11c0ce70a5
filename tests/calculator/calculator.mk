# The calculator: the core's rules, the sweep engine, charts, suggestions,
# the explanation and the report's rows.
# - test-calculator-unit: Criterion (test_core.c, test_charts.c,
#   test_explain.c, test_config.c, test_report_rows.c), linked with the
#   core, the database, the model and the renderers, without CUDA.
# - test-golden: every feature's golden cases (tests/*/cases/*.case, see
#   tests/harness/golden.sh); KEYWORD=WORD runs one feature's or one
#   keyword's alone (make test-golden KEYWORD=amd).
# - test-diff: the differential test against the toolkit's cuda_occupancy.h.
# - test-sweep: the sweep engine against cuda_occupancy.h and occ_compute on
#   every architecture's full grid.
# - test-charts-svg: the SVG charts' structure (skipped without xmllint).
# - test-unlimited: the core's "unlimited" (OCC_UNLIMITED) never reaches an
#   output, on every architecture and through every writer.
UNIT_TARGETS  += test-calculator-unit
CHECK_TARGETS += test-calculator-unit test-golden
CHECK_BINS    += build/unit_calculator build/ptxas_dump
TEST_TARGETS  += test-calculator-unit test-golden test-diff test-sweep \
                 test-charts-svg test-unlimited

.PHONY: test-calculator-unit test-golden test-diff test-sweep test-charts-svg \
        test-unlimited

CALCULATOR_UNIT_SRCS = tests/calculator/test_core.c tests/calculator/test_charts.c \
                       tests/calculator/test_explain.c tests/calculator/test_config.c \
                       tests/calculator/test_report_rows.c

# The writers read the model (run_out.c its cluster section): its objects too.
UNIT_RENDER_OBJS = $(RENDER_OBJS) $(MODEL_OBJS) $(TEXT_OBJS)

build/unit_calculator: $(CALCULATOR_UNIT_SRCS) tests/harness/db_fixture.h tests/harness/json_parsed.h \
                       $(UNIT_RENDER_OBJS) $(DB_OBJS) $(DB_DATA_OBJ) $(CORE_LIB)
	$(CC) $(TEST_CPPFLAGS) $(ALL_CFLAGS) -o $@ $(CALCULATOR_UNIT_SRCS) $(UNIT_RENDER_OBJS) \
	  $(CORE_DB_LIBS) -lcjson -lcriterion

test-calculator-unit: build/unit_calculator
	./build/unit_calculator --short-filename

# The reader's cases run build/ptxas_dump (tests/ptxas/ptxas.mk).
test-golden: occcalc build/ptxas_dump
	sh tests/harness/golden.sh tests/*/cases/*.case

build/diff_occupancy: tests/calculator/diff_occupancy.c $(DB_OBJS) $(DB_DATA_OBJ) $(CORE_LIB)
	$(CC) $(TEST_CPPFLAGS) -I$(CUDA)/include $(ALL_CFLAGS) -o $@ $< $(CORE_DB_LIBS)

test-diff: build/diff_occupancy
	./build/diff_occupancy

build/sweep_check: tests/calculator/sweep_check.c tests/harness/ref_header.h $(DB_OBJS) $(DB_DATA_OBJ) $(CORE_LIB)
	$(CC) $(TEST_CPPFLAGS) -I$(CUDA)/include $(ALL_CFLAGS) -o $@ $< $(CORE_DB_LIBS)

test-sweep: build/sweep_check
	./build/sweep_check

test-charts-svg: occcalc
	sh tests/calculator/svg_check.sh

test-unlimited: occcalc
	sh tests/calculator/unlimited_check.sh
