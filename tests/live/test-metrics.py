#!/usr/bin/env python3
"""metrics=127.0.0.1:PORT while four live sources (10/15/25/30 fps) run
into a batching mux:

- a real HTTP client (urllib) gets /metrics mid-run: 200, the 0.0.4 text
  type, DeepStream's per-stream families for source_id 0..3 and ours;
  `promtool check metrics` accepts the body; other paths give 404;
- a real Prometheus server (Debian's prometheus) scrapes it every 0.5 s;
  its HTTP API /api/v1/query returns the fps_metrics series of the four
  streams (fps over the last 4 s), each within 10 % of the rate a pad
  probe measured this run once the streams ran that long;
- a port in use and a bad address give one stderr line naming them, and
  those pipelines still run to the end.

Skips (77) only when prometheus or promtool is missing."""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

PROMETHEUS = shutil.which("prometheus")
PROMTOOL = shutil.which("promtool")
if not PROMETHEUS or not PROMTOOL:
    print("skip: prometheus or promtool missing (Debian package prometheus; "
          "tools/dev-setup.sh installs it)")
    sys.exit(77)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


PORT = free_port()

import livetest as t  # noqa: E402  (GST_TRACERS before GStreamer loads)

Gst, d = t.start("report=off,metrics=127.0.0.1:%d" % PORT)
RATES = (10, 15, 25, 30)
URL = "http://127.0.0.1:%d/metrics" % PORT


def get(url, timeout=10):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status, r.headers.get("Content-Type"), r.read().decode()


# ----------------------------------------------------------- Prometheus
web_port = free_port()
store = tempfile.mkdtemp(prefix="gpuprof-prom-")
config = os.path.join(store, "prometheus.yml")
with open(config, "w") as f:
    f.write("global:\n  scrape_interval: 500ms\n  scrape_timeout: 400ms\n"
            "scrape_configs:\n  - job_name: gpuprof\n    static_configs:\n"
            "      - targets: ['127.0.0.1:%d']\n" % PORT)
prom_log = open(os.path.join(store, "prometheus.log"), "w")
prom = subprocess.Popen(
    [PROMETHEUS, "--config.file=" + config,
     "--storage.tsdb.path=" + os.path.join(store, "data"),
     "--web.listen-address=127.0.0.1:%d" % web_port],
    stdout=prom_log, stderr=subprocess.STDOUT)
API = "http://127.0.0.1:%d" % web_port


def prom_ready(deadline):
    while time.monotonic() < deadline and prom.poll() is None:
        try:
            if get(API + "/-/ready", 2)[0] == 200:
                return True
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.2)
    return False


def fps_series():
    q = urllib.parse.urlencode(
        {"query": 'fps_metrics{metric_name="stream_fps",job="gpuprof"}'})
    try:
        body = json.loads(get(API + "/api/v1/query?" + q, 5)[2])
    except (urllib.error.URLError, OSError, ValueError):
        return {}
    return {int(r["metric"]["source_id"]): float(r["value"][1])
            for r in body.get("data", {}).get("result", [])}


# ------------------------------------------------------------ pipeline
mux = ("analyticsmux name=m batch-size=4 batched-push-timeout=40000"
       if Gst.ElementFactory.find("analyticsmux") else "funnel name=m")
pipe = Gst.parse_launch(mux + " ! fakesink " + " ".join(
    "videotestsrc name=src%d is-live=true ! video/x-raw,width=64,height=48,"
    "framerate=%d/1 ! queue ! m.sink_%d" % (i, r, i)
    for i, r in enumerate(RATES)))
probes = []
for i in range(len(RATES)):
    seen = {"n": 0, "first": 0, "last": 0}

    def cb(pad, info, seen=seen):
        now = time.monotonic_ns()
        seen["n"] += 1
        seen["first"] = seen["first"] or now
        seen["last"] = now
        return Gst.PadProbeReturn.OK
    pipe.get_by_name("src%d" % i).get_static_pad("src").add_probe(
        Gst.PadProbeType.BUFFER, cb)
    probes.append(seen)
pipe.set_state(Gst.State.PLAYING)
bus = pipe.get_bus()
try:
    t.check(prom_ready(time.monotonic() + 60), "prometheus is ready")
    time.sleep(1.0)

    status, ctype, body = get(URL)
    t.check(status == 200 and ctype.startswith("text/plain; version=0.0.4"),
            "GET /metrics: %s %s" % (status, ctype))
    for fam in ("fps_metrics", "latency_metrics", "frame_number_metrics",
                "gpuprof_element_work_seconds_total",
                "gpuprof_element_wait_input_seconds_total",
                "gpuprof_element_blocked_seconds_total",
                "gpuprof_queue_max_level_buffers", "gpuprof_batches_total",
                "gpuprof_stream_dropped_total"):
        t.check("\n# TYPE %s " % fam in "\n" + body, "family %s" % fam)
    for i in range(4):
        t.check('metric_name="stream_fps",source_id="%d",' % i in body,
                "stream_fps of source_id %d" % i)
    path = os.path.join(d, "metrics.txt")
    open(path, "w").write(body)
    lint = subprocess.run([PROMTOOL, "check", "metrics"], stdin=open(path),
                          capture_output=True, text=True)
    t.check(lint.returncode == 0, "promtool check metrics accepts it %s" %
            (lint.stdout + lint.stderr).strip())
    try:
        get("http://127.0.0.1:%d/other" % PORT)
        t.bad("/other answered 200")
    except urllib.error.HTTPError as e:
        t.check(e.code == 404, "/other: 404")

    # the series Prometheus stored from its own scrapes: the fps over the
    # last 4 s, close to the probes' once the stream ran that long
    def truth(i):
        p = probes[i]
        return (p["n"] - 1) * 1e9 / max(1, p["last"] - p["first"])

    def close(series):
        return sorted(series) == [0, 1, 2, 3] and all(
            abs(series[i] - truth(i)) <= 0.1 * truth(i) for i in series)
    series = {}
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not close(series):
        time.sleep(0.5)
        series = fps_series()
    t.check(sorted(series) == [0, 1, 2, 3],
            "Prometheus has fps_metrics for source_id %s" % sorted(series))
    for i, rate in enumerate(RATES):
        got = series.get(i, 0)
        t.check(abs(got - truth(i)) <= 0.1 * truth(i),
                "source_id %d: Prometheus fps %.2f ~ probe %.2f (set %d)"
                % (i, got, truth(i), rate))
    msg = bus.pop_filtered(Gst.MessageType.ERROR)
    t.check(msg is None, "no pipeline error")
finally:
    pipe.send_event(Gst.Event.new_eos())
    bus.timed_pop_filtered(30 * Gst.SECOND,
                           Gst.MessageType.EOS | Gst.MessageType.ERROR)
    pipe.set_state(Gst.State.NULL)
    prom.terminate()
    try:
        prom.wait(20)
    except subprocess.TimeoutExpired:
        prom.kill()
    prom_log.close()
    if t.failures:
        print(open(os.path.join(store, "prometheus.log")).read()[-3000:])
    shutil.rmtree(store, ignore_errors=True)

# --------------------------------------- port in use, bad address
busy = socket.socket()
busy.bind(("127.0.0.1", 0))
busy.listen(1)
busy_port = busy.getsockname()[1]
for spec, what in (("127.0.0.1:%d" % busy_port, "port in use"),
                   ("nohost:port", "bad address")):
    env = dict(os.environ, GST_TRACERS="gpuprof(report=off,metrics=%s)" % spec)
    r = subprocess.run(
        ["gst-launch-1.0", "-q", "videotestsrc", "num-buffers=20", "!",
         "fakesink"], env=env, capture_output=True, text=True, timeout=120)
    lines = [l for l in r.stderr.splitlines() if "metrics=" in l]
    t.check(r.returncode == 0, "%s: the pipeline ran to the end" % what)
    t.check(len(lines) == 1 and spec in lines[0]
            and "HOST:PORT" in lines[0],
            "%s: one line naming it and the valid form: %s" % (what, lines))
busy.close()
t.finish()
