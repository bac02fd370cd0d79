#!/usr/bin/env python3
"""checkpoint=: a killed process leaves its summary (docs/outputs.md,
"Checkpoints").

A child process runs a live pipeline (appsrc is-live ! queue ! identity !
fakesink) under stats= and html= with checkpoint=0.3 and pushes buffers
when the test says so; a pad probe on the sink counts what arrived (the
truth, in the same run). The test

- pushes 40 buffers, waits until the child's probe saw them, then reads
  stats= over and over until a checkpoint holds them: every read parses
  (the file is replaced atomically, never half written), the run is marked
  `checkpoint: true` with `taken_ns` / `taken_utc`;
- pushes 25 more and waits for a later checkpoint (a larger `taken_ns`)
  holding all 65: checkpoints keep coming while the run goes on;
- SIGKILLs the child (no EOS, no NULL, no atexit): the summary still parses
  with the tool's reader (`gst-gpuprof report` exits 0, prints the element
  rows and says it is a checkpoint), its sink got exactly the 65 buffers
  the probe counted (the run up to the last checkpoint, nothing flowed
  after it), and the HTML page says checkpoint;
- the same with SIGTERM (what `docker stop` sends first).

The checkpoint thread is the tracer's, not an element's: started in the
first state change, before the scan that gives threads born in a state
change to that element, it has no row in the summary's threads table even
when an identity leaves NULL first (it had one, as the identity's worker,
before that order was fixed).

The control, checkpoint=0: after a push, a second and a SIGKILL there is
no stats= file at all (what every killed run left before checkpoints)."""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

import livetest as t

CHILD = r'''
import os, sys
import gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst
Gst.init([])  # not None: 1.28's typelib makes argv non-nullable
pipe = Gst.parse_launch(
    "appsrc name=src is-live=true format=time "
    "caps=video/x-raw,format=GRAY8,width=16,height=16,framerate=30/1 "
    "! queue ! identity name=work ! fakesink name=sink sync=false")
seen = [0]
def probe(pad, info):
    seen[0] += 1
    return Gst.PadProbeReturn.OK
pipe.get_by_name("sink").get_static_pad("sink").add_probe(
    Gst.PadProbeType.BUFFER, probe)
src = pipe.get_by_name("src")
pipe.set_state(Gst.State.PLAYING)
pushed = 0
for line in sys.stdin:
    n = int(line.split()[1])
    for i in range(n):
        buf = Gst.Buffer.new_wrapped(bytes(256))
        buf.pts = pushed * Gst.SECOND // 30
        buf.duration = Gst.SECOND // 30
        src.emit("push-buffer", buf)
        pushed += 1
    import time
    while seen[0] < pushed:
        time.sleep(0.01)
    print("pushed %d %d" % (pushed, seen[0]), flush=True)
'''

TOOL = os.environ.get("GST_GPUPROF")
if not TOOL:
    print("skip: GST_GPUPROF (the tool) not set")
    sys.exit(77)
d = tempfile.mkdtemp(prefix="gpuprof-checkpoint-")


def summary(path):
    """the parsed summary, None while there is none; a file that does not
    parse is a failure (atomic replacement)"""
    try:
        text = open(path).read()
    except FileNotFoundError:
        return None
    try:
        return json.loads(text)
    except ValueError:
        t.bad("%s does not parse (%d bytes): a half-written file" %
              (path, len(text)))
        return None


def sink_in(s):
    rows = [e for e in s["elements"] if e["path"] == "pipeline0/sink"]
    return rows[0]["buffers_in"] if rows else 0


def wait_checkpoint(path, want, after_ns, proc, limit_s=60):
    """the first checkpoint holding want buffers at the sink, taken after
    after_ns; reads the file every 20 ms (a hang guard, not a timing
    bound)"""
    deadline = time.monotonic() + limit_s
    reads = 0
    while time.monotonic() < deadline and proc.poll() is None:
        s = summary(path)
        reads += 1
        if (s and s["run"].get("checkpoint") and sink_in(s) == want
                and s["run"]["taken_ns"] > after_ns):
            return s, reads
        time.sleep(0.02)
    return None, reads


def child(work, period):
    path = os.path.join(work, "run.json")
    env = t.child_env(dict(os.environ, GST_TRACERS="gpuprof(stats=%s,html=%s,"
                      "checkpoint=%s,report=off)" %
                      (path, os.path.join(work, "run.html"), period)))
    return path, subprocess.Popen([sys.executable, "-c", CHILD], env=env,
                                  stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)


def run(sig):
    work = os.path.join(d, sig.name)
    os.mkdir(work)
    path, proc = child(work, 0.3)
    total, taken = 0, 0
    try:
        for n in (40, 25):
            proc.stdin.write("push %d\n" % n)
            proc.stdin.flush()
            line = proc.stdout.readline().split()
            total += n
            t.check(line[:2] == ["pushed", str(total)] and
                    int(line[2]) == total,
                    "%s: the child's probe saw %d buffers at the sink (%s)"
                    % (sig.name, total, line))
            s, reads = wait_checkpoint(path, total, taken, proc)
            t.check(s is not None, "%s: a checkpoint with the %d buffers, "
                    "after %d reads that all parsed" % (sig.name, total,
                                                          reads))
            if s:
                t.check(s["run"]["taken_utc"].endswith("Z"),
                        "%s: taken at %s (%d ns)" %
                        (sig.name, s["run"]["taken_utc"],
                         s["run"]["taken_ns"]))
                taken = s["run"]["taken_ns"]
    finally:
        proc.send_signal(sig)
        proc.wait(60)
    t.check(proc.returncode == -sig, "%s: the child died of it (%s)" %
            (sig.name, proc.returncode))

    s = summary(path)
    t.check(s is not None and s["run"]["checkpoint"] is True,
            "%s: the summary is there after the kill, marked checkpoint"
            % sig.name)
    if s:
        t.check(sink_in(s) == total, "%s: it covers the run up to its last "
                "checkpoint: %d buffers at the sink == %d the probe counted"
                % (sig.name, sink_in(s), total))
        t.check(s["run"]["taken_ns"] >= taken, "%s: the last checkpoint "
                "(taken_ns %d >= %d)" % (sig.name, s["run"]["taken_ns"],
                                         taken))
    r = subprocess.run([TOOL, "report", path], capture_output=True,
                       text=True)
    t.check(r.returncode == 0 and "pipeline0/work" in r.stdout
            and "Checkpoint taken at " in r.stdout,
            "%s: gst-gpuprof report reads it, says checkpoint (exit %d) %s"
            % (sig.name, r.returncode, r.stderr.strip()))
    html = os.path.join(work, "run.html")
    page = open(html).read() if os.path.exists(html) else ""
    t.check('"checkpoint":true' in page.replace(" ", ""),
            "%s: the HTML page is a checkpoint too" % sig.name)


OWNER_CHILD = r'''
import sys, time, gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst
Gst.init([])  # not None: 1.28's typelib makes argv non-nullable
p = Gst.parse_launch("videotestsrc num-buffers=40 ! identity name=id ! queue "
                     "! fakesink")
p.get_by_name("id").set_state(Gst.State.READY)
time.sleep(0.3)
p.set_state(Gst.State.PLAYING)
p.get_bus().timed_pop_filtered(60 * Gst.SECOND, Gst.MessageType.EOS)
p.set_state(Gst.State.NULL)
'''


def not_an_element_thread():
    path = os.path.join(d, "owner.json")
    env = t.child_env(dict(os.environ, GST_TRACERS="gpuprof(stats=%s,"
                      "checkpoint=0.1,report=off)" % path))
    r = subprocess.run([sys.executable, "-c", OWNER_CHILD], env=env,
                       timeout=120)
    s = summary(path) if r.returncode == 0 else None
    rows = [(x["name"], x["owner"]) for x in s["threads"]] if s else None
    t.check(rows is not None and not any(n == "gpuprof-checkpt"
                                         for n, o in rows),
            "the checkpoint thread is no element's: threads %s" % rows)


def control():
    work = os.path.join(d, "off")
    os.mkdir(work)
    path, proc = child(work, 0)
    proc.stdin.write("push 40\n")
    proc.stdin.flush()
    proc.stdout.readline()
    time.sleep(1.0)
    proc.kill()
    proc.wait(60)
    t.check(not os.path.exists(path), "checkpoint=0: no summary after "
            "SIGKILL (the control)")


run(signal.SIGKILL)
run(signal.SIGTERM)
not_an_element_thread()
control()
t.finish()
