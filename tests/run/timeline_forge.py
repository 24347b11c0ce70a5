#!/usr/bin/env python3
"""timeline_forge.py: forge's words (tests/run/forge.c) for a run of N
launches over two processes and three streams, of durations from 2 us to
2 ms, each with replay's counters (achieved 5..95 %) but every seventh
(no counters: unmeasured), names with <, > and & among them. Printed one
word a line; deterministic."""
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
names = ['_Z4gemmIfLi128EEvPKT_S2_PS0_', 'op&lt<1>"q"', '_Z7softmaxv',
         '_Z9layernormPfS_i', 'nccl_allreduce<sum>&ring']
epoch = 1795279669160074501
t = {(100, 7): 0, (100, 13): 0, (200, 7): 0}
words = []
for i in range(n):
    lane = list(t)[i % 3 if i % 5 else 0]
    pid, stream = lane
    dur = [2000, 15000, 80000, 400000, 2000000][(i * 7) % 5]
    start = t[lane] + 3000 + (i * 37 % 11) * 1000
    t[lane] = start + dur
    words += ['launch', 'pid=%d' % pid, 'stream=%d' % stream,
              'name=%s' % names[i % len(names)],
              'start_ns=%d' % (epoch + start), 'end_ns=%d' % (epoch + start + dur)]
    if i % 7:
        words += ['counters', 'pid=%d' % pid, 'values=%d,%d' % (5 + (i * 13) % 91, dur // 1000)]
print('\n'.join(words))
