#!/bin/sh
# docs_check.sh: figures the docs quote that the tree itself can check.
# - docs/gpu-verification.md's count of GPU targets is the suite's
#   (GPU_TEST_TARGETS, every tests/*/*.mk included);
# - docs/gpu-verification.md says of occcalc run's targets what
#   BENCHMARKS.md says (met or missed);
# - every JSON key that ends in _pct, in every report occcalc writes
#   offline, is named where README.md and the man page say which keys are
#   percentages.
set -u
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
doc=docs/gpu-verification.md

printf 'print-gpu-targets:\n\t@echo $(GPU_TEST_TARGETS)\n' >"$tmp/print.mk"
targets=$(make -s --no-print-directory -f Makefile -f "$tmp/print.mk" print-gpu-targets | wc -w)
said=$(sed -n 's/^The suite has \([0-9][0-9]*\) GPU targets now.*/\1/p' "$doc")
if [ "$targets" -lt 1 ] || [ "$said" != "$targets" ]; then
  echo "docs: $doc says the suite has '$said' GPU targets; GPU_TEST_TARGETS has $targets"
  fail=1
fi

# BENCHMARKS.md's section on occcalc run opens with the verdict on both
# targets ("Both are met" or "... missed").
verdict=$(sed -n '/^## occcalc run against Nsight Compute/,/^## /p' BENCHMARKS.md |
  grep -o 'Both are [a-z]*' | head -1 | sed 's/Both are //')
quoted=$(grep -o 'both targets are [a-z]*' "$doc" | head -1 | sed 's/both targets are //')
if [ -z "$verdict" ] || [ "$quoted" != "$verdict" ]; then
  echo "docs: $doc says occcalc run's targets are '$quoted'; BENCHMARKS.md says '$verdict'"
  fail=1
fi

# The _pct keys of the reports (with --grid, a carveout and a compiler
# report, so that every optional object is filled).
{
  ./occcalc --gpu h100 --regs 48 --smem 4096 --block 128 --grid 1000 --carveout 28 \
    --json --explain --suggest
  ./occcalc --gpu h100 --regs 48 --block 128 --chart all --json
  ./occcalc --ptxas tests/ptxas/logs/gencode_warnings.log --json 2>/dev/null
} | jq -r '[.. | objects | keys[] | select(endswith("_pct"))] | unique[]' 2>/dev/null |
  sort -u >"$tmp/keys"
[ -s "$tmp/keys" ] || { echo "docs: no _pct key found in the reports"; fail=1; }
# The sentence of each: README's "the only percentages ...", and the man
# page's JSON OUTPUT opening paragraph.
sed -n '/the only$/,/unit;/p; /the only percentages/,/unit;/p' README.md >"$tmp/readme"
sed -n '/^\.SH JSON OUTPUT/,/^\.PP/p' man/occcalc.1 >"$tmp/man"
while IFS= read -r key; do
  grep -q "$key" "$tmp/readme" ||
    { echo "docs: README.md's list of percentages does not name $key"; fail=1; }
  grep -q "$key" "$tmp/man" ||
    { echo "docs: the man page's list of percentages does not name $key"; fail=1; }
done <"$tmp/keys"

[ $fail -eq 0 ] && echo "docs: $targets GPU targets, run targets $verdict, $(wc -l <"$tmp/keys") _pct keys named"
exit $fail
