# walk.py - run under gdb (tests/walk/walk.sh): every call between occcalc's
# own functions while it computes one configuration, as moves between the
# layers of src/ (core db ptxas model render live inject cli, lowest
# first). A breakpoint on each function of src/ records its caller's layer
# and its own; the summary goes to the file $OCC_WALK_OUT, one line a call
# between two layers: "CALLER_LAYER CALLER_FILE CALLEE_LAYER CALLEE_FILE
# FUNCTION". The program's arguments are $OCC_WALK_ARGS.
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
    m = re.match(r"\d+:\s+.*?\b(\w+)\(", line)
    if current and m:
        try:
            gdb.execute("break %s:%s" % (current.split("/")[-1], m.group(1)),
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


gdb.execute("run %s >/dev/null 2>&1" % os.environ["OCC_WALK_ARGS"],
            to_string=True)
moves = []
while True:
    try:
        frame = gdb.selected_frame()
    except gdb.error:
        break
    # A function inlined where it is used (a header's accessor over plain
    # data) is no call: skip its sites, and read a call's caller past them.
    caller_frame = frame.older()
    while caller_frame is not None and caller_frame.type() == gdb.INLINE_FRAME:
        caller_frame = caller_frame.older()
    callee = where(frame)
    caller = where(caller_frame) if caller_frame else (None, None)
    if frame.type() != gdb.INLINE_FRAME and caller[0] and callee[0] and \
            caller[0] != callee[0]:
        moves.append("%s %s %s %s %s" % (caller[0], caller[1], callee[0],
                                         callee[1], frame.name()))
    try:
        gdb.execute("continue", to_string=True)
    except gdb.error:
        break
with open(os.environ["OCC_WALK_OUT"], "w") as f:
    f.write("\n".join(moves) + ("\n" if moves else ""))
