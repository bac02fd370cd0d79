#!/usr/bin/env python3
"""Per-stream live figures (interval.streams, run-live-streams.csv, the
report's live line) against pad probes in the same run: four live sources
at 10/15/25/30 fps into a batching mux (analyticsmux; a funnel when that
plugin is absent), ~3 s, interval=0.5. Each source's interval frames add
up over the run to the frames its src pad probe counted (JSON Lines and
CSV), fps * interval_s is the interval's frames, the rate over the
intervals inside its activity is within 20 % of the probe's own rate
((frames - 1) / span), and the report's live lines give each stream's
fps."""
import csv
import os

import livetest as t

Gst, d = t.start("interval=0.5,stats={dir}/run.json,report={dir}/report.txt")

RATES = (10, 15, 25, 30)
SECONDS = 3


pipe, probes, mux = t.mux_sources(Gst, RATES, SECONDS)
t.run_to_eos(Gst, pipe)
pipe = None

lines = t.live_lines(d)
t.check(len(lines) >= 5, "%d lines (>= 4 intervals + the final)" % len(lines))
t.check(all("streams" in l["interval"] for l in lines),
        "every line has interval.streams")
t.check(sorted(r["source_id"] for r in lines[-1]["interval"].get(
    "streams", [])) == [0, 1, 2, 3], "the final line has source_id 0..3")


def per_source(line):
    return {r["source"].split("/")[-1]: r
            for r in line["interval"].get("streams", [])}


rows = [per_source(l) for l in lines]
for i, rate in enumerate(RATES):
    src, p = "src%d" % i, probes[i]
    frames = [r[src]["frames"] if src in r else 0 for r in rows]
    t.check(sum(frames) == p["n"], "%s interval frames add up: %d == probe "
            "%d" % (src, sum(frames), p["n"]))
    t.check(all(abs(r[src]["fps"] * l["interval_s"] - r[src]["frames"])
                < 1e-3 * max(1, r[src]["frames"])
                for r, l in zip(rows, lines) if src in r),
            "%s fps * interval_s == interval frames" % src)
    # intervals inside its activity: frames before and after them
    inside = [k for k in range(1, len(lines) - 1)
              if frames[k - 1] and frames[k + 1] and not lines[k]["final"]]
    span_s = sum(lines[k]["interval_s"] for k in inside)
    truth = (p["n"] - 1) * 1e9 / (p["last"] - p["first"])
    if t.check(span_s > 0, "%s has %d whole intervals" % (src, len(inside))):
        fps = sum(frames[k] for k in inside) / span_s
        t.check(abs(fps - truth) <= 0.2 * truth,
                "%s fps over its intervals %.2f ~ probe %.2f (set %d)" %
                (src, fps, truth, rate))

path = os.path.join(d, "run-live-streams.csv")
if t.check(os.path.exists(path), "run-live-streams.csv written"):
    crows = list(csv.DictReader(open(path)))
    t.check(len({r["seq"] for r in crows}) == len(lines),
            "CSV rows for every line")
    for i in range(len(RATES)):
        n = sum(int(r["interval_frames"]) for r in crows
                if r["source"].endswith("/src%d" % i))
        t.check(n == probes[i]["n"], "src%d CSV interval frames add up: "
                "%d == %d" % (i, n, probes[i]["n"]))

live = [l for l in open(os.path.join(d, "report.txt"))
        if l.startswith("gpuprof live")]
t.check(len(live) == len(lines) - 1 and all(
    all(" stream %d pipeline0/src%d " % (i, i) in l for i in range(4))
    for l in live[1:]), "%d report live lines, each stream's fps in them" %
    len(live))
t.finish()
