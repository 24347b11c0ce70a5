# The differential test against the toolkit's cuda_occupancy.h.
TEST_TARGETS += test-diff

build/diff_occupancy: tests/diff_occupancy.c $(DB_OBJS) $(DB_DATA_OBJ) $(CORE_LIB)
	$(CC) $(ALL_CPPFLAGS) -I$(CUDA)/include $(ALL_CFLAGS) -o $@ $< $(CORE_DB_LIBS)

test-diff: build/diff_occupancy
	./build/diff_occupancy
