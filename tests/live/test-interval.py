#!/usr/bin/env python3
"""interval=0.5 on a run of ~3.3 s: >= 5 live lines in JSON Lines, CSV
and the report, counters monotonic, the interval figures add up to the
cumulative ones, the sink's count equals a pad probe's, and the last
(final) cumulative object equals the end-of-run summary (stats=). The
interval tables come from the schema: interval.queues' dequeued buffers add
up to the probe, levels stay within max-size-buffers; one tracer record per
interval row; with trace= a sink fps counter per interval equal to the
JSON Lines' fps."""
import csv
import json
import os
import re

import livetest as t

# the tracer records (GST_TRACER:7) go to a file of the test's own
os.environ["GST_DEBUG"] = "GST_TRACER:7"
os.environ["GST_DEBUG_NO_COLOR"] = "1"
records_log = os.path.join(os.environ.get("TMPDIR", "/tmp"),
                           "gpuprof-live-records-%d.log" % os.getpid())
os.environ["GST_DEBUG_FILE"] = records_log
Gst, d = t.start("interval=0.5,stats={dir}/run.json,report={dir}/report.txt")
# the source outruns the synced sink: the queue stays near its 10 buffers
pipe = Gst.parse_launch(
    "videotestsrc num-buffers=100 ! video/x-raw,framerate=30/1,width=64,"
    "height=48 ! queue name=q max-size-buffers=10 max-size-bytes=0 "
    "max-size-time=0 ! identity name=work ! fakesink name=sink sync=true")
truth = t.count_probe(Gst, pipe.get_by_name("sink").get_static_pad("sink"))
t.run_to_eos(Gst, pipe)
pipe = None

jsonl = os.path.join(d, "run-live.jsonl")
if not t.check(os.path.exists(jsonl), "run-live.jsonl written"):
    t.finish()
lines = [json.loads(l) for l in open(jsonl)]
t.check(len(lines) >= 6, "%d lines (>= 5 intervals + the final)" % len(lines))
t.check([l["final"] for l in lines] == [False] * (len(lines) - 1) + [True],
        "only the last line is final")
t.check(all(a["seq"] < b["seq"] and a["t_s"] <= b["t_s"]
            for a, b in zip(lines, lines[1:])), "seq and t_s increase")

COUNTERS = ("buffers_in", "buffers_out", "calls", "self_ns", "blocked_ns")


def cumulative(line, path):
    for e in line["cumulative"]["elements"]:
        if e["path"] == path:
            return e
    return None


paths = {e["path"] for l in lines for e in l["cumulative"]["elements"]}
mono = True
for p in paths:
    prev = None
    for l in lines:
        e = cumulative(l, p)
        if e is None:
            continue
        if prev and any(e[k] < prev[k] for k in COUNTERS):
            mono = False
            t.bad("%s goes back at seq %d" % (p, l["seq"]))
        prev = e
t.check(mono, "cumulative counters never go back (%d elements)" % len(paths))

sink = "pipeline0/sink"
final = cumulative(lines[-1], sink)
t.check(final and final["buffers_in"] == truth[0],
        "final sink buffers %s == probe %d" %
        (final and final["buffers_in"], truth[0]))
added = sum(e["buffers"] for l in lines for e in l["interval"]["elements"]
            if e["path"] == sink)
t.check(added == truth[0], "interval buffers add up: %d == %d" %
        (added, truth[0]))
mid = [cumulative(l, sink)["buffers_in"] for l in lines[:-1]
       if cumulative(l, sink)]
t.check(len(mid) >= 3 and 0 < mid[0] < truth[0],
        "snapshots taken while it ran: sink counts %s" % mid)

summary = json.load(open(os.path.join(d, "run.json")))
t.check(lines[-1]["cumulative"] == summary,
        "last cumulative object == end-of-run summary")

rows = list(csv.DictReader(open(os.path.join(d, "run-live.csv"))))
seqs = sorted({int(r["seq"]) for r in rows})
t.check(seqs == [l["seq"] for l in lines], "CSV rows for every line")
t.check(sum(int(r["interval_buffers"]) for r in rows if r["path"] == sink)
        == truth[0], "CSV interval buffers add up")

# queues: the interval's dequeued buffers add up to what reached the sink,
# the level at each snapshot is the cumulative table's, within the limit
qs = [q for l in lines for q in l["interval"]["queues"]
      if q["path"] == "pipeline0/q"]
t.check(len(qs) == len(lines), "interval.queues has the queue in every line")
t.check(sum(q["buffers"] for q in qs) == truth[0],
        "interval queue buffers add up: %d == %d"
        % (sum(q["buffers"] for q in qs), truth[0]))
cq = [next(q for q in l["cumulative"]["queues"] if q["path"] == "pipeline0/q")
      for l in lines]
t.check(all(q["level_buffers"] == c["level_buffers"] <= 10
            and q["level_bytes"] == c["level_bytes"]
            for q, c in zip(qs, cq)),
        "interval level == cumulative level <= max-size-buffers 10: %s"
        % [q["level_buffers"] for q in qs])
t.check(any(q["level_buffers"] > 0 for q in qs[:-1]),
        "a mid-run snapshot saw buffers queued")
t.check(qs[-1]["level_buffers"] == 0, "emptied at the end")
t.check(all(q["level_buffers"] <= c["max_level_buffers"]
            for q, c in zip(qs, cq)), "level <= max level")
elems = [e for l in lines for e in l["interval"]["elements"]]
t.check(all(set(e) == {"path", "buffers", "self_ns", "blocked_ns",
                       "wait_input_ns", "fps"} for e in elems),
        "interval element keys from the schema")
qrows = list(csv.DictReader(open(os.path.join(d, "run-live-queues.csv"))))
t.check(sum(int(r["interval_buffers"]) for r in qrows
            if r["path"] == "pipeline0/q") == truth[0],
        "queues CSV interval buffers add up")

# tracer records: one per interval row
rec = open(records_log).read().splitlines()
os.unlink(records_log)
n_el = sum(1 for r in rec
           if re.search(r"gpuprof-interval-element, .*seq=\(guint64\)\d", r))
n_q = sum(1 for r in rec
          if re.search(r"gpuprof-interval-queue, .*seq=\(guint64\)\d", r))
t.check(n_el == len(elems), "a gpuprof-interval-element record per row: "
        "%d == %d" % (n_el, len(elems)))
t.check(n_q == len(qs), "a gpuprof-interval-queue record per row: %d == %d"
        % (n_q, len(qs)))

# trace=: a "<sink> fps" counter per interval, the JSON Lines' figure (a
# gst-launch run of its own: the trace file is complete once it exits)
import subprocess
env = dict(os.environ, GST_TRACERS="gpuprof(interval=0.5,report=off,"
           "stats={d}/t.json,trace={d}/trace.json)".format(d=d))
env.pop("GST_DEBUG_FILE")
env.pop("GST_DEBUG")
subprocess.run(["gst-launch-1.0", "-q", "videotestsrc", "num-buffers=60", "!",
                "video/x-raw,framerate=30/1,width=64,height=48", "!",
                "fakesink", "name=sink", "sync=true"], env=env, check=True,
               timeout=120)
events = json.load(open(os.path.join(d, "trace.json")))
if isinstance(events, dict):
    events = events["traceEvents"]
counters = [e for e in events if e.get("ph") == "C" and e.get("cat") == "live"]
tl = [json.loads(l) for l in open(os.path.join(d, "t-live.jsonl"))]
fps = [e["fps"] for l in tl if not l["final"] for e in l["interval"]["elements"]
       if e["path"] == "pipeline0/sink"]
t.check(len(fps) >= 2 and [c["name"] for c in counters]
        == ["pipeline0/sink fps"] * len(fps), "a trace counter per interval "
        "for the sink: %d, %d lines" % (len(counters), len(fps)))
t.check(all(abs(c["args"]["fps"] - f) <= 1e-6 * max(1.0, f)
            for c, f in zip(counters, fps)),
        "trace fps == JSON Lines fps: %s" % fps)

report = open(os.path.join(d, "report.txt")).read()
head, _, tail = report.partition("=== gpuprof report")
live = [l for l in head.splitlines() if l.startswith("gpuprof live")]
t.check(len(live) >= 5, "%d live report lines before the report" % len(live))
levels = [int(m.group(1)) for l in live
          for m in [re.search(r"queue pipeline0/q (\d+) buffers", l)] if m]
t.check(len(levels) >= 1 and all(0 < n <= 10 for n in levels),
        "report lines give the queue's level: %s" % levels)
t.check(tail and "gpuprof live" not in tail, "end-of-run report follows")

# what limited each interval: the synced sink's clock (the source outruns
# it), in the JSON Lines' ranked limits and on the report lines
mid_lines = lines[1:-1]
firsts = [(l["interval"]["limits"] or [{}])[0] for l in mid_lines]
t.check(len(firsts) >= 3 and all(f.get("kind") == "clock"
                                 and f.get("what") == sink
                                 and f.get("headroom", 0) > 1
                                 and f.get("rank") == 1 for f in firsts),
        "each interval limited by the clock at the sink, with headroom: %s"
        % [(f.get("kind"), f.get("what"), f.get("headroom")) for f in firsts])
said = [l for l in live[1:] if "; limit: clock %s " % sink in l]
t.check(len(said) >= 3, "report lines name the clock: %d of %d"
        % (len(said), len(live)))
t.finish()
