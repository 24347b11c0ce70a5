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

# A report counted once: the same file twice, a symbolic link or a hard
# link to one already read is refused, naming both, before any output.
ln -s rank0.json link0.json
ln rank1.json hard1.json
for args in "rank0.json rank0.json:rank0.json: the same file as rank0.json" \
    "rank0.json rank1.json link0.json:link0.json: the same file as rank0.json" \
    "rank1.json rank0.json hard1.json:hard1.json: the same file as rank1.json"; do
  files=${args%%:*}
  why=${args#*:}
  # shellcheck disable=SC2086
  "$OCC" report --json $files >out 2>err
  rc=$?
  [ $rc -eq 2 ] || no "'$files': status $rc, expected 2"
  [ -s out ] && no "'$files': wrote a report"
  [ "$(wc -l <err)" -eq 1 ] && grep -q "^occcalc: report: $why (each rank's report is merged once)$" err ||
    no "'$files': message: $(cat err)"
done
# A bad file before the repeated one is the one named.
"$OCC" report rank0.json empty.json rank0.json >out 2>err
grep -q "^occcalc: report: empty.json: empty" err || no "bad file before a repeat: $(cat err)"

# Forged fields: a key given twice, a launch_count the rows contradict, a
# row's "ranks" (a merged report's field).
jq '.rows[0].ranks = [{"report": "x"}]' rank0.json >ranks.json
jq '.launch_count += 1' rank0.json >count.json
sed '0,/"achieved_occupancy":/s//"achieved_occupancy":\t7,\n\t\t\t"achieved_occupancy":/' \
  rank0.json >twice.json
"$OCC" report --json rank1.json merged.json >out 2>err
grep -q "^occcalc: report: merged.json: a merged report" err ||
  no "a merged report as input: $(cat err)"
for bad in "ranks.json:rows\[0\].ranks: a merged report's field" \
    "count.json:launch_count [0-9]*, but its rows' launch counts sum to" \
    "twice.json:rows\[0\]: \"achieved_occupancy\" is given twice"; do
  file=${bad%%:*}
  why=${bad#*:}
  "$OCC" report rank1.json "$file" >out 2>err
  rc=$?
  [ $rc -eq 2 ] || no "$file: status $rc, expected 2"
  [ -s out ] && no "$file: wrote a report"
  grep -q "^occcalc: report: $file: $why" err || no "$file: message: $(cat err)"
done

# Counts of 1e15 launches and a time of 9e15 us: the text table stays
# within 80 columns, the digits are the sums' (no exponent lost), and the
# JSON holds the exact sums, never inf or null.
jq '.rows[0].launch_count = 1e15 | .rows[0].total_time_us = 4.5e15 |
    .launch_count = ([.rows[].launch_count] | add)' rank0.json >wide0.json
jq '.rows[0].launch_count = 1e15 | .rows[0].total_time_us = 4.5e15 |
    .launch_count = ([.rows[].launch_count] | add)' rank1.json >wide1.json
"$OCC" report wide0.json wide1.json >text 2>err || no "wide counts: status $? ($(cat err))"
wide=$(awk 'length > 80' text)
[ -z "$wide" ] || no "wide counts: text over 80 columns: $wide"
grep -Eq '^kernel\(\) +2\.0e\+15 +2 .* 9\.0000e\+15$' text ||
  no "wide counts: kernel()'s line: $(grep '^kernel' text)"
"$OCC" report --json wide0.json wide1.json >wide.json 2>err || no "wide --json: status $?"
jq -e '.rows[0].total_time_us == 9e15 and .rows[0].launch_count == 2e15' wide.json >/dev/null ||
  no "wide --json: $(jq -c '.rows[0] | [.launch_count, .total_time_us]' wide.json)"
# A measured metric near the largest double in both ranks: its weighted
# mean is that value, never inf (JSON null, which reads "not measured").
jq '.rows |= map(if .kernel.name == "kernel()" then .metrics = {"m": 1.7e308} else . end)' \
  rank0.json >max0.json
jq '.rows |= map(if .kernel.name == "kernel()" then .metrics = {"m": 1.7e308} else . end)' \
  rank1.json >max1.json
"$OCC" report --json max0.json max1.json >max.json 2>err || no "1.7e308: status $? ($(cat err))"
jq -e '.rows[] | select(.kernel.name == "kernel()") | .metrics.m == 1.7e308' max.json >/dev/null ||
  no "1.7e308 twice: $(jq -c '.rows[0].metrics' max.json)"
# Past 2^53 the sums lose digits: refused, with why.
jq '.rows[0].total_time_us = 5e15' rank0.json >big0.json
jq '.rows[0].total_time_us = 5e15' rank1.json >big1.json
"$OCC" report big0.json big1.json >out 2>err
rc=$?
[ $rc -eq 2 ] && [ ! -s out ] && [ "$(wc -l <err)" -eq 1 ] &&
  grep -q "^occcalc: report: big1.json: .*passes 9007199254740992, past which a sum loses digits" err ||
  no "a sum past 2^53: status $rc, $(cat err)"
jq '.rows[0].total_time_us = 1e300' rank0.json >huge.json
"$OCC" report huge.json >out 2>err
[ $? -eq 2 ] && grep -q "rows\[0\].total_time_us is missing or out of range" err ||
  no "a time of 1e300 us: $(cat err) $(head -c 300 out)"

# A closed stdout: the report cannot be written, status 1 and one line
# (as with /dev/full), for report and the other commands alike.
for cmd in "report rank0.json" "report --json rank0.json rank1.json" \
    "--gpu h100 --regs 32 --block 128" "--gpu h100 --regs 32 --block 128 --json" \
    "--list-gpus" "--help"; do
  # shellcheck disable=SC2086
  "$OCC" $cmd >&- 2>err
  rc=$?
  [ $rc -eq 1 ] || no "'$cmd' >&-: status $rc, expected 1"
  [ "$(wc -l <err)" -eq 1 ] && grep -q "^occcalc: error writing output: Bad file descriptor$" err ||
    no "'$cmd' >&-: message: $(cat err)"
done

[ $fail -eq 0 ] && echo "report: 2 ranks merged (text, --json per rank, --csv, the ranks' cost); 11 bad files, 3 repeated, 4 forged, 3 extreme and 6 bad command lines refused; a closed stdout is status 1 for 6 commands"
exit $fail
