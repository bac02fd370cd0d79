#!/usr/bin/env python3
"""examples/python/stream-fps.py runs (python3-gi, the tracer from the
build) and prints, every second, one line per stream from get-metrics:
source_id 0..3, frames growing from one second to the next and a
positive fps. (The figures' accuracy is test-streams.py's, against pad
probes.)"""
import os
import re
import subprocess
import sys

import livetest as t

example = os.environ["GPUPROF_EXAMPLE"]
env = t.child_env(dict(os.environ, GST_TRACERS="gpuprof(report=off)"))
r = subprocess.run([sys.executable, example, "--seconds", "3"], env=env,
                   capture_output=True, text=True, timeout=120)
print(r.stdout[-2000:], r.stderr[-2000:])
t.check(r.returncode == 0, "the example exits 0")
line = re.compile(r"t=([\d.]+)s source_id=(\d+) (\S+) frames=(\d+) "
                  r"\(\+\d+\) fps=([\d.]+)")
rows = [m.groups() for m in map(line.match, r.stdout.splitlines()) if m]
ticks = sorted({float(x[0]) for x in rows})
t.check(len(ticks) >= 2, "lines at %d seconds" % len(ticks))
frames = {}
for tick, sid, src, n, fps in rows:
    frames.setdefault(int(sid), []).append(int(n))
t.check(sorted(frames) == [0, 1, 2, 3], "lines for source_id 0..3")
t.check(all(len(v) >= 2 and v[-1] > v[0] for v in frames.values()),
        "frames grow second by second: %s" % frames)
t.check(all(float(x[4]) > 0 for x in rows if float(x[0]) == ticks[-1]),
        "every stream has an fps by the last second")
t.finish()
