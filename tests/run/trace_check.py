"""trace_check.py TRACE [LAUNCHES]: an `occcalc run --trace` file read
back against the Chrome trace event format: one JSON object whose
traceEvents is a list; every event has the fields its phase requires
(name, ph, pid; X: ts, dur >= 0, tid; C: ts and numeric args; M: a name
in args); times are monotone on each track (pid, tid for slices; pid and
name for counters); no slice or counter at ts 0 (Chrome DevTools'
Performance panel leaves such events out of the trace's time range, so a
slice at 0 lies off its left edge); each slice's args parse (grid and block of three
positive ints, occupancies fractions or null, achieved_basis a known
word or null). With LAUNCHES, the number of slices must equal it.
Exits 1 naming the first fault."""
import json
import sys

BASES = {None, 'clean', 'short', 'shared_samples', 'samples_lost',
         'beside_other_stream', 'beside_other_process'}


def fail(what):
    print('trace_check: %s: %s' % (sys.argv[1], what))
    sys.exit(1)


doc = json.load(open(sys.argv[1]))
events = doc.get('traceEvents') if isinstance(doc, dict) else None
if not isinstance(events, list):
    fail('no traceEvents list')
last = {}
slices = 0
for i, e in enumerate(events):
    for key in ('name', 'ph', 'pid'):
        if key not in e:
            fail('event %d has no %s' % (i, key))
    ph = e['ph']
    if ph == 'M':
        if not isinstance(e.get('args', {}).get('name'), str):
            fail('metadata event %d has no args.name' % i)
        continue
    if not isinstance(e.get('ts'), (int, float)):
        fail('event %d has no numeric ts' % i)
    if e['ts'] == 0:
        fail('event %d at ts 0: Chrome DevTools leaves it out of the time range' % i)
    if ph == 'X':
        slices += 1
        if not isinstance(e.get('dur'), (int, float)) or e['dur'] < 0 or 'tid' not in e:
            fail('slice %d lacks dur or tid' % i)
        track = ('X', e['pid'], e['tid'])
        a = e.get('args', {})
        for dims in ('grid', 'block'):
            v = a.get(dims)
            if not (isinstance(v, list) and len(v) == 3 and all(isinstance(x, int) and x > 0 for x in v)):
                fail('slice %d: args.%s %r' % (i, dims, v))
        for occ in ('theoretical_occupancy', 'launch_occupancy', 'achieved_occupancy'):
            v = a.get(occ, 'missing')
            if v is not None and not (isinstance(v, (int, float)) and 0 <= v <= 1.5):
                fail('slice %d: args.%s %r' % (i, occ, v))
        if a.get('achieved_basis', 'missing') not in BASES:
            fail('slice %d: args.achieved_basis %r' % (i, a.get('achieved_basis')))
    elif ph == 'C':
        track = ('C', e['pid'], e['name'])
        if not e.get('args') or not all(isinstance(v, (int, float)) for v in e['args'].values()):
            fail('counter %d: args not numbers' % i)
    else:
        fail('event %d: unexpected phase %r' % (i, ph))
    if track in last and e['ts'] < last[track]:
        fail('event %d: time goes back on track %r' % (i, track))
    last[track] = e['ts']
if len(sys.argv) > 2 and slices != int(sys.argv[2]):
    fail('%d slices, expected %s' % (slices, sys.argv[2]))
print('trace_check: %s: %d events, %d slices, %d tracks, all well-formed'
      % (sys.argv[1], len(events), slices, len(last)))
