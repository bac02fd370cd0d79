#!/usr/bin/env python3
# The HTML report's views, checked in the DOMs and screenshots that
# tools-html.sh had headless Chromium make in WORK (see the header there).
# Usage: tools-html-views.py WORK COMMON_DIR
import json
import os
import re
import sys

w = sys.argv[1]
sys.path.insert(0, sys.argv[2])
import png_pixels  # noqa: E402
from occupancy import occupancy  # noqa: E402

WAIT = re.compile(r"^wait(ing)?_.*ns$|_wait_ns$")
PALETTE = [(0x4e, 0x79, 0xa7), (0xf2, 0x8e, 0x2b)]


def read(name):
    return open(os.path.join(w, name)).read()


def problems(name):
    dom, err = read(name + ".dom"), read(name + ".err")
    p = [l for l in err.splitlines() if ":CONSOLE" in l]
    m = re.search(r'data-errors="([^"]*)"', dom)
    if m:
        p.append(m.group(1))
    if 'data-done="1"' not in dom:
        p.append("script did not finish")
    return dom, p


def page(name):
    dom, p = problems(name)
    assert not p, (name, p)
    return dom


def tags(dom, pattern):
    """attribute dicts of the tags whose text matches pattern"""
    return [dict(re.findall(r'([\w-]+)="([^"]*)"', m))
            for m in re.findall(pattern, dom)]


def points(dom, series):
    ps = [a for a in tags(dom, r'<circle [^>]*class="ot-point"[^>]*>')
          if a["data-series"] == series]
    return sorted(ps, key=lambda a: float(a["data-t"]))


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


# ------------------------------------- every page: sections, graph, folds
s = json.load(open(os.path.join(w, "run.json")))
for bad in ("bad-js", "bad-net"):
    assert problems(bad)[1], bad + ": the check missed it"
for name in ("live", "tool"):
    dom = page(name)
    for sec in ("verdict", "graph", "time-split", "latency", "batches", "queues", "over-time"):
        assert re.search(r'<section id="%s" data-rendered="1"' % sec, dom), (name, sec)
    nodes = dict((m.group(1), float(m.group(2))) for m in
                 re.finditer(r'<g class="node" data-path="([^"]+)" data-heat="([0-9.]+)"', dom))
    want = {e["path"] for e in s["elements"]} | {l["src"] for l in s["links"]} | {l["sink"] for l in s["links"]}
    assert set(nodes) == want, (name, set(nodes) ^ want)
    qs = {q["path"] for q in s["queues"]}
    for e in s["elements"]:
        if e["path"] not in qs:
            work = occupancy(e)
            assert abs(nodes[e["path"]] - work) < 0.001, (name, e["path"])
    assert dom.count('class="edge"') == len(s["links"]), name
    # the verdict at the top: what limits (rank 1 of the limits table)
    first = s["limits"][0]
    assert ("Limit: %s %s — " % (first["kind"], first["what"])) in dom, name
    print("%s.html: %d nodes, %d edges, all sections" % (name, len(nodes), len(s["links"])))
# 120 elements: all in the graph, 40 bars then the fold; the outlier's bar
# does not shrink the others (shares of wall time: 1 % stays 1 %)
dom = page("big")
assert dom.count('<g class="node"') == 120
assert "the other 80 elements" in dom
widths = [float(x) for x in re.findall(r'<rect x="260" y="\d+" width="([0-9.]+)" height="13" fill="#4e79a7"', dom)]
assert len(widths) == 120, len(widths)
assert abs(max(widths) - 300) < 1 and abs(sorted(widths)[0] - 6) < 0.5, (max(widths), min(widths))
print("big.html: 120 nodes, fold after 40, outlier bar %.0f px, others %.1f px" % (max(widths), min(widths)))
dom = page("sweep")
for sec in ("sweep", "sweep-points", "sweep-results"):
    assert re.search(r'<section id="%s" data-rendered="1"' % sec, dom), sec
rings = re.findall(r'class="plateau"><title>([^<]*)</title>', dom)
assert sorted(rings) == ["streams=1, batch=2: 55.0 fps (plateau)",
                         "streams=2, batch=4: 100.0 fps (plateau)"], rings
assert dom.count('class="point"') == 5, dom.count('class="point"')
assert "x &lt;/script&gt;&lt;b&gt;" in dom, "the error text is shown as text"
print("sweep.html: plateau rings", rings)


# ---------------------------------------------------- over time: snapshots
s = json.load(open(os.path.join(w, "ot.json")))
sink = [e for e in s["elements"] if e["role"] == "sink"][0]
lines = [json.loads(l) for l in read("ot-live.jsonl").splitlines() if l.strip()]
assert len(lines) >= 5 and lines[-1]["final"], len(lines)
t0 = lines[0]["t_s"] - lines[0]["interval_s"]
for name in ("ot-live", "ot-tool", "ot-opt"):
    dom = page(name)
    assert re.search(r'<section id="over-time" data-rendered="1"', dom), name
    ps = points(dom, sink["path"])
    assert len(ps) == len(lines), (name, len(ps), len(lines))
    for p, l in zip(ps, lines):
        want = [r for r in l["interval"]["elements"] if r["path"] == sink["path"]][0]
        assert close(float(p["data-v"]), want["fps"]), (name, p, want)
        assert close(float(p["data-t"]), l["t_s"] - t0), (name, p, l["t_s"])
    levels = [q for l in lines for q in l["interval"].get("queues", [])
              if "level_buffers" in q]
    if levels:
        qs = points(dom, levels[0]["path"])
        got = [float(p["data-v"]) for p in qs]
        want = [q["level_buffers"] for l in lines for q in l["interval"]["queues"]
                if q["path"] == levels[0]["path"]]
        assert got == want, (name, got, want)
    else:
        assert "these snapshots carry no queue level" in dom, name
    print("%s: %d fps points = the JSON lines' fps%s" % (
        name, len(ps), ", queue levels too" if levels else " (no levels in the lines)"))

# ------------------------------------------------------ over time: a trace
dom = page("ot-trace")
ps = points(dom, sink["path"])
n = sum(int(p["data-n"]) for p in ps)
assert len(ps) >= 10 and n == sink["buffers_in"], (len(ps), n, sink["buffers_in"])
fsum = sum(float(p["data-v"]) * float(p["data-dt"]) for p in ps)
assert abs(fsum - sink["buffers_in"]) < 1e-6 * sink["buffers_in"], fsum
q = s["queues"][0]
qs = points(dom, q["path"])
lv = [float(p["data-v"]) for p in qs]
# the most the queue held: the trace's own level counters (a bin keeps its
# largest), read here line by line
counted = [json.loads(l.rstrip().rstrip(","))["args"]["buffers"]
           for l in read("ot-trace.json").splitlines()
           if '"ph":"C"' in l and ('"name":"%s level"' % q["path"]) in l]
assert counted and len(qs) == len(ps) and max(lv) == max(counted) > 1, (lv, counted[:20])
print("ot-trace: %d bins, fps x bin = %d buffers = the sink's; queue level up to %d"
      % (len(ps), n, max(lv)))
sec = re.search(r'<section id="over-time".*?</section>', page("tool")).group(0)
assert "<circle" not in sec and "Run with interval=0.5" in sec, ("no series: the how-to", sec)

# --------------------------------------------- 120 elements in 12 bins
b = json.load(open(os.path.join(w, "bins.json")))
els = b["elements"]
cols = [k for k in els[0] if WAIT.search(k)]


def key(e, col):
    if col == "blocked":
        return e["blocked_ns"]
    if col == "work":
        return e["self_ns"]
    return e["self_ns"] + e["blocked_ns"] + sum(e[k] for k in cols)


def order(rows, col):
    return [r for r in sorted(rows, key=lambda r: (-key(r, col), r["path"]))]


def labels(dom):
    return [a["data-path"] for a in tags(dom, r'<text [^>]*class="bar-label"[^>]*>')]


def groups(dom):
    return tags(dom, r'<details [^>]*class="group"[^>]*>')


dom = page("bins")
ng = tags(dom, r'<g class="node-group"[^>]*>')
assert len(ng) == 12 and all(g["data-count"] == "10" for g in ng), ng
assert '<g class="node"' not in dom and dom.count('class="edge"') == 11
assert [g for g in ng if g["data-path"] == "big/bin07"][0]["data-heat"] == "0.900"
assert labels(dom) == [e["path"] for e in order(els, "total")], "default: by total"
dom = page("bins-expand")
assert len(tags(dom, r'<g class="node-group"[^>]*>')) == 11
nodes = tags(dom, r'<g class="node"[^>]*>')
assert sorted(n["data-path"] for n in nodes) == ["big/bin03/e%03d" % i for i in range(30, 40)]
assert dom.count('class="edge"') == 20, dom.count('class="edge"')
dom = page("bins-group")
gs = groups(dom)
byg = {}
for e in els:
    byg.setdefault(e["path"].rsplit("/", 1)[0], []).append(e)
want = sorted(byg, key=lambda g: (-sum(key(e, "total") for e in byg[g]), g))
assert [g["data-group"] for g in gs] == want, [g["data-group"] for g in gs]
assert all(g["data-count"] == "10" and "open" not in g for g in gs)
assert labels(dom) == [], "closed groups draw no bars"
dom = page("bins-open")
assert [g["data-group"] for g in groups(dom) if "open" in g] == ["big/bin03"]
assert labels(dom) == [e["path"] for e in order(byg["big/bin03"], "total")]
dom = page("bins-factory")
gs = groups(dom)
byf = {}
for e in els:
    byf.setdefault(e["factory"], []).append(e)
want = sorted(byf, key=lambda f: (-sum(e["blocked_ns"] for e in byf[f]), f))
assert [g["data-group"] for g in gs] == want and all(g["data-count"] == "40" for g in gs), gs
dom = page("bins-sort")
got = labels(dom)
assert got == [e["path"] for e in order(els, "blocked")] and got != labels(page("bins")), got[:5]
dom = page("bins-filter")
assert labels(dom) == [e["path"] for e in order(els, "total") if "e00" in e["path"]]
ng = tags(dom, r'<g class="node-group"[^>]*>')
assert [g["data-path"] for g in ng if g.get("data-match")] == ["big/bin00"], ng
assert all(g.get("opacity") == "0.25" for g in ng if not g.get("data-match"))
dom = page("bins-badview")
assert "Unknown grouping 'nonsense' in the address: one of none, bin, factory" in dom
print("bins: 12 folded bins (one expanded: 10 nodes, 20 edges), groups by bin and "
      "factory in sum order, an opened group, sort by blocked, filter")

# ---------------------------------------------------------- screenshots


def heat(f):
    f = max(0.0, min(1.0, f))
    c = (0.80 + 0.40 * f, 0.95, 0.80 - 1.40 * f) if f < 0.5 else \
        (1.0, 0.95 - 1.50 * (f - 0.5), 0.10)
    return tuple(round(max(0, min(1, x)) * 255) for x in c)


def shot_problems(name, colours, least, ink_least=10000):
    """what the screenshot lacks: ink (a page with a title and a guide line
    has ~5000 px), and each colour at least `least` px"""
    _, _, rows = png_pixels.read_png(os.path.join(w, name + ".png"))
    p = []
    ink = png_pixels.count_ink(rows)
    if ink < ink_least:
        p.append("%s: blank (%d px drawn)" % (name, ink))
    for c in colours:
        n = png_pixels.count_near(rows, c)
        if n < least:
            p.append("%s: %d px of #%02x%02x%02x, want %d" % ((name, n) + c + (least,)))
    return p


run = json.load(open(os.path.join(w, "run.json")))
boss = [e for e in run["elements"] if e["path"] == run["run"]["bottleneck"]][0]
# the bottleneck's box: 170 x 46 px, less its text
graph = [heat(boss["thread_self_ns"] / boss["thread_wall_ns"] if boss.get("thread_wall_ns") else boss["busy"])]
assert not shot_problems("shot-graph", graph, 3000), shot_problems("shot-graph", graph, 3000)
assert shot_problems("shot-graph-bad", graph, 3000), "a page whose script broke passed"
# the over-time line: 640 px across, 2 px thick (the legend swatch is 13 x 13)
assert not shot_problems("shot-ot", PALETTE[:1], 800), shot_problems("shot-ot", PALETTE[:1], 800)
assert shot_problems("shot-ot-none", PALETTE[:1], 800), "no series, yet lines"
# one line per stream count
assert not shot_problems("shot-sweep", PALETTE, 600), shot_problems("shot-sweep", PALETTE, 600)
assert not shot_problems("shot-bins", [heat(0.9)], 3000), shot_problems("shot-bins", [heat(0.9)], 3000)
print("screenshots: graph with the bottleneck's colour, over-time lines, sweep lines, "
      "folded graph; broken pages caught")
