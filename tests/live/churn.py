#!/usr/bin/env python3
"""Camera churn, as a service with a REST-driven source bin does it: K live
cameras stay, and N more are added and removed one after the other on a
funnel while the pipeline plays. Each added camera is a bin (a live
videotestsrc and a capsfilter) that runs until two of its buffers reached
the funnel, then is stopped, unlinked and removed; the last --keep removed
ones stay referenced (alive, in no pipeline), as by an application that
keeps its camera objects.

Prints one line per checkpoint (after --at cycles; 0: before the first):
  cycle=N rss_kb=R series=S records=E/P/L records_wait_s=W
rss from /proc/self/status, series the sample lines of one scrape of the
metrics= endpoint (removed_series: of the gpuprof_removed_* families,
gone_series: naming a removed camera, "/cam"), records what get-records
says the tracer keeps (elements/pads/pipelines), read again for up to 5 s
(W) until only pipeline0, the live cameras' bins and the cameras held
keep a pipeline record. Then the buffers the removed
cameras sent (their probes' truth) and, after the pipeline stopped, the
report between REPORT markers, its line count and the summary's path:
  removed_buffers=N  REPORT>>> ... <<<REPORT  report_lines=N  summary=PATH

  churn.py [--cycles N] [--live K] [--at 0,200,1000] [--keep 3] [--untraced]
           [--params 'interval=1,...'] [--dir DIR]

Used by tests/live/test-churn.py (asserts) and bench/source-churn.sh
(figures for docs/benchmarks.md)."""
import argparse
import os
import re
import socket
import sys
import threading
import time
import urllib.request

import livetest as t


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def rss_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def scrape(port):
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port,
                                timeout=10) as r:
        body = r.read().decode()
    return [ln for ln in body.splitlines() if ln and not ln.startswith("#")]


CAMERA = ("videotestsrc name=src is-live=true pattern=black ! "
          "capsfilter name=caps "
          "caps=video/x-raw,format=GRAY8,width=16,height=16,"
          "framerate=200/1")


class Churn:
    def __init__(self, Gst, live):
        self.Gst = Gst
        self.pipe = Gst.Pipeline.new("pipeline0")
        self.funnel = Gst.ElementFactory.make("funnel", "f")
        sink = Gst.ElementFactory.make("fakesink", "sink")
        sink.set_property("sync", False)
        sink.set_property("enable-last-sample", False)
        self.pipe.add(self.funnel)
        self.pipe.add(sink)
        self.funnel.link(sink)
        # the live cameras' flow events: the first checkpoint waits for
        # them (its series are theirs; on a loaded machine the pipeline
        # may not have streamed yet)
        self.live_flowed = [self.add_camera("live%d" % i)[2]
                            for i in range(live)]

    def add_camera(self, name):
        """a camera bin linked to a new funnel pad; returns (bin, pad,
        event set once two buffers left the camera)"""
        Gst = self.Gst
        cam = Gst.parse_bin_from_description(CAMERA, True)
        cam.set_name(name)
        self.pipe.add(cam)
        fpad = self.funnel.request_pad_simple("sink_%u")
        src = cam.get_static_pad("src")
        src.link(fpad)
        seen = [0]
        flowed = threading.Event()

        def probe(pad, info):
            seen[0] += 1
            if seen[0] >= 2:
                flowed.set()
            return Gst.PadProbeReturn.OK
        # on the capsfilter's sink pad, after its own checks: the buffers
        # that crossed from the source
        cam.get_by_name("caps").get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, probe)
        cam.sync_state_with_parent()
        return cam, fpad, flowed, seen

    def remove_camera(self, cam, fpad):
        Gst = self.Gst
        # locked first, so the pipeline's own state changes leave it
        # stopped; its source first, so no buffer meets a capsfilter
        # stopping (counted on both sides: docs/tracer.md)
        cam.set_locked_state(True)
        cam.get_by_name("src").set_state(Gst.State.NULL)
        cam.set_state(Gst.State.NULL)
        src = cam.get_static_pad("src")
        src.unlink(fpad)
        self.pipe.remove(cam)
        self.funnel.release_request_pad(fpad)
        # as an application's bus watch would: the messages (state changes,
        # stream status) hold references to the camera's elements
        bus = self.pipe.get_bus()
        while True:
            msg = bus.pop()
            if msg is None:
                break
            if msg.type == Gst.MessageType.ERROR:
                raise RuntimeError(msg.parse_error()[0].message)


def get_records(Gst):
    """(elements, pads, pipelines) the tracer keeps (get-records), or None"""
    for tr in Gst.tracing_get_active_tracers():
        if type(tr).__name__ != "GstGpuprofTracer":
            continue
        s = tr.emit("get-records")
        if s:
            return (s.get_value("elements"), s.get_value("pads"),
                    s.get_value("pipelines"))
    return None


def records(Gst, pipelines_max, limit_s=5.0):
    """get-records as 'E/P/L' (or '-') and the seconds waited: a removed
    camera's records go when its bin is destroyed, or when the report,
    snapshot or scrape under way then ends; read again until at most
    PIPELINES_MAX pipelines are kept, LIMIT_S at the most"""
    t0 = time.monotonic()
    while True:
        r = get_records(Gst)
        if r is None:
            return "-", 0.0
        waited = time.monotonic() - t0
        if r[2] <= pipelines_max or waited >= limit_s:
            return "%d/%d/%d" % r, waited
        time.sleep(0.05)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cycles", type=int, default=1000)
    ap.add_argument("--live", type=int, default=2)
    ap.add_argument("--at", default="0,200,1000")
    ap.add_argument("--keep", type=int, default=3)
    ap.add_argument("--untraced", action="store_true")
    ap.add_argument("--params", default="interval=1")
    ap.add_argument("--dir", default=None)
    a = ap.parse_args()
    at = sorted(int(x) for x in a.at.split(","))
    port = free_port()
    d = a.dir
    if a.untraced:
        os.environ["GST_TRACERS"] = ""
        import gi
        gi.require_version("Gst", "1.0")
        from gi.repository import Gst
        Gst.init([])
    else:
        params = ",".join(x for x in (
            a.params, "metrics=127.0.0.1:%d" % port,
            "report={dir}/report.txt", "stats={dir}/summary.json") if x)
        Gst, d = t.start(params)
    ch = Churn(Gst, a.live)
    if ch.pipe.set_state(Gst.State.PLAYING) == Gst.StateChangeReturn.FAILURE:
        print("FAIL: cannot play")
        return 1
    for flowed in ch.live_flowed:
        if not flowed.wait(20):
            print("FAIL: a live camera sent no buffer in 20 s")
            return 1
    t0 = time.monotonic()
    removed_buffers = 0
    kept = []
    for cycle in range(0, a.cycles + 1):
        if cycle:
            cam, fpad, flowed, seen = ch.add_camera("cam%d" % cycle)
            if not flowed.wait(20):
                print("FAIL: camera %d sent no buffer in 20 s" % cycle)
                return 1
            ch.remove_camera(cam, fpad)
            removed_buffers += seen[0]
            # an application may hold on to cameras it took out (to add
            # them again): alive, stopped, in no pipeline
            kept = (kept + [cam])[-a.keep:] if a.keep else []
            del cam, fpad
        if cycle in at:
            lines = scrape(port) if not a.untraced else []
            # pipeline0, the live cameras' bins (top-level when made)
            # and the removed cameras held
            recs, waited = records(Gst, 1 + a.live + len(kept))
            print("cycle=%d rss_kb=%d series=%d removed_series=%d "
                  "gone_series=%d records=%s records_wait_s=%.2f "
                  "elapsed_s=%.1f"
                  % (cycle, rss_kb(), len(lines),
                     sum(ln.startswith("gpuprof_removed_") for ln in lines),
                     sum("/cam" in ln for ln in lines), recs, waited,
                     time.monotonic() - t0), flush=True)
    # buffers the removed cameras' sources sent (a probe on each one's
    # capsfilter's sink pad)
    print("removed_buffers=%d" % removed_buffers)
    # a stall line would come within 2 s of a removal
    time.sleep(2.5)
    ch.pipe.set_state(Gst.State.NULL)
    if not a.untraced:
        with open(os.path.join(d, "report.txt")) as f:
            report = f.read()
        print("REPORT>>>\n" + report + "<<<REPORT")
        print("report_lines=%d" % len(report.splitlines()))
        print("summary=%s" % os.path.join(d, "summary.json"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
