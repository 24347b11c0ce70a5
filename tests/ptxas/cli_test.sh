#!/bin/sh
# cli_test.sh: occcalc --ptxas end to end: the gate's exit status and its
# stderr, --jsonl as one JSON document per line (checked with jq), --json
# as one array, stdin, and the bad inputs (missing file, no
# kernel, garbage, truncation, absurd numbers) with their statuses.
set -u
bin=${OCCCALC:-./occcalc}
g=tests/ptxas/logs
real=tests/ptxas/real
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

# expect NAME WANT_STATUS CMD...: runs CMD, stdout/stderr into $tmp/out,err.
expect() {
  name=$1 want=$2
  shift 2
  "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
  status=$?
  if [ "$status" -eq "$want" ]; then
    pass=$((pass + 1))
    return 0
  fi
  fail=$((fail + 1))
  echo "FAIL $name: status $status, expected $want"
  sed 's/^/  stderr: /' "$tmp/err" | head -5
  return 1
}
check() { # NAME CONDITION-COMMAND...
  name=$1
  shift
  if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $name"; fi
}
lines() { wc -l <"$1" | tr -d ' '; }

command -v jq >/dev/null || { echo "skipped: no jq"; exit 77; }

# The gate: at 1024 threads sm_86 and sm_120 (48 warps per SM) hold one
# block, 66.67 %, the others 100 %: a 70 % gate fails (3) naming the six
# kernels below it, a 60 % gate passes.
expect gate-fails 3 "$bin" --ptxas $real/smem.ptxas.log --block 1024 --min-occupancy 70
check gate-output-complete [ "$(grep -c '^sm_' "$tmp/out")" -eq 18 ]
check gate-names-kernels grep -q 'below --min-occupancy 70%: big_tile_40k(double const\*, double\*) on sm_86: 66.67%' "$tmp/err"
check gate-names-six [ "$(grep -c 'below --min-occupancy 70%: ' "$tmp/err")" -eq 6 ]
check gate-summary grep -q '^occcalc: [0-9]* kernels* below --min-occupancy 70%$' "$tmp/err"
expect gate-passes 0 "$bin" --ptxas $real/smem.ptxas.log --block 1024 --min-occupancy 60
check gate-quiet [ ! -s "$tmp/err" ]
expect gate-jsonl 3 "$bin" --ptxas $real/smem.ptxas.log --jsonl --block 1024 --min-occupancy 70
check gate-jsonl-complete [ "$(lines "$tmp/out")" -eq 18 ]

# --jsonl: one valid JSON object per line, the compiler's fields filled.
expect jsonl 0 "$bin" --ptxas $real/pressure.ptxas.log --jsonl
n=0 bad=0
while IFS= read -r line; do
  n=$((n + 1))
  printf '%s\n' "$line" | jq -e 'type == "object" and (.kernel.mangled_name | startswith("_Z"))
    and (.compiler.demangled | length > 0) and .kernel.name == .compiler.demangled and (.compiler.arch | startswith("sm_"))
    and (.compiler | has("spill_stores_bytes") and has("spill_loads_bytes")
         and has("stack_bytes") and has("local_bytes"))' >/dev/null || bad=$((bad + 1))
done <"$tmp/out"
check jsonl-lines [ "$n" -eq 18 ] && check jsonl-valid [ "$bad" -eq 0 ]
check jsonl-spills [ "$(jq -s '[.[] | select(.compiler.demangled == "many_live<96>(float const*, float*, int)"
  and .compiler.arch == "sm_90")][0] | [.compiler.spill_stores_bytes, .compiler.spill_loads_bytes,
  .compiler.stack_bytes] | join(",")' -r "$tmp/out")" = "2896,4124,1936" ]

# --json: one array, one object per kernel and target; stdin works.
expect json-stdin 0 sh -c "cat $real/templates.ptxas.log | $bin --ptxas - --json"
check json-array [ "$(jq 'length' "$tmp/out")" = 24 ]
check json-demangled [ "$(jq -r '.[0].compiler.demangled' "$tmp/out")" = \
  "occ_test::apply<occ_test::scale>(float*, int, occ_test::scale)" ]
check json-choice [ "$(jq -r '.[0].block_choice | "\(.smallest_best_block_size) \(.max_potential_block_size)"' "$tmp/out")" = "64 1024" ]

# --gpu overrides the targets; --kernel filters by either name.
expect gpu-override 0 "$bin" --ptxas $real/smem.ptxas.log --gpu gtx970 --block 256 --json --kernel '_Z9reduce*'
check gpu-override-device [ "$(jq -r '[.[].device.name] | unique | join(",")' "$tmp/out")" = "GeForce GTX 970" ] ||
  jq -r '[.[].device.name] | unique' "$tmp/out"
check kernel-mangled-glob [ "$(jq length "$tmp/out")" -eq 6 ]
expect kernel-substring 0 "$bin" --ptxas $real/templates.ptxas.log --kernel 'tile_copy<64' --jsonl
check kernel-substring-count [ "$(lines "$tmp/out")" -eq 6 ]
expect kernel-none 2 "$bin" --ptxas $real/templates.ptxas.log --kernel nosuchkernel
check kernel-none-says grep -q "no kernel matches 'nosuchkernel'" "$tmp/err"

# cuobjdump reports read the same way (auto-detected).
expect cuobjdump 0 "$bin" --ptxas $real/smem.cuobjdump.txt --block 1024 --jsonl
check cuobjdump-smem [ "$(jq -s -r '[.[] | select(.compiler.arch == "sm_90") | .kernel.smem_static_bytes] | join(",")' "$tmp/out")" = "1024,40960,4096" ]

# Bad inputs.
expect missing-file 2 "$bin" --ptxas "$tmp/nonexistent.log"
check missing-one-line [ "$(lines "$tmp/err")" -eq 1 ] && check missing-says grep -q 'No such file' "$tmp/err"
check missing-no-stdout [ ! -s "$tmp/out" ]
expect directory 2 "$bin" --ptxas tests
expect empty 2 "$bin" --ptxas $g/empty.log
check empty-says grep -q 'no kernel found' "$tmp/err"
expect no-kernels 2 "$bin" --ptxas $g/no_kernels.log --json
check no-kernels-no-stdout [ ! -s "$tmp/out" ]
expect bad-lines 0 "$bin" --ptxas $g/bad_lines.log --arch sm_90
check bad-lines-note grep -q 'skipped 6 unparsable lines' "$tmp/err"
check bad-lines-kernel grep -q 'good(float\*)' "$tmp/out"
head -c 2000000 /dev/urandom >"$tmp/random.bin"
expect random-bytes 2 timeout 20 "$bin" --ptxas "$tmp/random.bin"
cat $real/pressure.ptxas.log "$tmp/random.bin" $real/smem.ptxas.log >"$tmp/mixed.log"
expect garbage-between 0 timeout 20 "$bin" --ptxas "$tmp/mixed.log" --jsonl
check garbage-between-kernels [ "$(lines "$tmp/out")" -eq 36 ]
head -c 3000 $real/templates.ptxas.log >"$tmp/truncated.log"
expect truncated 0 "$bin" --ptxas "$tmp/truncated.log" --jsonl
awk 'BEGIN { printf "ptxas info    : Compiling entry function '\''k'\'' for '\''sm_80'\''\nptxas info    : Used 8 registers, "; for (i = 0; i < 200000; i++) printf "1234567890"; printf " bytes smem\n" }' >"$tmp/long.log"
expect huge-line 2 timeout 20 "$bin" --ptxas "$tmp/long.log"
check huge-line-note grep -q 'skipped 1 unparsable line' "$tmp/err"

echo "cli_test: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
