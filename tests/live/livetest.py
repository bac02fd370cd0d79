"""Shared helpers of the live tests (tests/live): a pipeline under
GST_TRACERS=gpuprof(...) built with PyGObject, so the truth (buffers a pad
probe counted) is measured in the same run as the tracer's figures."""
import os
import sys
import tempfile

failures = 0


def ok(msg):
    print("ok: " + msg)


def bad(msg):
    global failures
    failures += 1
    print("FAIL: " + msg)


def check(cond, msg):
    (ok if cond else bad)(msg)
    return cond


def start(params):
    """Sets GST_TRACERS before GStreamer loads; returns (Gst, workdir)."""
    # in a sanitizer build folder the instrumented plugin needs the runtime
    # first in the library list (as tests/fuzz does); Python's own
    # allocations are not ours: no leak check
    preload = os.environ.get("GPUPROF_SANITIZER_PRELOAD")
    if preload and not os.environ.get("GPUPROF_LIVE_PRELOADED"):
        env = dict(os.environ, GPUPROF_LIVE_PRELOADED="1")
        env["LD_PRELOAD"] = ":".join(
            x for x in (preload, env.get("LD_PRELOAD")) if x)
        env["ASAN_OPTIONS"] = ":".join(
            x for x in (env.get("ASAN_OPTIONS"), "detect_leaks=0") if x)
        os.execve(sys.executable, [sys.executable] + sys.argv, env)
    d = tempfile.mkdtemp(prefix="gpuprof-live-")
    os.environ["GST_TRACERS"] = "gpuprof(%s)" % params.format(dir=d)
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import Gst
    # an empty argv, not None: GStreamer 1.28's typelib makes argv
    # non-nullable, and PyGObject without gst-python's overrides refuses None
    Gst.init([])
    if not Gst.ElementFactory.find("videotestsrc"):
        print("skip: no videotestsrc")
        sys.exit(77)
    return Gst, d


def stall_child(desc):
    """A child under stall=1 (no report): returns (Gst, the pipeline of
    desc), not started."""
    Gst, _ = start("stall=1,report=off")
    return Gst, Gst.parse_launch(desc)


def child_env(env):
    """env for a child process loading the plugins: in a sanitizer build
    folder, the runtime preloaded as start() does for this process"""
    preload = env.get("GPUPROF_SANITIZER_PRELOAD")
    if preload:
        env["LD_PRELOAD"] = ":".join(
            x for x in (preload, env.get("LD_PRELOAD")) if x)
        env["ASAN_OPTIONS"] = ":".join(
            x for x in (env.get("ASAN_OPTIONS"), "detect_leaks=0") if x)
    return env


def count_probe(Gst, pad):
    """a list whose first item counts the buffers through pad"""
    n = [0]

    def cb(pad, info):
        n[0] += 1
        return Gst.PadProbeReturn.OK
    pad.add_probe(Gst.PadProbeType.BUFFER, cb)
    return n


def run_to_eos(Gst, pipe, timeout_s=120):
    pipe.set_state(Gst.State.PLAYING)
    msg = pipe.get_bus().timed_pop_filtered(
        timeout_s * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    check(msg is not None and msg.type == Gst.MessageType.EOS, "run to EOS")
    pipe.set_state(Gst.State.NULL)


def converse(argv, answer, limit_s=120):
    """Runs argv (stdin a pipe), reading its stdout and stderr together line
    by line; answer(line) may return text to write to its stdin (the child
    waits on it, so a block lasts until what the test waits for came, not
    a fixed time). The lines, once it ended (killed past limit_s)."""
    import subprocess
    import threading
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, bufsize=1)
    timer = threading.Timer(limit_s, proc.kill)
    timer.start()
    lines = []
    for line in proc.stdout:
        line = line.rstrip("\n")
        lines.append(line)
        reply = answer(line)
        if reply and proc.poll() is None:
            try:
                if callable(reply):
                    reply(proc)
                else:
                    proc.stdin.write(reply)
                    proc.stdin.flush()
            except (BrokenPipeError, ProcessLookupError):
                pass
    proc.wait()
    timer.cancel()
    print("\n".join(lines))
    return lines


def wait_for_parent():
    """In a child of converse(): blocks until the parent answers."""
    return sys.stdin.readline()


def mark(line):
    """In a child: a marker line on stderr, where the parent reads the
    tracer's lines, written at once so the order holds."""
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def index(lines, prefix):
    """the first line starting with prefix, or None"""
    return next((i for i, l in enumerate(lines) if l.startswith(prefix)),
                None)


def stall_lines(lines):
    return [i for i, l in enumerate(lines) if l.startswith("gpuprof: stall:")]


def finish():
    sys.exit(1 if failures else 0)


def source_probe(Gst, pad):
    """frames through a source's src pad: "n", the first and the last push
    (monotonic ns) and each buffer's push time by PTS ("pts")"""
    import time
    seen = {"n": 0, "first": None, "last": None, "pts": {}}

    def cb(pad, info):
        now = time.monotonic_ns()
        seen["n"] += 1
        seen["first"] = seen["first"] or now
        seen["last"] = now
        seen["pts"][info.get_buffer().pts] = now
        return Gst.PadProbeReturn.OK
    pad.add_probe(Gst.PadProbeType.BUFFER, cb)
    return seen


def mux_sources(Gst, rates, seconds):
    """live sources src0.. at rates (fps) for seconds each into a batching
    mux m (analyticsmux; a funnel when that plugin is absent), then
    fakesink "sink": (pipeline, probes of the sources, the mux factory)"""
    factory = "analyticsmux" if Gst.ElementFactory.find("analyticsmux") \
        else "funnel"
    mux = ("analyticsmux name=m batch-size=4 batched-push-timeout=40000"
           if factory == "analyticsmux" else "funnel name=m")
    pipe = Gst.parse_launch(mux + " ! fakesink name=sink " + " ".join(
        "videotestsrc name=src%d is-live=true num-buffers=%d ! "
        "video/x-raw,width=64,height=48,framerate=%d/1 ! queue ! m.sink_%d"
        % (i, r * seconds, r, i) for i, r in enumerate(rates)))
    probes = [source_probe(Gst, pipe.get_by_name("src%d" % i)
                           .get_static_pad("src")) for i in range(len(rates))]
    return pipe, probes, factory


def live_lines(d):
    """the JSON Lines of stats={d}/run.json, or finish() when missing"""
    import json
    jsonl = os.path.join(d, "run-live.jsonl")
    if not check(os.path.exists(jsonl), "run-live.jsonl written"):
        finish()
    return [json.loads(l) for l in open(jsonl)]
