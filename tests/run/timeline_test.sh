#!/bin/sh
# timeline_test.sh: `occcalc run --svg FILE` without a GPU, over forged
# launch records with replay's counters (timeline_forge.py: 300 launches,
# two processes, three streams, names with <, > and &, every seventh
# unmeasured): the SVG parses as XML, has one launch rectangle per launch,
# their starts in time order, one lane per (process, stream), the names
# read back whole, measured launches filled and the rest hatched; a path
# that cannot be written and '-' refused before the program runs.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
no() { echo "timeline: $*"; fail=1; }
python3 tests/run/timeline_forge.py 300 >"$tmp/words"
xargs -d '\n' ./occcalc run --measure replay --counter-launches all \
  --svg "$tmp/t.svg" -- build/forge <"$tmp/words" >/dev/null 2>"$tmp/err" ||
  no "forged run failed: $(head -c 300 "$tmp/err")"
python3 - "$tmp/t.svg" 300 <<'PY' || fail=1
import sys, xml.etree.ElementTree as ET
ns = '{http://www.w3.org/2000/svg}'
root = ET.parse(sys.argv[1]).getroot()
want = int(sys.argv[2])
bad = []
launches = root.findall('.//%sg[@class="launch"]' % ns)
if len(launches) != want:
    bad.append('%d launch rectangles, not %d' % (len(launches), want))
xs, names, hatched = [], set(), 0
for g in launches:
    r = g.find(ns + 'rect')
    xs.append(float(r.get('x')))
    if float(r.get('width')) < 1:
        bad.append('a launch narrower than 1 px')
    if r.get('class') == 'unmeasured':
        hatched += 1
    elif not (r.get('fill') or '').startswith('#'):
        bad.append('a measured launch without a fill')
    names.add(r.find(ns + 'title').text.split('\n')[0])
if xs != sorted(xs):
    bad.append('launch starts out of time order')
if 'op&lt<1>"q"' not in names or 'nccl_allreduce<sum>&ring' not in names:
    bad.append('names not read back whole: %r' % sorted(names))
# timeline_forge.py leaves every seventh launch without counters.
if hatched != len(range(0, want, 7)):
    bad.append('%d hatched launches, not %d' % (hatched, len(range(0, want, 7))))
lanes = [t.text for t in root.iter(ns + 'text') if t.get('class') == 'lane-label'
         and t.text.startswith('process')]
if lanes != ['process 100, stream 7', 'process 100, stream 13',
             'process 200, stream 7']:
    bad.append('lanes %r' % lanes)
ticks = [t.text for t in root.find('.//%sg[@class="time-axis"]' % ns).iter(ns + 'text')]
if len(ticks) < 4 or not all(t.endswith(' ms') for t in ticks[:-1]):
    bad.append('time ticks %r' % ticks)
if not root.findall('.//%spath[@class="gpu-line"]' % ns):
    bad.append('no GPU occupancy line')
for b in bad:
    print('timeline: ' + b)
sys.exit(1 if bad else 0)
PY
# As --measure sample leaves a report (timeline_unit.c builds it): two
# GPUs, marked values outlined, missing ones hatched with their reason.
./build/timeline_unit "$tmp/u.svg" || no "timeline_unit failed"
python3 - "$tmp/u.svg" <<'PY' || fail=1
import sys, xml.etree.ElementTree as ET
ns = '{http://www.w3.org/2000/svg}'
root = ET.parse(sys.argv[1]).getroot()
bad = []
rects = [g.find(ns + 'rect') for g in root.findall('.//%sg[@class="launch"]' % ns)]
tips = [r.find(ns + 'title').text for r in rects]
by = lambda c: [t for r, t in zip(rects, tips) if r.get('class') == c]
# timeline_unit.c: i % 5 == 4 missing (2 of 12); else i % 4 == 3 short or
# i % 3 == 0 beside another kernel: i = 0, 3, 6, 7, 11 (5).
if len(rects) != 12 or len(by('unmeasured')) != 2 or len(by('marked')) != 5:
    bad.append('%d launches, %d hatched, %d marked' % (len(rects),
               len(by('unmeasured')), len(by('marked'))))
if not all('its samples were lost' in t for t in by('unmeasured')):
    bad.append('a hatched launch without its reason: %r' % by('unmeasured'))
if not all('shorter than' in t or 'beside another kernel' in t for t in by('marked')):
    bad.append('a marked launch without its basis: %r' % by('marked'))
title = ''.join(root.find(ns + 'text').itertext())
if title != 'Timeline of ./train <fast> & "x" on GPU 0, GPU 1':
    bad.append('title %r' % title)
if len(root.findall('.//%spath[@class="gpu-line"]' % ns)) != 2:
    bad.append('not one occupancy line per GPU')
for b in bad:
    print('timeline: unit: ' + b)
sys.exit(1 if bad else 0)
PY
for path in "$tmp/no/such/dir/t.svg" -; do
  rm -f "$tmp/ran"
  ./occcalc run --svg "$path" -- touch "$tmp/ran" 2>"$tmp/err"
  rc=$?
  [ $rc -eq 2 ] && [ ! -e "$tmp/ran" ] ||
    no "--svg '$path': status $rc, program ran: $([ -e "$tmp/ran" ] && echo yes || echo no)"
done
[ $fail -eq 0 ] && echo "timeline: --svg drew 300 forged launches in 3 lanes and a sampled report on 2 GPUs as well-formed SVG; bad paths refused"
exit $fail
