#!/bin/sh
# run_targets.sh MAKE TARGET...: runs each make target, counts it passed
# (status 0), skipped (status 77) or failed (anything else), and ends with
# the summary line "occcalc: N passed, N failed, N skipped". Exits 1 if any
# target failed.
# make itself exits 2 whatever status a recipe failed with, so a skip is
# recognised by make's "Error 77" line, which is then not shown.
make=$1
shift
pass=0 fail=0 skip=0 failed=""
errors=$(mktemp)
trap 'rm -f "$errors"' EXIT
for target in "$@"; do
  echo "=== $target"
  $make --no-print-directory -s "$target" 2>"$errors"
  rc=$?
  if [ $rc -ne 0 ] && grep -q '\] Error 77$' "$errors"; then
    rc=77
    grep -v '\] Error 77$' "$errors" >&2
  else
    cat "$errors" >&2
  fi
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
