# The GPU surveys: programs that measure on the GPU at hand what the
# offline rules must reproduce. Their recorded outputs are the CSV files
# in this folder, which the CPU tests replay (tests/calculator/test_core.c,
# test_config.c, tests/cluster/cluster_rule.c, cluster_ncu.sh). None of
# them is a test; run one on a GPU machine and compare with its record.
.PHONY: carveout-survey config-survey config-small cluster-survey

# How many blocks each SM holds under every carveout preference, beside
# the occupancy API's answer (h100-carveout.csv).
build/carveout_survey: kernels/carveout_survey.cu kernels/survey_device.cuh
	@mkdir -p build
	$(NVCC) -O2 -o $@ $<

carveout-survey: build/carveout_survey
	./build/carveout_survey > build/carveout-survey.csv
	@echo "carveout-survey: $$(($$(wc -l < build/carveout-survey.csv) - 1)) configurations in build/carveout-survey.csv"

# The configuration the driver chooses (CUPTI's sharedMemoryExecuted) under
# the default preference and every preference, beside residency; a sample
# under ncu names launch__shared_mem_config_size for the same launches
# (h100-config-survey.csv, h200-config-*.csv).
build/config_survey: kernels/config_survey.cu kernels/survey_config.cuh kernels/survey_device.cuh
	@mkdir -p build
	$(NVCC) -O2 -o $@ $< -L$(CUDA)/lib64 -lcupti

config-survey: build/config_survey
	./build/config_survey > build/config-survey.csv
	@echo "config-survey: $$(grep -c '^[0-9]' build/config-survey.csv) configurations in build/config-survey.csv"

# The same for blocks with 0 B to 4 KB of their own memory and exact
# register caps (h{100,200}-config-small.csv; "fine": h{100,200}-config-fine.csv).
build/config_small: kernels/config_small.cu kernels/survey_config.cuh kernels/survey_device.cuh
	@mkdir -p build
	$(NVCC) -O2 -arch=sm_90 -o $@ $< -L$(CUDA)/lib64 -lcupti

config-small: build/config_small
	./build/config_small > build/config-small.csv
	./build/config_small fine > build/config-fine.csv
	@echo "config-small: $$(grep -c '^[0-9]' build/config-small.csv) and $$(grep -c '^[0-9]' build/config-fine.csv) configurations in build/config-small.csv, build/config-fine.csv"

# Every launch of two PyTorch programs (kernels/config_torch_block.py,
# config_torch_conv.py) under occcalc run (--measure none, sample, replay)
# and ncu: torch_launches.py compares each launch's predicted configuration
# with CUPTI's record and ncu's, and --record writes the lines of
# h{100,200}-torch-launches.csv (its usage says which commands make its
# inputs).

# Thread block clusters (kernels/cluster_survey.cu): the occupancy API's
# clusters per cluster size at one block per SM, the scheduling domains
# seen on the hardware, and a grid of register caps, block sizes, shared
# memory and cluster sizes with the measured co-resident clusters and their
# placement (h{100,200}-cluster-{domains,grid}.csv). Nsight Compute's
# cluster figures are recorded by cluster_ncu_record.sh
# (h100-ncu-cluster.csv).
build/cluster_survey: kernels/cluster_survey.cu kernels/survey_device.cuh
	@mkdir -p build
	$(NVCC) -O2 -arch=sm_90 -o $@ $<

cluster-survey: build/cluster_survey
	./build/cluster_survey domains > build/cluster-domains.csv
	./build/cluster_survey grid > build/cluster-grid.csv
	@grep '^#' build/cluster-domains.csv
	@echo "cluster-survey: $$(grep -c '^[0-9]' build/cluster-grid.csv) configurations in build/cluster-grid.csv"
