#!/bin/sh
# table_test.sh: tests/lab/table.py over fixtures in the JSON shape it
# assumes of `occcalc run --json` (tests/lab/fixture): a reduction whose
# program lines and JSON share one file, with rows out of order, a null
# achieved occupancy, a missing metric and per-launch records nested in a
# row; a transpose whose JSON is a separate file with a 2D grid; a run
# with no kernel row; a kernel that executed no branch ("none"). The
# expected table was checked by hand (e.g. 64 MiB in 500 us = 134.2
# GB/s). Skips (77) without python3.
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
fix=tests/lab/fixture
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
python3 tests/lab/table.py R1=$fix/reduction-1.out \
  T3=$fix/transpose-3.out,$fix/transpose-3.json R9=$fix/empty.out >"$tmp" || exit 1
diff -u $fix/table.expected "$tmp" || { echo "table_test: the table differs"; exit 1; }
wide=$(awk 'length > 80' "$tmp" | wc -l)
[ "$wide" -eq 0 ] || { echo "table_test: $wide lines over 80 columns"; exit 1; }
echo "table_test: $(wc -l <"$tmp") lines as expected"
