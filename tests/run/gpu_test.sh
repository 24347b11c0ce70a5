#!/bin/sh
# gpu_test.sh: `occcalc run` on a real GPU (make test-gpu-run). Runs
# tests/run/launches.cu under occcalc run and checks that every launch
# record equals what the program says it launched (its manifest), that
# registers and static shared memory equal cuobjdump's, that theoretical
# occupancy equals occcalc's own calculation for the same configuration on
# the live device, and, when ncu is present and counters are permitted,
# that achieved occupancy is within 3 points of Nsight Compute's for every
# kernel longer than 100 us. Prints "skipped: no GPU" and exits 77 without
# a GPU.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
no() { echo "gpu-run: $*"; fail=1; }

if ! ./occcalc --regs 32 --block 32 --device 0 --no-verify >/dev/null 2>"$tmp/why"; then
  echo "skipped: no GPU ($(head -c 200 "$tmp/why"))"
  exit 77
fi
command -v jq >/dev/null || { echo "skipped: no jq to read JSON"; exit 77; }
make -s build/run_launches || exit 1
prog=build/run_launches

# 1. The run: the program's status, the report as JSON.
./occcalc run --json --output "$tmp/run.json" -- $prog "$tmp/manifest" \
  >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || { no "status $rc: $(head -c 400 "$tmp/err")"; exit 1; }

# The device is named as the driver names it (nvidia-smi's name where it
# is there), never the database's architecture entry; limits_from names
# the entry whose limits the rows use.
names=$(jq -r '[.rows[].device | select(. != null) | .name] | unique | join("|")' "$tmp/run.json")
case "$names" in
  ''|generic*|*'|generic'*) no "device named '$names', not as the driver names it" ;;
esac
jq -e '[.rows[].device | select(. != null) | .limits_from | type == "string"] | all' \
  "$tmp/run.json" >/dev/null || no "a device without limits_from"
if command -v nvidia-smi >/dev/null; then
  # Compared where every GPU has one name (ordinals may differ from
  # nvidia-smi's).
  smi=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sort -u)
  [ -z "$smi" ] || [ "$(printf '%s\n' "$smi" | wc -l)" -ne 1 ] ||
    [ "$names" = "$smi" ] || no "device '$names', nvidia-smi says '$smi'"
fi

# The program's own kernels (cuobjdump). Under a profiled graph launch the
# runtime adds kernels of its own (WaitNs on CUDA 13); occcalc profiles no
# graph launch, so the report must show none.
cuobjdump -res-usage $prog 2>/dev/null | awk '
  /Function/ { sub(/.*Function /, ""); sub(/:.*/, ""); name = $0 }
  /REG:/ { for (i = 1; i <= NF; i++) { split($i, kv, ":");
             if (kv[1] == "REG") r = kv[2]; if (kv[1] == "SHARED") s = kv[2] }
           print name, r, s }' | sort -u >"$tmp/compiled"
[ -s "$tmp/compiled" ] || { no "cuobjdump -res-usage $prog listed no kernel: $(cuobjdump -res-usage $prog 2>&1 | head -c 300)"; exit 1; }
own=$(awk '{ printf "%s\"%s\"", (NR > 1 ? "," : "["), $1 } END { print "]" }' "$tmp/compiled")
others=$(jq -r --argjson own "$own" '[.rows[].kernel.name] - $own | unique | join(" ")' "$tmp/run.json")
[ -z "$others" ] || no "kernels the program did not launch: $others"

# 2. Every record of the program's kernels is what was launched: name,
# grid, block, dynamic shared memory, launch type, graph or not, process;
# as many records as launches.
jq -r --argjson own "$own" '.rows[] | select(.kernel.name as $n | $own | index($n)) | . as $r | .launches[] |
  [$r.kernel.name, .grid[0], .grid[1], .grid[2], $r.kernel.block[0],
   $r.kernel.block[1], $r.kernel.block[2], $r.kernel.smem_dynamic_bytes,
   .launch_type, (if .graph_id then 1 else 0 end), .pid]
  | map(tostring) | join(" ")' "$tmp/run.json" | sort >"$tmp/recorded"
sort "$tmp/manifest" >"$tmp/launched"
if ! cmp -s "$tmp/recorded" "$tmp/launched"; then
  no "records differ from the launches (< recorded, > launched):"
  diff "$tmp/recorded" "$tmp/launched"
fi
[ "$(wc -l <"$tmp/launched")" -ge 10 ] || no "fewer than 10 launches"

# 3. Registers and static shared memory as the compiler reports them; the
# activity record, like Nsight Compute, reports at least 16 registers.
# cuobjdump's SHARED on sm_90 includes the 1 KB reserve, here even for
# kernels with none of their own (CUDA 13.0, an executable built with
# -arch=native); the record's static size is without it.
awk '{ print $1, ($2 < 16 ? 16 : $2), ($3 >= 1024 ? $3 - 1024 : $3) }' "$tmp/compiled" |
  sort -u >"$tmp/compiled16"
jq -r --argjson own "$own" '.rows[] | select(.kernel.name as $n | $own | index($n))
  | [.kernel.name, .kernel.regs_per_thread, .kernel.smem_static_bytes]
  | map(tostring) | join(" ")' "$tmp/run.json" | sort -u >"$tmp/recorded_res"
missing=$(comm -23 "$tmp/recorded_res" "$tmp/compiled16")
[ -z "$missing" ] || no "registers or shared memory unlike cuobjdump's: $missing"

# 4. Theoretical occupancy equals occcalc's offline calculation of the same
# configuration on the live device.
jq -r '.rows[] | [.kernel.regs_per_thread, .kernel.smem_static_bytes,
  .kernel.smem_dynamic_bytes, (.kernel.block | map(tostring) | join("x")),
  (.kernel.carveout_pct // -1), .device_ordinal, .theoretical_occupancy,
  (.cluster | map(tostring) | join("x")), (.cluster | .[0] * .[1] * .[2]), .kernel.name]
  | map(tostring) | join(" ")' "$tmp/run.json" >"$tmp/rows"
while read -r regs smem dyn block carveout device theo cluster cluster_size name; do
  set -- --regs "$regs" --smem "$smem" --dyn-smem "$dyn" --block "$block"
  [ "$carveout" -ge 0 ] && set -- "$@" --carveout "$carveout"
  # A cluster launch's theoretical occupancy is the cluster rule's.
  [ "$cluster_size" -gt 1 ] && set -- "$@" --cluster "$cluster"
  [ "$cluster_size" -gt 8 ] && set -- "$@" --non-portable
  offline=$(./occcalc "$@" --device "$device" --no-verify --json 2>/dev/null |
            jq -r 'if .cluster then .cluster.occupancy else .occupancy end')
  [ "$offline" = "$theo" ] || no "$name: theoretical $theo, occcalc $offline"
done <"$tmp/rows"

# 5. Achieved occupancy against Nsight Compute's, kernels over 100 us.
reason=$(jq -r '[.rows[].achieved_null_reason // empty] | first // ""' "$tmp/run.json")
if jq -e '[.rows[].achieved_occupancy] | all(. == null)' "$tmp/run.json" \
    >/dev/null; then
  echo "gpu-run: note: no achieved occupancy ($reason); ncu comparison skipped"
elif ! command -v ncu >/dev/null; then
  echo "gpu-run: note: no ncu; achieved occupancy not compared"
else
  rm -f "$tmp/manifest2"
  ncu --metrics sm__warps_active.avg.pct_of_peak_sustained_active --csv \
    $prog "$tmp/manifest2" >"$tmp/ncu.csv" 2>"$tmp/ncu.err" ||
    no "ncu failed: $(head -c 300 "$tmp/ncu.err")"
  # Kernel name and value of each profiled launch, averaged per name.
  grep '^"' "$tmp/ncu.csv" | awk -F'","' 'NR > 1 {
      gsub(/"/, "", $NF); gsub(/,/, "", $NF); sum[$5] += $NF; n[$5]++ }
    END { for (k in sum) print k, sum[k] / n[k] }' | sort >"$tmp/ncu"
  jq -r '.rows[] | select(.mean_time_us > 100 and .achieved_occupancy != null)
    | [.kernel.name, .achieved_occupancy * 100] | map(tostring) | join(" ")' \
    "$tmp/run.json" | sort >"$tmp/ours"
  [ -s "$tmp/ours" ] || no "no kernel over 100 us with achieved occupancy"
  while read -r name ours; do
    theirs=$(awk -v k="$name" '$1 == k { print $2 }' "$tmp/ncu")
    if [ -z "$theirs" ]; then no "$name: not in ncu's output"; continue; fi
    awk -v a="$ours" -v b="$theirs" 'BEGIN { d = a - b; exit !(d <= 3 && d >= -3) }' ||
      no "$name: achieved $ours%, ncu $theirs%"
    echo "gpu-run: $name: achieved $ours%, ncu $theirs%"
  done <"$tmp/ours"
fi

# 6. --counter-launches all: every launch but a graph's is profiled, in
# every process (the child's too: the parent's profiler is stopped while
# it forks), and the rows are the default's. --counter-launches 1: in each
# process, the first launch of each configuration is profiled and no
# other. Each row counts what it measured; a profiled record carries no
# SM configuration, yet the rows stay the same.
if jq -e '[.rows[].achieved_occupancy] | any(. != null)' "$tmp/run.json" >/dev/null; then
  ./occcalc run --counter-launches all --json --output "$tmp/all.json" -- $prog "$tmp/m6" \
    >/dev/null 2>&1 || no "occcalc run --counter-launches all failed"
  jq -r '.rows[] | .kernel.name as $n | .launches[]
    | select((.graph_id == null) != (.achieved_occupancy != null))
    | "\($n) (process \(.pid), graph \(.graph_id)): achieved \(.achieved_occupancy)"' \
    "$tmp/all.json" >"$tmp/all.bad"
  [ -s "$tmp/all.bad" ] && no "--counter-launches all: $(head -5 "$tmp/all.bad")"
  [ "$(jq '.rows | length' "$tmp/all.json")" = "$(jq '.rows | length' "$tmp/run.json")" ] ||
    no "--counter-launches all: $(jq '.rows | length' "$tmp/all.json") rows, $(jq '.rows | length' "$tmp/run.json") with the default"
  jq -e '.note == null' "$tmp/all.json" >/dev/null || no "--counter-launches all: note $(jq .note "$tmp/all.json")"
  echo "gpu-run: --counter-launches all profiled $(jq '[.rows[].counter_launch_count] | add' "$tmp/all.json") of $(jq .launch_count "$tmp/all.json") launches (all but the graph's), in $(jq '[.rows[].launches[].pid] | unique | length' "$tmp/all.json") processes"

  ./occcalc run --counter-launches 1 --json --output "$tmp/one.json" -- $prog "$tmp/m5" \
    >/dev/null 2>&1 || no "occcalc run --counter-launches 1 failed"
  jq -r '.rows[] | .kernel.name as $n
    | (.launches | map(select(.achieved_occupancy != null)) | length) as $m
    | (if $m != .counter_launch_count then "\($n): counter_launch_count \(.counter_launch_count), \($m) measured" else empty end),
      (.launches | map(select(.graph_id == null)) | group_by(.pid)[]
        | if (map(select(.achieved_occupancy != null)) | length) != 1 or
             (min_by(.correlation_id) | .achieved_occupancy == null)
          then "\($n): not exactly the first launch of process \(.[0].pid) profiled" else empty end),
      (.launches[] | select(.graph_id != null and .achieved_occupancy != null)
        | "\($n): a graph launch profiled")' "$tmp/one.json" >"$tmp/one.bad"
  [ -s "$tmp/one.bad" ] && no "--counter-launches 1: $(head -5 "$tmp/one.bad")"
  measured=$(jq '[.rows[].counter_launch_count] | add' "$tmp/one.json")
  total=$(jq '.launch_count' "$tmp/one.json")
  [ "$measured" -lt "$total" ] || no "--counter-launches 1 profiled $measured of $total launches"
  [ "$(jq '.rows | length' "$tmp/one.json")" = "$(jq '.rows | length' "$tmp/run.json")" ] ||
    no "--counter-launches 1: $(jq '.rows | length' "$tmp/one.json") rows, $(jq '.rows | length' "$tmp/run.json") with the default"
  echo "gpu-run: --counter-launches 1 profiled $measured of $total launches, the first of each configuration"
fi

# 7. The records (without counters: the activity record then carries the
# configuration) equal Nsight Compute's launch statistics, launch by
# launch, for the program's own kernels.
if command -v ncu >/dev/null && command -v python3 >/dev/null; then
  ./occcalc run --no-counters --json --output "$tmp/nc.json" -- $prog "$tmp/m3" \
    >/dev/null 2>&1 || no "occcalc run --no-counters failed"
  ncu --csv --metrics launch__grid_size,launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic,launch__shared_mem_config_size,launch__cluster_max_active \
    $prog "$tmp/m4" >"$tmp/stats.csv" 2>/dev/null || no "ncu (launch statistics) failed"
  python3 - "$tmp/nc.json" "$tmp/stats.csv" "$own" <<'PY' || fail=1
import collections, csv, json, sys
run = json.load(open(sys.argv[1]))
own = set(json.loads(sys.argv[3]))
ours = collections.Counter()
for row in run['rows']:
    k = row['kernel']
    if k['name'] not in own:
        continue
    for l in row['launches']:
        g = l['grid']
        # ncu's launch__cluster_max_active is 0 for a launch without
        # clusters; a cluster launch's row carries occcalc's figure.
        cl = (row.get('cluster_launch') or {}).get('launch__cluster_max_active') or 0
        ours[(k['name'], g[0] * g[1] * g[2], k['block'][0] * k['block'][1] * k['block'][2],
              k['regs_per_thread'], k['smem_static_bytes'], k['smem_dynamic_bytes'],
              l['smem_executed_bytes'], cl)] += 1
launches = collections.defaultdict(dict)
for r in csv.reader(l for l in open(sys.argv[2]) if l.startswith('"')):
    if r[0] != 'ID':
        launches[(r[1], r[0])][r[12]] = (r[4], r[14].replace(',', ''))
theirs = collections.Counter()
for m in launches.values():
    name = next(iter(m.values()))[0].split('(')[0]
    if name not in own:
        continue
    v = {key: int(float(val)) for key, (_, val) in m.items()}
    theirs[(name, v['launch__grid_size'], v['launch__block_size'],
            v['launch__registers_per_thread'], v['launch__shared_mem_per_block_static'],
            v['launch__shared_mem_per_block_dynamic'], v['launch__shared_mem_config_size'],
            v['launch__cluster_max_active'])] += 1
if ours != theirs:
    print('gpu-run: records unlike ncu\'s launch statistics:')
    for t in sorted((ours - theirs) + (theirs - ours)):
        print('  %s %s' % ('ours' if ours[t] > theirs[t] else 'ncu ', t))
    sys.exit(1)
print('gpu-run: %d launches equal ncu\'s launch statistics, launch__cluster_max_active included' % sum(ours.values()))
PY
fi

[ $fail -eq 0 ] && echo "gpu-run: $(wc -l <"$tmp/launched") launches recorded as launched; theoretical equals occcalc's"
exit $fail
