# walk.py - run under gdb (tests/layers/walk/walk.sh): every call between two
# layers of src/ (core text db ptxas model render live inject cli, lowest
# first) while occcalc computes and writes each configuration of the file
# $OCC_WALK_CASES (one line of arguments each). Only a function of external
# linkage can be called from another file, so each gets a breakpoint, which
# records its caller's layer and its own. Case N's calls go to
# $OCC_WALK_OUT.N, a line each: "CALLER_LAYER CALLER_FILE CALLEE_LAYER
# CALLEE_FILE FUNCTION". At each stop the whole stack is read too: where a
# function of a layer runs under one of a lower layer (a callback through
# a function pointer, which no breakpoint of an external function sees,
# or a stream's read function called by libc), a line "callback
# LOWER_LAYER LOWER_FILE HIGHER_LAYER HIGHER_FILE FUNCTION" is written once.
import os
import re

import gdb

gdb.execute("set pagination off")
gdb.execute("set confirm off")
gdb.execute("set breakpoint pending off")

functions = gdb.execute("info functions -q", to_string=True)
current = None
for line in functions.splitlines():
    m = re.match(r"File (src/[a-z]+/[^:]+):", line)
    if m:
        current = m.group(1)
        continue
    m = re.match(r"\d+:\s+(.*?)\b(\w+)\(", line)
    if current and m and not m.group(1).startswith("static "):
        try:
            gdb.execute("break %s:%s" % (current.split("/")[-1], m.group(2)),
                        to_string=True)
        except gdb.error:
            pass


def where(frame):
    """The layer and file of a frame's function (where it is defined, not
    the line it is at, which may be a header's inlined code), or
    (None, None)."""
    try:
        function = frame.function()
        name = function.symtab.filename if function and function.symtab else ""
    except Exception:
        return None, None
    m = re.search(r"src/([a-z]+)/([^/]+)$", name)
    return (m.group(1), m.group(2)) if m else (None, None)


ORDER = os.environ.get("OCC_WALK_ORDER", "").split()


def callbacks(frame, seen, moves):
    """Adds a line for each pair of neighbouring frames of the stack (those
    of src/, inlined ones skipped) where the lower layer's function runs
    the higher layer's."""
    layered = []
    while frame is not None:
        if frame.type() != gdb.INLINE_FRAME:
            here = where(frame)
            if here[0] in ORDER:
                layered.append((here, frame.name()))
        frame = frame.older()
    for (callee, name), (caller, _) in zip(layered, layered[1:]):
        if ORDER.index(callee[0]) > ORDER.index(caller[0]):
            line = "callback %s %s %s %s %s" % (caller[0], caller[1], callee[0],
                                                callee[1], name)
            if line not in seen:
                seen.add(line)
                moves.append(line)


def walk(args):
    moves = []
    seen = set()
    gdb.execute("run %s >/dev/null 2>&1" % args, to_string=True)
    while True:
        try:
            frame = gdb.selected_frame()
        except gdb.error:
            break
        # A function inlined where it is used (a header's accessor over
        # plain data) is no call: skip its sites, and read a call's caller
        # past them.
        caller_frame = frame.older()
        while caller_frame is not None and \
                caller_frame.type() == gdb.INLINE_FRAME:
            caller_frame = caller_frame.older()
        callee = where(frame)
        caller = where(caller_frame) if caller_frame else (None, None)
        if frame.type() != gdb.INLINE_FRAME and caller[0] and callee[0] and \
                caller[0] != callee[0]:
            moves.append("%s %s %s %s %s" % (caller[0], caller[1], callee[0],
                                             callee[1], frame.name()))
        callbacks(frame, seen, moves)
        try:
            gdb.execute("continue", to_string=True)
        except gdb.error:
            break
    return moves


with open(os.environ["OCC_WALK_CASES"]) as cases:
    for n, args in enumerate((l.strip() for l in cases if l.strip()), 1):
        moves = walk(args)
        with open("%s.%d" % (os.environ["OCC_WALK_OUT"], n), "w") as f:
            f.write("\n".join(moves) + ("\n" if moves else ""))
