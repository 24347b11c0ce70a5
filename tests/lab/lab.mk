# The occupancy lab (docs/lab.md): the course's reductions and
# transposes in kernels/lab/, built by `make lab-build`; `make lab` runs
# each under `occcalc run` on a GPU and prints one table. test-lab (CPU,
# tests/lab/test_lab.sh) compiles them through `occcalc --ptxas`, runs
# them on an emulated GPU, tests the table's script, and checks every
# offline number of the handout against what occcalc prints now.
TEST_TARGETS += test-lab

LAB_SRCS = kernels/lab/reduction.cu kernels/lab/transpose.cu
LAB_BINS = $(LAB_SRCS:kernels/lab/%.cu=build/lab/%)

# The GPU at hand where there is one; sm_90 where there is none, so that
# CI compiles the lab too.
LAB_ARCH = $(shell nvidia-smi -L >/dev/null 2>&1 && echo native || echo sm_90)

# nvprof's achieved_occupancy and branch_efficiency in Perfworks' names
# (docs/lab.md, Part 4), and the branch targets, so that a kernel without
# branches reads "none" rather than Nsight Compute's 0.
LAB_METRICS = sm__warps_active.avg.pct_of_peak_sustained_active,smsp__sass_average_branch_targets_threads_uniform.pct,smsp__sass_branch_targets.sum

.PHONY: lab lab-build test-lab

lab-build: $(LAB_BINS)

build/lab/%: kernels/lab/%.cu
	@mkdir -p build/lab
	$(NVCC) -O3 -arch=$(LAB_ARCH) -o $@ $<

lab: occcalc lab-build
	@LAB_METRICS=$(LAB_METRICS) sh tests/lab/lab.sh

test-lab: occcalc
	sh tests/lab/test_lab.sh $(LAB_SRCS)
