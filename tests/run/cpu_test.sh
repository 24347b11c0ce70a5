#!/bin/sh
# cpu_test.sh: `occcalc run` without a GPU: the program's status as a shell
# gives it (its code, 128 + signal, 127, 126), its stdin and stdout kept,
# the one-line "no kernel" note, usage errors (2, the program not run),
# the injection library's one export and no CUDA library linked, and the
# report's path over records a fake program writes (build/fake_launches).
set -u
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
no() { echo "run: $*"; fail=1; }

# expect STATUS CMD...: runs ./occcalc run CMD..., stdout in $tmp/out,
# stderr in $tmp/err, and checks the status.
expect() {
  want=$1
  shift
  ./occcalc run "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
  got=$?
  [ "$got" -eq "$want" ] || no "'$*': status $got, expected $want ($(head -c 300 "$tmp/err"))"
}

expect 7 -- sh -c 'exit 7'
expect 0 -- true
expect 143 -- sh -c 'kill -TERM $$'
expect 127 -- "$tmp/no-such-program"
grep -q "no-such-program: No such file or directory" "$tmp/err" || no "127 without its message"
printf 'echo x\n' >"$tmp/not-executable"
expect 126 -- "$tmp/not-executable"
grep -q "Permission denied" "$tmp/err" || no "126 without its message"
expect 3 sh -c 'exit 3'   # without "--": the program starts at the first non-option

# The program's stdin, stdout and stderr are its own.
out=$(printf 'in\n' | ./occcalc run -- sh -c 'cat; echo to-err >&2' 2>"$tmp/err")
[ "$out" = in ] || no "stdin/stdout not passed through: '$out'"
grep -q '^to-err$' "$tmp/err" || no "the program's stderr lost"

# The one line when no kernel was launched (no CUDA; without a driver it
# says so: tests/run/hostile_test.sh).
expect 0 -- true
case $(cat "$tmp/err") in
"occcalc: note: true launched no CUDA kernel" | \
  "occcalc: note: true launched no CUDA kernel, and none can run here: "*) ;;
*) no "no-kernel note: '$(cat "$tmp/err")'" ;;
esac
[ ! -s "$tmp/out" ] || no "no-kernel run wrote to stdout"

# Usage errors: status 2, a message, and the program never runs.
for args in "" "--regs 3 --" "--json --csv --" "--json --jsonl --" \
    "--no-counters --metrics a --" "--device x --" "--output $tmp --" \
    "--output $tmp/no/such/dir/f --" "--metrics a,b,c,d,e,f,g,h,i --" \
    "--min-occupancy 101 --" "--bogus --" "--counter-launches 0 --" \
    "--counter-launches x --" "--counter-launches all --no-counters --"; do
  rm -f "$tmp/ran"
  if [ -n "$args" ]; then
    # shellcheck disable=SC2086
    expect 2 $args touch "$tmp/ran"
  else
    expect 2
  fi
  [ ! -e "$tmp/ran" ] || no "'run $args': the program ran despite the usage error"
  grep -q "^occcalc: try 'occcalc --help'$" "$tmp/err" || no "'run $args': no --help hint"
done

# The injection library: built, exporting InitializeInjection and nothing
# else, linking no CUDA library (the driver loads it; CUPTI is dlopen'ed).
lib=build/libocc_inject.so
exports=$(nm -D --defined-only "$lib" | awk '$2 == "T" { print $3 }')
[ "$exports" = InitializeInjection ] || no "$lib exports '$exports'"
if readelf -d "$lib" | grep NEEDED | grep -q 'cuda\|cupti'; then
  no "$lib links a CUDA library"
fi

# The environment the driver and the library read: an absolute path to
# the library, the records' file, the library's counters on only for
# --measure replay (PM sampling is occcalc's own, outside the program).
expect 0 -- sh -c 'case $CUDA_INJECTION64_PATH in /*libocc_inject.so) ;; *) exit 1;; esac
  test -f "$CUDA_INJECTION64_PATH" && test -w "$OCCCALC_RUN_OUT" &&
  test "$OCCCALC_RUN_COUNTERS" = 0'
expect 0 --measure replay -- sh -c 'test "$OCCCALC_RUN_COUNTERS" = 1'
expect 0 --no-counters -- sh -c 'test "$OCCCALC_RUN_COUNTERS" = 0'
expect 0 --metrics a,b -- sh -c 'test "$OCCCALC_RUN_METRICS" = a,b'
# The launches of each configuration profiled: 0 (all) unless told.
expect 0 --measure replay -- sh -c 'test "$OCCCALC_RUN_COUNTER_LAUNCHES" = 3'
expect 0 --counter-launches 12 -- sh -c 'test "$OCCCALC_RUN_COUNTER_LAUNCHES" = 12'
expect 0 --counter-launches all -- sh -c 'test "$OCCCALC_RUN_COUNTER_LAUNCHES" = 0'

# Found without configuration where make install puts it, beside the
# binary's folder in lib/occcalc; none: status 5, one line, nothing run.
mkdir -p "$tmp/inst/bin" "$tmp/inst/lib/occcalc"
cp occcalc "$tmp/inst/bin/"
cp "$lib" "$tmp/inst/lib/occcalc/"
"$tmp/inst/bin/occcalc" run -- sh -c 'test "$CUDA_INJECTION64_PATH" = "$0"' \
  "$(cd "$tmp/inst/lib/occcalc" && pwd -P)/libocc_inject.so" 2>/dev/null ||
  no "the installed binary does not find ../lib/occcalc/libocc_inject.so"
rm "$tmp/inst/lib/occcalc/libocc_inject.so"
rm -f "$tmp/ran"
"$tmp/inst/bin/occcalc" run -- touch "$tmp/ran" 2>"$tmp/err"
[ $? -eq 5 ] && [ ! -e "$tmp/ran" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] ||
  no "without the library: not status 5 and one line"

# The report's path over fake records: 3 launches of one configuration
# (counters 40 % and 60 %, one without), 1 of another; status 5 kept.
expect 5 --measure replay -- build/fake_launches 5
grep -q "^occcalc run: fake_launches: 4 launches, 2 configurations, exit status 5$" "$tmp/err" || no "text: header"
grep -q "^ 1 reduce<256>(float const\*, float\*, int)$" "$tmp/err" || no "text: demangled name"
grep -q "3 launches on GPU 0, 20.0 us mean, 60.0 us total" "$tmp/err" || no "text: times"
grep -q "achieved 50.0% (2 of 3 launches)" "$tmp/err" ||
  no "text: achieved is the mean of 40 and 60, over 2 of the 3 launches"
grep -q "achieved -" "$tmp/err" || no "text: the kernel without counters"
# (the diagnostics' lines, "occcalc: ...", quote the driver's long errors)
grep -v '^occcalc: ' "$tmp/err" | awk 'length > 80 { bad = 1 } END { exit bad }' ||
  no "text: over 80 columns"

expect 0 --json --metrics m1 -- build/fake_launches
check() {
  [ -s "$tmp/out" ] && jq -e "$1" "$tmp/out" >/dev/null 2>&1 || no "json: $1"
}
check '.schema == 3 and .exit_status == 0 and .launch_count == 4'
check '.rows | length == 2'
check '.rows[0].kernel.block == [256, 1, 1] and .rows[0].kernel.regs_per_thread == 32'
check '.rows[0].kernel.name == "reduce<256>(float const*, float*, int)"'
check '.rows[0].kernel.mangled_name == "_Z6reduceILi256EEvPKfPfi" and .rows[0].launch_count == 3'
check '.rows[0].achieved_occupancy == 0.5 and .rows[0].metrics.m1 == 1.5'
check '.rows[0].counter_launch_count == 2 and .rows[1].counter_launch_count == 0'
# A profiled launch's record has no SM configuration (null): it joins the row of
# the launches that have one, and the row shows theirs.
check '.rows[0].smem_executed_bytes == 233472 and .rows[0].smem_config_predicted == false and .rows[0].launches[0].smem_executed_bytes == null'
check '[.rows[0].launches[].achieved_occupancy] == [0.4, 0.6, null]'
check '.rows[1].achieved_occupancy == null and (.rows[1].achieved_null_reason | type) == "string"'
check '.rows[0].launches[0].grid == [1024, 1, 1] and .rows[0].launches[0].duration_us == 20'
# Timestamps exact (jq would read them as doubles): the fake's first
# launch starts 1 ms after 1795279669160074501 ns.
grep -q '"start_ns":	1795279669161074501,$' "$tmp/out" || no "json: start_ns not exact"
grep -q '"end_ns":	1795279669161094501,$' "$tmp/out" || no "json: end_ns not exact"

# A child process whose counters were refused (its parent held them): its
# row says why; the parent's rows keep their own reasons; the note names
# the process, since the program was several.
expect 0 --counter-launches all --json -- build/fake_launches 0 child
check '.launch_count == 5 and (.rows | length) == 3'
check '.rows[2].kernel.name == "child_kernel" and .rows[2].launches[0].pid == .rows[0].launches[0].pid + 1'
check '.rows[2].achieved_null_reason == "cuptiRangeProfilerStart: CUPTI_ERROR_HARDWARE_BUSY"'
check '.rows[1].achieved_null_reason == "no counters were recorded for this launch"'
check '.note == "no counters in process \(.rows[2].launches[0].pid): cuptiRangeProfilerStart: CUPTI_ERROR_HARDWARE_BUSY"'
expect 0 -- build/fake_launches 0 child
grep -q "^occcalc: note: no counters in process [0-9]*: cuptiRangeProfilerStart: CUPTI_ERROR_HARDWARE_BUSY$" "$tmp/err" ||
  no "text: the note names the process without counters"

expect 0 --jsonl -- build/fake_launches
[ "$(wc -l <"$tmp/out")" -eq 4 ] || no "jsonl: $(wc -l <"$tmp/out") lines, not 4"
jq -e -s '.[0].achieved_occupancy == 0.4 and .[0].kernel.block == [256, 1, 1]' \
  "$tmp/out" >/dev/null 2>&1 || no "jsonl: the first launch"

expect 0 --measure replay --csv -- build/fake_launches
[ "$(wc -l <"$tmp/out")" -eq 3 ] || no "csv: not a header and 2 rows"
head -1 "$tmp/out" | grep -q '^kernel,mangled_name,.*,counter_launch_count,clean_launch_count,achieved_occupancy,cause$' || no "csv: header"
sed -n 2p "$tmp/out" | grep -q ',2,,0\.5,$' || no "csv: the first row's counted launches and achieved"

expect 0 --kernel copy --json -- build/fake_launches
check '(.rows | length) == 1 and .rows[0].kernel.name == "copy_kernel"'
expect 0 --kernel nothing-matches -- build/fake_launches
grep -q "launched no CUDA kernel that --kernel or --device selects" "$tmp/err" ||
  no "--kernel matching nothing"
expect 0 --output "$tmp/report.json" --json -- build/fake_launches
[ -s "$tmp/report.json" ] && jq -e '.rows | length == 2' "$tmp/report.json" >/dev/null 2>&1 || no "--output"

# The program's own CUPTI client, refused (libocc_preload.so), over fake
# CUPTIs (tests/run/fake_cupti.c, cupti_client.c): every call answers as
# it does without occcalc, in each scope the client's CUPTI can be loaded
# in, and each refusal is in the report once a process.
pre=build/libocc_preload.so
exports=$(nm -D --defined-only "$pre" | awk '$2 == "T" { print $3 }' | sort | tr '\n' ' ')
[ "$exports" = "cuptiSubscribe cuptiSubscribe_v2 " ] || no "$pre exports '$exports'"
[ "$(readelf -d "$pre" | grep NEEDED | grep -cv libc.so)" -eq 0 ] ||
  no "$pre links more than the C library"
fake=build/cupti_fake
for scope in global local beside; do
  for version in v1 v2; do
    alone=$(build/cupti_client $fake $scope $version 2)
    expect 0 --json -- build/cupti_client $fake $scope $version 2
    got=$(grep -v '^occcalc: ' "$tmp/err")
    [ "$got" = "$alone" ] ||
      no "client $scope $version: '$got' under occcalc, '$alone' alone"
    if [ "$alone" = "$(printf '39\n39')" ]; then
      call=cuptiSubscribe
      [ $version = v2 ] && call=cuptiSubscribe_v2
      check ".cupti_client_refused.process_count == 1 and .cupti_client_refused.call == \"$call\" and (.cupti_client_refused.reason | startswith(\"CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED\")) and .cupti_client_refused.first_pid > 0"
    else
      check '.cupti_client_refused == null'
    fi
  done
done
# A child forked after its parent was refused is counted too.
expect 0 --json -- build/cupti_client $fake global v1 1 fork
check '.cupti_client_refused.process_count == 2'
FAKE_CUPTI_ACCEPT=1 expect 0 --json -- build/cupti_client $fake local v1
check '.cupti_client_refused == null'
expect 0 -- sh -c "build/cupti_client $fake local v2 >/dev/null; build/cupti_client $fake global v1 >/dev/null"
grep -q "^occcalc: note: the program's own CUPTI client was refused in 2 processes (the first [0-9]*) (cuptiSubscribe_v2 returned CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED; held by CUPTI for a fake profiler): a profiler inside the program (torch.profiler, Kineto) records no GPU activity under occcalc run; --trace writes the launches' timeline$" "$tmp/err" ||
  no "refused client note: '$(tail -1 "$tmp/err")'"
# A program built with AddressSanitizer starts although libocc_preload.so
# is preloaded before its runtime (ASAN_OPTIONS, the program's own
# setting after occcalc's).
if printf 'int main(void) { return 3; }\n' |
  ${CC:-cc} -fsanitize=address -x c -o "$tmp/asan" - 2>/dev/null; then
  expect 3 -- "$tmp/asan"
  ASAN_OPTIONS=detect_leaks=0 ./occcalc run -- sh -c 'echo "$ASAN_OPTIONS"' >"$tmp/out" 2>/dev/null
  [ "$(cat "$tmp/out")" = "verify_asan_link_order=0:detect_leaks=0" ] ||
    no "ASAN_OPTIONS under occcalc: '$(cat "$tmp/out")'"
else
  echo "run: no AddressSanitizer here: a sanitized program under occcalc not tried"
fi
# The program's own LD_PRELOAD is kept, after libocc_preload.so.
mine=$(realpath $fake/libfakecupti_other.so)
# (ASAN_OPTIONS: occcalc itself may be built with AddressSanitizer.)
ASAN_OPTIONS=verify_asan_link_order=0 LD_PRELOAD=$mine ./occcalc run -- \
  sh -c 'echo "$LD_PRELOAD"' >"$tmp/out" 2>/dev/null
case $(cat "$tmp/out") in
/*/libocc_preload.so:"$mine") ;;
*) no "LD_PRELOAD under occcalc: '$(cat "$tmp/out")'" ;;
esac

[ $fail -eq 0 ] && echo "run: the launcher, the library and the report's path agree"
exit $fail
