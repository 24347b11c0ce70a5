#!/usr/bin/env python3
"""table.py LABEL=FILE[,FILE...]...: the lab's one table (make lab).

Each FILE is what one `occcalc run --json -- PROGRAM VARIANT` wrote (its
stdout, its stderr, or both): the lab program's own lines and occcalc's
JSON, in any mix. A row is printed per kernel row of the JSON: the
variant (LABEL and the name the program printed), the grid's blocks, the
theoretical and achieved occupancy, the waves, the mean time of one
launch, the bandwidth (the bytes the program's line of that launch says
it moves, over that time) and the branch efficiency. A value that is
missing or null prints as "-"; the branch efficiency of a kernel that
executed no branch instruction (BRANCH_COUNT_METRIC is 0, and Nsight
Compute's average reads 0 then) prints as "none".
"""
import json
import re
import sys

# The fields of `occcalc run --json` this table reads: one object per
# kernel row (kernel and launch configuration). Adapt here if run's JSON
# names them differently.
FIELDS = {
    'grid': 'grid',                  # [x, y, z], a number or "XxYxZ"
    'block': 'kernel.block',         # likewise (a path: kernel, then block)
    'theoretical': 'theoretical_occupancy',  # a fraction
    'achieved': 'achieved_occupancy',  # a fraction, or null
    'waves': 'waves',
    'time_us': 'mean_time_us',       # the mean time of one launch
    'metrics': 'metrics',            # {perfworks name: value}
}
BRANCH_METRIC = 'smsp__sass_average_branch_targets_threads_uniform.pct'
BRANCH_COUNT_METRIC = 'smsp__sass_branch_targets.sum'

# The lab programs' lines: "1 interleaved, divergent   1000.0 us ...", and
# per launch "  KERNEL<<<GRID, BLOCK[, SMEM]>>> reads|moves BYTES B", with
# GRID and BLOCK a number or "(X, Y)".
VARIANT_LINE = re.compile(r'^(\d+) (.+?)\s+[\d.]+ us\s')
LAUNCH_LINE = re.compile(r'<<<(.+)>>> (?:reads|moves) (\d+) B$')
LAUNCH_ARG = re.compile(r'\([^)]*\)|[^,\s]+')
HEADER = ('%-25s %6s %5s %5s %7s %8s %6s %6s' %
          ('variant', 'blocks', 'theo%', 'ach%', 'waves', 'time us',
           'GB/s', 'branch'))


def volume(dims):
    """The product of a dimension: a list, a number, 'XxY' or '(X, Y)'."""
    if isinstance(dims, (int, float)):
        return int(dims)
    if isinstance(dims, str):
        dims = re.findall(r'\d+', dims)
    if isinstance(dims, dict):
        dims = list(dims.values())
    product = 1
    for d in dims:
        product *= int(d)
    return product


def split_file(text):
    """The JSON values and the other lines of one file."""
    docs, lines, pos = [], [], 0
    decoder = json.JSONDecoder()
    while pos < len(text):
        end = text.find('\n', pos)
        end = len(text) if end < 0 else end + 1
        if text[pos] in '{[':
            try:
                doc, stop = decoder.raw_decode(text, pos)
                docs.append(doc)
                pos = stop
                continue
            except ValueError:
                pass
        lines.append(text[pos:end].rstrip('\n'))
        pos = end
    return docs, lines


def kernel_rows(doc, rows):
    """Collects every object that is a kernel row, not looking inside one."""
    if isinstance(doc, list):
        for item in doc:
            kernel_rows(item, rows)
    elif isinstance(doc, dict):
        if FIELDS['theoretical'] in doc and FIELDS['waves'] in doc:
            rows.append(doc)
        else:
            for value in doc.values():
                kernel_rows(value, rows)
    return rows


def number(value, scale, form):
    if value is None:
        return '-'
    return form % (value * scale)


def field(row, path):
    """The value at a dotted path of FIELDS ("kernel.block")."""
    for key in path.split('.'):
        row = row.get(key) if isinstance(row, dict) else None
    return row


def row_line(label, row, moved_bytes):
    time_us = row.get(FIELDS['time_us'])
    time_ns = time_us * 1000 if time_us is not None else None
    gbps = moved_bytes / time_ns if moved_bytes and time_ns else None
    metrics = row.get(FIELDS['metrics']) or {}
    branch = number(metrics.get(BRANCH_METRIC), 1, '%.1f')
    if metrics.get(BRANCH_COUNT_METRIC) == 0:
        branch = 'none'
    return '%-25s %6d %5s %5s %7s %8s %6s %6s' % (
        label[:25], volume(row[FIELDS['grid']]),
        number(row.get(FIELDS['theoretical']), 100, '%.1f'),
        number(row.get(FIELDS['achieved']), 100, '%.1f'),
        number(row.get(FIELDS['waves']), 1, '%.2f'),
        number(time_ns, 1e-3, '%.1f'),
        number(gbps, 1, '%.1f'),
        branch)


def variant_lines(label, paths):
    docs, lines = [], []
    for path in paths:
        with open(path) as f:
            more_docs, more_lines = split_file(f.read())
        docs += more_docs
        lines += more_lines
    name, moved = '', {}
    for line in lines:
        m = VARIANT_LINE.match(line)
        if m:
            name = m.group(2)
        m = LAUNCH_LINE.search(line)
        if m:
            grid, block = LAUNCH_ARG.findall(m.group(1))[:2]
            moved[(volume(grid), volume(block))] = int(m.group(2))
    rows = kernel_rows(docs, [])
    if not rows:
        return ['%-25s no kernel row in %s' % (label, ', '.join(paths))]
    rows.sort(key=lambda r: -volume(r[FIELDS['grid']]))
    out = []
    for i, row in enumerate(rows):
        key = (volume(row[FIELDS['grid']]), volume(field(row, FIELDS['block'])))
        out.append(row_line((label + ' ' + name) if i == 0 else '',
                            row, moved.get(key)))
    return out


def main(args):
    if not args or any('=' not in a for a in args):
        sys.stderr.write('usage: table.py LABEL=FILE[,FILE...]...\n')
        return 2
    print(HEADER)
    for arg in args:
        label, paths = arg.split('=', 1)
        for line in variant_lines(label, paths.split(',')):
            print(line)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
