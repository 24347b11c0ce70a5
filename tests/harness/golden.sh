#!/bin/sh
# golden.sh [--update] [--keyword WORD] CASE...: runs golden cases. A case
# file holds
#   keywords: WORD...        (the feature first, then what else it touches)
#   program: NAME            (optional: build/NAME instead of occcalc)
#   args: ARGUMENTS          (shell words, as typed after the program)
#   env: NAME=VALUE          (optional; the environment is otherwise clean)
#   status: N
#   --- stdout
#   ...expected stdout...
#   --- stderr
#   ...expected stderr...
# Each case passes when status, stdout and stderr are exactly as written,
# and occcalc's text output (not JSON, CSV or SVG) fits 80 columns.
# --keyword WORD (or $KEYWORD) runs only the cases whose keywords line
# names WORD. $OCCCALC names the occcalc binary (default ./occcalc);
# $PROGRAM_SUFFIX is appended to a program's name (make
# test-ptxas-sanitize: _san). stdin is /dev/null.
# --update rewrites the expected parts from the current binary (read the
# diff before committing: a golden that freezes a bug is worse than none).
update=0 keyword=${KEYWORD:-}
while :; do
  case "${1:-}" in
    --update) update=1; shift ;;
    --keyword) keyword=$2; shift 2 ;;
    *) break ;;
  esac
done
occcalc=${OCCCALC:-./occcalc}
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for case in "$@"; do
  keywords=$(sed -n 's/^keywords: //p' "$case")
  if [ -n "$keyword" ]; then
    case " $keywords " in *" $keyword "*) ;; *) continue ;; esac
  fi
  program=$(sed -n 's/^program: //p' "$case")
  args=$(sed -n 's/^args: //p' "$case")
  envline=$(sed -n 's/^env: //p' "$case")
  want_status=$(sed -n 's/^status: //p' "$case")
  awk '/^--- stdout$/{s=1;next} /^--- stderr$/{s=0} s' "$case" >"$tmp/want_out"
  awk '/^--- stderr$/{s=1;next} s' "$case" >"$tmp/want_err"
  bin=$occcalc
  [ -n "$program" ] && bin=build/$program${PROGRAM_SUFFIX:-}
  eval "set -- $args"
  env -i PATH="$PATH" LC_ALL=C $envline "$bin" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
  status=$?
  if [ $update -eq 1 ]; then
    { sed -n '/^keywords: /p; /^program: /p; /^args: /p; /^env: /p' "$case"
      echo "status: $status"; echo "--- stdout"
      cat "$tmp/out"; echo "--- stderr"; cat "$tmp/err"; } >"$tmp/new"
    mv "$tmp/new" "$case"
    continue
  fi
  wide=0
  # Width in characters: UTF-8 continuation bytes do not count.
  case "$program $args" in *--json*|*--svg*|*--csv*|ptxas_dump*) ;; *)
    wide=$(LC_ALL=C sed 's/[\x80-\xbf]//g' "$tmp/out" | awk 'length > 80' | wc -l) ;; esac
  if [ -z "$keywords" ]; then
    fail=$((fail + 1)); echo "FAIL $case: no keywords line"
  elif [ "$wide" -eq 0 ] && [ "$status" = "$want_status" ] && cmp -s "$tmp/out" "$tmp/want_out" &&
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
echo "golden: $pass passed, $fail failed${keyword:+ (keyword $keyword)}"
[ $((pass + fail)) -gt 0 ] || { echo "golden: no case ran"; exit 1; }
[ $fail -eq 0 ]
