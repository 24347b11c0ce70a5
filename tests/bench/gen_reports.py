#!/usr/bin/env python3
"""gen_reports.py: run --json reports of a job, for `occcalc report`'s
benchmark and tests, generated from one real report rather than committed.

  gen_reports.py TEMPLATE DIR RANKS CONFIGS [--metrics N] [--name-bytes B]

TEMPLATE is a report written by `occcalc run --json` (over build/forge):
its first row is the model of every row. DIR/rank<R>.json gets, for each
of RANKS ranks, CONFIGS configurations, each a kernel of its own with a
C++ template name of B bytes (default 1,600: CUTLASS's are of that size)
and a mangled name of 479 bytes (the longest a launch record holds), one
launch, N metrics (default 3), the rank's device ordinal R % 8 and its
own time and achieved occupancy. The rows are laid out as run --json
writes them (cJSON's tabs); each rank's text is made once and varied by
replacement, so that 64 ranks of 5,000 configurations take seconds.
"""
import argparse
import json


def main():
    p = argparse.ArgumentParser()
    p.add_argument("template")
    p.add_argument("dir")
    p.add_argument("ranks", type=int)
    p.add_argument("configs", type=int)
    p.add_argument("--metrics", type=int, default=3)
    p.add_argument("--name-bytes", type=int, default=1600)
    a = p.parse_args()
    template, out, ranks, configs = a.template, a.dir, a.ranks, a.configs
    metrics, name_bytes = a.metrics, a.name_bytes
    doc = json.load(open(template))
    model = doc["rows"][0]
    model["launches"] = model["launches"][:1]
    rows = []
    for k in range(configs):
        row = json.loads(json.dumps(model))
        head = "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_%d_" % k
        body = ", ".join("cute::tuple<cute::C<%d>, cute::C<%d>>" % (k, i)
                         for i in range(name_bytes // 30 + 1))
        row["kernel"]["name"] = (head + body)[:name_bytes - 1] + ">"
        mangled = "_ZN7cutlass7Kernel2I%dE" % k
        row["kernel"]["mangled_name"] = (mangled + "N4cute5tupleIJNS_1CILi0EEE" * 20)[:479]
        row["grid"] = [k + 1, 1, 1]
        row["launch_count"] = 1
        row["counter_launch_count"] = 1
        row["total_time_us"] = 20 + k
        row["mean_time_us"] = 20 + k
        row["achieved_occupancy"] = "@ACHIEVED@"
        row["device_ordinal"] = "@DEVICE@"
        row["metrics"] = {"sm__metric_%d.avg" % i: 1000.5 + i for i in range(metrics)}
        rows.append(row)
    doc["rows"] = rows
    doc["launch_count"] = configs
    text = json.dumps(doc, indent="\t", separators=(",", ":\t"))
    for r in range(ranks):
        rank = text.replace('"@ACHIEVED@"', "0.%d" % (10 + r % 90))
        rank = rank.replace('"@DEVICE@"', str(r % 8))
        with open("%s/rank%d.json" % (out, r), "w") as f:
            f.write(rank)


main()
