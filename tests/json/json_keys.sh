#!/bin/sh
# json_keys.sh: the JSON contract (schema 3, man page "JSON OUTPUT") on
# every kind of document occcalc writes without a GPU: the report (with and
# without --grid, with a carveout), charts, suggestions, --ptxas --json and
# --jsonl, --list-gpus, and occcalc run's --json and --jsonl over forged
# launch records (tests/run/forge.c). Every key is present with the right type, and
# the vocabulary holds everywhere: no key ends in _pct but carveout_pct,
# every occupancy is a fraction from 0 to 1, and every kernel's block is
# [x, y, z].
set -u
for tool in jq python3; do
  command -v $tool >/dev/null 2>&1 || { echo "skipped: no $tool (the contract is read with jq and python3)"; exit 77; }
done
fail=0
# check WHAT DOCUMENT FILTER: fails unless FILTER is true, as jq -e FILTER
# would judge it (its last output neither false nor null; no output or an
# error fails). The checks of one document are queued and run by one jq
# (checks_run, at the end): one jq a check made this test take most of
# make check's time. An empty document fails at once: jq -e exits 0 on no
# input at all, so a command that wrote nothing would pass every check.
queue=$(mktemp -d)
trap 'rm -rf "$queue"' EXIT
docs=0 checks=0 last_doc=""
check() {
  if [ -z "$2" ]; then echo "json_keys: $1: failed: $3"; fail=1; return; fi
  if [ $docs -eq 0 ] || [ "$2" != "$last_doc" ]; then
    docs=$((docs + 1)); last_doc=$2
    printf '%s' "$2" >"$queue/doc.$docs"
  fi
  checks=$((checks + 1))
  printf '%s\n' "$1" >"$queue/what.$checks"
  printf '%s' "$3" >"$queue/filter.$checks"
  echo $checks >>"$queue/checks.$docs"
}
checks_run() {
  d=1
  while [ $d -le $docs ]; do
    # One document (not a stream of several): all its checks in one jq,
    # one true or false a line; otherwise each check alone, as jq -e.
    : >"$queue/results"
    if [ "$(jq -s length <"$queue/doc.$d" 2>/dev/null)" = 1 ]; then
      prog="["
      while read -r c; do
        prog="$prog (try ([($(cat "$queue/filter.$c"))] | (length > 0 and (last | . != false and . != null))) catch false),"
      done <"$queue/checks.$d"
      jq -r "${prog%,} ] | .[]" <"$queue/doc.$d" >"$queue/results" 2>/dev/null
    fi
    if [ "$(wc -l <"$queue/results")" -ne "$(wc -l <"$queue/checks.$d")" ]; then
      while read -r c; do
        jq -e "$(cat "$queue/filter.$c")" <"$queue/doc.$d" >/dev/null 2>&1 && echo true || echo false
      done <"$queue/checks.$d" >"$queue/results"
    fi
    paste -d ' ' "$queue/checks.$d" "$queue/results" | while read -r c r; do
      [ "$r" = true ] || echo "json_keys: $(cat "$queue/what.$c"): failed: $(cat "$queue/filter.$c")"
    done >>"$queue/failed"
    d=$((d + 1))
  done
  [ -s "$queue/failed" ] && { cat "$queue/failed"; fail=1; }
}

# The rules of one vocabulary, over a whole document (an object, an array
# of objects or a stream of them, read with jq -s).
# The ncu object is Nsight Compute's metrics under its own names (one is a
# percentage, as ncu reports it): its keys are ncu's vocabulary, not ours.
no_pct='[del(.. | objects | .ncu?) | .. | objects | keys[] | select(endswith("_pct") and . != "carveout_pct")] == []'
# Keys naming an occupancy, and the chart points' fourth column.
occupancies='[(.. | objects | to_entries[] | select(.key | test("occupancy$")) | .value | numbers),
              (.. | objects | select(has("points")) | .points[][3])]'
blocks='[.. | objects | (select(has("kernel")) | .kernel), (select(has("probe")) | .probe | objects) | .block]'
rules() { # rules WHAT DOCUMENT
  check "$1: no _pct key but carveout_pct" "$2" "$no_pct"
  check "$1: occupancies are fractions" "$2" \
    "$occupancies | length > 0 and all(. >= 0 and . <= 1)"
}
kernel_shape='["name", "mangled_name", "block", "regs_per_thread", "smem_static_bytes",
  "smem_dynamic_bytes", "smem_dynamic_per_thread_bytes", "barriers", "carveout_pct"] | sort'
kernel_rules() { # kernel_rules WHAT DOCUMENT
  check "$1: every kernel has one shape" "$2" \
    "[.. | objects | select(has(\"kernel\")) | .kernel | keys] | all(. == ($kernel_shape))"
  check "$1: every report has compiler and block_choice" "$2" \
    '[.. | objects | select(has("kernel") and has("limits"))] | all(has("compiler") and has("block_choice"))'
  check "$1: every block is [x, y, z]" "$2" \
    "$blocks | length > 0 and all(type == \"array\" and length == 3 and all(type == \"number\"))"
  check "$1: schema 3" "$2" '[.. | objects | select(has("schema")) | .schema] | length > 0 and all(. == 3)'
}

with_grid=$(./occcalc --gpu h100 --regs 48 --smem 4096 --block 40x2 --grid 1000 --json)
plain=$(./occcalc --arch sm_90 --regs 0 --block 128 --barriers 0 --json)
carve=$(./occcalc --gpu h100 --regs 32 --block 64 --dyn-smem 7168 --carveout 28 --json)
for json in "$with_grid" "$plain" "$carve"; do
  rules report "$json"
  kernel_rules report "$json"
  check top "$json" '.schema == 3 and (.occcalc_version|type) == "string"'
  for k in name source cc sm_count warp_size max_threads_per_block max_threads_per_sm \
      max_warps_per_sm max_blocks_per_sm regs_per_sm regs_per_block max_regs_per_thread \
      reg_alloc_unit sub_partitions smem_per_sm_bytes smem_per_block_bytes \
      smem_per_block_optin_bytes reserved_smem_per_block_bytes smem_alloc_unit_bytes; do
    check device "$json" ".device | has(\"$k\")"
  done
  check kernel "$json" '.kernel | keys == (["name", "mangled_name", "block", "regs_per_thread",
    "smem_static_bytes", "smem_dynamic_bytes", "smem_dynamic_per_thread_bytes", "barriers",
    "carveout_pct"] | sort)'
  for k in threads_per_block warps_per_block inactive_threads active_blocks_per_sm \
      active_warps_per_sm active_threads_per_sm occupancy launchable waves limited_by; do
    check top "$json" "has(\"$k\")"
  done
  check "carveout_pct only in kernel" "$json" 'has("carveout_pct") | not'
  for k in regs_per_warp regs_per_block smem_per_block_bytes smem_config_bytes; do
    check allocated "$json" ".allocated | has(\"$k\")"
  done
  for k in warps blocks registers shared_memory barriers; do
    check limits "$json" ".limits | has(\"$k\")"
  done
  for k in smem_config_bytes max_active_clusters active_blocks_per_sm \
      active_warps_per_sm occupancy differs_from_api; do
    check at_launch "$json" ".at_launch | has(\"$k\")"
  done
  check types "$json" '(.occupancy|type) == "number" and (.launchable|type) == "boolean" and (.limited_by|type) == "array"'
done
check grid "$with_grid" '.waves.blocks_per_wave == 1716 and .active_blocks_per_sm == 13 and .waves.full_waves == 0 and .inactive_threads == 16'
check source "$with_grid" '.device.source == "database" and .device.cc == "9.0" and .kernel.name == null and .kernel.carveout_pct == null and .kernel.block == [40, 2, 1] and .threads_per_block == 80'
check nulls "$plain" '.waves == null and .limits.registers == null and .limits.barriers == null and .device.sm_count == null'
check at_launch "$carve" '.at_launch.max_active_clusters == null and .kernel.carveout_pct == 28 and .active_blocks_per_sm == 8 and .at_launch.active_blocks_per_sm == 12 and .at_launch.smem_config_bytes == 102400 and .at_launch.differs_from_api and .at_launch.occupancy == 0.375'

charts=$(./occcalc --gpu a100 --regs 64 --block 256 --chart all --json)
rules charts "$charts"
kernel_rules charts "$charts"
check charts "$charts" '[.charts[].chart] == ["block", "regs", "smem"] and
  (.charts | all(has("x") and has("max_warps_per_sm") and has("marked") and has("marked_launchable")))'
check "charts: the marked point is the report's" "$charts" \
  '.occupancy as $o | .charts | all(.points[.marked][3] == $o)'

suggest=$(./occcalc --gpu h100 --regs 48 --smem 4096 --block 128 --suggest --json)
rules suggest "$suggest"
kernel_rules suggest "$suggest"
for k in best_block_sizes max_potential_block_size smallest_best_block_size \
    best_active_blocks_per_sm best_active_warps_per_sm best_occupancy min_grid_blocks \
    register_steps smem_steps headroom carveout; do
  check suggest "$suggest" ".suggest | has(\"$k\")"
done
check suggest "$suggest" '.suggest.max_potential_block_size == 640 and .suggest.best_occupancy == 0.625 and
  .suggest.register_steps[0].occupancy == 0.75 and .suggest.carveout.smallest_best.carveout_pct == 15 and
  (.suggest.headroom | has("smem_max_bytes")) and (.suggest.carveout.options[0] | has("occupancy"))'
smem_steps=$(./occcalc --gpu h100 --regs 32 --dyn-smem 40000 --block 256 --suggest --json)
check suggest-smem "$smem_steps" '.suggest.smem_steps[0] | has("smem_bytes") and has("smem_dynamic_bytes") and has("occupancy")'
no_carveout=$(./occcalc --gpu gtx970 --regs 32 --block 256 --suggest --json)
check suggest-no-carveout "$no_carveout" '.suggest.carveout.options == [] and .suggest.carveout.smallest_best == null'

# The cluster object (--cluster): its keys with a measured layout and
# without one (null numbers, the reason), and ncu's
# launch__cluster_max_active equal to max_active_clusters.
cluster_keys='["dims", "size", "non_portable", "max_active_clusters", "blocks_per_sm",
  "domains_sms", "domains_fitting", "limited_by_cluster", "limited_by", "occupancy",
  "waves", "unknown_reason"] | sort'
cluster=$(./occcalc --gpu h100 --regs 32 --block 128 --cluster 2 --grid 1056 --json)
rules cluster "$cluster"
check cluster "$cluster" "(.cluster | keys) == ($cluster_keys) and .cluster.dims == [2, 1, 1] and
  .cluster.max_active_clusters == .ncu.launch__cluster_max_active and
  .ncu.launch__occupancy_cluster_pct == 100 * .cluster.max_active_clusters * 2 / (.device.sm_count * .device.max_blocks_per_sm) and
  .cluster.limited_by == [\"cluster\"] and .cluster.unknown_reason == null and
  (.cluster.waves | keys) == ([\"grid_clusters\", \"clusters_per_wave\", \"full_waves\",
  \"tail_clusters\", \"waves\"] | sort)"
# A cluster launch's at_launch is the cluster launch's, as the top level
# is, with its clusters at once under the cluster object's name; the
# kernel's without clusters is under without_clusters.at_launch, and each
# differs_from_api compares with its own level.
check cluster-at-launch "$cluster" '.at_launch.active_blocks_per_sm == .active_blocks_per_sm and
  .at_launch.max_active_clusters == .cluster.max_active_clusters and
  .at_launch.occupancy == .occupancy and (.at_launch.differs_from_api | not) and
  (.without_clusters.at_launch | keys) == (["active_blocks_per_sm", "active_warps_per_sm",
  "occupancy", "differs_from_api"] | sort) and .without_clusters.at_launch.active_blocks_per_sm == 16'
carve_cluster=$(./occcalc --gpu h100 --regs 32 --block 64 --dyn-smem 12288 --carveout 28 --cluster 4 --json)
check cluster-at-launch-carveout "$carve_cluster" '.active_blocks_per_sm * 132 == 496 and
  .cluster.max_active_clusters == 124 and .at_launch.max_active_clusters == 216 and
  .at_launch.active_blocks_per_sm * 132 == .at_launch.max_active_clusters * .cluster.size and
  .at_launch.active_blocks_per_sm * 132 == 864 and .at_launch.differs_from_api and
  .at_launch.occupancy < .without_clusters.at_launch.occupancy and
  .without_clusters.at_launch.active_blocks_per_sm == 7 and .without_clusters.at_launch.differs_from_api'
check not-cluster-at-launch "$carve" '.without_clusters == null'
carve_explain=$(./occcalc --gpu h100 --regs 32 --block 64 --dyn-smem 12288 --carveout 28 --cluster 4 --explain --json)
check cluster-at-launch-explained "$carve_explain" '[.explain[] | select(.result.name ==
  "cluster.at_launch.occupancy") | .result.value] == [.at_launch.occupancy] and
  [.explain[] | select(.result.name == "at_launch.max_active_clusters") | .result.value]
  == [.at_launch.max_active_clusters]'
# Every figure the steps name that the report has is the report's own
# number: a cluster launch's steps name its figures without clusters
# without_clusters.*, as the report does.
named_figures='. as $r | [.explain[] | (.result, .operands[]) | select(. != null)
  | (.name | split(".")) as $p | select(($r | getpath($p)) | type == "number")
  | {name, value, report: ($r | getpath($p))}] | length > 50 and
  all(.[]; .value == .report)'
check cluster-explain-names "$carve_explain" "$named_figures"
check cluster-explain-names-waves "$(./occcalc --gpu h100 --regs 32 --block 128 \
  --cluster 2 --grid 1056 --explain --json)" "$named_figures"
no_layout=$(./occcalc --gpu 'H100 PCIe' --regs 32 --block 128 --cluster 4 --json)
check cluster-no-layout "$no_layout" "(.cluster | keys) == ($cluster_keys) and
  .cluster.max_active_clusters == null and .cluster.occupancy == null and
  .at_launch.max_active_clusters == null and
  (.cluster.unknown_reason | type) == \"string\" and .ncu.launch__cluster_max_active == null"

# The ncu object: Nsight Compute's names, the driver's configuration.
example=$(./occcalc --gpu h100 --regs 48 --smem 4096 --block 128 --grid 1000 --json)
check ncu "$example" '(.ncu | keys | length) == 16 and .ncu.assumed_metrics == [] and .ncu.launch__cluster_max_active == null and
  .ncu.launch__occupancy_cluster_pct == null and .ncu.launch__occupancy_cluster_gpu_pct == null and .cluster == null and .ncu.launch__shared_mem_config_size
  == .at_launch.smem_config_bytes and .at_launch.smem_config_bytes == 102400 and
  .at_launch.l1_bytes == 262144 - 102400 and .ncu.launch__occupancy_limit_shared_mem == 20
  and .ncu.sm__maximum_warps_per_active_cycle_pct == .occupancy * 100'

# --json --explain: the steps as data, each result the report's own number.
explained=$(./occcalc --gpu gtx970 --regs 48 --smem 4096 --block 128 --grid 100 --json --explain)
rules explain "$explained"
kernel_rules explain "$explained"
check explain "$explained" '(.explain | type == "array" and length > 10) and
  all(.explain[]; keys == (["step", "section", "section_title", "title", "operation",
    "operands", "result", "text", "joins_previous"] | sort)
    and (.operands | type == "array") and (.result | has("name") and has("value") and has("unit")))'
check explain-values "$explained" '. as $r | [.explain[].result | select(.name == "limits.registers" or
  .name == "active_blocks_per_sm" or .name == "occupancy")] as $res |
  ($res | length) >= 3 and all($res[]; . as $x | $x.value == ($r | getpath($x.name | split("."))))'
check explain-fraction "$explained" '[.explain[] | .result, .operands[] | select(.unit == "fraction")
  | .value] | length > 0 and all(. >= 0 and . <= 1)'
ptxas_explained=$(./occcalc --ptxas tests/ptxas/logs/gencode_warnings.log --json --explain)
check explain-ptxas "$ptxas_explained" 'length == 3 and all(.explain | length > 10)'

log=tests/ptxas/real/smem.ptxas.log
ptxas=$(./occcalc --ptxas $log --json)
rules ptxas "$ptxas"
kernel_rules ptxas "$ptxas"
check ptxas "$ptxas" 'type == "array" and length > 0 and all(.schema == 3 and
  (.block_choice | has("smallest_best_block_size") and has("max_potential_block_size")) and
  (.compiler | has("demangled") and has("arch") and has("stack_bytes")))'
jsonl=$(./occcalc --ptxas $log --jsonl | jq -s .)
rules jsonl "$jsonl"
kernel_rules jsonl "$jsonl"
check jsonl "$jsonl" "length == $(printf '%s' "$ptxas" | jq length)"
# Each --jsonl line is self-contained: read alone it parses, and carries
# the device of its kernel's target, the same as --json's report for it,
# also where lines of several targets interleave (a device's text is
# written once and repeated).
multi=$(mktemp)
cat tests/ptxas/real/*.ptxas.log tests/ptxas/real/*.ptxas.log >"$multi"
lines_ok=$(./occcalc --ptxas "$multi" --jsonl | while IFS= read -r line; do
  printf '%s' "$line" | jq -e '(.device | type) == "object" and
    (.device.cc | gsub("\\."; "")) == (.compiler.arch | ltrimstr("sm_") |
    ltrimstr("compute_") | rtrimstr("a"))' >/dev/null || echo bad
done)
archs=$(./occcalc --ptxas "$multi" --jsonl | jq -r .device.cc | sort -u | wc -l)
multi_json=$(./occcalc --ptxas "$multi" --json)
multi_jsonl=$(./occcalc --ptxas "$multi" --jsonl | jq -s .)
rm -f "$multi"
if [ -n "$lines_ok" ] || [ "$archs" -lt 2 ]; then
  echo "json_keys: jsonl: a line without its own device, or its device not its target's ($archs devices)"
  fail=1
fi
check jsonl-same-as-json "$(printf '[%s,%s]' "$multi_json" "$multi_jsonl")" '.[0] == .[1] and (.[0] | length) > 2'

gpus=$(./occcalc --list-gpus --json)
check list-gpus "$gpus" "$no_pct"
check list-gpus "$gpus" '(.gpus | length > 0) and (.architectures | length > 0) and
  ([.gpus[], .architectures[]] | all(has("name") and has("cc") and has("max_warps_per_sm") and has("family")))'

# occcalc run: the same rules, the same kernel and waves objects, limited_by
# an array, schema on every --jsonl line, null (never 0) for what a record
# does not carry (a profiled launch's SM configuration and times).
forge=build/forge
tmp_csv=$queue/run.csv
run=$(./occcalc run --measure replay --json -- $forge launch smem_executed=102400 launch \
  start_ns=0 end_ns=0 counters values=40 2>/dev/null)
rules run "$run"
kernel_rules run "$run"
check run "$run" '.rows | length == 1 and all(.[]; (.limited_by | type) == "array"
  and (.waves | keys) == (["blocks_per_wave", "full_waves", "grid_blocks",
  "tail_blocks", "waves"]) and (.device | type) == "object" and
  (.device_ordinal | type) == "number" and .kernel.mangled_name == "_Z6kernelv"
  and .kernel.name == "kernel()" and (has("mangled_name") | not))'
check run-nulls "$run" '.rows[0].launches[1] | .smem_executed_bytes == null and
  .start_ns == null and .end_ns == null'
# The counters object: no process wrote its summary here, so what it cost
# is null (never 0); with a summary, the summed numbers.
counters_keys='["cache_control", "enabled", "flush_failed_reason", "flushed_launch_count", "launches_per_configuration", "overhead_s", "process_count", "profiled_launch_count", "profiler_start_s"]'
check run-counters-unknown "$run" ".counters | keys == $counters_keys and .enabled == true
  and .launches_per_configuration == 3 and .cache_control == \"none\" and .process_count == 0
  and .overhead_s == null and .profiled_launch_count == null and .profiler_start_s == null"
summed=$(./occcalc run --json --counter-launches all --cache-control all -- sh -c \
  "$forge launch summary; $forge launch summary values=1.5,0.5,3,3" 2>/dev/null)
check run-counters "$summed" '.counters | .process_count == 2 and .overhead_s == 2
  and .profiler_start_s == 0.75 and .profiled_launch_count == 5 and
  .flushed_launch_count == 3 and .launches_per_configuration == null and
  .cache_control == "all" and .flush_failed_reason == null'
off=$(./occcalc run --json --no-counters -- $forge launch summary values=0.01,0,0,0 2>/dev/null)
check run-counters-off "$off" '.counters | .enabled == false and .cache_control == null
  and .profiled_launch_count == null and .overhead_s == 0.01 and .profiler_start_s == null'
# The row's theoretical numbers are the report's for the same configuration.
same=$(./occcalc --arch sm_90 --sms 132 --regs 32 --block 256 --grid 1024 --json)
check run-same "$(printf '[%s,%s]' "$run" "$same")" '.[0].rows[0] as $r | .[1] as $c |
  $r.theoretical_occupancy == $c.occupancy and $r.limited_by == $c.limited_by and
  $r.waves == $c.waves and ($r.device | del(.sm_count_source)) == ($c.device | del(.sm_count_source))'
# A cluster launch's row: its cluster_launch object is the report's cluster
# object with launch__cluster_max_active; the records name an architecture,
# so without a GPU to read the board from, the domains are null with why.
run_cluster=$(./occcalc run --json -- $forge launch cluster=2 grid=1056 block=128 2>/dev/null)
check run-cluster "$run_cluster" ".rows[0].cluster_launch | (keys - [\"launch__cluster_max_active\"]) == ($cluster_keys)
  and .launch__cluster_max_active == .max_active_clusters and .dims == [2, 1, 1]
  and (.max_active_clusters != null or (.unknown_reason | type) == \"string\")"
check run-no-cluster "$run" '.rows[0].cluster_launch == null'
# The driver's board name from the records: the device is named as the
# driver names it; limits_from names the database entry whose limits the
# row uses (the board, with its cluster domains, where its capability and
# SM count match; else the architecture's), and the cluster launch's
# figures at launch follow the board's domains.
board=$(./occcalc run --json -- $forge launch "device_name=NVIDIA H100 80GB HBM3" \
  cluster=2 grid=1056 block=128 2>/dev/null)
check run-board "$board" '.rows[0] | .device.name == "NVIDIA H100 80GB HBM3" and
  .device.limits_from == "H100 SXM" and .device.source == "database" and
  .cluster_launch.max_active_clusters == 528 and .theoretical_occupancy == 0.5 and
  .launch_occupancy == 0.5'
other=$(./occcalc run --json -- $forge launch "device_name=NVIDIA H100 80GB HBM3" sm_count=114 \
  launch device=1 "device_name=NVIDIA Foo 9000" 2>/dev/null)
check run-board-generic "$other" '[.rows[].device | [.name, .limits_from]] ==
  [["NVIDIA H100 80GB HBM3", "generic sm_90 Hopper"], ["NVIDIA Foo 9000", "generic sm_90 Hopper"]]'
check run-no-board "$run" '.rows[0].device | .name == "generic sm_90 Hopper" and .limits_from == .name'
check limits-from "$carve" '.device.limits_from == "H100 SXM"'
# run's CSV and JSON walk one table of the row's numbers: the same names,
# the same values, empty in CSV exactly where null in JSON.
./occcalc run --csv -- $forge launch smem_executed=102400 launch \
  start_ns=0 end_ns=0 counters values=40 >"$tmp_csv" 2>/dev/null
if ! printf '%s' "$run" | python3 -c '
import csv, json, sys
row = json.load(sys.stdin)["rows"][0]
line = next(csv.DictReader(open(sys.argv[1])))
keys = ["launch_count", "total_time_us", "mean_time_us", "smem_executed_bytes",
        "theoretical_occupancy", "active_blocks_per_sm", "launch_occupancy",
        "last_wave_fill", "counter_launch_count", "achieved_occupancy"]
bad = [k for k in keys if k not in line or
       (line[k] == "") != (row[k] is None) or
       (row[k] is not None and abs(float(line[k]) - row[k]) > 1e-5 * max(1, abs(row[k])))]
bad += [] if float(line["waves"]) - row["waves"]["waves"] < 1e-5 else ["waves"]
sys.exit("run csv and json disagree: %s" % bad if bad else 0)' "$tmp_csv"; then
  echo "json_keys: run: CSV and JSON disagree"
  fail=1
fi
runl=$(./occcalc run --jsonl -- $forge launch launch start_ns=0 end_ns=0 \
  2>/dev/null | jq -s .)
check "run-jsonl: no _pct key but carveout_pct" "$runl" "$no_pct"
kernel_rules run-jsonl "$runl"
check run-jsonl "$runl" 'length == 2 and all(.[]; .schema == 3 and
  (.occcalc_version | type) == "string" and .kernel.mangled_name == "_Z6kernelv")
  and .[1].start_ns == null and .[1].duration_us == null'

# AMD targets (man page, AMD GPUS): the same vocabulary, AMD's keys, null
# (never 0) for a limit that does not apply, and the CSV's columns equal
# to the JSON's numbers.
amd_shape='["name", "mangled_name", "block", "wave_size", "cu_mode", "vgprs_per_thread",
  "agprs_per_thread", "sgprs_per_wave", "lds_per_block_bytes", "lds_dynamic_bytes",
  "max_threads_per_block"] | sort'
amd_typed=$(./occcalc --gpu mi300x --vgprs 128 --block 256 --json)
amd_log=$(./occcalc --ptxas tests/amd/data/clang19-two-targets.log --max-block 256 --json)
for json in "$amd_typed" "$amd_log"; do
  rules amd "$json"
  check "amd: schema 3" "$json" '[.. | objects | select(has("schema")) | .schema] | all(. == 3)'
  check "amd: kernel shape" "$json" \
    "[.. | objects | select(has(\"kernel\")) | .kernel | keys] | length > 0 and all(. == ($amd_shape))"
  check "amd: vendor and limits" "$json" '[.. | objects | select(has("kernel"))] | all(
    .device.vendor == "amd" and (.compiler_rule.limits | keys) == ["agprs", "lds", "sgprs",
    "vgprs", "wave_slots", "workgroups"]
    and (.compiler_rule.limits | to_entries | all(.value == null or .value >= 1))
    and ([.limited_by, .compiler_rule.limited_by][] | length > 0 and all(. as $k |
    ["wave_slots", "vgprs", "agprs", "sgprs", "lds", "workgroups"] | index($k)))
    and .compiler_rule.waves_per_simd == ([.compiler_rule.limits[] | numbers] | min)
    and (.compiler_rule.occupancy == .compiler_rule.waves_per_simd /
         .compiler_rule.max_waves_per_simd)
    and (.occupancy == .active_blocks_per_sm * .waves_per_block /
         (.simds * .device.max_waves_per_simd))
    and (.differs_from_api == (.active_blocks_per_sm != .compiler_rule.blocks_per_sm))
    and (.kernel.block | type == "array" and length == 3))'
done
# --explain --json: one shape for both vendors (the steps' keys, their
# values' keys, and the last step the headline occupancy).
explain_shape='([.explain[] | keys] | unique == [["joins_previous", "operands", "operation",
  "result", "section", "section_title", "step", "text", "title"]])
  and ([.explain[] | .operands[], (.result // empty) | keys] | unique == [["name", "unit", "value"]])
  and (([.explain[] | select(.result.name == "occupancy")] | last | .result.value) == .occupancy)'
for args in "--gpu h100 --regs 48 --smem 4096 --block 128" \
            "--arch gfx90a --vgprs 32 --lds 40000 --block 256" \
            "--gpu mi300x --vgprs 128 --agprs 64 --sgprs 90 --block 100 --max-block 128"; do
  # shellcheck disable=SC2086
  check "explain shape: $args" "$(./occcalc $args --explain --json)" "$explain_shape"
done
check "amd: --list-gpus" "$gpus" '(.amd_gpus | length >= 10) and (.amd_architectures | length >= 9)
  and all((.amd_gpus + .amd_architectures)[]; .vendor == "amd" and (.family | type) == "string"
  and (.reference | length > 0)) and all(.amd_architectures[]; .cu_count == null)
  and all(.amd_gpus[]; .cu_count > 0)'
check "amd: typed numbers have no compiler" "$amd_typed" '.compiler == null and .device.cu_count == 304'
check "amd: each remark is checked" "$amd_log" 'length == 8 and all(.[]; .compiler.agrees and
  .compiler.occupancy_waves_per_simd == .compiler_rule.waves_per_simd and .device.cu_count == null)'
if ! ./occcalc --ptxas tests/amd/data/clang19-two-targets.log --max-block 256 --csv | python3 -c '
import csv, json, sys
docs = json.loads(sys.argv[1])
rows = list(csv.DictReader(sys.stdin))
bad = []
for doc, row in zip(docs, rows):
    for key in ["occupancy", "active_blocks_per_sm"]:
        if abs(float(row[key]) - doc[key]) > 1e-4: bad.append(key)
    for key in ["waves_per_simd", "occupancy"]:
        if abs(float(row["compiler_rule_" + key]) - doc["compiler_rule"][key]) > 1e-4:
            bad.append("compiler_rule_" + key)
    for key, value in doc["compiler_rule"]["limits"].items():
        if (row["compiler_rule_limit_" + key] == "") != (value is None):
            bad.append("compiler_rule_limit_" + key)
    if row["compiler_occupancy_waves_per_simd"] != str(doc["compiler"]["occupancy_waves_per_simd"]):
        bad.append("compiler")
sys.exit("amd csv and json disagree: %s" % bad if bad or len(rows) != len(docs) else 0)' "$amd_log"; then
  echo "json_keys: amd: CSV and JSON disagree"
  fail=1
fi

# --help names the schema the documents carry.
./occcalc --help | grep -q "write JSON (schema $(printf '%s' "$plain" | jq .schema))" ||
  { echo "json_keys: --help names another schema than the documents'"; fail=1; }

checks_run
[ $fail -eq 0 ] && echo "json_keys: schema 3 holds on every document ($checks checks of $docs documents)"
exit $fail
