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
- histograms (docs/metrics.md#histograms): per stream latency, per
  aggregator batch latency and fill, per element self time; every series
  has cumulative buckets ending in +Inf == _count; Prometheus computes
  histogram_quantile(0.5, rate(..._bucket[2s])) of each stream's latency;
  after EOS (pipeline still PLAYING) the last scrape's _count and _sum
  equal what pad probes counted: each stream's frames, the batches that
  reached the sink and the frames in them, and Prometheus stored the same
  batch count from its own scrapes;
- a port in use and a bad address give one stderr line naming them, and
  those pipelines still run to the end.

Skips (77) only when prometheus or promtool is missing."""
import json
import os
import re
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


def query(expr):
    """Prometheus' instant query: [(labels, value)]"""
    q = urllib.parse.urlencode({"query": expr})
    try:
        body = json.loads(get(API + "/api/v1/query?" + q, 5)[2])
    except (urllib.error.URLError, OSError, ValueError):
        return []
    return [(r["metric"], float(r["value"][1]))
            for r in body.get("data", {}).get("result", [])]


def fps_series():
    return {int(m["source_id"]): v for m, v in query(
        'fps_metrics{metric_name="stream_fps",job="gpuprof"}')}


HISTOGRAMS = ("gpuprof_stream_latency_seconds",
              "gpuprof_batch_latency_seconds", "gpuprof_batch_fill_frames",
              "gpuprof_element_self_seconds")


def histograms(body):
    """{(family, labels without le): {"buckets": [(le, n)], "sum", "count"}}
    from the exposition text"""
    out = {}
    for line in body.splitlines():
        if line.startswith("#") or "{" not in line:
            continue
        name, rest = line.split("{", 1)
        labels, value = rest.rsplit("} ", 1)
        for fam in HISTOGRAMS:
            if not name.startswith(fam) or name[len(fam):] not in (
                    "_bucket", "_sum", "_count"):
                continue
            pairs = re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', labels)
            le = [v for k, v in pairs if k == "le"]
            key = (fam, ",".join('%s="%s"' % (k, v) for k, v in pairs
                                 if k != "le"))
            h = out.setdefault(key, {"buckets": []})
            if le:
                h["buckets"].append((le[0], float(value)))
            else:
                h[name[len(fam) + 1:]] = float(value)
    return out


def check_histograms(body, when):
    hs = histograms(body)
    for fam in HISTOGRAMS:
        t.check("\n# TYPE %s histogram\n" % fam in "\n" + body and
                any(k[0] == fam for k in hs), "%s: histogram %s" % (when, fam))
    good = all(
        h["buckets"] and h["buckets"][-1][0] == "+Inf"
        and h["buckets"][-1][1] == h.get("count")
        and all(a[1] <= b[1] for a, b in zip(h["buckets"], h["buckets"][1:]))
        and all(float(a[0]) < float(b[0])
                for a, b in zip(h["buckets"], h["buckets"][1:-1]))
        for h in hs.values())
    t.check(good, "%s: %d histogram series, buckets cumulative, +Inf == "
            "_count" % (when, len(hs)))
    return hs


def one(hs, fam, label):
    """the series of fam whose labels hold label"""
    got = [h for k, h in hs.items() if k[0] == fam and label in k[1]]
    return got[0] if len(got) == 1 else {}


# ------------------------------------------------------------ pipeline
mux = ("analyticsmux name=m batch-size=4 batched-push-timeout=40000"
       if Gst.ElementFactory.find("analyticsmux") else "funnel name=m")
pipe = Gst.parse_launch(mux + " ! fakesink name=sink " + " ".join(
    "videotestsrc name=src%d is-live=true ! video/x-raw,width=64,height=48,"
    "framerate=%d/1 ! queue ! m.sink_%d" % (i, r, i)
    for i, r in enumerate(RATES)))
eos = False
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
batches = t.count_probe(Gst, pipe.get_by_name("sink").get_static_pad("sink"))
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
                "gpuprof_stream_dropped_total",
                "gpuprof_tracer_overhead_seconds_total"):
        t.check("\n# TYPE %s " % fam in "\n" + body, "family %s" % fam)
    for i in range(4):
        t.check('metric_name="stream_fps",source_id="%d",' % i in body,
                "stream_fps of source_id %d" % i)
    # the ranked verdict: what limits (rank 1) and the runner-up, no more;
    # live cameras into the mux: nothing inside limits, a pacer does
    lims = re.findall(r'^gpuprof_limit\{pipeline="[^"]+",rank="(\d)",'
                      r'kind="([a-z]+)",what="([^"]+)"\} ([0-9.e+-]+)$',
                      body, re.M)
    heads = re.findall(r'^gpuprof_limit_headroom_ratio\{[^}]*rank="1"'
                       r'[^}]*\} ([0-9.e+-]+)$', body, re.M)
    t.check(sorted(r for r, k, w, v in lims) == ["1", "2"]
            and [k for r, k, w, v in lims if r == "1"][0] in ("input", "clock")
            and len(heads) == 1 and float(heads[0]) > 1,
            "gpuprof_limit: ranks 1 and 2, paced by the input or the clock, "
            "headroom > 1: %s, headroom %s" % (lims, heads))
    path = os.path.join(d, "metrics.txt")
    open(path, "w").write(body)
    lint = subprocess.run([PROMTOOL, "check", "metrics"], stdin=open(path),
                          capture_output=True, text=True)
    t.check(lint.returncode == 0, "promtool check metrics accepts it %s" %
            (lint.stdout + lint.stderr).strip())
    check_histograms(body, "mid-run")
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

    # Prometheus' quantile of each stream's latency from the buckets
    # (rate needs two of its scrapes in the window: waited for)
    deadline = time.monotonic() + 60
    while True:
        q = query("histogram_quantile(0.5, rate(gpuprof_stream_latency_"
                  "seconds_bucket{job=\"gpuprof\"}[1m]))")
        if len(q) == 4 or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    t.check(sorted(int(m["source_id"]) for m, v in q) == [0, 1, 2, 3]
            and all(0 < v < 17.2 for m, v in q),
            "Prometheus: histogram_quantile(0.5) of each stream's latency "
            "%s" % sorted((m["source_id"], v) for m, v in q))

    # after EOS (still PLAYING): the figures stop; the last scrape against
    # the probes, exactly
    pipe.send_event(Gst.Event.new_eos())
    msg = bus.timed_pop_filtered(30 * Gst.SECOND,
                                 Gst.MessageType.EOS | Gst.MessageType.ERROR)
    eos = msg is not None and msg.type == Gst.MessageType.EOS
    t.check(eos, "EOS")
    hs = check_histograms(get(URL)[2], "after EOS")
    for i in range(4):
        h = one(hs, "gpuprof_stream_latency_seconds", 'source_id="%d"' % i)
        t.check(h.get("count") == probes[i]["n"],
                "source_id %d: stream latency _count %s == %d frames pushed"
                % (i, h.get("count"), probes[i]["n"]))
    frames = sum(p["n"] for p in probes)
    for fam, want in (("gpuprof_batch_latency_seconds", batches[0]),
                      ("gpuprof_batch_fill_frames", batches[0])):
        h = one(hs, fam, 'aggregator="pipeline0/m"')
        t.check(h.get("count") == want, "%s _count %s == %d batches at the "
                "sink" % (fam, h.get("count"), want))
    h = one(hs, "gpuprof_batch_fill_frames", 'aggregator="pipeline0/m"')
    t.check(h.get("sum") == frames, "batch fill _sum %s == %d frames"
            % (h.get("sum"), frames))
    # and Prometheus stored that count from its own scrapes
    deadline = time.monotonic() + 30
    while True:
        got = query('gpuprof_batch_fill_frames_count{job="gpuprof"}')
        if (got and got[0][1] == batches[0]) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    t.check(len(got) == 1 and got[0][1] == batches[0],
            "Prometheus: gpuprof_batch_fill_frames_count %s == %d" %
            (got, batches[0]))
finally:
    if not eos:
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
