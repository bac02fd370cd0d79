#!/usr/bin/env python3
"""interval=0.5 on a run of ~3.3 s: >= 5 live lines in JSON Lines, CSV
and the report, counters monotonic, the interval figures add up to the
cumulative ones, the sink's count equals a pad probe's, and the last
(final) cumulative object equals the end-of-run summary (stats=)."""
import csv
import json
import os

import livetest as t

Gst, d = t.start("interval=0.5,stats={dir}/run.json,report={dir}/report.txt")
pipe = Gst.parse_launch(
    "videotestsrc num-buffers=100 ! video/x-raw,framerate=30/1,width=64,"
    "height=48 ! queue name=q ! identity name=work ! fakesink name=sink "
    "sync=true")
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

report = open(os.path.join(d, "report.txt")).read()
head, _, tail = report.partition("=== gpuprof report")
live = [l for l in head.splitlines() if l.startswith("gpuprof live")]
t.check(len(live) >= 5, "%d live report lines before the report" % len(live))
t.check(tail and "gpuprof live" not in tail, "end-of-run report follows")
t.finish()
