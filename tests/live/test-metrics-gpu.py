#!/usr/bin/env python3
"""GPU seconds per element on the metrics= endpoint, with the fake
libcupti (tests/gpu/fake-cupti.c): a probe inside identity's chain call
launches one 200 us kernel per buffer; each scrape's
gpuprof_element_gpu_seconds_total of that element is a whole number of
those kernels, no more than the probe launched by then, and, once the
source stopped, exactly all of them (waited for, no time bound). The
get-metrics action signal carries the same figure in its gpu_elements
array, mid-run and after the run."""
import ctypes
import os
import socket
import sys
import time
import urllib.request

fake = os.environ.get("FAKE_CUPTI_PATH")
if not fake:
    print("skip: no fake libcupti (built without CUPTI headers)")
    sys.exit(77)
s = socket.socket()
s.bind(("127.0.0.1", 0))
PORT = s.getsockname()[1]
s.close()

import livetest as t  # noqa: E402  (GST_TRACERS before GStreamer loads)

Gst, d = t.start("cupti=on,cupti-lib=%s,report=off,metrics=127.0.0.1:%d"
                 % (fake, PORT))
lib = ctypes.CDLL(fake)
lib.fake_cupti_launch.argtypes = [ctypes.c_int, ctypes.c_char_p,
                                  ctypes.c_uint64, ctypes.c_uint64]
lib.fake_cupti_launch.restype = ctypes.c_uint32
KERNEL_NS = 200000
NAME = 'gpuprof_element_gpu_seconds_total{pipeline="pipeline0",' \
    'element="pipeline0/work"} '

pipe = Gst.parse_launch(
    "videotestsrc is-live=true num-buffers=60 ! video/x-raw,width=32,"
    "height=32,framerate=30/1 ! identity name=work ! fakesink")
launched = [0]


def cb(pad, info):
    lib.fake_cupti_launch(0, b"k_work", KERNEL_NS, 0)
    launched[0] += 1
    return Gst.PadProbeReturn.OK


pipe.get_by_name("work").get_static_pad("src").add_probe(
    Gst.PadProbeType.BUFFER, cb)


def gpu_kernels():
    """the scraped GPU time of work, in kernels, and the probe's count"""
    body = urllib.request.urlopen(
        "http://127.0.0.1:%d/metrics" % PORT, timeout=10).read().decode()
    n = launched[0]
    v = [float(l[len(NAME):]) for l in body.splitlines() if l.startswith(NAME)]
    return (v[0] * 1e9 / KERNEL_NS if v else None), n


tracer = [x for x in Gst.tracing_get_active_tracers()
          if type(x).__name__ == "GstGpuprofTracer"][0]


def signal_kernels():
    """work's gpu_ns in get-metrics' gpu_elements, in kernels, and the
    probe's count; None when the array or the row is missing"""
    m = tracer.emit("get-metrics", "pipeline0")
    n = launched[0]
    found, rows = m.get_array("gpu_elements") if m else (False, None)
    for i in range(rows.n_values if found else 0):
        r = rows.get_nth(i)
        if r.get_value("path") == "pipeline0/work":
            return r.get_value("gpu_ns") / KERNEL_NS, n
    return None, n


pipe.set_state(Gst.State.PLAYING)
bus = pipe.get_bus()
msg = bus.timed_pop_filtered(Gst.SECOND, Gst.MessageType.ERROR)
k, n = gpu_kernels()
t.check(k is not None and abs(k - round(k)) < 1e-6 and 0 < round(k) <= n,
        "mid-run: %s kernels of work scraped, %d launched" % (k, n))
k, n = signal_kernels()
t.check(k is not None and abs(k - round(k)) < 1e-6 and 0 < round(k) <= n,
        "mid-run: get-metrics gpu_elements has %s kernels of work, %d "
        "launched" % (k, n))
msg = bus.timed_pop_filtered(60 * Gst.SECOND,
                             Gst.MessageType.EOS | Gst.MessageType.ERROR)
t.check(msg is not None and msg.type == Gst.MessageType.EOS, "EOS")
deadline = time.monotonic() + 30
while True:
    k, n = gpu_kernels()
    if (k is not None and round(k) == n) or time.monotonic() > deadline:
        break
    time.sleep(0.2)
t.check(k is not None and abs(k - n) < 1e-6 and n == 60,
        "after the run: %s kernels scraped == %d launched" % (k, n))
k, n = signal_kernels()
t.check(k is not None and abs(k - n) < 1e-6,
        "after the run: get-metrics gpu_elements has %s kernels == %d "
        "launched" % (k, n))
pipe.set_state(Gst.State.NULL)
t.finish()
