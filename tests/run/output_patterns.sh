#!/bin/sh
# output_patterns.sh: `occcalc run --output` with ncu's patterns, one
# report per rank: %q{VAR} from the environment, %p occcalc's process id,
# %h the host, %% a %; an unset variable or an unknown pattern is a usage
# error (status 2, one line, no file, the program not run).
set -u
OCC=${OCCCALC:-./occcalc}
FORGE=$(cd "$(dirname "${FORGE:-build/forge}")" && pwd)/$(basename "${FORGE:-build/forge}")
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
no() { echo "output-patterns: $*"; fail=1; }

OMPI_COMM_WORLD_RANK=3 "$OCC" run --json \
  --output "$tmp/r.%q{OMPI_COMM_WORLD_RANK}.%h.%p.%%.json" -- "$FORGE" launch \
  >"$tmp/out" 2>"$tmp/err" || no "status $? ($(head -c 200 "$tmp/err"))"
host=$(hostname)
set -- "$tmp"/r.3."$host".*.%.json
[ -f "$1" ] || no "no file r.3.$host.PID.%.json: $(ls "$tmp")"
pid=${1#"$tmp/r.3.$host."}
pid=${pid%.%.json}
case $pid in *[!0-9]* | '') no "%p gave '$pid', not a process id" ;; esac
[ -s "$1" ] && jq -e '.launch_count == 1' "$1" >/dev/null 2>&1 || no "the report in $1"

for bad in "r.%q{OCC_SURELY_UNSET_VAR}.json:OCC_SURELY_UNSET_VAR is not set" \
    "r.%x.json:'%x' is not a pattern" "r.%:'%' is not a pattern" \
    "r.%q{A-B}:must hold a variable's name"; do
  pattern=${bad%%:*}
  why=${bad#*:}
  "$OCC" run --output "$tmp/$pattern" -- "$FORGE" launch \
    >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ $rc -eq 2 ] || no "'$pattern': status $rc, expected 2"
  grep -qF "occcalc: --output: '$tmp/$pattern': " "$tmp/err" &&
    grep -qF "$why" "$tmp/err" || no "'$pattern': message: $(head -c 200 "$tmp/err")"
  [ "$(ls "$tmp" | grep -c '^r\.')" -eq 1 ] || no "'$pattern': a file was made"
done

[ $fail -eq 0 ] && echo "output-patterns: %q{VAR} %h %p %% expanded; unset and unknown refused"
exit $fail
