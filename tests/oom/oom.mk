# Running out of memory is an output error (status 1, "out of memory"),
# never the input's fault: every allocation of a few commands fails in
# turn under an LD_PRELOAD shim (tests/oom/failmalloc.c). About 30 s.
TEST_TARGETS += test-oom

.PHONY: test-oom

build/failmalloc.so: tests/oom/failmalloc.c
	@mkdir -p build
	$(CC) -shared -fPIC -O2 -o $@ tests/oom/failmalloc.c

test-oom: occcalc build/failmalloc.so build/forge
	sh tests/oom/alloc_fail.sh ./occcalc build/failmalloc.so
