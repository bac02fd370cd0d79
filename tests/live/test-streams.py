#!/usr/bin/env python3
"""Per-stream figures (the summary's "streams" table, the report's Streams
section, get-metrics) against pad probes in the same run.

Run 1: four live sources at 10/15/25/30 fps into a batching mux
(analyticsmux; a funnel when that plugin is absent), ~3 s. Each source's
src pad probe counts its frames and notes when the first and the last
left: frames equal, fps within 3 % of the probe's (frames - 1) / span,
source_id = the mux's sink pad index, nothing dropped, latency measured;
get-metrics asked mid-run gives the same streams.

Run 2: two live sources through a funnel, one branch with a leaky queue
before a slow identity (it drops), each frame's source push and sink
arrival seen by probes (PTS told apart by timestamp-offset): delivered and
drops equal the probes', the median latency within 15 % + 2 ms of the
probes' median.

Run 3: one pipeline run twice (back to NULL between): each run's row
counts that run's frames, all delivered, none dropped.

Run 4: a live source at 20 fps for 4.5 s, asked with get-metrics after its
EOS (the pipeline still PLAYING): fps_recent over its last whole seconds
is within 10 % of the probe's rate, and 0 once more than 4 s passed
without a frame, while fps (its active time) stays."""
import json
import os
import statistics
import time

import livetest as t

Gst, d = t.start("stats={dir}/run.json,report={dir}/report.txt")

RATES = (10, 15, 25, 30)
SECONDS = 3


def streams_of(path):
    s = json.load(open(path))
    return {r["source"].split("/")[-1]: r for r in s["streams"]}


# ------------------------------------------------------------- run 1
pipe, probes, mux_factory = t.mux_sources(Gst, RATES, SECONDS)
tracer = [x for x in Gst.tracing_get_active_tracers()
          if type(x).__name__ == "GstGpuprofTracer"][0]
pipe.set_state(Gst.State.PLAYING)
msg = pipe.get_bus().timed_pop_filtered(
    int(1.5 * Gst.SECOND), Gst.MessageType.EOS | Gst.MessageType.ERROR)
mid = tracer.emit("get-metrics", "pipeline0")
t.run_to_eos(Gst, pipe)
pipe = None

if t.check(mid is not None, "get-metrics mid-run answers"):
    ok, arr = mid.get_array("streams")
    rows = [arr.get_nth(i) for i in range(arr.n_values)] if ok else []
    t.check(mid.get_name() == "gpuprof-metrics"
            and mid.get_value("pipeline") == "pipeline0",
            "a gpuprof-metrics structure of pipeline0")
    t.check(sorted(r.get_value("source_id") for r in rows) == [0, 1, 2, 3],
            "mid-run: 4 streams, source_id 0..3")
    t.check(all(0 < r.get_value("frames") < RATES[r.get_value("source_id")]
                * SECONDS for r in rows), "mid-run: frames still growing")
    ok, els = mid.get_array("elements")
    t.check(ok and els.n_values >= 6, "mid-run: the element table too")

streams = streams_of(os.path.join(d, "run.json"))
t.check(len(streams) == 4, "4 streams in the summary (%s)" % mux_factory)
for i, rate in enumerate(RATES):
    src = "src%d" % i
    r, p = streams.get(src), probes[i]
    if not t.check(r is not None, "%s has a row" % src):
        continue
    truth_fps = (p["n"] - 1) * 1e9 / (p["last"] - p["first"])
    t.check(r["frames"] == p["n"], "%s frames %d == probe %d" %
            (src, r["frames"], p["n"]))
    t.check(abs(r["fps"] - truth_fps) <= 0.03 * truth_fps,
            "%s fps %.2f ~ probe %.2f (set %d)" % (src, r["fps"],
                                                   truth_fps, rate))
    t.check(r["source_id"] == i and r["mux_pad"] == "pipeline0/m:sink_%d" % i,
            "%s source_id %d, mux input %s" % (src, r["source_id"],
                                               r["mux_pad"]))
    t.check(r["delivered"] == p["n"] and r["drops"] == 0,
            "%s all %d delivered, 0 drops" % (src, r["delivered"]))
    t.check(0 < r["latency_p50_ns"] <= r["latency_p99_ns"]
            <= r["latency_max_ns"], "%s latency p50 %d <= p99 %d <= max" %
            (src, r["latency_p50_ns"], r["latency_p99_ns"]))
report = open(os.path.join(d, "report.txt")).read()
t.check("\nStreams (" in report and "pipeline0/m:sink_3" in report,
        "the report has a Streams section")

# ------------------------------------------------------------- run 2
os.remove(os.path.join(d, "run.json"))
N = 60
pipe = Gst.parse_launch(
    "funnel name=f ! fakesink name=sink "
    "videotestsrc name=a is-live=true num-buffers=%d ! "
    "video/x-raw,width=64,height=48,framerate=30/1 ! queue ! "
    "identity sleep-time=15000 ! f.sink_0 "
    "videotestsrc name=b is-live=true num-buffers=%d timestamp-offset=1000 ! "
    "video/x-raw,width=64,height=48,framerate=30/1 ! "
    "queue leaky=downstream max-size-buffers=1 ! identity sleep-time=70000 "
    "! f.sink_1" % (N, N))
srcs = {n: t.source_probe(Gst, pipe.get_by_name(n).get_static_pad("src"))
        for n in ("a", "b")}
arrived = {"a": [], "b": []}


def sink_cb(pad, info):
    now = time.monotonic_ns()
    pts = info.get_buffer().pts
    for n, p in srcs.items():
        if pts in p["pts"]:
            arrived[n].append(now - p["pts"][pts])
    return Gst.PadProbeReturn.OK


pipe.get_by_name("sink").get_static_pad("sink").add_probe(
    Gst.PadProbeType.BUFFER, sink_cb)
t.run_to_eos(Gst, pipe)
pipe = None
streams = streams_of(os.path.join(d, "run.json"))
for n in ("a", "b"):
    r = streams.get(n)
    if not t.check(r is not None, "%s has a row" % n):
        continue
    got = len(arrived[n])
    t.check(r["frames"] == srcs[n]["n"] and r["delivered"] == got,
            "%s frames %d == probe %d, delivered %d == sink probe %d" %
            (n, r["frames"], srcs[n]["n"], r["delivered"], got))
    # the frames after the last delivered one are not known as drops
    t.check(srcs[n]["n"] - got - 2 <= r["drops"] <= srcs[n]["n"] - got,
            "%s drops %d ~ probes' %d" % (n, r["drops"], srcs[n]["n"] - got))
    med = statistics.median(arrived[n]) if arrived[n] else 0
    t.check(abs(r["latency_p50_ns"] - med) <= 0.15 * med + 2e6,
            "%s latency p50 %.1f ms ~ probes' median %.1f ms" %
            (n, r["latency_p50_ns"] / 1e6, med / 1e6))
t.check(streams.get("b", {}).get("drops", 0) > 0,
        "the leaky branch dropped")

# ------------------------------------------------------------- run 3
pipe = Gst.parse_launch("videotestsrc name=c num-buffers=40 ! "
                        "video/x-raw,width=64,height=48 ! queue ! "
                        "fakesink sync=false")
for run in (1, 2):
    os.remove(os.path.join(d, "run.json"))
    t.run_to_eos(Gst, pipe)
    r = streams_of(os.path.join(d, "run.json")).get("c", {})
    t.check(r.get("frames") == 40 and r.get("delivered") == 40
            and r.get("drops") == 0,
            "run %d of one pipeline: frames %s, delivered %s, drops %s" %
            (run, r.get("frames"), r.get("delivered"), r.get("drops")))
pipe = None

# ------------------------------------------------------------- run 4
pipe = Gst.parse_launch("videotestsrc name=e is-live=true num-buffers=90 ! "
                        "video/x-raw,width=64,height=48,framerate=20/1 ! "
                        "fakesink name=sink")
p = t.source_probe(Gst, pipe.get_by_name("e").get_static_pad("src"))
pipe.set_state(Gst.State.PLAYING)
msg = pipe.get_bus().timed_pop_filtered(
    60 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
t.check(msg is not None and msg.type == Gst.MessageType.EOS, "run 4: EOS")


def stream_e():
    m = tracer.emit("get-metrics", None)
    ok, arr = m.get_array("streams") if m else (False, None)
    rows = [arr.get_nth(i) for i in range(arr.n_values)] if ok else []
    return {k: rows[0].get_value(k) for k in ("fps", "fps_recent")} \
        if rows else {}


truth = (p["n"] - 1) * 1e9 / (p["last"] - p["first"])
at_end = stream_e()
t.check(abs(at_end.get("fps_recent", 0) - truth) <= 0.1 * truth,
        "run 4: fps_recent %.2f at its end ~ probe %.2f" %
        (at_end.get("fps_recent", 0), truth))
time.sleep(5.2)
later = stream_e()
t.check(later.get("fps_recent") == 0 and later.get("fps", 0) > 0,
        "run 4: 5 s after its last frame fps_recent %s, fps %s" %
        (later.get("fps_recent"), later.get("fps")))
pipe.set_state(Gst.State.NULL)
pipe = None
t.finish()
