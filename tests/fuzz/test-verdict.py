#!/usr/bin/env python3
"""The fuzzer's verdict on a case (fuzz.py compare_runs, check_scenario):
a hang, a crash or an ending that the untraced run of the same case shows
too is GStreamer's own, never a failure; only what the tracer changed
fails. Runs on made-up run results (no pipeline), then once end to end on a
pipeline that never ends, traced or not (--e2e, needs the tracer on
GST_PLUGIN_PATH as fuzz-short does).

Exit status 0 when every check holds, 1 otherwise, 77 no PyGObject for the
end-to-end run.
"""
import importlib.util
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("fuzz",
                                              os.path.join(HERE, "fuzz.py"))
fuzz = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fuzz)

CASE = {"shape": "linear", "scenario": "eos", "launch": "fakesrc ! fakesink",
        "after": -1, "end_after": -1}
failed = []


def run(code, events=()):
    return (code, {"exit": code, "events": list(events)},
            "log of exit %s" % code)


def verdict(plain, traced, reruns=(), case=None):
    """compare_runs on made-up exit codes (or runs); RERUNS are what the
    untraced reruns give, in order."""
    res = fuzz.Result(0, dict(case or CASE))
    left = list(reruns)
    asked = []

    def rerun():
        asked.append(left.pop(0) if left else 0)
        return asked[-1] if isinstance(asked[-1], tuple) else run(asked[-1])
    checkable = fuzz.compare_runs(
        res, plain if isinstance(plain, tuple) else run(plain),
        traced if isinstance(traced, tuple) else run(traced), rerun)
    return res, checkable, asked


def expect(what, cond, detail):
    print("%s %s%s" % ("ok  " if cond else "FAIL", what,
                       "" if cond else ": %s" % detail))
    if not cond:
        failed.append(what)


def checks(res):
    return sorted(c for c, _, _ in res.failures)


def unit():
    # the untraced run hangs too: GStreamer's own, no rerun needed
    res, ok, asked = verdict(3, 3)
    expect("both hang: GStreamer's own", checks(res) == [] and res.gst and
           not ok and asked == [], (res.failures, res.gst, asked))
    res, ok, asked = verdict("killed", 0)
    expect("untraced killed, traced ends: GStreamer's own, traced outputs "
           "checked", checks(res) == [] and res.gst and ok,
           (res.failures, res.gst))
    res, ok, _ = verdict(-11, -11)
    expect("both crash: GStreamer's own", checks(res) == [] and res.gst,
           (res.failures, res.gst))
    # only the traced run hangs: the untraced one is run again
    res, ok, asked = verdict(0, 3, [0, 0, 0])
    expect("only traced hangs: a hang failure after %d reruns"
           % fuzz.RERUNS, checks(res) == ["hang"] and not res.gst and
           asked == [0] * fuzz.RERUNS, (res.failures, asked))
    expect("the failure says what each run did",
           res.failures and "EOS, EOS, EOS in 3 rerun" in res.failures[0][2],
           res.failures)
    res, ok, asked = verdict(0, 3, [0, 3])
    expect("traced hangs, a rerun untraced hangs too: GStreamer's own",
           checks(res) == [] and res.gst and asked == [0, 3],
           (res.failures, res.gst, asked))
    res, ok, _ = verdict(0, -6, [0, 0, 0])
    expect("only traced crashes: a crash failure",
           checks(res) == ["crash"], res.failures)
    # another ending: EOS against error
    res, ok, _ = verdict(1, 0, [1, 1, 1])
    expect("untraced error, traced EOS, always: an exit failure",
           checks(res) == ["exit"] and ok, res.failures)
    res, ok, _ = verdict(1, 0, [0])
    expect("the ending depends on timing untraced too: GStreamer's own",
           checks(res) == [] and res.gst and ok, (res.failures, res.gst))
    res, ok, asked = verdict(0, 0)
    expect("same ending: nothing to say, no rerun",
           checks(res) == [] and not res.gst and ok and asked == [],
           (res.failures, res.gst, asked))
    res, ok, _ = verdict(2, 0)
    expect("the runner failed: the fuzzer's own failure",
           checks(res) == ["runner"] and not ok, res.failures)
    # a stream the runner was to end that ended from inside
    act = dict(CASE, scenario="ready", after=2, end_after=1)
    ended = run(0, ["act ready", "done ready", "end: EOS sent", "eos"])
    early = run(0, ["act ready", "done ready", "eos"])
    res, ok, asked = verdict(ended, early, [ended] * 3, act)
    expect("only traced, EOS before the runner's end: an exit failure",
           checks(res) == ["exit"] and
           "EOS before the runner ended the stream" in res.failures[0][2],
           res.failures)
    res, ok, asked = verdict(ended, early, [ended, early], act)
    expect("EOS before the runner's end untraced too: GStreamer's own",
           checks(res) == [] and res.gst and len(asked) == 2,
           (res.failures, res.gst))
    # --baseline on-doubt: no untraced run when the traced one ended as
    # its scenario does
    res = fuzz.Result(0, dict(CASE))
    ok = fuzz.compare_runs(res, None, run(0), lambda: 1 / 0)
    expect("on-doubt, traced ended as generated: checked, no rerun",
           checks(res) == [] and not res.gst and ok, res.failures)
    expect("an error case is expected to end in its error",
           fuzz.expected_outcome(dict(CASE, scenario="error")) == "error"
           and fuzz.expected_outcome(dict(CASE, scenario="seek")) == "eos",
           "")

    # the scenario happened as generated
    def scenario(case, truth):
        res = fuzz.Result(0, dict(CASE, **case))
        fuzz.check_scenario(res, truth, res.case, "traced")
        return checks(res)
    act = {"scenario": "seek", "after": 2, "end_after": 3}
    expect("an action that landed mid-stream", scenario(act, {
        "exit": 0, "events": ["act seek", "seek handled", "done seek",
                              "end: EOS sent", "eos"]}) == [], "")
    expect("a stream that ended before its action", scenario(act, {
        "exit": 0, "events": ["eos"]}) == ["scenario"], "")
    expect("a stream that ended before the runner ended it", scenario(act, {
        "exit": 0, "events": ["act seek", "done seek", "eos"]}) ==
        ["scenario"], "")
    expect("an error case that ended without its error", scenario(
        {"scenario": "error"}, {"exit": 0, "events": ["eos"]}) ==
        ["scenario"], "")

    # the steady set leaves out what hangs GStreamer itself
    pull = dict(CASE, scenario="seek", launch="fakesrc num-buffers=9 "
                "can-activate-pull=true ! fakesink can-activate-pull=true")
    expect("a known GStreamer hang is recognised",
           fuzz.gst_hang(pull) is not None, pull)


def e2e():
    """A pipeline that never ends, traced or not: reported as GStreamer's
    own, the run passes (--baseline on-doubt, as fuzz-short: the traced
    run hangs, so the untraced one runs)."""
    err = fuzz.find_python()
    if err:
        print("SKIP end to end: " + err)
        return 77
    p = subprocess.run(
        [sys.executable, os.path.join(HERE, "fuzz.py"), "--case",
         '{"launch": "videotestsrc is-live=true ! fakesink", '
         '"scenario": "eos"}', "--runner-timeout", "2",
         "--baseline", "on-doubt"],
        capture_output=True, text=True)
    print(p.stdout)
    expect("end to end: a case that never ends untraced passes",
           p.returncode == 0, "exit %d" % p.returncode)
    expect("end to end: reported as GStreamer's own, with the untraced "
           "reproducer", "GStreamer's own" in p.stdout and
           "gst-launch-1.0 videotestsrc is-live=true ! fakesink" in p.stdout,
           p.stdout[-300:])
    return 0


if __name__ == "__main__":
    unit()
    code = e2e() if "--e2e" in sys.argv else 0
    if failed:
        print("%d check(s) failed: %s" % (len(failed), ", ".join(failed)))
        sys.exit(1)
    sys.exit(code)
