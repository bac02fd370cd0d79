#!/usr/bin/env python3
"""Cameras added and removed while the pipeline plays (issue 19, item 8):
tests/live/churn.py adds and removes 1000 live camera bins one after the
other on a funnel, two cameras staying, the last three removed held by
the application, under metrics=, interval=1 and stall= auto. What the
removed cameras cost must not grow with their number:

- the endpoint's series: as many after 200 and after 1000 cameras, equal to
  those before the first (the live cameras') plus the removed families'
  (one per factory), none naming a removed camera;
- the records the tracer keeps (get-records): bounded by the elements
  alive and a sweep batch, the same after 200 and after 1000;
- the process's memory: after 1000 cameras at most 4 MiB above after 200
  (5 KiB per camera; before, each removed camera kept ~54 KB: 43 MB over
  800). Not under a sanitizer, whose quarantine keeps freed memory;
- the end report: under 100 lines, one "Removed during the run" line, no
  row of a removed camera; the removed table's figures equal the probes'
  truth (the buffers the removed cameras sent);
- no stall line names a removed element (those held alive stopped in
  no pipeline: before, the watchdog named them).
"""
import json
import os
import re
import subprocess
import sys

import livetest as t

CYCLES = 1000
LIVE = 2
KEEP = 3        # removed cameras the application holds on to
SWEEP_BATCH = 16
RSS_BOUND_KB = 4096

here = os.path.dirname(os.path.abspath(__file__))
p = subprocess.run([sys.executable, os.path.join(here, "churn.py"),
                    "--cycles", str(CYCLES), "--live", str(LIVE),
                    "--keep", str(KEEP),
                    "--at", "0,200,%d" % CYCLES],
                   env=os.environ, stdout=subprocess.PIPE,
                   stderr=subprocess.PIPE, text=True, timeout=600)
print(p.stdout)
print(p.stderr)
if not t.check(p.returncode == 0, "churn ran (exit %d)" % p.returncode):
    t.finish()

at = {}
for line in p.stdout.splitlines():
    m = re.match(r"cycle=(\d+) (.*)", line)
    if m:
        at[int(m.group(1))] = dict(kv.split("=") for kv in m.group(2).split())
first, mid, last = at[0], at[200], at[CYCLES]

# the endpoint
s0, s1, s2 = (int(x["series"]) for x in (first, mid, last))
removed = int(last["removed_series"])
t.check(s1 == s2, "series after 200 and after %d cameras: %d, %d"
        % (CYCLES, s1, s2))
t.check(removed == 2 * 4 and s2 == s0 + removed,
        "series = the live cameras' (%d) + the removed families' (%d, two "
        "factories): %d" % (s0, removed, s2))
t.check(int(mid["gone_series"]) == 0 and int(last["gone_series"]) == 0,
        "no series names a removed camera")

# the records
def recs(x):
    return [int(v) for v in x["records"].split("/")]


e1, p1, l1 = recs(mid)
e2, p2, l2 = recs(last)
live_elements = 2 * LIVE + 2
alive = live_elements + 2 * KEEP
t.check(e2 <= alive + 2 * SWEEP_BATCH and abs(e2 - e1) <= 2 *
        SWEEP_BATCH, "element records bounded: %d after 200, %d after %d "
        "(alive %d)" % (e1, e2, CYCLES, alive))
# a pipeline record per bin made top-level and alive: pipeline0, the live
# cameras' bins, the removed cameras held (churn.py reads the records
# again, 5 s at the most, until the removed ones' are swept)
t.check(p2 <= 5 * alive + 4 * SWEEP_BATCH and l2 == 1 + LIVE + KEEP,
        "pad and pipeline records bounded: %d pads, %d pipelines (%d alive), "
        "swept after %s s" % (p2, l2, 1 + LIVE + KEEP,
                              last["records_wait_s"]))

# memory
if os.environ.get("GPUPROF_SANITIZER_PRELOAD"):
    print("skip: RSS under a sanitizer (its quarantine keeps freed memory)")
else:
    grow = int(last["rss_kb"]) - int(mid["rss_kb"])
    t.check(grow < RSS_BOUND_KB, "RSS after %d cameras - after 200: %d KiB "
            "(< %d; 54 KB per camera would be %d)"
            % (CYCLES, grow, RSS_BOUND_KB, 54 * (CYCLES - 200)))

# the report
report = p.stdout.split("REPORT>>>\n", 1)[-1].split("<<<REPORT", 1)[0]
final = report.split("=== gpuprof report", 1)[-1]
n_lines = len(final.splitlines())
t.check(n_lines < 100, "end report: %d lines" % n_lines)
t.check(("Removed during the run: %d elements (%d sources)"
         % (2 * CYCLES, CYCLES)) in final, "one removed line, every camera")
rows = [ln for ln in final.splitlines() if re.match(r"  pipeline0/cam\d+/", ln)]
t.check(not rows, "no row of a removed camera (%d)" % len(rows))
truth = int(re.search(r"removed_buffers=(\d+)", p.stdout).group(1))
summary = re.search(r"summary=(\S+)", p.stdout).group(1)
with open(summary) as f:
    s = json.load(f)
rem = {r["factory"]: r for r in s["removed"]}
t.check(sorted(rem) == ["capsfilter", "videotestsrc"],
        "summary: one removed row per factory")
t.check(all(isinstance(r["elements"], int) and r["elements"] == CYCLES
            for r in rem.values()), "each counts %d elements" % CYCLES)
src, caps = rem["videotestsrc"], rem["capsfilter"]
t.check(src["buffers_out"] == truth and caps["buffers_in"] == truth,
        "buffers of the removed cameras = the probes' %d (src out %d, caps "
        "in %d)" % (truth, src["buffers_out"], caps["buffers_in"]))
t.check(caps["buffers_out"] == truth and src["frames"] == truth
        and src["delivered"] == truth,
        "their capsfilters' out, stream frames and delivered = %d (%d, %d, "
        "%d)" % (truth, caps["buffers_out"], src["frames"], src["delivered"]))
t.check(len(s["elements"]) <= live_elements,
        "summary elements: the live ones only (%d)" % len(s["elements"]))

# the watchdog
stalls = [ln for ln in p.stderr.splitlines() if "gpuprof: stall:" in ln]
t.check(not any("/cam" in ln for ln in stalls),
        "no stall line names a removed element (%d stall lines)"
        % len(stalls))
t.finish()
