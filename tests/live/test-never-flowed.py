#!/usr/bin/env python3
"""A pipeline that never flowed: PLAYING, and its source never produces.
- udpsrc on a free port with no sender under gst-launch-1.0 -e, stall=1,
  stopped by SIGINT once the stall line came: the line comes while it runs
  (before the interrupt) and names udpsrc; the end-of-run report says that
  nothing flowed and where it waited.
- an appsrc never fed (PyGObject, not live: the pipeline never prerolls),
  stall=1: the stall line comes between the PLAYING and NULL markers and
  names the appsrc; set to NULL once it came, the report says that nothing
  flowed, names the appsrc, and gives a time within the PLAYING..NULL
  window the test measured around its calls."""
import os
import re
import signal
import socket
import sys
import time

import livetest as t

if len(sys.argv) > 1 and sys.argv[1] == "child":
    Gst, d = t.start("stall=1,report=stderr")
    p = Gst.parse_launch("appsrc name=src ! fakesink")
    t0 = time.monotonic()
    p.set_state(Gst.State.PLAYING)
    t1 = time.monotonic()
    sys.stderr.write("PLAYING\n")
    sys.stderr.flush()
    t.wait_for_parent()
    t2 = time.monotonic()
    p.set_state(Gst.State.NULL)
    t3 = time.monotonic()
    sys.stderr.write("NULL between %.3f and %.3f s\n" % (t2 - t1, t3 - t0))
    sys.exit(0)

Gst, d = t.start("stall=1")   # gst-launch below inherits GST_TRACERS

# a port nobody sends to: the kernel's pick, released again
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
port = s.getsockname()[1]
s.close()


def interrupt(proc):
    proc.send_signal(signal.SIGINT)


def on_udp(line):
    if line.startswith("gpuprof: stall:"):
        return interrupt
    return None


lines = t.converse(["gst-launch-1.0", "-e", "udpsrc", "port=%d" % port,
                    "address=127.0.0.1", "!", "fakesink"], on_udp)
stall = t.stall_lines(lines)
intr = t.index(lines, "handling interrupt")
t.check(len(stall) == 1, "udpsrc: one stall line")
t.check(stall and intr is not None and stall[0] < intr,
        "udpsrc: it came while the pipeline ran (before the interrupt)")
t.check(stall and "no buffer yet since PLAYING" in lines[stall[0]]
        and "waiting for input in pipeline0/udpsrc0" in lines[stall[0]],
        "udpsrc: it says no buffer yet, waiting in pipeline0/udpsrc0")
report = t.index(lines, "Nothing flowed")
t.check(report is not None and intr is not None and report > intr,
        "udpsrc: an end-of-run report after the interrupt")
t.check(report is not None and "waiting for input in pipeline0/udpsrc0"
        in lines[report], "udpsrc: it names where it waited")

lines = t.converse([sys.executable, __file__, "child"],
                   lambda l: "go\n" if l.startswith("gpuprof: stall:")
                   else None)
report = t.index(lines, "Nothing flowed")
null = t.index(lines, "NULL between")
stall = t.stall_lines(lines)
playing = t.index(lines, "PLAYING")
t.check(len(stall) == 1 and playing is not None and null is not None
        and playing < stall[0] < null, "appsrc: one stall line while it "
        "was PLAYING")
t.check(stall and "waiting for input in pipeline0/src" in lines[stall[0]],
        "appsrc: it names the appsrc")
t.check(report is not None and "waiting for input in pipeline0/src"
        in lines[report], "appsrc: the report says nothing flowed and "
        "names the appsrc")
if report is not None and null is not None:
    lo, hi = (float(x) for x in lines[null].split()[2:5:2])
    n = float(re.search(r"PLAYING for ([0-9.]+) s", lines[report]).group(1))
    t.check(lo - 0.06 <= n <= hi + 0.06, "appsrc: PLAYING for %.1f s, "
            "within the %.3f..%.3f s measured around the calls" % (n, lo, hi))
t.finish()
