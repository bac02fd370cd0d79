#!/usr/bin/env python3
"""gpuprof pipeline fuzzer: seeded random pipelines and scenarios, each run
untraced and under GST_TRACERS=gpuprof(...), the tracer's outputs checked
against the truth that runner.py counts with pad probes in the same run.

    fuzz.py --cases N --seed S [--jobs J] [--only I,J] [--keep DIR]
            [--known-failures FILE] [--list] [--steady]
            [--baseline always|on-doubt] [--runner-timeout S]
    fuzz.py --case JSON          (one case of your own)

The verdict compares the traced run with the untraced run of the same case
on the same machine: a hang, a crash or an ending that the untraced run
shows too is GStreamer's own (reported with its reproducer, not a failure);
a case fails only for what the tracer changed (docs/testing.md).

Environment: GST_PLUGIN_PATH must reach the gpuprof tracer (the build's
tracers/ folder; examples/analytics is added when found beside it),
GST_REGISTRY_1_0 should be private, GPUPROF_TEST_CLIP names the H.264 clip
(its shapes are left out without it), CHECK_TRACE the trace checker
(tests/trace/check-trace.sh by default), GPUPROF_FUZZ_PYTHON a Python with
PyGObject for the runner (else this one or /usr/bin/python3).

Exit status: 0 every check passed (or failed as listed in the known-failures
file; GStreamer's own cases included), 1 a check failed, 2 usage or set-up
error, 77 no PyGObject (skip).
"""
import argparse
import concurrent.futures
import csv
import fnmatch
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "runner.py")
CHECKS = ("runner", "scenario", "exit", "hang", "crash", "reports", "names",
          "counts", "queues", "parse")
RUNNER_TIMEOUT = 20         # seconds: the runner's own hang limit
HARD_TIMEOUT = 60           # seconds: kill a runner that ignores its own
RERUNS = 3                  # untraced reruns when only the traced run differs


# ---- generator ------------------------------------------------------------
class Gen:
    """Builds one case from its own random stream: (seed, index) alone
    decide it, so `--seed S --only I` gives the same case again."""

    def __init__(self, seed, index, clip, analytics, steady=False):
        self.r = random.Random("%d:%d" % (seed, index))
        self.index = index
        self.plan = Plan(seed)
        self.clip = clip
        self.analytics = analytics
        self.steady = steady
        self.n = 0
        # the scenario acts on the running stream and then ends it: no
        # sink that stops early, the clip played in real time
        self.acts = False
        self.bounded = False    # the source is the clip (300 frames)
        self.live = False

    def name(self, prefix):
        self.n += 1
        return "%s%d" % (prefix, self.n)

    # sources: (description, media kind)
    def video_src(self, n, live=False, fmt="I420"):
        r = self.r
        w, h = r.choice([(64, 48), (160, 120), (320, 240)])
        fps = 30 if live else r.choice([30, 120, 1000])
        return ("videotestsrc num-buffers=%d%s ! video/x-raw,format=%s,"
                "width=%d,height=%d,framerate=%d/1"
                % (n, " is-live=true" if live else "", fmt, w, h, fps))

    def audio_src(self, n, live=False):
        return ("audiotestsrc num-buffers=%d samplesperbuffer=%d%s"
                " ! audio/x-raw,rate=48000,channels=1"
                % (n, self.r.choice([240, 480, 960]),
                   " is-live=true" if live else ""))

    def fake_src(self, n, live=False):
        return ("fakesrc num-buffers=%d sizetype=fixed sizemax=%d%s"
                % (n, self.r.choice([16, 1024]),
                   " is-live=true" if live else ""))

    def source(self, n, live):
        kind = self.r.choice(["video", "audio", "fake"])
        return getattr(self, kind + "_src")(n, live), kind

    def filters(self, kind, most=3, error_after=0):
        r = self.r
        opts = ["identity", "queue", "queue2", "valve drop=false",
                "queue max-size-buffers=2 leaky=downstream",
                "queue max-size-buffers=1 leaky=upstream",
                "identity sleep-time=2000",
                "bin.( name=%s identity ! queue )"]
        if kind == "video":
            opts += ["videoconvert", "capsfilter caps=video/x-raw"]
        elif kind == "audio":
            opts += ["audioconvert"]
        out = [r.choice(opts) for _ in range(r.randint(0, most))]
        if self.acts and (self.bounded or not self.live):
            # a leak lets a source that is not live run ahead of a real-time
            # sink: the clip could end before the action, a long source's
            # timestamps jump ahead by minutes that a sync=true sink waits
            # for (the end would come after the hang limit, or not)
            out = [o for o in out if "leaky" not in o]
        # each bin its own name: two of one name do not parse
        out = [o % self.name("b") if "%s" in o else o for o in out]
        if error_after:
            # before any leaky queue: every source pushes at least
            # error_after buffers, and all of them must reach the error
            # (a leak in front of it would make the error depend on the
            # machine's speed)
            leak = [i for i, o in enumerate(out) if "leaky" in o]
            out.insert(r.randint(0, leak[0] if leak else len(out)),
                       "identity error-after=%d" % error_after)
        return out

    def sink(self, early=False, name=None, sync=None):
        # sync None: either; the 10 s clip plays in real time (sync=true)
        # only in scenarios that end it themselves
        r = self.r
        s = "fakesink sync=%s" % (r.choice(["true", "false"]) if sync is None
                                  else str(bool(sync)).lower())
        # a sink that stops early would end the stream before the action
        early = early and not self.acts
        if early:
            s += " num-buffers=%d" % r.randint(1, 3)
        if name:
            s += " name=" + name
        return s

    def chain(self, parts):
        return " ! ".join(p for p in parts if p)

    # shapes: each returns (description, scenarios it supports)
    def shape_linear(self, n, live, err):
        src, kind = self.source(n, live)
        # a sink that stops early races an error further up: no case
        # whose outcome depends on thread timing (the random number is
        # drawn either way, so the rest of the case stays the same)
        filters = self.filters(kind, 4, err)
        early = self.r.random() < 0.15 and not err
        return self.chain([src] + filters + [self.sink(early)]), []

    def shape_tee(self, n, live, err):
        src, kind = self.source(n, live)
        head = self.chain([src] + self.filters(kind, 1, err) +
                          ["tee name=t allow-not-linked=true"])
        branches = []
        for i in range(self.r.randint(1, 3)):
            branches.append("t. ! " + self.chain(
                ["queue"] + self.filters(kind, 2) + [self.sink()]))
        # a plain last branch that remove-branch can take away
        branches.append("t. ! queue name=rmq ! " + self.sink(name="rms"))
        return " ".join([head] + branches), ["add-branch", "remove-branch"]

    def shape_funnel(self, n, live, err):
        srcs = ["%s ! f." % self.fake_src(n, live)
                for _ in range(self.r.randint(1, 3))]
        return (self.chain(["funnel name=f"] + self.filters("fake", 2, err) +
                           [self.sink()]) + " " + " ".join(srcs),
                ["add-source"])

    @staticmethod
    def error_first(srcs, err):
        # how many buffers an aggregator makes of its inputs depends on
        # timestamps and, live, on timing: the error goes on an input
        if err:
            head, tail = srcs[0].rsplit(" ! ", 1)
            srcs[0] = "%s ! identity error-after=%d ! %s" % (head, err, tail)
        return srcs

    def shape_compositor(self, n, live, err):
        srcs = self.error_first(["%s ! m." % self.video_src(n, live)
                                 for _ in range(self.r.randint(1, 3))], err)
        return (self.chain(["compositor name=m", "videoconvert"] +
                           self.filters("video", 1) + [self.sink()]) +
                " " + " ".join(srcs), [])

    def shape_audiomixer(self, n, live, err):
        srcs = self.error_first(["%s ! m." % self.audio_src(n, live)
                                 for _ in range(self.r.randint(1, 3))], err)
        return (self.chain(["audiomixer name=m"] +
                           self.filters("audio", 1) + [self.sink()]) +
                " " + " ".join(srcs), [])

    def shape_analyticsmux(self, n, live, err):
        k = self.r.randint(1, 3)
        srcs = self.error_first(["%s ! m.sink_%d" % (self.video_src(n, live),
                                                    i) for i in range(k)],
                                err)
        return (self.chain(["analyticsmux name=m batch-size=%d width=64 "
                            "height=48" % self.r.randint(1, 4)] +
                           self.filters("video", 1) + [self.sink()]) +
                " " + " ".join(srcs), [])

    def shape_multiqueue(self, n, live, err):
        k = self.r.randint(2, 3)
        parts = ["multiqueue name=mq"]
        for i in range(k):
            src, kind = self.source(n, live)
            parts.append("%s ! mq.sink_%d" % (src, i))
            parts.append("mq.src_%d ! %s" % (i, self.chain(
                self.filters(kind, 1, err if i == 0 else 0) +
                [self.sink()])))
        return " ".join(parts), []

    def shape_lists(self, n, live, err):
        # rtpvrawpay pushes buffer lists; identity has no chain-list
        # function (GStreamer splits the lists), queue has one
        after = self.r.choice(["identity", "queue", "rtpvrawdepay",
                               "queue ! identity"])
        return self.chain([self.video_src(n, live, "RGB"),
                           "rtpvrawpay mtu=%d" % self.r.choice([200, 600,
                                                                1400]),
                           after] + self.filters("", 1, err) +
                          [self.sink()]), []

    def shape_pull(self, n, live, err):
        r = self.r
        if self.clip and r.random() < 0.5:
            self.bounded = True
            loc = "filesrc location=%s" % shlex.quote(self.clip)
            return r.choice([
                "%s ! qtdemux ! %s" % (loc, self.chain(
                    ["h264parse"] + self.filters("", 1, err) +
                    [self.sink(sync=self.acts)])),
                "%s ! bin.( name=%s qtdemux ! %s )" % (
                    loc, self.name("b"), self.chain(
                        self.filters("", 0, err) +
                        [self.sink(sync=self.acts)])),
            ]), []
        return self.chain(["fakesrc num-buffers=%d can-activate-pull=true "
                           "sizetype=fixed sizemax=64" % n] +
                          self.filters("fake", 0, err) +
                          ["fakesink can-activate-pull=true"]), []

    def shape_decodebin(self, n, live, err):
        self.bounded = True
        loc = "filesrc location=%s" % shlex.quote(self.clip)
        tail = self.r.choice([
            [], ["videoconvert", "videoscale",
                 "video/x-raw,width=160,height=90"], ["queue"]])
        filters = self.filters("", 1, err)
        early = self.r.random() < 0.3 and not err    # as in shape_linear
        return (self.chain([loc, "decodebin"] + tail + filters +
                           [self.sink(early, sync=self.acts)]),
                ["seek"])

    def shape_deep(self, n, live, err):
        d = self.r.choice([20, 40, 80])
        return self.chain([self.fake_src(n, live)] + ["identity"] * d +
                          self.filters("fake", 0, err) + [self.sink()]), []

    def case(self):
        r = self.r
        shape = self.plan.shapes[self.index % len(self.plan.shapes)]
        scenario = self.plan.scenarios[self.index % len(self.plan.scenarios)]
        if scenario in ("add-branch", "remove-branch"):
            shape = "tee"
        elif scenario == "add-source":
            shape = "funnel"
        if scenario in ("restart", "ready") and shape in ("pull",
                                                          "decodebin"):
            # READY removes demuxer pads: gst-launch's delayed links are
            # gone and the next run stops not-linked
            scenario = "pause"
        if (shape == "analyticsmux" and not self.analytics) or \
                (shape == "decodebin" and not self.clip):
            shape = "linear"    # the same case numbers either way
        # every scenario but eos and error acts on the running stream: its
        # sources cannot end first (100000 buffers, the clip in real time)
        # and the runner ends the stream after the action (--end-after)
        self.acts = scenario not in ("eos", "error")
        clip_shape = shape == "decodebin"
        live = (not clip_shape and shape != "pull" and
                (scenario.startswith("sigint") or r.random() < 0.25))
        n = 100000 if self.acts else r.randint(5, 40)
        if live and not self.acts:
            n = min(n, 15)
        err = r.randint(1, 5) if scenario == "error" else 0
        self.live = live
        desc, _ = getattr(self, "shape_" + shape)(n, live, err)
        after = r.randint(1, 5) if self.acts else -1
        end = r.randint(1, 5) if self.acts and \
            not scenario.startswith("sigint") else -1
        case = {"shape": shape, "launch": desc, "scenario": scenario,
                "after": after, "end_after": end}
        hang = gst_hang(case)
        if hang and self.steady:
            # a GStreamer hang known untraced too: not in the steady set
            case["scenario"] = "pause"
            case["avoided"] = hang
        return case


# Combinations that hang GStreamer itself, with or without the tracer
# (fuzz.py reports them as "GStreamer's own" when they come up). --steady
# (the CI set) turns their scenario into "pause": a case known to hang
# would only spend the hang limit twice.
GST_HANGS = [
    # basesink in pull mode refuses a flushing seek (fakesrc cannot seek
    # in pull mode) and leaves its pulling task stopped: the pipeline
    # never ends (GStreamer 1.22; 3 of 3 untraced runs hang)
    ("pull-mode sink refuses a seek and stops pulling",
     lambda c: c["scenario"] == "seek" and
     "fakesink can-activate-pull=true" in c["launch"]),
]


def gst_hang(case):
    for what, match in GST_HANGS:
        if match(case):
            return what
    return None


class Plan:
    """The shapes and scenarios of a seed, each shuffled once: case I takes
    shape I mod 11 and scenario I mod 12, so any 12 consecutive cases
    cover every scenario and any 11 every shape, in pairs that change
    from one round to the next."""
    SHAPES = ["linear", "tee", "funnel", "compositor", "audiomixer",
              "analyticsmux", "multiqueue", "lists", "pull", "decodebin",
              "deep"]
    SCENARIOS = ["eos", "eos", "error", "sigint", "sigint-eos", "seek",
                 "pause", "ready", "restart", "add-branch", "remove-branch",
                 "add-source"]

    def __init__(self, seed):
        r = random.Random("plan:%d" % seed)
        self.shapes = list(self.SHAPES)
        self.scenarios = list(self.SCENARIOS)
        r.shuffle(self.shapes)
        r.shuffle(self.scenarios)


# ---- running ----------------------------------------------------------------
PYTHON = None


def python_exe():
    return PYTHON or sys.executable


def find_python():
    """The first Python with PyGObject and GStreamer's typelib: a pyenv or
    venv python3 first on PATH often lacks the system's gi."""
    global PYTHON
    tried = []
    for exe in (os.environ.get("GPUPROF_FUZZ_PYTHON"), sys.executable,
                "/usr/bin/python3"):
        if not exe or exe in tried or not os.path.exists(exe):
            continue
        tried.append(exe)
        p = subprocess.run([exe, "-c", "import gi; "
                            "gi.require_version('Gst', '1.0'); "
                            "from gi.repository import Gst"],
                           capture_output=True, text=True)
        if p.returncode == 0:
            PYTHON = exe
            return None
    return "no PyGObject with GStreamer (python3-gi, gir1.2-gstreamer-1.0) " \
        "in %s" % ", ".join(tried)


def run_case(case, workdir, traced):
    tag = "traced" if traced else "plain"
    truth = os.path.join(workdir, tag + "-truth.json")
    env = dict(os.environ)
    env.pop("GST_TRACERS", None)
    if traced:
        env["GST_TRACERS"] = tracers_value(workdir)
        env["GST_DEBUG"] = env.get("GST_DEBUG", "") or "0"
    # in a sanitizer build folder (docs/testing.md, "Sanitizers") the
    # instrumented plugin needs the runtime first in the runner's library
    # list; Python's own allocations are not ours: no leak check there
    preload = os.environ.get("GPUPROF_SANITIZER_PRELOAD")
    if preload:
        env["LD_PRELOAD"] = ":".join(
            x for x in (preload, env.get("LD_PRELOAD")) if x)
        env["ASAN_OPTIONS"] = ":".join(
            x for x in (env.get("ASAN_OPTIONS"), "detect_leaks=0") if x)
    cmd = runner_cmd(case, truth)
    try:
        p = subprocess.run(cmd, env=env, cwd=workdir, capture_output=True,
                           text=True, timeout=HARD_TIMEOUT)
        code, out = p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired as e:
        code, out = "killed", str(e)
    with open(os.path.join(workdir, tag + ".log"), "w") as f:
        f.write(out)
    t = None
    if os.path.exists(truth):
        with open(truth) as f:
            t = json.load(f)
    return code, t, out


def tracers_value(workdir):
    return "gpuprof(report=%s,stats=%s,trace=%s)" % (
        os.path.join(workdir, "report.txt"),
        os.path.join(workdir, "stats.json"),
        os.path.join(workdir, "trace.json"))


def runner_cmd(case, truth=None):
    cmd = [python_exe(), RUNNER, "--launch", case["launch"],
           "--scenario", case["scenario"], "--after", str(case["after"]),
           "--end-after", str(case.get("end_after", -1)),
           "--timeout", str(RUNNER_TIMEOUT)]
    if truth:
        cmd += ["--truth", truth]
    return cmd


def reproducer(case, seed, index):
    again = "--seed %d --only %d" % (seed, index)
    if case["shape"] == "given":
        again = "--case %s" % shlex.quote(json.dumps(
            {k: case[k] for k in ("launch", "scenario", "after",
                                  "end_after")}))
    return ("GST_TRACERS='gpuprof(report=stdout,stats=/tmp/s.json,"
            "trace=/tmp/t.json)' %s\n      (or: %s %s --keep /tmp/fuzz)" % (
                " ".join(shlex.quote(c) for c in runner_cmd(case)),
                os.path.relpath(__file__), again))


def untraced_reproducer(case):
    """The case without the tracer: what to give GStreamer's developers."""
    cmd = " ".join(shlex.quote(c) for c in runner_cmd(case))
    if case["scenario"] in ("eos", "error"):
        cmd += "\n      (or: gst-launch-1.0 %s)" % case["launch"]
    return cmd


def set_timeouts(runner_timeout):
    global RUNNER_TIMEOUT, HARD_TIMEOUT
    RUNNER_TIMEOUT = runner_timeout
    HARD_TIMEOUT = max(HARD_TIMEOUT, 3 * runner_timeout)


# ---- verdict: the traced run against the untraced run -------------------------
def outcome(code):
    """How a runner run ended: eos, error, hang, crash, runner (its own
    failure)."""
    if code == 0:
        return "eos"
    if code == 1:
        return "error"
    if code in (3, "killed"):
        return "hang"
    if code == 2:
        return "runner"
    return "crash"


def describe(code):
    if code == "killed":
        return "killed after %d s" % HARD_TIMEOUT
    if code == 3:
        return "no end within %d s" % RUNNER_TIMEOUT
    if isinstance(code, int) and code < 0:
        return "killed by signal %d" % -code
    return {0: "EOS", 1: "error", 2: "runner failed"}.get(code,
                                                         "exit %s" % code)


BAD = ("hang", "crash")


def expected_outcome(case):
    """How a case ends when all goes as generated: an error case in its
    error, every other case with EOS (SIGINT handled counts as EOS; where
    the runner ends the stream, the EOS it sent)."""
    return "error" if case["scenario"] == "error" else "eos"


def ending(run, case):
    """outcome() of a run (code, truth, log), where an EOS that came from
    inside the pipeline before the runner ended the stream is an ending of
    its own: early-eos."""
    code, truth = run[0], run[1]
    if code == 0 and case.get("end_after", -1) >= 0 and truth and \
            "end: EOS sent" not in truth.get("events", []):
        return "early-eos"
    return outcome(code)


def tell(run, case):
    if ending(run, case) == "early-eos":
        return "EOS before the runner ended the stream"
    return describe(run[0])


def compare_runs(res, plain, traced, rerun_plain):
    """The traced run's ending against the untraced one's, same case, same
    machine. A hang, a crash or another ending that the untraced run also
    shows (first run, or one of RERUNS more when only the traced run
    differs) is GStreamer's own: reported, never a failure of ours.
    Returns whether the traced run's outputs can be checked. PLAIN None:
    the traced run ended as its scenario does, the untraced one was not
    run (--baseline on-doubt)."""
    case = res.case
    if plain is None:
        plain = traced
    po, to = ending(plain, case), ending(traced, case)
    if "runner" in (po, to):
        res.fail("runner", "runner", "runner failed (untraced: %s, traced: "
                 "%s): %s" % (tell(plain, case), tell(traced, case),
                              (traced[2] if to == "runner"
                               else plain[2])[-300:]))
        return False
    if po in BAD:
        res.own("untraced run: %s (traced run: %s)" % (tell(plain, case),
                                                      tell(traced, case)))
        return to not in BAD
    if po == to:
        return True
    # only the traced run ended otherwise: does the untraced one, sometimes?
    seen = []
    for _ in range(RERUNS):
        seen.append(rerun_plain())
        if ending(seen[-1], case) == to:
            break
    same = sum(1 for r in seen if ending(r, case) == to)
    runs = "untraced: %s, then %s in %d rerun(s)" % (
        tell(plain, case), ", ".join(tell(r, case) for r in seen), len(seen))
    if same:
        res.own("traced run: %s, untraced too (%s): the ending depends on "
                "timing in GStreamer" % (tell(traced, case), runs))
        return to not in BAD
    check = {"hang": "hang", "crash": "crash"}.get(to, "exit")
    res.fail(check, "pipeline" if check != "exit" else "status",
             "traced run: %s; %s" % (tell(traced, case), runs))
    return to not in BAD


def check_scenario(res, truth, case, tag):
    """The scenario happened as generated, whatever the machine's speed:
    an error case ends in its error, an action lands mid-stream (before
    the stream's end) and, where the runner ends the stream, it did."""
    if truth is None:
        return
    events = truth.get("events", [])
    kind = case["scenario"]
    why = None
    if kind == "error" and truth["exit"] != 1:
        why = "no error"
    elif kind not in ("eos", "error"):
        if "act " + kind not in events:
            why = "the action never came"
        elif "eos" in events and \
                events.index("eos") < events.index("act " + kind):
            why = "the stream ended before the action"
        elif case.get("end_after", -1) >= 0 and \
                "end: EOS sent" not in events and truth["exit"] == 0:
            why = "the stream ended before the runner ended it"
    if why:
        res.fail("scenario", tag, "%s: %s (events: %s)" % (
            kind, why, ", ".join(events)))


# ---- checks -----------------------------------------------------------------
REPORT_RE = re.compile(r"^=== gpuprof report: (\S+) \(wall")


def parse_reports(path):
    """[(pipeline, [element paths])] from a report file."""
    out = []
    if not os.path.exists(path):
        return out
    cur = None
    in_elements = False
    with open(path, errors="replace") as f:
        for line in f:
            m = REPORT_RE.match(line)
            if m:
                cur = (m.group(1), [])
                out.append(cur)
                in_elements = False
                continue
            if cur is None:
                continue
            if line.startswith("Elements"):
                in_elements = True
                continue
            if in_elements:
                if not line.strip():
                    in_elements = False
                elif line.startswith("  ") and not \
                        line.strip().startswith("element "):
                    cur[1].append(line.split()[0])
    return out


def busy(run):
    return {p: v for p, v in run.items() if v["in"] or v["out"]}


class Result:
    def __init__(self, index, case):
        self.index = index
        self.case = case
        self.failures = []      # (check, subject, message)
        self.gst = []           # GStreamer's own: what the untraced run did

    def fail(self, check, subject, message):
        self.failures.append((check, subject, message))

    def own(self, message):
        self.gst.append(message)


def check_case(res, workdir, plain, traced, check_trace, rerun_plain):
    (pcode, ptruth, pout) = plain or (None, None, "")
    (tcode, ttruth, tout) = traced
    if not compare_runs(res, plain, traced, rerun_plain):
        return
    for tag, code, truth in (("untraced", pcode, ptruth),
                             ("traced", tcode, ttruth)):
        if outcome(code) not in BAD:
            check_scenario(res, truth, res.case, tag)
    if ttruth is None:
        res.fail("runner", "runner", "the traced run wrote no truth (%s)"
                 % describe(tcode))
        return
    pipeline = ttruth["pipeline"]
    runs = [busy(r) for r in ttruth["runs"]]
    runs = [r for r in runs if r]
    reports = parse_reports(os.path.join(workdir, "report.txt"))
    names = [p for p, _ in reports]
    if names != [pipeline] * len(runs):
        res.fail("reports", "pipeline", "reports %s, expected %s (one per "
                 "run of %s)" % (names, [pipeline] * len(runs), pipeline))
    real = [els for p, els in reports if p == pipeline]
    for k, run in enumerate(runs):
        if k >= len(real):
            break
        for path in sorted(run):
            if path not in real[k] and not run[path].get("removed"):
                res.fail("names", path, "report %d of %s does not name %s "
                         "(in %d out %d)" % (k + 1, pipeline, path,
                                             run[path]["in"],
                                             run[path]["out"]))
    stats = check_outputs(res, workdir, bool(runs), check_trace)
    if stats is None or not runs:
        return
    check_counts(res, stats, runs[-1], ttruth)


def check_removed(res, stats, run):
    """Elements taken out while the run went on: no row of their own, their
    buffers in the removed table's row of their factory."""
    removed = {}
    for path, t in run.items():
        if t.get("removed"):
            r = removed.setdefault(t["factory"], {"in": 0, "out": 0})
            r["in"] += t["in"]
            r["out"] += t["out"]
    rows = {r["factory"]: r for r in stats.get("removed", [])}
    for factory, t in sorted(removed.items()):
        r = rows.get(factory, {})
        for key, col in (("in", "buffers_in"), ("out", "buffers_out")):
            if r.get(col, 0) != t[key]:
                res.fail("counts", "removed " + factory + " " + key,
                         "%s %s, truth %d" % (col, r.get(col), t[key]))


def check_counts(res, stats, run, truth):
    rows = {e["path"]: e for e in stats.get("elements", [])}
    check_removed(res, stats, run)
    for path, t in sorted(run.items()):
        if t.get("removed"):
            continue
        e = rows.get(path)
        if e is None:
            res.fail("counts", path, "no row in stats.json (truth in %d out "
                     "%d)" % (t["in"], t["out"]))
            continue
        for key, col in (("in", "buffers_in"), ("out", "buffers_out")):
            if e.get(col, 0) != t[key]:
                res.fail("counts", path + " " + key, "%s %s, truth %d" % (
                    col, e.get(col), t[key]))
    for path, e in sorted(rows.items()):
        if path not in run and (e.get("buffers_in") or e.get("buffers_out")):
            res.fail("counts", path, "row for an element that moved no "
                     "buffer in this run (in %s out %s)" % (
                         e.get("buffers_in"), e.get("buffers_out")))
    leaky = truth.get("leaky", {})
    # the stream ran to its EOS without a flush or a stop in between
    ended = truth["exit"] == 0 and truth["scenario"] in (
        "eos", "pause", "add-branch", "remove-branch", "add-source")
    for q in stats.get("queues", []):
        path = q["path"]
        t = run.get(path)
        if t is None:
            continue
        if q.get("buffers") != t["out"]:
            res.fail("queues", path + " buffers", "buffers %s, truth out %d"
                     % (q.get("buffers"), t["out"]))
        drops = q.get("drops", 0)
        if not leaky.get(path):
            if drops:
                res.fail("queues", path + " drops", "%d drops in a queue "
                         "that does not leak" % drops)
        elif ended and not truth.get("early") and drops != t["in"] - t["out"]:
            res.fail("queues", path + " drops", "drops %d, truth in - out = "
                     "%d (drained at EOS)" % (drops, t["in"] - t["out"]))


def check_outputs(res, workdir, expect, check_trace):
    """Every output parses; returns the stats object or None."""
    sp = os.path.join(workdir, "stats.json")
    tp = os.path.join(workdir, "trace.json")
    if not os.path.exists(sp):
        if expect:
            res.fail("parse", "stats.json", "stats.json not written")
        return None
    try:
        with open(sp) as f:
            stats = json.load(f)
    except ValueError as e:
        res.fail("parse", "stats.json", "does not parse: %s" % e)
        return None
    if stats.get("schema") != "gpuprof-summary":
        res.fail("parse", "stats.json", "schema %r" % stats.get("schema"))
    base = sp[:-len(".json")]
    for table in ("elements", "queues", "threads", "batches", "stages",
                  "advice"):
        cp = "%s-%s.csv" % (base, table)
        try:
            with open(cp, newline="") as f:
                rows = list(csv.reader(f, strict=True))
        except (OSError, csv.Error) as e:
            res.fail("parse", os.path.basename(cp), str(e))
            continue
        if len(rows) - 1 != len(stats.get(table, [])):
            res.fail("parse", os.path.basename(cp), "%d rows, stats.json has "
                     "%d" % (len(rows) - 1, len(stats.get(table, []))))
    if check_trace and os.path.exists(tp):
        p = subprocess.run(["sh", check_trace, "--summary", tp],
                           capture_output=True, text=True)
        if p.returncode != 0:
            bad = [ln for ln in p.stdout.splitlines()
                   if ln.startswith("FAIL")]
            res.fail("parse", "trace.json", "check-trace.sh: %s" %
                     "; ".join(bad[:3] or [p.stdout[-200:]]))
    elif check_trace:
        res.fail("parse", "trace.json", "trace.json not written")
    return stats


# ---- known failures -----------------------------------------------------------
def load_known(path):
    """Lines `SEED:CASE CHECK SUBJECT-GLOB BUG [comment]`."""
    known = []
    if not path or not os.path.exists(path):
        return known
    with open(path) as f:
        for ln, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            if len(parts) < 4 or ":" not in parts[0] or \
                    parts[1] not in CHECKS:
                raise SystemExit("%s:%d: want SEED:CASE CHECK SUBJECT BUG"
                                 % (path, ln))
            seed, case = parts[0].split(":")
            known.append((int(seed), int(case), parts[1], parts[2],
                          parts[3]))
    return known


def known_bug(known, seed, index, check, subject):
    for s, c, k, glob, bug in known:
        if s == seed and c == index and k == check and \
                fnmatch.fnmatchcase(subject, glob):
            return bug
    return None


# ---- main -------------------------------------------------------------------
SETUP_ERROR = ""


def setup_ok():
    """PyGObject with GStreamer present (else skip), and the tracer loads."""
    global SETUP_ERROR
    err = find_python()
    if err:
        SETUP_ERROR = "gi"
        print("SKIP: " + err)
        return False
    d = tempfile.mkdtemp(prefix="gpuprof-fuzz-probe-")
    try:
        case = {"launch": "fakesrc num-buffers=1 ! fakesink",
                "scenario": "eos", "after": -1}
        code, _, out = run_case(case, d, True)
        if code != 0 or not os.path.exists(os.path.join(d, "report.txt")):
            SETUP_ERROR = "tracer"
            print("fuzz: the gpuprof tracer gives no report (exit %s; is "
                  "GST_PLUGIN_PATH the build's tracers/ folder?):\n%s"
                  % (code, out[-500:]))
            return False
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return True


def find_analytics():
    for d in os.environ.get("GST_PLUGIN_PATH", "").split(":"):
        cand = os.path.join(os.path.dirname(d.rstrip("/")), "examples",
                            "analytics")
        if d and os.path.exists(os.path.join(
                cand, "libgstgpuprofanalytics.so")):
            return cand
    return None


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", help="comma-separated case numbers")
    ap.add_argument("--keep", help="keep each case's files under DIR/N")
    ap.add_argument("--known-failures",
                    help="file of expected failures (known bugs)")
    ap.add_argument("--list", action="store_true",
                    help="print the cases and exit")
    ap.add_argument("--steady", action="store_true",
                    help="leave out combinations known to hang GStreamer "
                    "itself (GST_HANGS; the CI set)")
    ap.add_argument("--case", metavar="JSON",
                    help="run this one case instead of generated ones: "
                    '{"launch": DESC, "scenario": KIND, "after": N, '
                    '"end_after": M} (a case.json that --keep wrote, too)')
    ap.add_argument("--baseline", choices=("always", "on-doubt"),
                    default="always", help="run each case untraced too "
                    "(always), or only when the traced run did not end as "
                    "its scenario does (on-doubt: the same verdicts, half "
                    "the runs; GStreamer's own hangs that the traced run "
                    "does not have go unseen)")
    ap.add_argument("--runner-timeout", type=float, default=RUNNER_TIMEOUT,
                    metavar="S", help="seconds before a run counts as a "
                    "hang (%(default)s)")
    a = ap.parse_args()
    set_timeouts(a.runner_timeout)

    if not a.list and not setup_ok():
        return 77 if "gi" in SETUP_ERROR else 2
    clip = os.environ.get("GPUPROF_TEST_CLIP")
    if clip and not os.path.exists(clip):
        print("fuzz: %s absent: clip shapes left out" % clip)
        clip = None
    analytics = find_analytics()
    if analytics:
        os.environ["GST_PLUGIN_PATH"] += ":" + analytics
    check_trace = os.environ.get("CHECK_TRACE") or os.path.join(
        HERE, "..", "trace", "check-trace.sh")
    if not shutil.which("jq"):
        print("fuzz: jq absent: trace files are not checked")
        check_trace = None
    known = load_known(a.known_failures)
    indices = range(a.cases)
    if a.only:
        indices = [int(x) for x in a.only.split(",")]
    cases = [(i, Gen(a.seed, i, clip, analytics is not None,
                     a.steady).case()) for i in indices]
    if a.case:
        c = json.loads(open(a.case).read() if os.path.exists(a.case)
                       else a.case)
        c.setdefault("shape", "given")
        c.setdefault("after", -1)
        c.setdefault("end_after", -1)
        cases, indices = [(0, c)], [0]
        known = []
    if a.list:
        for i, c in cases:
            print("%3d %-12s %-13s after=%-2d end=%-2d %s%s" % (
                i, c["shape"], c["scenario"], c["after"], c["end_after"],
                c["launch"], "  (avoided: %s)" % c["avoided"]
                if "avoided" in c else ""))
        return 0

    top = a.keep or tempfile.mkdtemp(prefix="gpuprof-fuzz-")

    def one(item):
        i, case = item
        t0 = time.monotonic()
        wd = os.path.join(top, str(i))
        shutil.rmtree(wd, ignore_errors=True)
        os.makedirs(wd)
        with open(os.path.join(wd, "case.json"), "w") as f:
            json.dump(case, f, indent=1)
        if a.baseline == "always":
            plain = run_case(case, wd, False)
            traced = run_case(case, wd, True)
        else:
            # the untraced run only when the traced one did not end as
            # its scenario does: that is all the verdict needs
            traced = run_case(case, wd, True)
            plain = None
            if ending(traced, case) != expected_outcome(case):
                plain = run_case(case, wd, False)
        res = Result(i, case)
        reruns = []

        def rerun_plain():
            d = os.path.join(wd, "rerun-%d" % (len(reruns) + 1))
            os.makedirs(d, exist_ok=True)
            reruns.append(run_case(case, d, False))
            return reruns[-1]
        check_case(res, wd, plain, traced, check_trace, rerun_plain)
        res.seconds = time.monotonic() - t0
        return res

    results = []
    with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as ex:
        for res in ex.map(one, cases):
            results.append(res)
            state = "FAIL" if res.failures else "gst " if res.gst \
                else "ok  "
            print("%s case %d: %s/%s (%.1f s)" % (
                state, res.index, res.case["shape"], res.case["scenario"],
                res.seconds), flush=True)

    # summary grouped by check
    by_check = {}
    unexpected = 0
    xfail = 0
    seen_known = set()
    for res in results:
        for check, subject, msg in res.failures:
            bug = known_bug(known, a.seed, res.index, check, subject)
            if bug:
                xfail += 1
                seen_known.add((res.index, check))
            else:
                unexpected += 1
            by_check.setdefault(check, []).append((res, subject, msg, bug))
    print()
    print("=== fuzz summary: seed %d, %d cases ===" % (a.seed, len(results)))
    failing = {}
    for check in CHECKS:
        fails = by_check.get(check, [])
        if not fails:
            continue
        print("%s: %d failure(s)" % (check, len(fails)))
        shown = {}
        for res, subject, msg, bug in fails:
            failing[res.index] = res
            key = (res.index, bug)
            shown[key] = shown.get(key, 0) + 1
            if shown[key] > 6:      # a deep chain fails once per element
                continue
            mark = "known bug %s" % bug if bug else "FAIL"
            print("  [%s] case %d %s/%s: %s: %s" % (
                mark, res.index, res.case["shape"], res.case["scenario"],
                subject, msg))
        for (i, bug), n in sorted(shown.items()):
            if n > 6:
                print("  [%s] case %d: %d more like these" % (
                    "known bug %s" % bug if bug else "FAIL", i, n - 6))
    if failing:
        print("reproducers:")
    for i, res in sorted(failing.items()):
        print("  case %d: %s" % (i, reproducer(res.case, a.seed, i)))
    own = [res for res in results if res.gst]
    if own:
        print("GStreamer's own (the untraced run too; not failures of the "
              "tracer): %d case(s)" % len(own))
    for res in own:
        print("  case %d %s/%s: %s\n    untraced: %s" % (
            res.index, res.case["shape"], res.case["scenario"],
            "; ".join(res.gst), untraced_reproducer(res.case)))
    for s, c, k, glob, bug in known:
        if s == a.seed and c in indices and (c, k) not in seen_known:
            print("XPASS case %d %s %s (bug %s): listed as a known failure, "
                  "passed this time (it depends on thread timing, or the bug "
                  "is fixed: then remove its lines)" % (c, k, glob, bug))
    print("%d cases, %d failure(s) unexpected, %d expected (known bugs), "
          "%d GStreamer's own" % (len(results), unexpected, xfail, len(own)))
    if not a.keep:
        shutil.rmtree(top, ignore_errors=True)
    else:
        print("files kept in %s" % top)
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
