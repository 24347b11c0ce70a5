#!/bin/sh
# gpu_tests.sh CASE: the live verifier on a real GPU (make test-gpu). Each
# case prints "skipped: no GPU" and exits 77 where no GPU can be used, 0
# when it passes, 1 when it fails. JSON is read with python3.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
case_name=$1

need_gpu() {
  if ! ./occcalc --regs 32 --block 32 --device 0 --no-verify >/dev/null 2>"$tmp/why"; then
    echo "skipped: no GPU ($(head -c 200 "$tmp/why"))"
    exit 77
  fi
  command -v python3 >/dev/null || { echo "skipped: no python3 to read JSON"; exit 77; }
}

# check FILE PYTHON-EXPRESSION MESSAGE: fails the case unless the
# expression, over the JSON object j of FILE, is true.
check() {
  if ! python3 -c "import json,sys; j=json.load(open('$1')); sys.exit(0 if ($2) else 1)"; then
    echo "gpu-$case_name: FAILED: $3"
    exit 1
  fi
}

# schema2 FILE: the JSON vocabulary of schema 3 holds over the whole
# document: "schema" 3 at the top, no key ending _pct but carveout_pct,
# every occupancy a fraction, every kernel's and probe's block [x, y, z].
schema2() {
  if ! python3 - "$1" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
bad = []
def walk(o):
    if isinstance(o, list):
        for x in o: walk(x)
    if not isinstance(o, dict): return
    for k, v in o.items():
        if k == 'ncu': continue  # Nsight Compute's own metric names
        if k.endswith('_pct') and k != 'carveout_pct': bad.append(k)
        if k.endswith('occupancy') and isinstance(v, (int, float)) and not 0 <= v <= 1: bad.append(k)
        if k in ('kernel', 'probe') and isinstance(v, dict) and not (isinstance(v.get('block'), list) and len(v['block']) == 3): bad.append(k + '.block')
        walk(v)
walk(doc)
for top in (doc if isinstance(doc, list) else [doc]):
    if top.get('schema') != 3: bad.append('schema')
if bad:
    print('not schema 3:', sorted(set(bad)))
    sys.exit(1)
PY
  then
    echo "gpu-$case_name: FAILED: $1 is not schema 3"
    exit 1
  fi
}

# The functions whose answers verify shows (JSON: api_function and
# driver_api_function; text: the line under each number).
cudart_fn=cudaOccupancyMaxActiveBlocksPerMultiprocessor
driver_fn=cuOccupancyMaxActiveBlocksPerMultiprocessor
names_functions="j['verify']['api_function'] == '$cudart_fn' and j['verify']['driver_api_function'] == '$driver_fn'"
# A CUDA runtime whose occupancy API answers one block more than the real
# one (tests/verify/cudart_shim.c, built by tests/verify/verify.mk).
shim=$PWD/build/cudart_shim.so

run() { # run STATUS ARGS...: runs occcalc, keeps stdout in $tmp/out
  want=$1
  shift
  ./occcalc "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  if [ $rc -ne "$want" ]; then
    echo "gpu-$case_name: FAILED: occcalc $* exited $rc, not $want"
    cat "$tmp/err"
    exit 1
  fi
}

need_gpu
case $case_name in
example)
  # The README's example with every check; 10 blocks/SM, 62.5 %,
  # registers and a 100 KB configuration (ncu's launch__shared_mem_config_size)
  # on compute capability 9.0 (the H100 and H200).
  run 0 --regs 48 --smem 4096 --block 128 --device 0 --counter
  cat "$tmp/out"
  grep -q "SM configuration .*driver's choice (CUPTI); predicted" "$tmp/out" || { echo "gpu-example: FAILED: no SM configuration line with a prediction"; exit 1; }
  grep -q "^    $cudart_fn\$" "$tmp/out" || { echo "gpu-example: FAILED: the text does not name $cudart_fn"; exit 1; }
  if grep -q "driver's occupancy API" "$tmp/out"; then echo "gpu-example: FAILED: the driver's answer differs from cudart's"; exit 1; fi
  run 0 --regs 48 --smem 4096 --block 128 --device 0 --counter --json
  f=$tmp/out
  schema2 "$f"
  check "$f" "j['device']['source'] == 'driver'" "device.source is not driver"
  check "$f" "j['verify']['agree'] and j['verify']['differences'] == []" "no agreement"
  v="j['verify']"
  check "$f" "$v['api_blocks_per_sm'] == j['active_blocks_per_sm'] == $v['measured_blocks_per_sm']['min'] == $v['measured_blocks_per_sm']['max']" "the four numbers differ"
  check "$f" "$names_functions and $v['driver_api_blocks_per_sm'] == $v['api_blocks_per_sm']" "cudart's and the driver's answers are not both given, or differ"
  check "$f" "$v['probe']['regs_exact'] and $v['probe']['regs_per_thread'] == 48" "the probe did not use 48 registers"
  check "$f" "$v['probe']['block'] == [128, 1, 1] and j['kernel']['block'] == [128, 1, 1]" "the probe's block is not [128, 1, 1]"
  check "$f" "$v['smem_config_executed_bytes'] is not None" "the configuration was not read: $(python3 -c "import json; print(json.load(open('$f'))['verify']['smem_config_executed_error'])")"
  check "$f" "$v['smem_config_executed_error'] is None and $v['smem_config_executed_bytes'] == $v['predicted_smem_config_bytes'] > 0" "the driver's configuration is not the prediction"
  if python3 -c "import json,sys; j=json.load(open('$f')); sys.exit(0 if j['device']['cc'] == '9.0' else 1)"; then
    check "$f" "j['active_blocks_per_sm'] == 10 and j['occupancy'] == 0.625 and 'registers' in j['limited_by']" "not 10 blocks/SM, 62.5 %, registers"
    check "$f" "$v['smem_config_executed_bytes'] == 102400" "the driver did not configure 100 KB"
  fi
  # The number shown is cudart's: a runtime that answers one more is shown
  # as it answers, the driver's answer beside it, and the verdict follows
  # cudart's (exit 4) while the GPU holds what the driver says.
  OCCCALC_CUDART=$shim
  export OCCCALC_CUDART
  run 4 --regs 48 --smem 4096 --block 128 --device 0 --json
  check "$f" "$names_functions and $v['api_blocks_per_sm'] == $v['driver_api_blocks_per_sm'] + 1 == j['active_blocks_per_sm'] + 1" "with the shim, the API's number is not cudart's answer"
  check "$f" "$v['measured_blocks_per_sm']['min'] == $v['measured_blocks_per_sm']['max'] == $v['driver_api_blocks_per_sm']" "with the shim, the GPU does not hold the driver's answer"
  check "$f" "'api' in $v['differences'] and 'driver_api' in $v['differences'] and not $v['agree']" "with the shim, the differences are not api and driver_api"
  run 4 --regs 48 --smem 4096 --block 128 --device 0
  grep -q "^  driver's occupancy API  *[0-9]" "$tmp/out" && grep -q "^    $driver_fn\$" "$tmp/out" || { echo "gpu-example: FAILED: with the shim, the text does not show the driver's answer"; cat "$tmp/out"; exit 1; }
  grep -A1 "CUDA occupancy API" "$tmp/out"
  grep -A1 "driver's occupancy API" "$tmp/out"
  unset OCCCALC_CUDART
  echo "gpu-example: the four numbers agree; the API's is cudart's"
  ;;
sweep)
  run 0 verify --sweep 300 --seed 1 --json
  schema2 "$tmp/out"
  check "$tmp/out" "len(j['cases']) == 300 and all(c['kernel']['block'] == c['verify']['probe']['block'] for c in j['cases'])" "a case's kernel is not the probe's block"
  check "$tmp/out" "j['summary']['cases'] == 300 and j['summary']['agree'] == 300" "not 300 agreements"
  check "$tmp/out" "all(j['summary']['checks'][c] == 300 for c in ('api', 'measured_min', 'measured_max', 'cooperative', 'driver_api'))" "a check has fewer than 300 agreements"
  check "$tmp/out" "all(c['verify']['api_function'] == '$cudart_fn' for c in j['cases'])" "a case's API is not $cudart_fn"
  # The configuration check: made where CUPTI read the configuration and
  # the core predicted one, and agreeing wherever it was made.
  made="sum(c['verify']['smem_config_executed_bytes'] is not None and c['verify']['predicted_smem_config_bytes'] is not None for c in j['cases'])"
  check "$tmp/out" "$made > 0" "the configuration check was never made"
  # Not part of the verdict (see model/verify.c): at least 98 % agree.
  check "$tmp/out" "j['summary']['checks']['config'] >= 0.98 * $made" "the configuration differs from the prediction in $(python3 -c "import json; j=json.load(open('$tmp/out')); print($made - j['summary']['checks']['config'])") case(s)"
  python3 -c "import json; s=json.load(open('$tmp/out'))['summary']; print('gpu-sweep:', s['agree'], 'of', s['cases'], 'agree; checks', s['checks'])"
  ;;
module)
  # A cubin and a PTX file of a test kernel: its own attributes feed the
  # prediction and the API is asked about that function.
  run 0 --regs 32 --block 32 --device 0 --no-verify --json
  arch=$(python3 -c "import json; print('sm_' + json.load(open('$tmp/out'))['device']['cc'].replace('.', ''))")
  nvcc -cubin -arch="$arch" -o "$tmp/k.cubin" tests/verify/module_kernel.cu || exit 1
  nvcc -ptx -arch=compute_75 -o "$tmp/k.ptx" tests/verify/module_kernel.cu || exit 1
  for file in k.cubin k.ptx; do
    run 0 --block 256 --dyn-smem 8K --device 0 --module "$tmp/$file" --kernel module_test_kernel --json
    schema2 "$tmp/out"
    check "$tmp/out" "j['verify']['agree'] and j['verify']['differences'] == [] and j['verify']['module']['launched'] is False" "$file: no agreement"
    check "$tmp/out" "j['kernel']['smem_static_bytes'] == 4096 and j['kernel']['regs_per_thread'] == j['verify']['module']['regs_per_thread'] > 0" "$file: attributes not used"
    check "$tmp/out" "$names_functions and j['verify']['driver_api_blocks_per_sm'] == j['verify']['api_blocks_per_sm']" "$file: cudart's and the driver's answers are not both given, or differ"
  done
  # --module asks the same cudart function: the shim's answer is shown.
  OCCCALC_CUDART=$shim
  export OCCCALC_CUDART
  run 4 --block 256 --dyn-smem 8K --device 0 --module "$tmp/k.cubin" --kernel module_test_kernel --json
  unset OCCCALC_CUDART
  check "$tmp/out" "j['verify']['api_blocks_per_sm'] == j['verify']['driver_api_blocks_per_sm'] + 1 == j['active_blocks_per_sm'] + 1 and sorted(j['verify']['differences']) == ['api', 'driver_api']" "with the shim, --module does not show cudart's answer"
  run 0 --block 256 --dyn-smem 8K --device 0 --module "$tmp/k.cubin" --kernel module_test_kernel
  cat "$tmp/out"
  grep -q 'not launched' "$tmp/out" || { echo "gpu-module: FAILED: does not say it was not launched"; exit 1; }
  grep -q "^    $cudart_fn\$" "$tmp/out" || { echo "gpu-module: FAILED: the text does not name $cudart_fn"; exit 1; }
  # A C++ kernel by its readable name: the report gives both names
  # (schema 3: name the readable one, mangled_name the symbol).
  run 0 --block 128 --device 0 --module "$tmp/k.cubin" --kernel 'scaled<4>' --json
  check "$tmp/out" "j['kernel']['mangled_name'] == '_Z6scaledILi4EEvPfi' and 'scaled<4>' in j['kernel']['name'] and j['verify']['agree']" "scaled<4> not found by its readable name"
  run 2 --block 256 --device 0 --module "$tmp/k.cubin" --kernel nosuch
  grep -q "no kernel named 'nosuch'" "$tmp/err" || { echo "gpu-module: FAILED: unknown kernel not named"; cat "$tmp/err"; exit 1; }
  echo "gpu-module: cubin and PTX agree with the API"
  ;;
cooperative)
  for args in "--regs 48 --smem 4096 --block 128" "--regs 64 --dyn-smem 100K --block 256" "--regs 64 --block 1024"; do
    run 0 $args --device 0 --json
    check "$tmp/out" "j['verify']['cooperative_max_blocks'] == j['verify']['api_blocks_per_sm'] * j['device']['sm_count']" "$args: cooperative bound is not API x SMs"
  done
  echo "gpu-cooperative: API x SMs blocks launch cooperatively, one more is refused"
  ;;
achieved)
  # A saturating probe: 8 blocks of 8 warps fill the SM's 64 warps.
  run 0 --regs 32 --block 256 --device 0 --counter --json
  f=$tmp/out
  check "$f" "j['verify']['achieved_occupancy']['counter'] is not None" "counter not read: $(python3 -c "import json; print(json.load(open('$f'))['verify']['achieved_occupancy']['counter_error'])")"
  check "$f" "abs(j['verify']['achieved_occupancy']['timeline'] - j['occupancy']) <= 0.1 * j['occupancy']" "timeline not within 10 %"
  check "$f" "abs(j['verify']['achieved_occupancy']['counter'] - j['occupancy']) <= 0.1 * j['occupancy']" "counter not within 10 %"
  python3 -c "import json; j=json.load(open('$f')); a=j['verify']['achieved_occupancy']; print('gpu-achieved: theoretical %.3f, timeline %.3f, counter %.3f' % (j['occupancy'], a['timeline'], a['counter']))"
  ;;
charts)
  # The device's configuration through the whole pipeline: charts and
  # suggestions of the driver's properties beside the verification.
  run 0 --regs 48 --smem 4096 --block 128 --device 0 --chart regs --suggest --ascii
  cat "$tmp/out"
  for what in "Occupancy by registers per thread" "block sizes reaching the most warps" "verdict: agree"; do
    grep -q "$what" "$tmp/out" || { echo "gpu-charts: FAILED: no '$what' in the text"; exit 1; }
  done
  run 0 --regs 48 --smem 4096 --block 128 --device 0 --chart regs --suggest --json
  f=$tmp/out
  schema2 "$f"
  check "$f" "j['verify']['agree'] and j['device']['source'] == 'driver'" "no agreement"
  check "$f" "[c['chart'] for c in j['charts']] == ['regs']" "not one regs chart"
  check "$f" "j['charts'][0]['points'][j['charts'][0]['marked']][:3] == [48, j['active_blocks_per_sm'], j['active_warps_per_sm']]" "the chart's marked point is not the report's"
  check "$f" "j['suggest']['max_potential_block_size'] > 0" "no suggestion"
  echo "gpu-charts: charts and suggestions of the live device"
  ;;
ncu)
  # Nsight Compute's launch statistics against the ncu object, key by key,
  # on every launch of at least 200 random probe configurations (default and
  # explicit carveouts, with and without shared memory of their own,
  # registers 24-255, any block size, grids of every size the verifier
  # launches).
  command -v ncu >/dev/null || { echo "skipped: no ncu"; exit 77; }
  metrics=launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps,launch__occupancy_limit_blocks,launch__occupancy_limit_barriers,launch__registers_per_thread,launch__shared_mem_config_size,launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic,launch__shared_mem_per_block_driver,sm__maximum_warps_per_active_cycle_pct,launch__waves_per_multiprocessor,launch__grid_size,launch__block_size
  ncu --csv --log-file "$tmp/ncu.csv" --metrics "$metrics" \
    ./occcalc verify --sweep 230 --seed 11 --json >"$tmp/sweep.json" 2>"$tmp/err"
  python3 - "$tmp/sweep.json" "$tmp/ncu.csv" <<'PY' || exit 1
import json, subprocess, sys
sys.path.insert(0, 'tests/harness')
from ncu_csv import ncu_launches
sweep = json.load(open(sys.argv[1]))
launches = dict(enumerate(ncu_launches(sys.argv[2])))
sms = sweep['device']['sm_count']
cc = sweep['device']['cc'].replace('.', '')
cases = [c for c in sweep['cases'] if c['verify']['api_blocks_per_sm'] > 0]
compared = configs = 0
bad = []
i, ids = 0, sorted(launches)
for c in cases:
    p = c['verify']['probe']
    block = p['block'][0] * p['block'][1] * p['block'][2]
    seen = False
    while i < len(ids):
        m = launches[ids[i]]
        if int(m['launch__block_size']) != block or \
           int(m['launch__shared_mem_per_block_dynamic']) != p['smem_dynamic_bytes']:
            break
        args = ['./occcalc', '--arch', 'sm_' + cc, '--sms', str(sms),
                '--regs', str(p['regs_per_thread']), '--block', str(block),
                '--smem', str(p['smem_static_bytes']),
                '--dyn-smem', str(p['smem_dynamic_bytes']),
                '--grid', str(int(m['launch__grid_size'])), '--json']
        if p['carveout_pct'] is not None:
            args += ['--carveout', str(p['carveout_pct'])]
        ours = json.loads(subprocess.run(args, capture_output=True, text=True).stdout)['ncu']
        # assumed_metrics names the figures occcalc marks as assumed (none
        # on a surveyed architecture); it is no metric of ncu's, and the
        # figures it names are compared like the rest.
        ours.pop('assumed_metrics')
        for key, value in ours.items():
            # The probe's launches are not cluster launches: occcalc's
            # cluster figures (launch__cluster_max_active and the two
            # launch__occupancy_cluster_*) are null and ncu is not asked
            # for them here
            # (cluster-cli compares it on cluster launches).
            if key not in m and value is None and 'cluster' in key:
                continue
            theirs = float(m[key])
            if value is None or abs(value - theirs) > 0.01 * max(1, abs(theirs)):
                bad.append('%s: %s occcalc %s, ncu %s' % (' '.join(args[1:]), key, value, theirs))
        compared += 1
        seen = True
        i += 1
    configs += seen
# The sweep's cluster cases (one in ten on cc 9.0 and newer) launch the
# probe three times each as a cluster launch, after the regular cases;
# cluster-cli compares those with ncu.
cluster_launches = 3 * len((sweep.get('cluster') or {}).get('cases') or [])
if len(ids) - i != cluster_launches:
    bad.append('%d ncu launches not matched to a case (%d cluster launches expected)'
               % (len(ids) - i, cluster_launches))
print('gpu-ncu: %d launches of %d configurations compared key by key, %d differ'
      % (compared, configs, len(bad)))
for b in bad[:20]:
    print('  ' + b)
sys.exit(0 if not bad and configs >= 200 else 1)
PY
  ;;
all)
  run 0 --regs 48 --smem 4096 --block 128 --device all --json
  schema2 "$tmp/out"
  check "$tmp/out" "isinstance(j, list) and len(j) >= 1 and all(d['verify']['agree'] for d in j)" "--device all: not every GPU agrees"
  python3 -c "import json; j=json.load(open('$tmp/out')); print('gpu-all: %d GPU(s) agree' % len(j))"
  ;;
carveout)
  # Under a carveout preference the SM holds more than the occupancy API
  # says: 28 % asks for 64 KB (8 blocks of 8 KB), the driver gives 100 KB.
  run 0 --regs 32 --block 64 --dyn-smem 7168 --carveout 28 --device 0 --json
  f=$tmp/out
  schema2 "$f"
  v="j['verify']"
  check "$f" "j['kernel']['carveout_pct'] == 28 and $v['probe']['carveout_pct'] == 28" "carveout_pct is not the kernel's 28"
  check "$f" "$v['agree'] and $v['api_blocks_per_sm'] == j['active_blocks_per_sm']" "no agreement"
  check "$f" "$v['measured_blocks_per_sm']['min'] == $v['measured_blocks_per_sm']['max'] == j['at_launch']['active_blocks_per_sm']" "measured is not the prediction at launch"
  if python3 -c "import json,sys; j=json.load(open('$f')); sys.exit(0 if j['device']['cc'] == '9.0' else 1)"; then
    check "$f" "j['active_blocks_per_sm'] == 8 and j['at_launch']['active_blocks_per_sm'] == 12" "not 8 by the API and 12 at launch"
  fi
  python3 -c "import json; j=json.load(open('$f')); v=j['verify']; print('gpu-carveout: API %d, predicted at launch %d, measured %d..%d' % (v['api_blocks_per_sm'], j['at_launch']['active_blocks_per_sm'], v['measured_blocks_per_sm']['min'], v['measured_blocks_per_sm']['max']))"
  ;;
cluster-cli)
  # --device 0 --cluster C (compute capability 9.0+): the offline rule
  # and cudart's cudaOccupancyMaxActiveClusters agree, the clusters
  # measured co-resident are the rule at launch (the API's without a
  # carveout preference; 216, not the API's 124, under --carveout 28), and
  # no two blocks of a cluster share an SM, at several cluster, block and
  # shared-memory sizes; ncu's
  # launch__cluster_max_active is the cluster object's; verify --sweep
  # counts its cluster cases.
  run 0 --regs 32 --block 32 --device 0 --no-verify --json
  if ! python3 -c "import json,sys; j=json.load(open('$tmp/out')); sys.exit(0 if int(j['device']['cc'].split('.')[0]) >= 9 else 1)"; then
    echo "skipped: no thread block clusters before compute capability 9.0"
    exit 77
  fi
  for args in "--regs 32 --block 128 --cluster 2" "--regs 64 --block 256 --cluster 4" \
      "--regs 32 --block 128 --dyn-smem 100K --cluster 8" \
      "--regs 48 --block 512 --cluster 12 --non-portable" \
      "--regs 32 --block 64 --smem 20K --cluster 16 --non-portable" \
      "--regs 40 --block 96 --cluster 3"; do
    # shellcheck disable=SC2086
    run 0 $args --device 0 --json
    f=$tmp/out
    schema2 "$f"
    c="j['cluster_verify']"
    check "$f" "$c['agree'] and $c['api_function'] == 'cudaOccupancyMaxActiveClusters'" "$args: the cluster launch does not agree"
    check "$f" "j['cluster']['unknown_reason'] is not None or $c['predicted_max_active_clusters'] == $c['api_max_active_clusters'] == j['cluster']['max_active_clusters'] == j['ncu']['launch__cluster_max_active']" "$args: predicted, cudart and ncu's value differ"
    check "$f" "$c['measured_min'] == $c['measured_max'] == ($c['predicted_launch_max_active_clusters'] if $c['predicted_launch_max_active_clusters'] is not None else $c['api_max_active_clusters'])" "$args: measured co-resident clusters are not the prediction at launch"
    check "$f" "$c['clusters_sharing_sm'] == 0" "$args: two blocks of one cluster shared an SM"
    python3 -c "import json; j=json.load(open('$f')); c=j['cluster_verify']; print('gpu-cluster-cli: $args: predicted %s, cudart %d, measured %d..%d, domains used %s' % (c['predicted_max_active_clusters'], c['api_max_active_clusters'], c['measured_min'], c['measured_max'], c['domains_used_sms']))"
  done
  # Under a carveout preference the driver configures more than the
  # occupancy API's rule (100 KB, not 64 KB, on 9.0): the API's answers
  # follow the rule, the clusters measured the rule at launch.
  args="--regs 32 --block 64 --dyn-smem 12288 --carveout 28 --cluster 4"
  # shellcheck disable=SC2086
  run 0 $args --device 0 --json
  f=$tmp/out
  schema2 "$f"
  check "$f" "$c['agree'] and j['verify']['agree']" "$args: no agreement"
  check "$f" "j['cluster']['unknown_reason'] is not None or $c['predicted_max_active_clusters'] == $c['api_max_active_clusters'] == $c['driver_api_max_active_clusters'] == j['cluster']['max_active_clusters']" "$args: predicted, cudart and the driver differ"
  check "$f" "j['cluster']['unknown_reason'] is not None or $c['measured_min'] == $c['measured_max'] == $c['predicted_launch_max_active_clusters'] == round(j['at_launch']['active_blocks_per_sm'] * j['device']['sm_count'] / $c['size'])" "$args: measured co-resident clusters are not the prediction at launch"
  if python3 -c "import json,sys; j=json.load(open('$f')); sys.exit(0 if j['device']['cc'] == '9.0' and j['device']['sm_count'] == 132 else 1)"; then
    check "$f" "$c['api_max_active_clusters'] == 124 and $c['predicted_launch_max_active_clusters'] == 216" "$args: not 124 clusters by the API and 216 at launch"
  fi
  python3 -c "import json; j=json.load(open('$f')); c=j['cluster_verify']; print('gpu-cluster-cli: $args: predicted %s, at launch %s, cudart %d, measured %d..%d' % (c['predicted_max_active_clusters'], c['predicted_launch_max_active_clusters'], c['api_max_active_clusters'], c['measured_min'], c['measured_max']))"
  run 0 $args --device 0
  grep -q "^  predicted at launch " "$tmp/out" && grep -q "^  verdict  *agree" "$tmp/out" ||
    { echo "gpu-cluster-cli: FAILED: $args: the text has no prediction at launch or does not agree"; cat "$tmp/out"; exit 1; }
  run 0 --regs 32 --block 128 --device 0 --cluster 2
  grep -q "^Cluster launch on the GPU" "$tmp/out" && grep -q "cudaOccupancyMaxActiveClusters" "$tmp/out" && grep -q "^  placement " "$tmp/out" ||
    { echo "gpu-cluster-cli: FAILED: the text has no cluster verification"; cat "$tmp/out"; exit 1; }
  run 0 verify --sweep 100 --json
  check "$tmp/out" "j['cluster']['summary']['cases'] == 10 == len(j['cluster']['cases']) and j['cluster']['summary']['agree'] == 10" "verify --sweep 100: not 10 cluster cases, all agreeing"
  ;;
*)
  echo "gpu_tests.sh: unknown case $case_name"
  exit 1
  ;;
esac
exit 0
