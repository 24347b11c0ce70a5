#!/bin/sh
# golden.sh DUMP DIR: runs the reader (DUMP, build/ptxas_dump) on every
# DIR/*.log and DIR/*.txt and compares with DIR/NAME.expected. Prints a
# diff and fails on the first difference; counts the cases checked.
dump=$1 dir=$2 n=0 failed=0
for input in "$dir"/*.log "$dir"/*.txt; do
  [ -e "$input" ] || continue
  expected="${input%.*}.expected"
  if ! "$dump" "$input" | diff -u "$expected" - ; then
    echo "golden: $input differs from $expected"
    failed=$((failed + 1))
  fi
  n=$((n + 1))
done
[ $n -gt 0 ] || { echo "golden: no cases in $dir"; exit 1; }
echo "golden: $n cases, $failed failed"
[ $failed -eq 0 ]
