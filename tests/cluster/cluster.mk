# Thread block clusters. Its golden cases are tests/cluster/cases.
# - test-cluster-unit (CPU, Criterion): the offline cluster rule against
#   every row of the surveys (tests/survey/h{100,200}-cluster-*.csv) and
#   the database's layouts (cluster_rule.c), the live probe's cluster
#   timeline on synthetic records (cluster_timeline.c), the live
#   verification's judge and sweep cases (cluster_verify.c) and --cluster's
#   value, the sweep's cluster counts and the live cluster JSON
#   (cluster_cli.c); no GPU is used.
# - test-cluster-ncu (CPU): occcalc's Nsight Compute cluster figures
#   against ncu's for the same launches on an H100
#   (tests/survey/h100-ncu-cluster.csv).
# - test-gpu-cluster (GPU): the live cluster probe (cluster_gpu.c), skipped
#   (77) without a GPU of compute capability 9.0 or newer.
UNIT_TARGETS     += test-cluster-unit
CHECK_TARGETS    += test-cluster-unit
CHECK_BINS       += build/cluster_rule build/cluster_verify build/cluster_cli
TEST_TARGETS     += test-cluster-unit test-cluster-ncu
GPU_TEST_TARGETS += test-gpu-cluster

.PHONY: test-cluster-unit test-cluster-ncu test-gpu-cluster

CLUSTER_UNIT_SRCS = tests/cluster/cluster_rule.c tests/cluster/cluster_timeline.c
build/cluster_rule: $(CLUSTER_UNIT_SRCS) tests/harness/db_fixture.h build/live/cluster_timeline.o \
                    $(DB_OBJS) $(DB_DATA_OBJ) $(CORE_LIB)
	$(CC) $(TEST_CPPFLAGS) $(ALL_CFLAGS) -o $@ $(CLUSTER_UNIT_SRCS) build/live/cluster_timeline.o \
	  $(CORE_DB_LIBS) -lcriterion

# Linked with the program's objects, as build/unit_cli is.
build/cluster_verify: tests/cluster/cluster_verify.c $(LIB_OBJS)
	$(CC) $(TEST_CPPFLAGS) $(ALL_CFLAGS) -o $@ tests/cluster/cluster_verify.c $(LIB_OBJS) $(LIBS) -lcriterion

build/cluster_cli: tests/cluster/cluster_cli.c tests/harness/db_fixture.h $(LIB_OBJS)
	$(CC) $(TEST_CPPFLAGS) $(ALL_CFLAGS) -o $@ tests/cluster/cluster_cli.c $(LIB_OBJS) $(LIBS) -lcriterion

test-cluster-unit: build/cluster_rule build/cluster_verify build/cluster_cli
	./build/cluster_rule --short-filename
	./build/cluster_verify --short-filename
	./build/cluster_cli --short-filename

test-cluster-ncu: occcalc
	sh tests/cluster/cluster_ncu.sh

build/cluster_gpu: tests/cluster/cluster_gpu.c $(LIB_OBJS)
	$(CC) $(TEST_CPPFLAGS) $(ALL_CFLAGS) -o $@ tests/cluster/cluster_gpu.c $(LIB_OBJS) $(LIBS)

test-gpu-cluster: build/cluster_gpu
	./build/cluster_gpu
