"""ncu_csv.py - Nsight Compute's --csv output as the GPU tests read it."""
import collections
import csv


def ncu_launches(path):
    """The launches of an `ncu --csv --metrics ...` report, in launch order:
    a dict each, with 'name' (the Kernel Name column, its arguments
    included), 'grid' (the Grid Size column's x) and every metric's value
    under its name, as a float (ncu's thousands separators removed)."""
    rows = [r for r in csv.reader(l for l in open(path) if l.startswith('"'))]
    col = {n: i for i, n in enumerate(rows[0])}
    launches = collections.OrderedDict()
    for r in rows[1:]:
        launch = launches.setdefault(int(r[col['ID']]), {
            'name': r[col['Kernel Name']],
            'grid': int(r[col['Grid Size']].strip('()').split(',')[0])})
        launch[r[col['Metric Name']]] = float(
            r[col['Metric Value']].replace(',', ''))
    return list(launches.values())
