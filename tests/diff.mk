# The differential test against the toolkit's cuda_occupancy.h.
TEST_TARGETS += test-diff

build/diff_occupancy: tests/diff_occupancy.c $(LIB_OBJS)
	$(CC) $(ALL_CPPFLAGS) -I$(CUDA)/include $(ALL_CFLAGS) -o $@ $< $(LIB_OBJS) $(LIBS)

test-diff: build/diff_occupancy
	./build/diff_occupancy
