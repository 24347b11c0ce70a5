#!/bin/sh
# svg_check.sh: the structure of occcalc's SVG charts. For each case the
# document must parse as XML (xmllint) and have, per chart: the x, y and
# occupancy axes, 5 y ticks on each side, at least 3 x ticks, a polyline
# with exactly as many vertices as the CSV has rows for that chart, a
# legend, and the marked point (a circle and its label, which says
# "cannot launch" exactly when the configuration cannot). Skips (77)
# without xmllint.
set -u
command -v xmllint >/dev/null 2>&1 || {
  echo "skipped: no xmllint (apt-get install libxml2-utils)"; exit 77; }
bin=${OCCCALC:-./occcalc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 checks=0

xpath() { xmllint --xpath "$2" "$1" 2>/dev/null; }
expect() { # what got want
  checks=$((checks + 1))
  [ "$2" = "$3" ] || { echo "FAIL $1: got '$2', expected '$3'"; fail=1; }
}

check_case() { # name launchable(yes|no) occcalc-args...
  name=$1 launch=$2
  shift 2
  svg="$tmp/$name.svg"
  "$bin" "$@" --chart all --svg "$svg" >/dev/null ||
    { echo "FAIL $name: occcalc failed"; fail=1; return; }
  xmllint --noout "$svg" || { echo "FAIL $name: not well-formed XML"; fail=1; return; }
  "$bin" "$@" --chart all --csv >"$tmp/$name.csv"
  expect "$name: root" "$(xpath "$svg" "name(/*)")" svg
  expect "$name: panels" "$(xpath "$svg" "count(//*[@class='chart'])")" 3
  expect "$name: legends" "$(xpath "$svg" "count(//*[@class='legend'])")" 3
  for kind in block regs smem; do
    for axis in x-axis y-axis y2-axis; do
      expect "$name $kind: $axis" \
        "$(xpath "$svg" "count(//*[local-name()='line'][@id='$kind-$axis'])")" 1
    done
    g="//*[@id='chart-$kind']"
    expect "$name $kind: y tick labels" \
      "$(xpath "$svg" "count($g//*[@class='y-ticks']/*[local-name()='text'])")" 10
    xt=$(xpath "$svg" "count($g//*[@class='x-ticks']/*[local-name()='text'])")
    checks=$((checks + 1))
    [ "${xt:-0}" -ge 3 ] || { echo "FAIL $name $kind: $xt x ticks"; fail=1; }
    points=$(xpath "$svg" "string(//*[@id='$kind-series']/@points)" | wc -w)
    rows=$(grep -c "^,$kind," "$tmp/$name.csv")
    expect "$name $kind: data points" "$points" "$rows"
    expect "$name $kind: marked point" \
      "$(xpath "$svg" "count(//*[@id='$kind-marked']/*[local-name()='circle'])")" 1
    label=$(xpath "$svg" "string(//*[@id='$kind-marked']/*[local-name()='text'])")
    case "$label" in *"cannot launch"*) got=no ;; *) got=yes ;; esac
    expect "$name $kind: launchable per the label '$label'" "$got" "$launch"
  done
}

check_case h100-example yes --gpu 'H100 SXM' --regs 48 --smem 4096 --block 128
check_case gtx970-step1 yes --gpu gtx970 --regs 48 --smem 4000 --block 100 --step 1
check_case v100-cannot-launch no --gpu v100 --regs 255 --block 1024
check_case a100-carveout yes --gpu a100 --regs 64 --dyn-smem 100K --block 256 --carveout 30
checks=$((checks + 1))
"$bin" --gpu gtx970 --regs 48 --block 128 --svg - | xmllint --noout - ||
  { echo "FAIL --svg -: not well-formed XML"; fail=1; }
echo "svg: $checks checks, $([ $fail -eq 0 ] && echo passed || echo FAILED)"
exit $fail
