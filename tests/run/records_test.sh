#!/bin/sh
# records_test.sh: `occcalc run` over records a hostile program forged
# (tests/run/forge.c): every bad record skipped and counted, in
# the text and the JSON; no byte past a string's field in any output; a
# sparse or huge file read in no time and no further than its cap; tens
# of thousands of configurations and launches in linear time and bounded
# memory; names from the program escaped in the text and the messages;
# --metrics refused when too long or repeated; a NUL in a --data name
# refused; out of memory exiting 1.
# OCCCALC and FORGE name the binaries (default ./occcalc, build/forge), so
# that the same cases run on an older build.
set -u
OCC=${OCCCALC:-./occcalc}
FORGE=$(cd "$(dirname "${FORGE:-build/forge}")" && pwd)/$(basename "${FORGE:-build/forge}")
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
no() { echo "records: $*"; fail=1; }
# Under a sanitizer the memory is its shadow's as much as occcalc's: the
# memory bounds are checked without one.
sanitized=false
ldd "$OCC" 2>/dev/null | grep -q 'libasan\|libubsan' && sanitized=true
esc=$(printf '\033')

# occ STATUS ARGS...: occcalc run ARGS..., stdout in $tmp/out, stderr in
# $tmp/err, the status checked.
occ() {
  want=$1
  shift
  "$OCC" run "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
  got=$?
  [ "$got" -eq "$want" ] ||
    no "'run $*': status $got, expected $want ($(head -c 300 "$tmp/err"))"
}
# json FILTER: the JSON document in $tmp/out passes FILTER.
json() {
  [ -s "$tmp/out" ] && jq -e "$1" "$tmp/out" >/dev/null 2>&1 || no "$what: json: $1 ($(head -c 200 "$tmp/out"))"
}

# --- 1. Strings without their NUL: refused, and nothing past the field
# reaches any output (the next record's "OCR1" did).
what="unterminated name"
occ 0 --json -- "$FORGE" launch name=fill:A launch name=_Z4nextv
json '.launch_count == 1 and .rows[0].kernel.mangled_name == "_Z4nextv"'
json '.skipped_record_count == 1 and (.skipped_record_reason | test("NUL"))'
occ 0 --csv -- "$FORGE" launch name=fill:A launch name=_Z4nextv
! grep -q 'OCR1\|AAAA' "$tmp/out" || no "$what: csv shows bytes past the name"
grep -q "^occcalc: note: skipped 1 invalid record of the records' file (the first at byte 0: .*NUL" "$tmp/err" ||
  no "$what: csv: no note on stderr"
occ 0 --jsonl -- "$FORGE" launch name=fill:A launch name=_Z4nextv
[ "$(wc -l <"$tmp/out")" -eq 1 ] && ! grep -q 'AAAA' "$tmp/out" ||
  no "$what: jsonl streams the unterminated launch"
occ 0 -- "$FORGE" launch name=fill:A
grep -q "launched no CUDA kernel" "$tmp/err" &&
  grep -q "^occcalc: note: skipped 1 invalid record" "$tmp/err" ||
  no "$what: no kernel, and the note of the skipped record"
what="unterminated device name"
occ 0 --json -- "$FORGE" launch device_name=fill:C launch name=_Z4nextv
json '.launch_count == 1 and .skipped_record_count == 1 and (.skipped_record_reason | test("device name"))'
! grep -q 'CCCC' "$tmp/out" || no "$what: json shows bytes past the device name"
what="unterminated reason"
occ 0 --json -- "$FORGE" refusal why=fill:B launch
json '.note == null and .skipped_record_count == 1 and .launch_count == 1'

# --- 2. Every field's range: each bad record skipped and counted, the good
# launch beside it shown.
for bad in magic=0x12345678 kind=7 pid=0 pid=-4 device=64 device=-1 \
    cc=100.0 cc=9.10 cc=2147483647.0 sm_count=0 sm_count=100001 grid=0 \
    grid=1x65536 grid=2147483647x2147483647x2147483647 block=1025 \
    block=1x1x65 block=0 cluster=1025 cluster=65536x65536x1 regs=256 \
    smem_static=-1 smem_dynamic=16777217 local=-5 smem_executed=-1 \
    carveout=101 carveout=-2 launch_type=4 end_ns=1 name=; do
  what="launch $bad"
  occ 0 --json -- "$FORGE" launch name=_Z4goodv launch "$bad"
  json '.launch_count == 1 and .skipped_record_count == 1 and .rows[0].kernel.mangled_name == "_Z4goodv"'
done
for bad in value_count=1 value_count=11 value_count=-2147483648 values=nan,1 \
    values=101,1 values=-1,1 values=50,-1 values=50,1,inf; do
  what="counters $bad"
  occ 0 --json -- "$FORGE" launch counters "$bad"
  json '.skipped_record_count == 1 and .rows[0].achieved_occupancy == null'
done
for bad in why= kind=0; do
  what="refusal $bad"
  occ 0 --json -- "$FORGE" refusal "$bad" launch
  json '.skipped_record_count == 1 and .note == null'
done
# Alone and in the text (the cases above share the first launch's device
# and print no cluster): a huge capability reached the database's lookup
# and a huge cluster the text's product, both as int.
for bad in cc=2147483647.0 cluster=65536x65536x1; do
  what="text: launch $bad"
  occ 0 -- "$FORGE" launch "$bad"
  grep -q "^occcalc: note: skipped 1 invalid record" "$tmp/err" ||
    no "$what: '$(head -c 300 "$tmp/err")'"
done
# The extremes accepted: the grid's product does not overflow.
what="largest grid"
occ 0 --json -- "$FORGE" launch grid=2147483647x65535x65535 cluster=1024x1024x1024
json '.skipped_record_count == 0 and .rows[0].grid == [2147483647, 65535, 65535]'
# All-zero blocks are holes, not records: not counted.
what="zero blocks"
occ 0 --json -- "$FORGE" zero=3 launch zero=1
json '.launch_count == 1 and .skipped_record_count == 0 and .skipped_record_reason == null'
# Stray bytes: the incomplete record at the end is counted.
what="stray bytes"
occ 0 --json -- "$FORGE" launch stray=100
json '.launch_count == 1 and .skipped_record_count == 1 and (.skipped_record_reason | test("at byte 1024: an incomplete record of 100 bytes"))'
# A summary of the library's cost with an absurd value is skipped, and
# the cost is then unknown (null), never a garbage sum.
what="bad summary"
occ 0 --json -- "$FORGE" launch summary values=1,-1,1,1 summary value_count=2 summary values=nan,0,0,0
json '.skipped_record_count == 3 and (.skipped_record_reason | test("at byte 1024: summary value 1 \\(-1\\) is not 0 to")) and .counters.overhead_s == null and .counters.process_count == 0'
# A refused CUPTI client's record (libocc_preload.so's) needs its call
# and its error; text from the program is kept as text in the JSON.
what="refused client"
occ 0 --json -- "$FORGE" launch launch kind=5 why= launch kind=5 name=cuptiSubscribe 'why=CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED\n'
json '.launch_count == 1 and .skipped_record_count == 1 and (.skipped_record_reason | test("at byte 1024: a refused CUPTI client without its call or error")) and .cupti_client_refused.call == "cuptiSubscribe" and .cupti_client_refused.reason == "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED\n" and .cupti_client_refused.process_count == 1'
# Processes are counted once each, however many records they wrote.
occ 0 --json -- "$FORGE" launch kind=5 name=a why=b times=3 launch kind=5 pid=4242 name=c why=d
json '.cupti_client_refused.process_count == 2 and .cupti_client_refused.call == "a" and .cupti_client_refused.first_pid != 4242'
what="text note"
occ 0 -- "$FORGE" launch launch kind=9 launch kind=9
grep -q "^occcalc: note: skipped 2 invalid records of the records' file (the first at byte 1024: kind 9 is not 1 to 5)$" "$tmp/err" ||
  no "$what: '$(tail -1 "$tmp/err")'"

# --- 3. A sparse or huge file: holes skipped, nothing read past 1 GiB.
what="sparse 5G"
start=$(date +%s)
occ 0 -- sh -c 'truncate -s 5G "$OCCCALC_RUN_OUT"'
[ $(($(date +%s) - start)) -le 3 ] || no "$what: $(($(date +%s) - start)) s"
grep -q "launched no CUDA kernel" "$tmp/err" && ! grep -q skipped "$tmp/err" ||
  no "$what: '$(cat "$tmp/err")'"
what="a hole between records"
start=$(date +%s)
occ 0 --json -- "$FORGE" launch hole=536870912 launch name=_Z5afterv
[ $(($(date +%s) - start)) -le 3 ] || no "$what: $(($(date +%s) - start)) s"
json '.launch_count == 2 and .skipped_record_count == 0 and .records_unread_reason == null'
what="data past 1 GiB"
occ 0 --json -- "$FORGE" launch hole=2147483648 launch name=_Z5afterv
json '.launch_count == 1 and (.records_unread_reason | test("past 1024 MiB"))'
occ 0 -- "$FORGE" launch hole=2147483648 launch name=_Z5afterv
grep -q "^occcalc: note: the records' file holds data past 1024 MiB, not read$" "$tmp/err" ||
  no "$what: no note in the text"

# --- 4. Linear time and bounded memory: 40,000 configurations, and
# --jsonl over 200,000 launches (each launch once looked up).
# timed ARGS...: occcalc run ARGS into $tmp/out, its CPU seconds and peak KB
# into secs and kb (99 s and 999999999 KB when time could not say).
# The seconds are CPU time (user + system): on a machine shared with other
# builds the wall clock measures the neighbours (20 s of wall for 2 s of
# CPU was seen), and linear time is a property of the work done.
timed() {
  /usr/bin/time -f '%U %S %M' -o "$tmp/time" timeout 60 "$OCC" run "$@" \
    >"$tmp/out" 2>"$tmp/err"
  # (time's last line: a failed command's status comes first)
  read -r user sys kb <<EOF
$(tail -1 "$tmp/time" 2>/dev/null)
EOF
  case "$user$sys$kb" in *[!0-9.]* | "") user=99 sys=0 kb=999999999 ;; esac
  secs=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
}
what="40000 configurations"
timed --csv -- "$FORGE" launch distinct=40000
[ "$(wc -l <"$tmp/out")" -eq 40001 ] || no "$what: $(wc -l <"$tmp/out") lines"
awk -v s="$secs" -v k="$kb" -v san="$sanitized" \
  'BEGIN { exit !(s < 10 && (k < 300000 || san == "true")) }' ||
  no "$what: $secs s, $kb KB (expected under 10 s and 300 MB)"
what="--jsonl over 200000 launches"
timed --jsonl -- "$FORGE" launch times=200000
[ "$(wc -l <"$tmp/out")" -eq 200000 ] || no "$what: $(wc -l <"$tmp/out") lines"
awk -v s="$secs" 'BEGIN { exit !(s < 15) }' || no "$what: $secs s"

# --- 5. Names from the program escaped in the text and every message:
# kernel names, the no-counters note, the gate line, the program's name,
# metric names.
what="escapes"
mkdir -p "$tmp/bin"
odd="$tmp/bin/$(printf 'f\033]0;x\007')"
ln -s "$FORGE" "$odd"
occ 3 --min-occupancy 100 --metrics "$(printf 'm\033[31m')" -- "$odd" \
  launch name="\x1b]0;pwned\x07k\n2" regs=255 counters values=50,1,2 \
  refusal why="\x1b[2Jwhy"
! grep -q "$esc" "$tmp/err" || no "$what: raw ESC on stderr: $(grep -a "$esc" "$tmp/err" | od -c | head -3)"
grep -q '^occcalc run: f\\x1b\]0;x\\x07: 1 launch,' "$tmp/err" || no "$what: the program's name"
grep -q '^ 1 \\x1b\]0;pwned\\x07k\\n2$' "$tmp/err" || no "$what: the kernel's name"
grep -q '^occcalc: below --min-occupancy 100%: \\x1b\]0;pwned\\x07k\\n2 on ' "$tmp/err" || no "$what: the gate line"
grep -q '^   m\\x1b\[31m 2$' "$tmp/err" || no "$what: the metric's name"
ln -s /bin/true "$tmp/bin/$(printf 't\033x')"
occ 0 -- "$tmp/bin/$(printf 't\033x')"
grep -q '^occcalc: note: .*t\\x1bx launched no CUDA kernel' "$tmp/err" ||
  no "$what: the program's name in the no-kernel note: '$(od -c "$tmp/err" | head -2)'"
occ 0 -- "$FORGE" refusal why="\x1b[2Jwhy" launch
grep -q '^occcalc: note: \\x1b\[2Jwhy$' "$tmp/err" || no "$what: the no-counters note"
# The CSV header quotes a metric's name as a field.
what="csv header"
occ 0 --csv --metrics 'a"b' -- "$FORGE" launch
head -1 "$tmp/out" | grep -q ',"a""b",cause$' || no "$what: '$(head -1 "$tmp/out")'"

# --- 6. --metrics: at most 1023 bytes (the library reads no more), each
# name once (a JSON key).
long=$(head -c 1024 /dev/zero | tr '\0' m)
for metrics in "$long" a,b,a; do
  what="--metrics ${metrics%"${metrics#????}"}..."
  rm -f "$tmp/ran"
  occ 2 --metrics "$metrics" -- touch "$tmp/ran"
  [ ! -e "$tmp/ran" ] || no "$what: the program ran"
  grep -q "^occcalc: --metrics: " "$tmp/err" || no "$what: '$(head -1 "$tmp/err")'"
done
occ 0 --json --metrics "$(head -c 1023 /dev/zero | tr '\0' m)" -- true

# --- 7. A NUL in a --data string (\u0000) is refused, not a shorter name.
what="--data NUL"
sed 's/"name": "Tesla K40"/"name": "Tesla\\u0000K40"/' data/gpus.json >"$tmp/nul.json"
grep -q 'u0000' "$tmp/nul.json" || no "$what: the fixture has no \\u0000"
"$OCC" --data "$tmp/nul.json" --gpu k40 --regs 32 --block 128 >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'NUL' "$tmp/err" || no "$what: accepted ($(head -1 "$tmp/err"))"

# --- 8. Out of memory for the records: status 1, as the man page says
# (not under a sanitizer, whose shadow memory needs more address space).
what="out of memory"
if $sanitized; then
  echo "records: $what: skipped under a sanitizer"
else
  (ulimit -v 150000 && exec "$OCC" run -- "$FORGE" launch times=200000) \
    >"$tmp/out" 2>"$tmp/err"
  got=$?
  [ $got -eq 1 ] && grep -q "out of memory" "$tmp/err" ||
    no "$what: status $got ($(head -c 200 "$tmp/err"))"
fi

# --- 9. The attributes read at launch (inject_attrs.c): each field's
# range, and 0 where its bit says it was not read; null when unread.
for bad in "at_launch_known=16" "at_launch_known=-1" \
    "at_launch_known=1 carveout_preferred=101" \
    "at_launch_known=1 carveout_preferred=-2" "carveout_preferred=5" \
    "at_launch_known=2 max_dynamic_smem=16777217" \
    "at_launch_known=2 max_dynamic_smem=-1" "max_dynamic_smem=1024" \
    "at_launch_known=4 cluster_non_portable=2" "cluster_non_portable=1" \
    "at_launch_known=8 cluster_policy=3" "cluster_policy=1"; do
  what="launch $bad"
  # shellcheck disable=SC2086 # the case is several words
  occ 0 --json -- "$FORGE" launch name=_Z4goodv launch $bad
  json '.launch_count == 1 and .skipped_record_count == 1 and .rows[0].kernel.mangled_name == "_Z4goodv"'
done
what="at-launch attributes"
occ 0 --json -- "$FORGE" launch smem_dynamic=8192 carveout=50 \
  at_launch_known=15 carveout_preferred=50 max_dynamic_smem=65536 \
  cluster_non_portable=1 cluster_policy=2 launch carveout=-1 \
  at_launch_known=9 carveout_preferred=-1
json '.skipped_record_count == 0 and (.rows | length) == 2'
json '.rows[0].launches[0] | .carveout_pct == 50 and .max_dynamic_smem_bytes == 65536 and .cluster_non_portable == true and .cluster_scheduling_policy == "load_balancing"'
json '.rows[1].launches[0] | .carveout_pct == null and .max_dynamic_smem_bytes == null and .cluster_non_portable == null and .cluster_scheduling_policy == "default"'
occ 0 --json -- "$FORGE" launch
json '.rows[0].launches[0] | .carveout_pct == null and .max_dynamic_smem_bytes == null and .cluster_non_portable == null and .cluster_scheduling_policy == null'

# --- 10. The SM's configuration: recorded where CUPTI recorded it;
# else predicted by the calculator's launch rule (the same figure
# `occcalc --carveout` prints for the kernel) and marked; one row per
# carveout.
what="predicted configuration"
occ 0 --json -- "$FORGE" launch smem_dynamic=8192 carveout=50 \
  launch smem_dynamic=8192 carveout=25 launch smem_dynamic=8192 carveout=25 \
  smem_executed=102400
json '(.rows | length) == 2 and .rows[1].launch_count == 2'
json '.rows[1].smem_executed_bytes == 102400 and .rows[1].smem_config_predicted == false'
json '.rows[0].smem_config_predicted == true and .rows[0].launches[0].smem_executed_bytes == null'
cp "$tmp/out" "$tmp/run.json"
"$OCC" --gpu h100 --regs 32 --block 256 --dyn-smem 8192 --carveout 50 \
  --json >"$tmp/calc.json" 2>/dev/null || no "$what: the calculator failed"
want=$(jq '.at_launch.smem_config_bytes' "$tmp/calc.json")
got=$(jq '.rows[0].smem_executed_bytes' "$tmp/run.json")
[ -n "$want" ] && [ "$want" = "$got" ] ||
  no "$what: carveout 50: run predicts $got, the calculator $want"
occ 0 -- "$FORGE" launch smem_dynamic=8192 carveout=50
grep -q "the SM configured with .*, predicted)" "$tmp/err" || no "$what: text lacks 'predicted'"
# Neither recorded nor predictable (the device unknown): null, and an
# empty CSV field, never 0.
what="unknown configuration"
occ 0 --json -- "$FORGE" launch cc=0.0 sm_count=0
json '.rows[0].smem_executed_bytes == null and .rows[0].smem_config_predicted == null'
occ 0 --csv -- "$FORGE" launch cc=0.0 sm_count=0
for key in smem_executed_bytes smem_config_predicted; do
  col=$(head -1 "$tmp/out" | tr , '\n' | grep -n "^$key\$" | cut -d: -f1)
  [ -n "$col" ] || no "$what: csv has no $key column"
  [ -n "$col" ] && [ "$(tail -1 "$tmp/out" | cut -d, -f"$col")" = "" ] ||
    no "$what: csv $key is not empty: $(tail -1 "$tmp/out")"
done

[ $fail -eq 0 ] && echo "records: forged records are checked, counted and escaped"
exit $fail
