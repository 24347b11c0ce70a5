#!/bin/sh
# golden.sh [--update] CASE...: runs golden CLI cases. A case file holds
#   args: ARGUMENTS          (shell words, as typed after occcalc)
#   env: NAME=VALUE          (optional; the environment is otherwise clean)
#   status: N
#   --- stdout
#   ...expected stdout...
#   --- stderr
#   ...expected stderr...
# Each case passes when status, stdout and stderr are exactly as written.
# --update rewrites the expected parts from the current binary (review the
# diff before committing).
update=0
[ "${1:-}" = "--update" ] && { update=1; shift; }
bin=${OCCCALC:-./occcalc}
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for case in "$@"; do
  args=$(sed -n 's/^args: //p' "$case")
  envline=$(sed -n 's/^env: //p' "$case")
  want_status=$(sed -n 's/^status: //p' "$case")
  awk '/^--- stdout$/{s=1;next} /^--- stderr$/{s=0} s' "$case" >"$tmp/want_out"
  awk '/^--- stderr$/{s=1;next} s' "$case" >"$tmp/want_err"
  eval "set -- $args"
  env -i PATH="$PATH" LC_ALL=C $envline "$bin" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
  status=$?
  if [ $update -eq 1 ]; then
    { sed -n '/^args: /p; /^env: /p' "$case"; echo "status: $status"; echo "--- stdout";
      cat "$tmp/out"; echo "--- stderr"; cat "$tmp/err"; } >"$tmp/new"
    mv "$tmp/new" "$case"
    continue
  fi
  wide=0
  # Width in characters: UTF-8 continuation bytes do not count.
  case "$args" in *--json*|*--svg*|*--csv*) ;; *)
    wide=$(LC_ALL=C sed 's/[\x80-\xbf]//g' "$tmp/out" | awk 'length > 80' | wc -l) ;; esac
  if [ "$wide" -eq 0 ] && [ "$status" = "$want_status" ] && cmp -s "$tmp/out" "$tmp/want_out" &&
     cmp -s "$tmp/err" "$tmp/want_err"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL $case (status $status, expected $want_status; $wide lines over 80 columns)"
    diff -u "$tmp/want_out" "$tmp/out" | head -20
    diff -u "$tmp/want_err" "$tmp/err" | head -10
  fi
done
[ $update -eq 1 ] && exit 0
echo "golden: $pass passed, $fail failed"
[ $fail -eq 0 ]
