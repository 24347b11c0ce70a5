#!/bin/sh
# report.sh: `occcalc report FILE...` merges the run --json reports of two
# ranks (made by `occcalc run --json --output rank%q{R}.json` over forged
# launch records) into one report: rows summed across the ranks, with the
# per-rank breakdown in JSON, in text, JSON and CSV; a bad file (missing,
# empty, truncated, another schema, a --jsonl stream, no rows, two
# documents, a directory, a device, a counters object of the wrong shape)
# is one line naming the file and why, status 2, nothing on
# stdout; options that cannot apply to report are usage errors.
set -u
OCC=$(cd "$(dirname "${OCCCALC:-./occcalc}")" && pwd)/$(basename "${OCCCALC:-./occcalc}")
FORGE=$(cd "$(dirname "${FORGE:-build/forge}")" && pwd)/$(basename "${FORGE:-build/forge}")
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
no() { echo "report: $*"; fail=1; }
cd "$tmp" || exit 1

# Rank 0: three launches of kernel(), one measured at 50 %. Rank 1 on
# device 1: one launch of kernel() measured at 80 %, and other(), only
# there, unmeasured.
# Rank 0's process ran its exit handlers (its summary: 0.5 s, 1 launch
# profiled); rank 1's did not (its cost unknown).
R=0 "$OCC" run --measure replay --json --output 'rank%q{R}.json' -- "$FORGE" launch times=3 \
  counters summary values=0.5,0.25,1,0 >/dev/null 2>&1 || no "rank 0: run status $?"
R=1 "$OCC" run --measure replay --json --output 'rank%q{R}.json' -- "$FORGE" launch device=1 \
  counters values=80,20000 launch name=_Z5otherv grid=64 >/dev/null 2>&1 ||
  no "rank 1: run status $?"
[ -s rank0.json ] && [ -s rank1.json ] || { no "no rank files: $(ls)"; exit 1; }

# The expected figures come from the rank files themselves.
jq -s '
  def rows(n): [.[] | .rows[] | select(.kernel.name == n)];
  def measured(n): [rows(n)[] | select(.counter_launch_count > 0)];
  {launch_count: (map(.launch_count) | add),
   k_launches: (rows("kernel()") | map(.launch_count) | add),
   k_time: (rows("kernel()") | map(.total_time_us) | add),
   k_achieved: ((measured("kernel()") | map(.achieved_occupancy * .counter_launch_count) | add)
                / (measured("kernel()") | map(.counter_launch_count) | add)),
   k_theoretical: rows("kernel()")[0].theoretical_occupancy,
   o_launches: (rows("other()") | map(.launch_count) | add)}' \
  rank0.json rank1.json >want.json || no "jq over the rank files"
[ "$(jq '.k_achieved' want.json)" != "$(jq -s '.[0].rows[0].achieved_occupancy' rank0.json rank1.json)" ] ||
  no "the ranks' achieved occupancies do not differ: the weighting goes untested"

"$OCC" report --json rank0.json rank1.json >merged.json 2>err ||
  no "--json: status $? ($(head -c 200 err))"
[ -s err ] && no "--json: stderr: $(head -c 200 err)"
jq -e --slurpfile w want.json '
  def row(n): .rows[] | select(.kernel.name == n);
  .schema == 3 and .launch_count == $w[0].launch_count and
  (.merged_reports | map(.report)) == ["rank0.json", "rank1.json"] and
  (.rows | length) == 2 and
  row("kernel()").launch_count == $w[0].k_launches and
  row("kernel()").total_time_us == $w[0].k_time and
  (row("kernel()").achieved_occupancy - $w[0].k_achieved | fabs) < 1e-9 and
  (row("kernel()").ranks | map([.report, .device_ordinal])) ==
    [["rank0.json", 0], ["rank1.json", 1]] and
  row("other()").launch_count == $w[0].o_launches and
  row("other()").achieved_occupancy == null and
  (row("other()").ranks | map(.report)) == ["rank1.json"]' merged.json \
  >/dev/null || no "--json: the merged report: $(jq -c '.rows | map([.kernel.name, .launch_count, .achieved_occupancy, (.ranks | length)])' merged.json)"
# What occcalc cost each rank, as its report says, and the sum of those
# that say.
jq -e '.overhead_s == 0.5 and
  (.merged_reports | map([.overhead_s, .profiled_launch_count])) == [[0.5, 1], [null, null]]' \
  merged.json >/dev/null || no "--json: the ranks' cost: $(jq -c '[.overhead_s, .merged_reports]' merged.json)"

"$OCC" report rank0.json rank1.json >text 2>err || no "text: status $?"
wide=$(awk 'length > 80' text)
[ -z "$wide" ] || no "text over 80 columns: $wide"
n=$(jq .launch_count want.json)
grep -q "^2 reports merged, $n launches, 2 configurations$" text ||
  no "text: header: $(head -1 text)"
grep -q "^occcalc's time in the programs: 0.50 s$" text ||
  no "text: the cost line: $(sed -n 2p text)"
pct=$(jq -r '.k_achieved * 100 | . * 10 | round / 10 | tostring | if test("\\.") then . else . + ".0" end' want.json)
grep -Eq "^kernel\(\) +$(jq .k_launches want.json) +2 +[0-9.]+% +$pct% +[0-9.]+$" text ||
  no "text: kernel()'s line (achieved $pct%): $(grep '^kernel' text)"
grep -Eq "^other\(\) +$(jq .o_launches want.json) +1 +[0-9.]+% +- +[0-9.]+$" text ||
  no "text: other()'s line: $(grep '^other' text)"

"$OCC" report --csv rank0.json rank1.json >csv 2>err || no "--csv: status $?"
[ "$(wc -l <csv)" -eq 3 ] || no "--csv: $(wc -l <csv) lines, expected a header and 2 rows"
head -1 csv | grep -q '^kernel,mangled_name,grid,block,launch_count,ranks,theoretical_occupancy,achieved_occupancy,total_time_us,mean_time_us$' ||
  no "--csv: header: $(head -1 csv)"
grep -q "^other(),_Z5otherv,64x1x1,256x1x1,$(jq .o_launches want.json),1,[0-9.]*,,[0-9.]*,[0-9.]*$" csv ||
  no "--csv: other()'s row (achieved unknown: an empty field): $(grep '^other' csv)"

# Bad files: each refused alone and beside a good one, named, with why.
: >empty.json
head -c 100 rank0.json >truncated.json
jq '.schema = 2' rank0.json >schema2.json
"$OCC" run --jsonl -- "$FORGE" launch >stream.jsonl 2>/dev/null
jq 'del(.rows)' rank0.json >norows.json
cat rank0.json rank1.json >two.json
jq '.counters = 3' rank0.json >counters.json
jq '.counters.overhead_s = "fast"' rank0.json >overhead.json
mkdir dir.json
for bad in "empty.json:empty" "truncated.json:not JSON" "schema2.json:schema" \
    "stream.jsonl:" "norows.json:no rows" "two.json:not one JSON document" \
    "missing.json:cannot open" "dir.json:not a regular file" \
    "/dev/zero:not a regular file" "counters.json:counters is not an object" \
    "overhead.json:counters.overhead_s"; do
  file=${bad%%:*}
  why=${bad#*:}
  "$OCC" report rank0.json "$file" rank1.json >out 2>err
  rc=$?
  [ $rc -eq 2 ] || no "$file: status $rc, expected 2"
  [ -s out ] && no "$file: wrote a report: $(head -c 100 out)"
  [ "$(wc -l <err)" -eq 1 ] || no "$file: $(wc -l <err) lines on stderr"
  grep -q "^occcalc: report: $file: .*$why" err || no "$file: message: $(cat err)"
done

# Usage: no file; options that do not apply to report, or two outputs.
for args in "" "--jsonl rank0.json" "--json --csv rank0.json" \
    "--output x.json rank0.json" "--regs 32 rank0.json" "--explain rank0.json"; do
  # shellcheck disable=SC2086
  "$OCC" report $args >out 2>err
  rc=$?
  [ $rc -eq 2 ] || no "'report $args': status $rc, expected 2"
  [ "$(wc -l <err)" -ge 1 ] && grep -q '^occcalc: ' err ||
    no "'report $args': message: $(cat err)"
done

[ $fail -eq 0 ] && echo "report: 2 ranks merged (text, --json per rank, --csv, the ranks' cost); 11 bad files and 6 bad command lines refused"
exit $fail
