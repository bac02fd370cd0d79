#!/usr/bin/env python3
"""A removed camera's records go even when its bin is destroyed while a
report holds the tracer's report lock (a scrape, a snapshot, an interval
line). The destroying thread never waits for that lock (it is the
application's): it asks for a sweep, and the report's end makes it
(gpuprof-profiler.c, report_unlock). Before, the records stayed until the
next destruction, which after the last camera never comes.

A thread asks for get-metrics without a pause (each holds the report lock
while it snapshots a playing pipeline) while the main thread destroys
camera-like bins, one a round; after each round, with the asking stopped,
the pipeline records must come back to the playing pipeline's own within
2 s. Without the report's sweep a round whose destruction met the lock
held fails; with the asking thread holding it most of the time, 20 rounds
meet it (the rounds that did are counted and printed).
"""
import threading
import time

import livetest as t

ROUNDS = 20

Gst, d = t.start("report=off")
tracer = next(tr for tr in Gst.tracing_get_active_tracers()
              if type(tr).__name__ == "GstGpuprofTracer")


def pipelines():
    return tracer.emit("get-records").get_value("pipelines")


pipe = Gst.parse_launch("videotestsrc is-live=true ! "
                        "video/x-raw,width=16,height=16,framerate=200/1 ! "
                        "identity ! fakesink sync=false")
pipe.set_state(Gst.State.PLAYING)
pipe.get_state(Gst.CLOCK_TIME_NONE)
time.sleep(0.2)
base = pipelines()
t.check(base >= 1, "the playing pipeline has a record (%d)" % base)

failed = 0
asks = [0]
for r in range(ROUNDS):
    stop = threading.Event()

    def ask():
        while not stop.is_set():
            tracer.emit("get-metrics", None)
            asks[0] += 1
    # a top-level bin that changed state has a pipeline record while it
    # lives
    cam = Gst.Bin.new("cam%d" % r)
    cam.add(Gst.ElementFactory.make("identity", None))
    cam.set_state(Gst.State.READY)
    cam.set_state(Gst.State.NULL)
    if pipelines() <= base:
        t.bad("round %d: the bin got no record: the test did not test" % r)
        break
    asker = threading.Thread(target=ask)
    asker.start()
    time.sleep(0.01)
    del cam                     # destroyed here, while get-metrics runs
    stop.set()
    asker.join()
    t0 = time.monotonic()
    while pipelines() > base and time.monotonic() - t0 < 2.0:
        time.sleep(0.01)
    if pipelines() > base:
        failed += 1
print("%d get-metrics in %d rounds" % (asks[0], ROUNDS))
t.check(failed == 0, "records of a bin destroyed during a report swept by "
        "its end: %d of %d rounds left them" % (failed, ROUNDS))
pipe.set_state(Gst.State.NULL)
t.finish()
