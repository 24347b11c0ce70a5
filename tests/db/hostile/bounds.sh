#!/bin/sh
# bounds.sh OCCCALC CORNERS.json: every command on every board and
# architecture of a database at the corners of the accepted ranges (see
# occcalc(1), DATABASE FILE) must succeed within 10 s and, outside a
# sanitizer build, 256 MB of address space; prints the slowest run. The
# contract promises 100 ms and 64 MB: this test only catches a bound that
# no longer holds at all (a timing test would fail on a loaded machine).
bin=$1 db=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
limit_vm=262144
nm "$bin" 2>/dev/null | grep -q __asan_init && limit_vm=unlimited
fail=0 worst=0 worst_args=
run() {
  start=$(date +%s%N)
  ( ulimit -v $limit_vm; ulimit -t 10
    exec "$bin" --data "$db" "$@" >"$tmp/out" 2>"$tmp/err" ) </dev/null
  status=$?
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  if [ $status -ne 0 ] || [ $ms -gt 10000 ]; then
    echo "FAIL (status $status, $ms ms): occcalc --data $db $*"
    head -3 "$tmp/err"
    fail=$((fail + 1))
  fi
  [ $ms -gt $worst ] && { worst=$ms; worst_args="$*"; }
}
sed -n 's/^ *"name": "\(.*\)",$/--gpu \1/p; s/^ *"cc": "\(.*\)",$/--cc \1/p' "$db" |
  sort -u >"$tmp/devices"
count=0
while read -r opt val; do
  for cmd in "--chart all --suggest" "--chart all --suggest --step 1 --carveout 50" \
             "--chart all --csv --step 1" "--chart all --json --suggest --step 1" \
             "--chart all --svg $tmp/c.svg --step 1" "--explain --grid 2147483647 --sms 100000" \
             "--jsonl --suggest --chart all"; do
    # Dynamic shared memory: the corners' smallest static limit is 64 B,
    # and static memory above a device's limit is refused (status 2).
    for kernel in "--regs 0 --block 1" "--regs 255 --block 1 --dyn-smem 1K --barriers 16"; do
      # shellcheck disable=SC2086
      run $opt "$val" $kernel $cmd
      count=$((count + 1))
    done
  done
done <"$tmp/devices"
run --list-gpus
echo "bounds: $count runs, $fail failed; slowest $worst ms: $worst_args"
[ $fail -eq 0 ]
