"""driver_calls.py OCCCALC LIBRARY PROGRAM ARGS... - where a small
program's time goes under `occcalc run`, as the NVIDIA driver sees it.

Runs PROGRAM alone on a GPU no process holds (cold), alone while another
process holds the GPU (warm: a process that called cuInit and waits), and
under `occcalc run`, alternating, REPS times (default 3), each with
LIBRARY (tests/bench/driver_calls.c) preloaded, and prints the medians:
- the wall time of each way;
- the program's time in driver calls, and in UVM_REGISTER_GPU (the first
  process to register a GPU with the unified memory driver sets it up);
- under occcalc run, the sampler's calls from its start to its first
  PMA_STREAM_UPDATE_GET_PUT (its first read of the samples, so sampling
  runs), by resource manager command.
The driver takes turns between processes: the program's extra time in
driver calls under occcalc run, over its time warm, is time spent
waiting behind the sampler's set-up."""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

occ, lib, prog = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3:]
program = os.path.realpath(shutil.which(prog[0]) or prog[0])
reps = int(os.environ.get('REPS', '3'))
# Resource manager controls of the profiler object (MAXWELL_PROFILER,
# class 0xb0cc; ctrlb0ccprofiler.h in NVIDIA's open kernel modules).
NAMES = {0xb0cc0101: 'RESERVE_HWPM_LEGACY', 0xb0cc0103: 'RESERVE_PM_AREA_SMPC',
         0xb0cc0105: 'ALLOC_PMA_STREAM', 0xb0cc0107: 'BIND_PM_RESOURCES',
         0xb0cc010a: 'EXEC_REG_OPS', 0xb0cc010e: 'SET_HS_CREDITS'}
GET_PUT = 0xb0cc0109
UVM_REGISTER_GPU = 0x25
HOLDER = ("import ctypes, sys; ctypes.CDLL('libcuda.so.1').cuInit(0); "
          "print('ready', flush=True); sys.stdin.read()")


def read_logs(d):
    """{pid: (exe, [(start_s, took_s, kind, nr, command, reg_ops)])}"""
    procs = {}
    for name in os.listdir(d):
        calls, exe = [], ''
        for line in open(os.path.join(d, name)):
            f = line.split()
            if f[0] == 'exe':
                exe = f[1] if len(f) > 1 else ''
                continue
            calls.append((int(f[0]) / 1e9, int(f[1]) / 1e9, f[2],
                          int(f[3], 16), int(f[4], 16), int(f[5])))
        procs[name] = (exe, calls)
    return procs


def uvm_register(calls):
    return sum(c[1] for c in calls if c[2] == 'uvm' and c[3] == UVM_REGISTER_GPU)


def run_way(way, tmp):
    d = tempfile.mkdtemp(dir=tmp)
    env = dict(os.environ, OCC_DRIVER_LOG=d, LD_PRELOAD=lib)
    cmd = prog if way != 'occcalc' else [occ, 'run', '--output', os.devnull, '--'] + prog
    holder = None
    if way == 'warm':
        holder = subprocess.Popen(['python3', '-c', HOLDER], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)
        holder.stdout.readline()
    t = time.monotonic()
    rc = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL).returncode
    wall = time.monotonic() - t
    if holder:
        holder.stdin.close()
        holder.wait()
    if rc != 0:
        sys.exit('driver_calls: %s exited with %d (%s)' % (' '.join(cmd), rc, way))
    out = {'wall': wall}
    for exe, calls in read_logs(d).values():
        if os.path.realpath(exe) == program:
            out['program'] = sum(c[1] for c in calls)
            out['program_uvm'] = uvm_register(calls)
        elif any(c[4] == GET_PUT for c in calls):
            first = min(c[0] for c in calls if c[4] == GET_PUT)
            setup = [c for c in calls if c[0] < first]
            out['sampler_uvm'] = uvm_register(setup)
            out['sampler_profiler'] = sum(c[1] for c in setup if c[4] >> 16 == 0xb0cc)
            for command, name in NAMES.items():
                these = [c[1] for c in setup if c[4] == command]
                out[name] = sum(these)
                out[name + ' calls'] = len(these)
            out['reg ops'] = sum(c[5] for c in setup)
    time.sleep(0.5)  # the GPU let go before the next way
    return out


def main():
    tmp = tempfile.mkdtemp(prefix='occ-driver-calls-')
    ways = ['cold', 'warm', 'occcalc']
    res = {w: [] for w in ways}
    for r in range(reps):
        for w in ways if r % 2 == 0 else ways[::-1]:
            res[w].append(run_way(w, tmp))
    shutil.rmtree(tmp)

    def med(w, key):
        vals = [x[key] for x in res[w] if key in x]
        return statistics.median(vals) if vals else float('nan')
    print('driver calls: %s, medians of %d' % (' '.join(prog), reps))
    print('  wall: alone cold %.3f s, alone warm %.3f s, under occcalc run %.3f s'
          % (med('cold', 'wall'), med('warm', 'wall'), med('occcalc', 'wall')))
    print('  the program in driver calls: cold %.3f s (UVM_REGISTER_GPU %.3f s), '
          'warm %.3f s, under occcalc run %.3f s'
          % (med('cold', 'program'), med('cold', 'program_uvm'),
             med('warm', 'program'), med('occcalc', 'program')))
    print('  the sampler before sampling runs: UVM_REGISTER_GPU %.3f s (its cuInit), '
          'the profiler object\'s controls %.3f s'
          % (med('occcalc', 'sampler_uvm'), med('occcalc', 'sampler_profiler')))
    if not any('reg ops' in x for x in res['occcalc']):
        print('  (no sampler seen: occcalc run did not sample here)')
        return
    for name in NAMES.values():
        print('    %-22s %3d calls %.3f s' % (name, med('occcalc', name + ' calls'),
                                              med('occcalc', name)))
    print('    register operations in the EXEC_REG_OPS calls: %d'
          % med('occcalc', 'reg ops'))


main()
