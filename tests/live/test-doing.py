#!/usr/bin/env python3
"""What the stuck thread is doing now (stall=1): an identity whose handoff
blocks inside its chain until the stall line has come. Without a queue the
source's thread is inside the identity's chain; with a queue before it the
source's thread is blocked in the full queue and the queue's thread is
inside the chain. The line must come while the block lasts (between the
child's BLOCK and UNBLOCK markers) and say so; the time it gives is at
most the block the handoff measured around its own wait. A synced sink
given a ts-offset of 1000 s mid-stream: the source's thread is waiting on
the clock in the sink (the line comes after the OFFSET marker, before the
pipeline is stopped)."""
import re
import sys
import threading
import time

import livetest as t

if len(sys.argv) > 2 and sys.argv[1] == "clock":
    Gst, p = t.stall_child(
        "videotestsrc ! video/x-raw,framerate=30/1,width=64,height=48 ! "
        "identity name=tap signal-handoffs=true ! fakesink name=sink "
        "sync=true")
    seen = [0]

    def offset(element, buf):
        seen[0] += 1
        if seen[0] == 20:
            p.get_by_name("sink").set_property("ts-offset", 1000 * Gst.SECOND)
            t.mark("OFFSET")
    p.get_by_name("tap").connect("handoff", offset)
    p.set_state(Gst.State.PLAYING)
    t.wait_for_parent()
    t.mark("STOP")
    p.set_state(Gst.State.NULL)
    sys.exit(0)

if len(sys.argv) > 2 and sys.argv[1] == "child":
    queued = sys.argv[2] == "queue"
    Gst, p = t.stall_child(
        "videotestsrc is-live=true ! video/x-raw,framerate=30/1,width=64,"
        "height=48 ! " + ("queue name=q max-size-buffers=4 ! "
                          if queued else "") +
        "identity name=slow signal-handoffs=true ! fakesink sync=true")
    seen = [0]
    unblock = threading.Event()

    def handoff(element, buf):
        seen[0] += 1
        if seen[0] == 20:
            start = time.monotonic()
            t.mark("BLOCK")
            unblock.wait()
            t.mark("UNBLOCK after %.3f s" % (time.monotonic() - start))
        elif seen[0] == 40:
            t.mark("FLOWING")
    p.get_by_name("slow").connect("handoff", handoff)
    p.set_state(Gst.State.PLAYING)
    t.wait_for_parent()
    unblock.set()
    t.wait_for_parent()
    p.set_state(Gst.State.NULL)
    t.mark("DONE")
    sys.exit(0)


def run(kind):
    state = {"block": False, "flowing": False}

    def answer(line):
        if line.startswith("BLOCK"):
            state["block"] = True
        elif state["block"] and line.startswith("gpuprof: stall:"):
            state["block"] = False
            return "go\n"
        elif line.startswith("FLOWING"):
            state["flowing"] = True
        elif state["flowing"] and "flows again" in line:
            state["flowing"] = False
            return "go\n"
        return None
    lines = t.converse([sys.executable, __file__, "child", kind], answer)
    idx = {k: t.index(lines, k) for k in ("BLOCK", "UNBLOCK", "DONE")}
    if not t.check(None not in idx.values(), kind + ": markers seen"):
        return
    stall = t.stall_lines(lines)
    during = [lines[i] for i in stall if idx["BLOCK"] < i < idx["UNBLOCK"]]
    t.check(len(during) == 1, kind + ": one stall line while blocked")
    t.check(not any(i < idx["BLOCK"] for i in stall),
            kind + ": no stall line before")
    line = during[0] if during else ""
    inside = re.search(r"thread (\S+) inside pipeline0/slow's chain for "
                       r"([0-9.]+) s", line)
    t.check(inside is not None, kind + ": says which thread is inside "
            "pipeline0/slow's chain")
    block = float(lines[idx["UNBLOCK"]].split()[2])
    t.check(inside and float(inside.group(2)) <= block + 0.1,
            kind + ": inside for %s s <= the %.3f s the handoff measured"
            % (inside and inside.group(2), block))
    if kind == "queue":
        t.check(inside and inside.group(1) == "q:src",
                "queue: it is the queue's thread")
        t.check("thread videotestsrc0:src blocked in full queue pipeline0/q"
                in line, "queue: the source's thread is blocked in the "
                "full queue")
    else:
        t.check(inside and inside.group(1) == "videotestsrc0:src",
                "chain: it is the source's thread")
        t.check("waiting for input" not in line,
                "chain: not mistaken for waiting for input")
    t.check("holds or drops" not in line,
            kind + ": not mistaken for an element holding buffers")
    t.check(any(idx["UNBLOCK"] < i < idx["DONE"] and "flows again"
                in lines[i] for i in stall), kind + ": flows again after")


def run_clock():
    lines = t.converse([sys.executable, __file__, "clock", "-"],
                       lambda l: "go\n" if l.startswith("gpuprof: stall:")
                       else None)
    off, stop = t.index(lines, "OFFSET"), t.index(lines, "STOP")
    stall = t.stall_lines(lines)
    if not t.check(off is not None and stop is not None,
                   "clock: markers seen"):
        return
    t.check(len(stall) == 1 and off < stall[0] < stop,
            "clock: one stall line while the sink waits")
    t.check(stall and re.search(r"thread videotestsrc0:src waiting on the "
                                r"clock in pipeline0/sink \(synced sink\) "
                                r"for [0-9.]+ s", lines[stall[0]]),
            "clock: the source's thread is waiting on the clock in the sink")


run("chain")
run("queue")
run_clock()
t.finish()
