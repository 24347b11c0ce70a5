#!/usr/bin/env python3
"""The SM configuration of every launch of a program, occcalc's launch rule
against the driver's choice, from records made on a GPU machine:

  occcalc run [--measure none|sample|replay] --json -- python3 PROG > RUN.json
  ncu --clock-control none --cache-control none --metrics \
    launch__shared_mem_config_size,launch__registers_per_thread,\
launch__block_size,launch__shared_mem_per_block_static,\
launch__shared_mem_per_block_dynamic --csv python3 PROG > NCU.csv

Usage: torch_launches.py OCCCALC GPU PROGRAM RUN.json... [--ncu NCU.csv]
                         [--record]

For each run, each launch's predicted configuration (OCCCALC --gpu GPU fed
the launch's registers, block, static and dynamic shared memory and
carveout) against CUPTI's sharedMemoryExecuted. Under --measure replay
CUPTI's record is not the launch's, so run reports occcalc's prediction
there; that run is compared against ncu instead. Against ncu, the multiset
of (registers, block threads, static, dynamic, configuration) of ncu's
launches against that of the run's launches with the predicted
configuration (ncu names no carveout, so launches are matched by these
fields). --record prints the first run's rows as lines of
h*-torch-launches.csv. The summary goes to stderr; the exit status is 1
when anything differs.
"""
import collections
import csv
import json
import re
import subprocess
import sys

NCU_FIELDS = ("launch__registers_per_thread", "launch__block_size",
              "launch__shared_mem_per_block_static",
              "launch__shared_mem_per_block_dynamic",
              "launch__shared_mem_config_size")


class Rule:
    """occcalc's launch rule, one CLI call per distinct configuration."""

    def __init__(self, occcalc, gpu):
        self.occcalc, self.gpu, self.cache = occcalc, gpu, {}

    def config(self, regs, block, static, dyn, carve):
        key = (regs, tuple(block), static, dyn, carve)
        if key not in self.cache:
            args = [self.occcalc, "--gpu", self.gpu, "--regs", str(regs),
                    "--block", "x".join(map(str, block)), "--smem", str(static),
                    "--dyn-smem", str(dyn), "--json"]
            if carve is not None:
                args += ["--carveout", str(carve)]
            out = json.loads(subprocess.run(args, check=True, capture_output=True,
                                            text=True).stdout)
            self.cache[key] = out["at_launch"]["smem_config_bytes"]
        return self.cache[key]


def launches(run):
    """Each launch: the row's kernel fields, the launch's carveout and record."""
    for row in run["rows"]:
        k = row["kernel"]
        for launch in row["launches"]:
            carve = launch["carveout_pct"]
            yield row, k, (k["regs_per_thread"], k["block"], k["smem_static_bytes"],
                           k["smem_dynamic_bytes"],
                           carve if carve is not None else k["carveout_pct"]), launch


def short_name(name):
    """The kernel's name without its template arguments and parameters."""
    name = re.sub(r"^void |\(anonymous namespace\)::", "", name)
    return re.split(r"[<(]", name, maxsplit=1)[0][:70]


def check_run(path, rule, ncu):
    run = json.load(open(path))
    mode = run["measure"]["mode"]
    compared = differ = 0
    ours = collections.Counter()
    for row, k, fields, launch in launches(run):
        predicted = rule.config(*fields)
        threads = fields[1][0] * fields[1][1] * fields[1][2]
        ours[(fields[0], threads, fields[2], fields[3], predicted)] += 1
        executed = launch["smem_executed_bytes"]
        if row["smem_config_predicted"]:
            # run's own prediction must be the offline rule's
            if row["smem_executed_bytes"] != predicted:
                print(f"{path}: {short_name(k['name'])} {fields}: run predicted "
                      f"{row['smem_executed_bytes']}, the rule {predicted}",
                      file=sys.stderr)
                differ += 1
            continue
        compared += 1
        if executed != predicted:
            differ += 1
            print(f"{path}: {short_name(k['name'])} {fields}: executed {executed}, "
                  f"predicted {predicted}", file=sys.stderr)
    total = sum(ours.values())
    print(f"{path}: --measure {mode}: {total} launches, {compared} against CUPTI's "
          f"record, {differ} mismatches", file=sys.stderr)
    if ncu is not None:
        missing, extra = ours - ncu, ncu - ours
        print(f"{path}: against ncu: {sum(ncu.values())} ncu launches, "
              f"{sum(missing.values())} of occcalc's and {sum(extra.values())} of "
              f"ncu's unmatched", file=sys.stderr)
        for key, n in list(missing.items()) + list(extra.items()):
            print(f"  {'occcalc' if key in missing else 'ncu'} x{n}: (registers, "
                  f"block, static, dynamic, config) {key}", file=sys.stderr)
        differ += sum(missing.values()) + sum(extra.values())
    return run, differ


def read_ncu(path):
    """ncu's launches as a multiset of NCU_FIELDS tuples."""
    lines = [line for line in open(path) if line.startswith('"')]
    by_id = collections.defaultdict(dict)
    for r in csv.DictReader(lines):
        by_id[r["ID"]][r["Metric Name"]] = int(r["Metric Value"].replace(",", ""))
    return collections.Counter(tuple(m[f] for f in NCU_FIELDS) for m in by_id.values())


def record(run, program):
    for row in run["rows"]:
        k = row["kernel"]
        carve = k["carveout_pct"]
        print(",".join(map(str, [program, k["smem_static_bytes"], k["regs_per_thread"],
                                 *k["block"], k["smem_dynamic_bytes"],
                                 -1 if carve is None else carve,
                                 row["smem_executed_bytes"], row["launch_count"],
                                 short_name(k["name"])])))


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    rule, program, paths = Rule(argv[0], argv[1]), argv[2], argv[3:]
    ncu, want_record = None, "--record" in paths
    paths = [p for p in paths if p != "--record"]
    if "--ncu" in paths:
        i = paths.index("--ncu")
        ncu = read_ncu(paths[i + 1])
        del paths[i:i + 2]
    failed = 0
    runs = []
    for path in paths:
        run, differ = check_run(path, rule, ncu)
        runs.append(run)
        failed += differ
    if want_record:
        record(runs[0], program)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
