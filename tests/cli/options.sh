#!/bin/sh
# options.sh: --help and man/occcalc.1 name the same options, every
# example in the man page runs (status 0, some output) with ./occcalc, and
# the man page's version is the Makefile's.
set -u
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
./occcalc --help | grep -o '^  --[a-z-]*' | sed 's/^  //' | sort -u >"$tmp/help"
# Options section of the man page: .TP then .BI/.B/.BR with \-\-name.
sed -n '/^\.SH OPTIONS/,/^\.SH /p' man/occcalc.1 |
  grep -o '^\.B[IR]* \\-\\-[a-z\\-]*' | sed 's/^\.B[IR]* //; s/\\-/-/g' | sort -u >"$tmp/man"
if ! cmp -s "$tmp/help" "$tmp/man"; then
  echo "options: --help and man/occcalc.1 differ (< help, > man):"
  diff "$tmp/help" "$tmp/man"
  fail=1
fi
# Each option's value is named alike in both ("--svg PATH", ".BI \-\-svg " PATH"").
./occcalc --help | sed -n 's/^  \(--[a-z-]*\) \([^ ][^ ]*\)\( .*\)\{0,1\}$/\1 \2/p' | sort -u >"$tmp/help_args"
sed -n '/^\.SH OPTIONS/,/^\.SH /p' man/occcalc.1 |
  sed -n 's/^\.BI \(\\-\\-[a-z\\-]*\) " \([^"]*\)"$/\1 \2/p' | sed 's/\\-/-/g' |
  sort -u >"$tmp/man_args"
if ! cmp -s "$tmp/help_args" "$tmp/man_args"; then
  echo "options: the value names of --help and man/occcalc.1 differ (< help, > man):"
  diff "$tmp/help_args" "$tmp/man_args"
  fail=1
fi
count=$(wc -l <"$tmp/help")
[ "$count" -ge 10 ] || { echo "options: only $count options found in --help"; fail=1; }

# The examples: the lines between .EX and .EE, with roff escapes undone.
sed -n '/^\.EX/,/^\.EE/p' man/occcalc.1 | grep -v '^\.E[XE]' |
  sed 's/\\-/-/g' >"$tmp/examples"
# An example piped into jq runs without its jq part where jq is missing
# (make check needs no jq), so occcalc's part is still run and checked.
n=0 cut=0
while IFS= read -r line; do
  n=$((n + 1))
  case "$line" in *"| jq "*)
    command -v jq >/dev/null 2>&1 || { line=${line%%| jq *}; cut=$((cut + 1)); } ;;
  esac
  out=$(PATH="$PWD:$PATH" sh -c "$line" 2>"$tmp/err")
  rc=$?
  if [ $rc -ne 0 ] || [ -z "$out" ]; then
    echo "options: man page example failed (status $rc): $line"
    cat "$tmp/err"
    fail=1
  fi
done <"$tmp/examples"
[ $n -ge 3 ] || { echo "options: only $n man page examples found"; fail=1; }
# The man page's version is the Makefile's VERSION, which --version prints
# (the Makefile is where a release changes it).
version=$(sed -n 's/^VERSION *= *//p' Makefile)
th_version=$(sed -n 's/^\.TH OCCCALC 1 "[^"]*" "occcalc \([^"]*\)".*/\1/p' man/occcalc.1)
if [ -z "$version" ] || [ "$th_version" != "$version" ]; then
  echo "options: man/occcalc.1 says version '$th_version', the Makefile's VERSION is '$version'"
  fail=1
fi
[ "$(./occcalc --version)" = "occcalc $version" ] ||
  { echo "options: --version says '$(./occcalc --version)', the Makefile's VERSION is '$version'"; fail=1; }
# --help is read in a terminal: 80 columns.
wide=$(./occcalc --help | awk 'length > 80')
[ -z "$wide" ] || { echo "options: --help over 80 columns: $wide"; fail=1; }
note=""
[ $cut -gt 0 ] && note=" ($cut without their jq part: no jq)"
echo "options: $count options agree, $n man page examples run$note"
exit $fail
