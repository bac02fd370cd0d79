#!/usr/bin/env python3
"""Per-stream fps every second, pulled from the gpuprof tracer.

Runs four live test sources at different frame rates into a batching mux
(analyticsmux from examples/analytics when it is on GST_PLUGIN_PATH, else a
funnel) and, once a second, asks the tracer for its figures with the
"get-metrics" action signal (docs/signals.md). Each line is one stream:
its source_id (the mux's sink pad), the frames in the last second and the
tracer's fps over the stream's last 4 whole seconds (fps_recent).

    GST_PLUGIN_PATH=build/tracers:build/examples/analytics \\
        python3 examples/python/stream-fps.py --seconds 5

GST_TRACERS is set to gpuprof(report=off) when the environment has none.
"""
import argparse
import os
import sys
import time

RATES = (10, 15, 25, 30)


def stream_rows(metrics):
    """the "streams" array of a gpuprof-metrics structure, as dicts"""
    ok, arr = metrics.get_array("streams")
    if not ok:
        return []
    rows = []
    for i in range(arr.n_values):
        s = arr.get_nth(i)
        rows.append({k: s.get_value(k) for k in
                     ("source_id", "source", "frames", "fps_recent",
                      "drops", "latency_p50_ns")})
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=5.0,
                    help="how long to run (default 5)")
    args = ap.parse_args()

    os.environ.setdefault("GST_TRACERS", "gpuprof(report=off)")
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import Gst
    # an empty argv, not None: GStreamer 1.28's typelib makes argv
    # non-nullable, and PyGObject without gst-python's overrides refuses None
    Gst.init([])

    tracers = [t for t in Gst.tracing_get_active_tracers()
               if type(t).__name__ == "GstGpuprofTracer"]
    if not tracers:
        sys.exit("no gpuprof tracer: is build/tracers on GST_PLUGIN_PATH "
                 "and GST_TRACERS=gpuprof(...) set?")
    tracer = tracers[0]

    mux = ("analyticsmux name=m batch-size=4 batched-push-timeout=40000"
           if Gst.ElementFactory.find("analyticsmux") else "funnel name=m")
    desc = mux + " ! fakesink sync=false " + " ".join(
        "videotestsrc is-live=true ! video/x-raw,width=64,height=48,"
        "framerate=%d/1 ! queue ! m.sink_%d" % (r, i)
        for i, r in enumerate(RATES))
    pipe = Gst.parse_launch(desc)
    bus = pipe.get_bus()
    pipe.set_state(Gst.State.PLAYING)

    start = time.monotonic()
    last = {}
    failed = False
    while time.monotonic() - start < args.seconds:
        msg = bus.timed_pop_filtered(Gst.SECOND, Gst.MessageType.ERROR)
        if msg:
            print("error: %s" % msg.parse_error()[0].message, file=sys.stderr)
            failed = True
            break
        metrics = tracer.emit("get-metrics", None)
        if metrics is None:
            continue
        t = time.monotonic() - start
        for r in stream_rows(metrics):
            key = r["source_id"]
            print("t=%.1fs source_id=%d %s frames=%d (+%d) fps=%.2f "
                  "drops=%d latency_p50=%.1fms" % (
                      t, key, r["source"], r["frames"],
                      r["frames"] - last.get(key, 0), r["fps_recent"],
                      r["drops"],
                      r["latency_p50_ns"] / 1e6), flush=True)
            last[key] = r["frames"]
    pipe.set_state(Gst.State.NULL)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
