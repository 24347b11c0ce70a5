#!/usr/bin/env python3
"""plural.py OCCCALC FORGE: a count of one is singular in occcalc run's text.

Two walks. The templates: every format string of run's text writers
(src/render/run_out.c, run_cluster.c, and the waves words of vocab.c) is
read, adjacent literals joined; a count conversion followed by a noun
written plural in the literal ("%zu launches") fails, unless the noun is
chosen by the count ("%zu launch%s") or listed below with why its count
is never one. The output: forged programs (tests/run/forge.c) run with
counts of one and of two in every template that has a count (launches,
configurations, processes, blocks a wave, the tail, skipped records, the
launches profiled), and the text is searched for "1 <plural>" and
"<n other than 1> <singular>"."""
import re
import subprocess
import sys

NOUNS = ["launch", "configuration", "block", "warp", "thread", "cluster",
         "process", "record", "kernel", "wave", "SM", "sample", "report"]
PLURAL = {n: n + ("es" if n.endswith(("ch", "ss")) else "s") for n in NOUNS}
SINGULAR = {p: n for n, p in PLURAL.items()}
FILES = ["src/render/run_out.c", "src/render/run_cluster.c", "src/render/vocab.c"]
# A plural after a count that is never one: the template's reason.
NEVER_ONE = {
    " (%zu of %zu launches": "shown only when fewer launches than all were "
                             "profiled, so the total is at least 2",
    "%zu processes": "written only for more than one process ('process')",
}
COUNT = r'%[-+ #0]*[0-9.*]*(?:hh|h|ll|l|z|j|t)?[diu]|%" PRI[du](?:8|16|32|64) "'

fail = 0


def no(what):
    global fail
    fail = 1
    print("plural: " + what)


def literals(path):
    """Each call's format: the adjacent string literals of a source, joined."""
    text = open(path).read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    # Joined across the PRId64 macros: "a %" PRId64 " b" is one template.
    pattern = r'"(?:[^"\\\n]|\\.)*"(?:\s*(?:PRI[diu](?:8|16|32|64))?\s*"(?:[^"\\\n]|\\.)*")*'
    for m in re.finditer(pattern, text):
        yield m.group(0)


templates = 0
for path in FILES:
    for lit in literals(path):
        if not re.search(COUNT, lit):
            continue
        templates += 1
        for n in NOUNS:
            for m in re.finditer("(" + COUNT + ")( [a-zA-Z' ]{0,12}?)?\\b" +
                                 re.escape(PLURAL[n]) + r"\b", lit):
                between = m.group(2) or " "
                if between.strip() and n not in ("launch",):
                    continue  # "%d regs, ... blocks": another noun counted
                if any(k in lit for k in NEVER_ONE):
                    continue
                no("%s: %s: '%s' after a count, whatever the count" %
                   (path, lit, PLURAL[n]))

if templates < 10:
    no("only %d templates with a count found: the walk reads nothing" % templates)

occ, forge = sys.argv[1], sys.argv[2]
CASES = [
    ["launch"],
    ["launch", "times=2"],
    ["launch", "distinct=2"],
    ["launch", "sm_count=1", "block=1024", "regs=64", "grid=1"],
    ["launch", "sm_count=2", "block=1024", "regs=64", "grid=3"],
    ["launch", "sm_count=2", "block=1024", "regs=64", "grid=5"],
    ["launch", "grid=1", "block=32"],
    ["launch", "times=2", "counters"],
    ["launch", "times=3", "counters"],
    ["launch", "counters", "summary"],
    ["launch", "summary", "values=0.5,0,1,0"],
    ["launch", "stray=7"],
    ["launch", "stray=7", "launch", "stray=7"],
]
ONE_PLURAL = re.compile(r"(?<![\d.,])1 (" + "|".join(map(re.escape, PLURAL.values())) + r")\b")
MANY_SINGULAR = re.compile(r"(?<![\d.,])(0|[2-9]|[1-9]\d+) (" +
                           "|".join(map(re.escape, NOUNS)) + r")\b(?!s\b|es\b)")
seen = set()
for case in CASES:
    r = subprocess.run([occ, "run", "--", forge] + case, capture_output=True,
                       text=True, stdin=subprocess.DEVNULL)
    text = r.stderr
    if not text.startswith("occcalc"):
        no("%s: no report (%s)" % (" ".join(case), text[:200]))
    for line in text.splitlines():
        line = re.sub(r"^ ?\d+ ", "", line)  # a row's number, then its name
        for m in ONE_PLURAL.finditer(line):
            no("%s: '%s' in: %s" % (" ".join(case), m.group(0), line.strip()))
        for m in MANY_SINGULAR.finditer(line):
            no("%s: '%s' in: %s" % (" ".join(case), m.group(0), line.strip()))
        for m in re.finditer(r"(?<![\d.,])(\d+) (?:invalid )?(\w+)", line):
            seen.add((m.group(1) == "1", SINGULAR.get(m.group(2), m.group(2))))
# Every count of the header, the row, the waves line and the notes, read
# at one and at more than one: a case list that stops reaching one fails.
for noun in ["launch", "configuration", "block", "record"]:
    for one in (True, False):
        if (one, noun) not in seen:
            no("no case shows %s %s" % ("1" if one else "several", noun))
if not fail:
    print("plural: %d templates with a count, %d forged runs: one is singular"
          % (templates, len(CASES)))
sys.exit(fail)
