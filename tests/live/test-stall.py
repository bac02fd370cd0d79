#!/usr/bin/env python3
"""A planted stall: a valve closed for 3 s mid-stream under stall=1. The
stall line must come while the valve is closed (between the CLOSE and OPEN
markers the child writes to the same stderr), name the valve's src pad, and
the pipeline must be said to flow again after it reopens."""
import os
import subprocess
import sys

import livetest as t

if len(sys.argv) > 1 and sys.argv[1] == "child":
    import time
    Gst, p = t.stall_child(
        "videotestsrc is-live=true num-buffers=240 ! video/x-raw,"
        "framerate=30/1,width=64,height=48 ! valve name=v ! queue ! "
        "fakesink sync=true")
    sink = p.get_by_name("v").get_static_pad("src")
    truth = t.count_probe(Gst, sink)
    p.set_state(Gst.State.PLAYING)
    time.sleep(1.5)
    t.mark("CLOSE after %d buffers" % truth[0])
    p.get_by_name("v").set_property("drop", True)
    # a buffer already past the valve's check when it closed still leaves
    # it (a race, seen on 1.26): the count starts a frame later
    time.sleep(0.1)
    before = truth[0]
    time.sleep(2.9)
    t.mark("OPEN, %d buffers passed while closed" % (truth[0] - before))
    p.get_by_name("v").set_property("drop", False)
    time.sleep(1.5)
    p.set_state(Gst.State.NULL)
    t.mark("DONE")
    sys.exit(0)

out = subprocess.run([sys.executable, __file__, "child"], env=os.environ,
                     stderr=subprocess.PIPE, stdout=subprocess.DEVNULL,
                     text=True, timeout=120).stderr
print(out)
lines = out.splitlines()
idx = {k: t.index(lines, k) for k in ("CLOSE", "OPEN", "DONE")}
stall = t.stall_lines(lines)
if not t.check(None not in idx.values(), "markers seen"):
    t.finish()
t.check("0 buffers passed" in lines[idx["OPEN"]],
        "probe truth: no buffer left the valve while closed")
during = [i for i in stall if idx["CLOSE"] < i < idx["OPEN"]]
t.check(len(during) == 1, "one stall line while the valve is closed")
t.check(during and "pipeline0/v:src" in lines[during[0]],
        "it names the valve's src pad")
t.check(during and "still reach it" in lines[during[0]],
        "it says buffers still reach the valve")
t.check(any(idx["OPEN"] < i < idx["DONE"] and "flows again" in lines[i]
            for i in stall), "flowing again after it reopens")
t.check(not any(i < idx["CLOSE"] for i in stall), "no stall line before")
t.finish()
