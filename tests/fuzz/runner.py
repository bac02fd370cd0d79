#!/usr/bin/env python3
"""One pipeline-fuzzer case: build a pipeline from a gst-launch description,
count buffers on every pad of every real element with pad probes (the truth),
drive a scenario (EOS, error, SIGINT, state changes, seeks, branches added and
removed while playing), and write the truth as JSON.

    runner.py --launch 'videotestsrc num-buffers=5 ! fakesink' \
        [--scenario KIND] [--after N] [--end-after M] [--timeout S]
        [--truth FILE]

Run it with and without GST_TRACERS=gpuprof(...) and compare (fuzz.py does).

Timing: a scenario acts once the sinks have taken N buffers (--after N).
With --end-after M the scenario also ends the stream: once its action is
done and the sinks have taken M more buffers (an added branch's sink or an
added source too), the runner sends EOS to the pipeline, as
`gst-launch-1.0 -e` does on Ctrl-C. Such a case runs a source that cannot
end first (a long or live one), so the action always lands mid-stream,
however fast or slow the machine. The truth's "events" say what happened
in order ("act KIND", "done KIND", "end: EOS sent", "eos", ...).

Exit status: 0 EOS (or SIGINT handled), 1 error message on the bus,
2 the description does not parse, usage, or the runner itself failed;
3 timeout (hang).

Counting rules, so the truth means what the summary's buffers in/out mean:
- a buffer counts once, on the real sink pad that took it (the probe runs
  after GStreamer's flushing/EOS checks, so refused buffers don't count);
  push and pull mode alike; ghost and proxy pads are looked through;
- out of an element = buffers its src pads delivered to a real sink pad;
- a buffer list counts as its length; when the sink pad has no chain-list
  function GStreamer splits the list and calls the probes again for each of
  its buffers: those are recognised (same buffer, same thread) and skipped;
  when a chain call of the split fails, GStreamer drops the rest of the
  list: those buffers never crossed and are taken back from both sides.
"""
import argparse
import json
import os
import signal
import sys
import threading

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402

EXIT_EOS, EXIT_ERROR, EXIT_USAGE, EXIT_TIMEOUT = 0, 1, 2, 3

SCENARIOS = ("eos", "error", "sigint", "sigint-eos", "seek", "pause",
             "ready", "restart", "add-branch", "remove-branch",
             "add-source")


def element_path(element):
    # the tracer's form: pipeline0/bin0/name
    names = []
    o = element
    while o is not None:
        names.append(o.get_name())
        o = o.get_parent()
    return "/".join(reversed(names))


def buffer_id(buf):
    # the C pointer, printed by PyGObject's repr of a boxed value
    r = repr(buf)
    i = r.rfind(" at 0x")
    return r[i + 4:].rstrip(")>") if i >= 0 else r


class Truth:
    """Buffers per element, per run (a run ends when the pipeline goes to
    NULL)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.runs = [{}]
        self.sink_buffers = 0      # buffers taken by sink elements, all runs
        # per sink pad (its stream lock serialises it): the last list, whose
        # buffers GStreamer's default chain-list may hand back one by one
        self.splits = {}
        self.splitting = set()     # pads seen splitting a list
        self.paths = {}            # element -> path at first sight

    def row(self, path, factory):
        run = self.runs[-1]
        r = run.get(path)
        if r is None:
            r = run[path] = {"factory": factory, "in": 0, "out": 0}
        return r

    def new_run(self):
        with self.lock:
            self.runs.append({})

    def settle(self, pad):
        """The pad's last list is done: a split that stopped early (a chain
        call failed, GStreamer's default chain-list gave up on the rest)
        delivered only the buffers handed back; the rest never crossed.
        Lock held."""
        split = self.splits.pop(pad, None)
        if not split:
            return
        left = len(split["ids"])
        if left == 0 or (left == split["n"] and pad not in self.splitting):
            return      # all delivered, or a pad with a chain-list function
        split["in"]["in"] -= left
        if split["out"] is not None:
            split["out"]["out"] -= left


def upstream_real_pad(sinkpad):
    """The real src pad feeding SINKPAD, through ghost and proxy pads."""
    p = sinkpad.get_peer()
    hops = 0
    while p is not None and isinstance(p, Gst.ProxyPad) and hops < 32:
        internal = p.get_internal()
        p = internal.get_peer() if internal is not None else None
        hops += 1
    return p


class Runner:
    def __init__(self, args):
        self.args = args
        self.truth = Truth()
        self.loop = GLib.MainLoop()
        self.exit = None
        self.triggered = False
        self.done_at = None        # sink buffers when the action was done
        self.ended = False         # the runner sent its EOS
        self.need = []             # added elements that must move a buffer
        self.pipeline = None
        self.sinks = set()
        self.probed = set()
        self.pipelines = []
        self.events = []
        self.broken = None

    # ---- probes ---------------------------------------------------------
    def probe_element(self, element):
        if isinstance(element, Gst.Bin):
            return
        with self.truth.lock:
            if element in self.probed:
                return
            self.probed.add(element)
            self.truth.paths[element] = element_path(element)
        factory = element.get_factory()
        fname = factory.get_name() if factory else ""
        klass = factory.get_metadata("klass") or "" if factory else ""
        if "Sink" in klass.split("/"):
            self.sinks.add(element)
        element.connect("pad-added", self.on_pad_added)
        for pad in element.pads:
            self.probe_pad(pad, element, fname)

    def on_pad_added(self, element, pad):
        factory = element.get_factory()
        self.probe_pad(pad, element, factory.get_name() if factory else "")

    def probe_pad(self, pad, element, fname):
        if pad.get_direction() != Gst.PadDirection.SINK:
            return
        mask = (Gst.PadProbeType.BUFFER | Gst.PadProbeType.BUFFER_LIST |
                Gst.PadProbeType.PUSH | Gst.PadProbeType.PULL)
        pad.add_probe(mask, self.on_data, (element, fname))

    def on_data(self, pad, info, data):
        try:
            return self.count(pad, info, data)
        except Exception as e:  # a wrong truth must not pass unnoticed
            self.broken = "probe: %r" % e
            return Gst.PadProbeReturn.OK

    def count(self, pad, info, data):
        element, fname = data
        t = info.type
        n = 0
        splits = self.truth.splits
        ids = None
        if t & Gst.PadProbeType.BUFFER_LIST:
            lst = info.get_buffer_list()
            if lst is None:
                return Gst.PadProbeReturn.OK
            n = lst.length()
            # the buffers GStreamer's default chain-list may hand back
            ids = [buffer_id(lst.get(i)) for i in range(n)]
        elif t & Gst.PadProbeType.BUFFER:
            buf = info.get_buffer()
            if buf is None:         # a pull probe before the data
                return Gst.PadProbeReturn.OK
            split = splits.get(pad)
            if split and split["ids"] and split["ids"][0] == buffer_id(buf):
                split["ids"].pop(0)     # one of a list already counted
                with self.truth.lock:
                    self.truth.splitting.add(pad)
                return Gst.PadProbeReturn.OK
            n = 1
        else:
            return Gst.PadProbeReturn.OK
        fire = False
        up = upstream_real_pad(pad)
        upel = up.get_parent_element() if up is not None else None
        with self.truth.lock:
            self.truth.settle(pad)
            path = self.truth.paths.get(element) or element_path(element)
            inrow = self.truth.row(path, fname)
            inrow["in"] += n
            outrow = None
            if upel is not None:
                upath = self.truth.paths.get(upel) or element_path(upel)
                f = upel.get_factory()
                outrow = self.truth.row(upath, f.get_name() if f else "")
                outrow["out"] += n
            if ids is not None:
                splits[pad] = {"ids": ids, "n": n, "in": inrow,
                               "out": outrow}
            end = False
            if element in self.sinks:
                self.truth.sink_buffers += n
                fire = (not self.triggered and self.args.after >= 0 and
                        self.truth.sink_buffers >= self.args.after)
                if fire:
                    self.triggered = True
                end = self.end_due()
        if element in self.sinks and fire:
            GLib.idle_add(self.act)
        if element in self.sinks and end:
            GLib.idle_add(self.end)
        return Gst.PadProbeReturn.OK

    def end_due(self):
        """The action is done, the sinks took --end-after more buffers
        since, and every added element moved one: time to end the stream
        (once). Lock held."""
        if self.ended or self.done_at is None or \
                self.truth.sink_buffers < self.done_at + self.args.end_after:
            return False
        run = self.truth.runs[-1]
        for e in self.need:
            path = self.truth.paths.get(e)
            if not path or not (run.get(path, {}).get("in") or
                                run.get(path, {}).get("out")):
                return False
        self.ended = True
        return True

    # ---- scenario -------------------------------------------------------
    def note(self, what):
        self.events.append(what)

    def act(self):
        # "error": identity error-after=N in the description does it
        kind = self.args.scenario
        p = self.pipeline
        _, cur, pending = p.get_state(0)
        if cur != Gst.State.PLAYING or pending != Gst.State.VOID_PENDING:
            # act on a playing pipeline, not inside GStreamer's own
            # preroll (a state change there is a race of its own)
            GLib.timeout_add(10, self.act)
            return False
        if not self.live_sources_started():
            # a live source pushes its first segment holding its live lock;
            # leaving PLAYING takes that lock: behind a funnel whose other
            # input blocks in a prerolling sink, GStreamer deadlocks
            # (untraced too). No time limit: acting after a fixed wait
            # would make the case depend on the machine's speed.
            GLib.timeout_add(10, self.act)
            return False
        self.note("act " + kind)
        if kind == "sigint" or kind == "sigint-eos":
            os.kill(os.getpid(), signal.SIGINT)
        elif kind == "seek":
            ok = p.seek_simple(Gst.Format.TIME,
                               Gst.SeekFlags.FLUSH | Gst.SeekFlags.KEY_UNIT,
                               0)
            self.note("seek %s" % ("handled" if ok else "refused"))
            self.done(kind)
        elif kind == "pause":
            p.set_state(Gst.State.PAUSED)
            GLib.timeout_add(50, self.resume, kind)
        elif kind == "ready":
            p.set_state(Gst.State.READY)
            GLib.timeout_add(20, self.resume, kind)
        elif kind == "restart":
            p.set_state(Gst.State.NULL)
            self.truth.new_run()
            with self.truth.lock:
                self.triggered = True
            p.set_state(Gst.State.PLAYING)
            self.done(kind)
        elif kind == "add-branch":
            self.add_branch()
        elif kind == "remove-branch":
            self.remove_branch()
        elif kind == "add-source":
            self.add_source()
        return False

    def resume(self, kind):
        self.pipeline.set_state(Gst.State.PLAYING)
        self.done(kind)
        return False

    def done(self, kind, need=()):
        """The action is complete: count the sinks' buffers from here (and
        wait for the elements in NEED to move one) before ending."""
        self.note("done " + kind)
        if self.args.end_after < 0:
            return
        with self.truth.lock:
            self.need = list(need)
            self.done_at = self.truth.sink_buffers
            end = self.end_due()
        if end:
            GLib.idle_add(self.end)

    def end(self):
        # gst-launch-1.0 -e: EOS into every source, then the EOS message.
        # Only once the pipeline is PLAYING with no state change pending:
        # send_event holds the pipeline's state lock and waits for a
        # source's stream lock, held by a streaming thread that waits in a
        # sink for the preroll to finish, which needs that state lock
        _, cur, pending = self.pipeline.get_state(0)
        if cur != Gst.State.PLAYING or pending != Gst.State.VOID_PENDING:
            GLib.timeout_add(10, self.end)
            return False
        self.note("end: EOS sent")
        self.pipeline.send_event(Gst.Event.new_eos())
        return False

    def live_sources_started(self):
        """Every live source of the pipeline has pushed a buffer (its
        segment went before it)."""
        with self.truth.lock:
            run = self.truth.runs[-1]
            for e, path in self.truth.paths.items():
                if e.numsinkpads == 0 and e.find_property("is-live") is not \
                        None and e.get_property("is-live") and \
                        not run.get(path, {}).get("out"):
                    return False
        return True

    def eos_passed(self, element):
        # a branch or source added after EOS went by would never get one
        pad = element.get_static_pad("sink") or element.get_static_pad("src")
        if pad is not None and \
                pad.get_sticky_event(Gst.EventType.EOS, 0) is not None:
            self.note("too late: EOS passed")
            return True
        return False

    def add_branch(self):
        tee = self.pipeline.get_by_name("t")
        if self.eos_passed(tee):
            return
        b = Gst.parse_bin_from_description(
            "queue name=addq ! identity name=addi ! fakesink name=adds "
            "sync=false", True)
        b.set_name("added")
        self.pipeline.add(b)
        # running before linked: a flushing pad would stop the tee
        b.sync_state_with_parent()
        tee.link(b)
        self.done("add-branch", [b.get_by_name("adds")])

    def remove_branch(self):
        q = self.pipeline.get_by_name("rmq")
        sink = self.pipeline.get_by_name("rms")
        teepad = q.get_static_pad("sink").get_peer()
        tee = teepad.get_parent_element()

        def unlink(pad, info):
            if q.get_parent() is None:
                return Gst.PadProbeReturn.REMOVE
            pad.unlink(q.get_static_pad("sink"))
            GLib.idle_add(finish)
            return Gst.PadProbeReturn.REMOVE

        def finish():
            for e in (q, sink):
                e.set_state(Gst.State.NULL)
                self.pipeline.remove(e)
                # taken out while the run goes on: the report folds it into
                # its removed table (docs/tracer.md#removed)
                with self.truth.lock:
                    r = self.truth.runs[-1].get(self.truth.paths.get(e))
                    if r is not None:
                        r["removed"] = True
            tee.release_request_pad(teepad)
            self.done("remove-branch")
            return False
        teepad.add_probe(Gst.PadProbeType.IDLE, unlink)

    def add_source(self):
        f = self.pipeline.get_by_name("f")
        if self.eos_passed(f):
            return
        src = Gst.ElementFactory.make("fakesrc", "addsrc")
        src.set_property("num-buffers", 5)
        src.set_property("sizetype", 2)     # fixed
        src.set_property("sizemax", 64)
        self.pipeline.add(src)
        src.link(f)
        src.sync_state_with_parent()
        self.done("add-source", [src])

    # ---- bus, signals, timeout -----------------------------------------
    def on_message(self, bus, msg):
        t = msg.type
        if t == Gst.MessageType.EOS:
            self.note("eos")
            self.finish(EXIT_EOS)
        elif t == Gst.MessageType.ERROR:
            err, dbg = msg.parse_error()
            self.note("error %s: %s" % (msg.src.get_name(), err.message))
            self.finish(EXIT_ERROR)
        return True

    def on_sigint(self):
        self.note("SIGINT")
        if self.args.scenario == "sigint-eos":
            # gst-launch-1.0 -e: EOS goes through, then the EOS message ends
            self.pipeline.send_event(Gst.Event.new_eos())
        else:
            self.finish(EXIT_EOS)
        return True

    def on_timeout(self):
        self.note("timeout")
        # where it stands: the state, and the sinks no EOS reached
        _, cur, pending = self.pipeline.get_state(0)
        waiting = []
        for e in list(self.sinks):
            pad = e.get_static_pad("sink")
            if e.get_parent() is not None and pad is not None and \
                    pad.get_sticky_event(Gst.EventType.EOS, 0) is None:
                waiting.append(self.truth.paths.get(e) or e.get_name())
        self.note("state %s (pending %s); no EOS at %s" % (
            cur.value_nick, pending.value_nick,
            ", ".join(sorted(waiting)) or "no sink"))
        self.finish(EXIT_TIMEOUT)
        return False

    def finish(self, code):
        if self.exit is None:
            self.exit = code
        self.loop.quit()

    def run(self):
        a = self.args
        try:
            p = Gst.parse_launch(a.launch)
        except GLib.Error as e:
            print("runner: bad description: %s" % e.message, file=sys.stderr)
            return EXIT_USAGE
        if not isinstance(p, Gst.Pipeline):
            q = Gst.Pipeline.new(None)
            q.add(p)
            p = q
        self.pipeline = p
        p.connect("deep-element-added",
                  lambda b, sub, e: self.probe_element(e))
        it = p.iterate_recurse()
        for e in iter_elements(it):
            self.probe_element(e)
        bus = p.get_bus()
        bus.add_signal_watch()
        bus.connect("message", self.on_message)
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGINT,
                             self.on_sigint)
        GLib.timeout_add(int(a.timeout * 1000), self.on_timeout)
        if a.after == 0:
            GLib.idle_add(self.act)
            self.triggered = True
        ret = p.set_state(Gst.State.PLAYING)
        if ret == Gst.StateChangeReturn.FAILURE:
            self.note("set_state PLAYING failed")
            self.exit = EXIT_ERROR
        else:
            self.loop.run()
        p.set_state(Gst.State.NULL)
        bus.remove_signal_watch()
        self.write_truth()
        if self.broken:
            print("runner: " + self.broken, file=sys.stderr)
            return EXIT_USAGE
        return self.exit

    def write_truth(self):
        if not self.args.truth:
            return
        runs = []
        with self.truth.lock:
            for pad in list(self.truth.splits):
                self.truth.settle(pad)
            for r in self.truth.runs:
                runs.append({k: dict(v) for k, v in r.items()})
        leaky, early = {}, False
        for e, path in list(self.truth.paths.items()):
            if e.find_property("leaky") is not None and \
                    int(e.get_property("leaky")) != 0:
                leaky[path] = True
            if e in self.sinks and e.find_property("num-buffers") is not \
                    None and e.get_property("num-buffers") >= 0:
                early = True    # a sink that stops early: queues keep some
        out = {"launch": self.args.launch, "scenario": self.args.scenario,
               "leaky": leaky, "early": early,
               "after": self.args.after, "end_after": self.args.end_after,
               "exit": self.exit,
               "pipeline": self.pipeline.get_name(), "runs": runs,
               "events": self.events}
        tmp = self.args.truth + ".tmp"
        with open(tmp, "w") as f:
            json.dump(out, f, indent=1, sort_keys=True)
        os.replace(tmp, self.args.truth)


def iter_elements(it):
    out = []
    while True:
        res, e = it.next()
        if res == Gst.IteratorResult.OK:
            out.append(e)
        elif res == Gst.IteratorResult.RESYNC:
            it.resync()
            out = []
        else:
            return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--launch", required=True,
                    help="gst-launch-1.0 pipeline description")
    ap.add_argument("--scenario", default="eos", choices=SCENARIOS)
    ap.add_argument("--after", type=int, default=-1,
                    help="act when sinks have taken this many buffers")
    ap.add_argument("--end-after", type=int, default=-1,
                    help="once the action is done and the sinks took this "
                    "many more buffers, send EOS (-1: the stream ends by "
                    "itself)")
    ap.add_argument("--timeout", type=float, default=20.0,
                    help="seconds before the run counts as a hang")
    ap.add_argument("--truth", help="write the truth JSON here")
    a = ap.parse_args()
    # an empty argv, not None: GStreamer 1.28's typelib makes argv
    # non-nullable, and PyGObject without gst-python's overrides refuses None
    Gst.init([])
    try:
        code = Runner(a).run()
    except Exception:
        import traceback
        traceback.print_exc()
        code = EXIT_USAGE
    sys.exit(code)


if __name__ == "__main__":
    main()
