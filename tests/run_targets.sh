#!/bin/sh
# run_targets.sh MAKE TARGET...: runs each make target, counts it passed
# (status 0), skipped (status 77) or failed (anything else), and ends with
# the summary line "occcalc: N passed, N failed, N skipped". Exits 1 if any
# target failed.
make=$1
shift
pass=0 fail=0 skip=0 failed=""
for target in "$@"; do
  echo "=== $target"
  $make --no-print-directory -s "$target"
  rc=$?
  if [ $rc -eq 0 ]; then
    pass=$((pass + 1)); echo "--- $target: passed"
  elif [ $rc -eq 77 ]; then
    skip=$((skip + 1)); echo "--- $target: skipped"
  else
    fail=$((fail + 1)); failed="$failed $target"; echo "--- $target: FAILED"
  fi
done
[ -n "$failed" ] && echo "failed targets:$failed"
echo "occcalc: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
