# Figures the docs quote that the tree itself can check (docs_check.sh):
# docs/gpu-verification.md's count of GPU targets is the suite's, what it
# says of occcalc run's targets is what BENCHMARKS.md says, and every JSON
# key that ends in _pct is named where README.md and the man page say which
# keys are percentages.
TEST_TARGETS += test-docs

.PHONY: test-docs

test-docs: occcalc
	sh tests/docs/docs_check.sh
