#!/usr/bin/env bash
# gst-gpuprof dot and html, and the html= output, on a real run:
#  - the DOT parses with Graphviz (dot -Tsvg) and its fill colours follow
#    the busy % that the same run's summary holds (redder = busier);
#  - the HTML pages (html= live, gst-gpuprof html of the summary and of a
#    sweep) load in headless Chromium with the network cut off: no console
#    message, no blocked request, every section rendered, one graph node per
#    element with the summary's busy share, the plateau ringed.
# Negative controls show the checks can fail: a page with a script error and
# one with a remote image are caught.
# Skips (77) when neither Graphviz nor Chromium is installed; says which part
# it skipped otherwise. Usage: tools-html.sh GST_GPUPROF BUILD_ROOT
set -euo pipefail
tool=$1
build=$2
export GST_PLUGIN_PATH=$build/tracers
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
py=$(command -v python3)
have_dot=$(command -v dot || true)
chrome=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$have_dot" ] && [ -z "$chrome" ]; then
  echo "SKIP: neither graphviz (dot) nor chromium installed"
  exit 77
fi
fail() { echo "FAIL: $*" >&2; exit 1; }

# a slow stage (identity sleeping 3 ms a buffer) behind a small queue, a
# fast branch beside it, and a bin whose ghost pads the links go through
GST_TRACERS="gpuprof(stats=$work/run.json,html=$work/live.html,report=off)" \
  gst-launch-1.0 -q videotestsrc num-buffers=50 \
  ! video/x-raw,width=160,height=120 ! tee name=t \
  t. ! queue ! videoconvert ! video/x-raw,format=I420 ! fakesink \
  t. ! queue max-size-buffers=2 ! "(" identity name=slow sleep-time=3000 ")" \
  ! fakesink >"$work/launch.log" 2>&1 || { cat "$work/launch.log"; fail "pipeline"; }
[ -s "$work/run.json" ] || fail "no summary"
[ -s "$work/live.html" ] || fail "html= wrote nothing"

# ------------------------------------------------------------------ DOT
"$tool" dot "$work/run.json" >"$work/run.dot"
"$py" - "$work/run.json" "$work/run.dot" <<'PY'
import json, re, sys
s = json.load(open(sys.argv[1]))
dot = open(sys.argv[2]).read()
busy = {e["path"]: e["busy"] for e in s["elements"]}
queues = {q["path"] for q in s["queues"]}
nodes, fills = {}, {}
for m in re.finditer(r'^  "([^"]+)" \[label="[^"]*", fillcolor="#(..)(..)(..)"', dot, re.M):
    rgb = tuple(int(m.group(i), 16) for i in (2, 3, 4))
    fills[m.group(1)] = rgb
    nodes[m.group(1)] = rgb[0] - rgb[1]
edges = re.findall(r'^  "([^"]+)" -> "([^"]+)" \[label="(\d+) buf', dot, re.M)
want = {(l["src"], l["sink"], l["buffers"]) for l in s["links"]}
got = {(a, b, int(n)) for a, b, n in edges}
assert want and want == got, (want, got)
# each fill is the documented scale (docs/html.md) at the element's busy
# share in the summary, a queue's at its time full
def heat(f):
    f = max(0.0, min(1.0, f))
    if f < 0.5:
        c = (0.80 + 0.40 * f, 0.95, 0.80 - 1.40 * f)
    else:
        c = (1.0, 0.95 - 1.50 * (f - 0.5), 0.10)
    return tuple(int(max(0, min(1, x)) * 255) for x in c)
share = dict(busy)
for q in s["queues"]:
    share[q["path"]] = q["backpressure_ns"] / q["upstream_wall_ns"] if q["upstream_wall_ns"] else 0
for p, f in share.items():
    assert all(abs(a - b) <= 1 for a, b in zip(fills[p], heat(f))), (p, f, fills[p], heat(f))
# so redder is busier: the slow stage is the reddest element
els = sorted((p for p in busy if p not in queues), key=lambda p: busy[p])
assert len(els) >= 5, els
top = els[-1]
assert top.endswith("/slow"), ("the sleeping identity is the busiest", top, busy)
assert nodes[top] == max(nodes[p] for p in els), top
assert busy[top] - busy[els[0]] > 0.3 and nodes[top] > nodes[els[0]], \
    (busy[top], busy[els[0]], nodes[top], nodes[els[0]])
print("dot: %d nodes, %d edges, busiest %s %.0f %%" % (len(nodes), len(got), top, 100 * busy[top]))
PY
if [ -n "$have_dot" ]; then
  dot -Tsvg "$work/run.dot" >"$work/run.svg" || fail "dot -Tsvg rejects the DOT"
  grep -q "<svg" "$work/run.svg" || fail "no svg"
  "$tool" dot -Tsvg "$work/run.json" >"$work/run2.svg" || fail "gst-gpuprof dot -Tsvg"
  grep -q "<svg" "$work/run2.svg" || fail "no svg from -Tsvg"
else
  echo "SKIP part: graphviz not installed, the DOT was not parsed by dot"
fi

# ----------------------------------------------------------------- HTML
"$tool" html "$work/run.json" -o "$work/tool.html"
cat >"$work/sweep.json" <<'JSON'
{"schema": "gpuprof-sweep", "version": 1, "mode": "plateau", "template": "t",
 "command": "c", "batch_var": "batch", "streams_var": "streams",
 "threshold": 0.05, "fps_floor": 0, "interrupted": false,
 "variables": {"streams": [1, 2], "batch": [1, 2, 4, 8]},
 "points": [
  {"values": {"streams": 1, "batch": 1}, "status": "ok", "fps": 30, "fps_per_stream": 30},
  {"values": {"streams": 1, "batch": 2}, "status": "ok", "fps": 55, "fps_per_stream": 55},
  {"values": {"streams": 1, "batch": 4}, "status": "ok", "fps": 57, "fps_per_stream": 57},
  {"values": {"streams": 2, "batch": 1}, "status": "ok", "fps": 31, "fps_per_stream": 15.5},
  {"values": {"streams": 2, "batch": 2}, "status": "ok", "fps": 60, "fps_per_stream": 30},
  {"values": {"streams": 2, "batch": 4}, "status": "ok", "fps": 100, "fps_per_stream": 50},
  {"values": {"streams": 2, "batch": 8}, "status": "ok", "fps": 102, "fps_per_stream": 51},
  {"values": {"streams": 2, "batch": 16}, "status": "failed", "error": "x </script><b>"}],
 "results": [{"group": {"streams": 1}, "plateau": 2, "note": ""},
             {"group": {"streams": 2}, "plateau": 4, "note": ""}]}
JSON
"$tool" html "$work/sweep.json" -o "$work/sweep.html"
# 120 elements in a chain, one an outlier with 50x the others' self time
"$py" - "$work/run.json" "$work/big.json" <<'PY'
import copy, json, sys
s = json.load(open(sys.argv[1]))
proto = s["elements"][0]
wall = s["run"]["wall_ns"]
els, links = [], []
for i in range(120):
    e = copy.deepcopy(proto)
    e["path"] = "big/e%03d" % i
    e["self_ns"] = wall // 100 * (50 if i == 7 else 1)
    e["busy"] = 0.01 * (50 if i == 7 else 1)
    els.append(e)
    if i:
        links.append({"src": "big/e%03d" % (i - 1), "src_pad": "src",
                      "sink": e["path"], "sink_pad": "sink", "buffers": 10})
s["elements"], s["links"], s["queues"], s["batches"] = els, links, [], []
s["run"]["bottleneck"] = "big/e007"
json.dump(s, open(sys.argv[2], "w"))
PY
"$tool" html "$work/big.json" -o "$work/big.html"
# nothing in the files points outside: the only URL is the SVG namespace
for f in live tool sweep; do
  if grep -o 'https\?://[^" ]*' "$work/$f.html" | grep -v '^http://www.w3.org/2000/svg$' | grep -q .; then
    fail "$f.html names a URL"
  fi
done
if [ -z "$chrome" ]; then
  echo "SKIP part: chromium not installed, the pages were not loaded"
  exit 0
fi
# negative controls
sed 's|"use strict";|"use strict"; undefinedFunction();|' "$work/tool.html" >"$work/bad-js.html"
sed 's|<div id="content"></div>|<div id="content"></div><img src="http://example.invalid/x.png">|' \
  "$work/tool.html" >"$work/bad-net.html"
load() {
  # network off: a dead proxy and no name resolution; the page's own CSP
  # also blocks any request and the page records the violation
  timeout 180 "$chrome" --headless --no-sandbox --disable-gpu \
    --proxy-server=127.0.0.1:9 --host-resolver-rules="MAP * ~NOTFOUND" \
    --user-data-dir="$work/profile" --enable-logging=stderr --v=0 \
    --virtual-time-budget=5000 --dump-dom "file://$work/$1.html" \
    >"$work/$1.dom" 2>"$work/$1.err" || true
  grep -q '<body' "$work/$1.dom" || { cat "$work/$1.err"; fail "$1: chromium gave no DOM"; }
}
for f in live tool sweep big bad-js bad-net; do load $f; done
"$py" - "$work" <<'PY'
import json, os, re, sys
w = sys.argv[1]
s = json.load(open(os.path.join(w, "run.json")))
def problems(name):
    dom = open(os.path.join(w, name + ".dom")).read()
    err = open(os.path.join(w, name + ".err")).read()
    p = [l for l in err.splitlines() if ":CONSOLE" in l]
    m = re.search(r'data-errors="([^"]*)"', dom)
    if m:
        p.append(m.group(1))
    if 'data-done="1"' not in dom:
        p.append("script did not finish")
    return dom, p
for bad in ("bad-js", "bad-net"):
    assert problems(bad)[1], bad + ": the check missed it"
for name in ("live", "tool"):
    dom, p = problems(name)
    assert not p, (name, p)
    for sec in ("verdict", "graph", "time-split", "latency", "batches", "queues", "over-time"):
        assert re.search(r'<section id="%s" data-rendered="1"' % sec, dom), (name, sec)
    nodes = dict((m.group(1), float(m.group(2))) for m in
                 re.finditer(r'<g class="node" data-path="([^"]+)" data-heat="([0-9.]+)"', dom))
    want = {e["path"] for e in s["elements"]} | {l["src"] for l in s["links"]} | {l["sink"] for l in s["links"]}
    assert set(nodes) == want, (name, set(nodes) ^ want)
    qs = {q["path"] for q in s["queues"]}
    for e in s["elements"]:
        if e["path"] not in qs:
            assert abs(nodes[e["path"]] - e["busy"]) < 0.001, (name, e["path"])
    assert dom.count('class="edge"') == len(s["links"]), name
    assert ("Bottleneck: " + s["run"]["bottleneck"]) in dom, name
    print("%s.html: %d nodes, %d edges, all sections" % (name, len(nodes), len(s["links"])))
# 120 elements: all in the graph, 40 bars then the fold; the outlier's bar
# does not shrink the others (shares of wall time: 1 % stays 1 %)
dom, p = problems("big")
assert not p, ("big", p)
assert dom.count('<g class="node"') == 120
assert "the other 80 elements" in dom
widths = [float(x) for x in re.findall(r'<rect x="260" y="\d+" width="([0-9.]+)" height="13" fill="#4e79a7"', dom)]
assert len(widths) == 120, len(widths)
assert abs(max(widths) - 300) < 1 and abs(sorted(widths)[0] - 6) < 0.5, (max(widths), min(widths))
print("big.html: 120 nodes, fold after 40, outlier bar %.0f px, others %.1f px" % (max(widths), min(widths)))
dom, p = problems("sweep")
assert not p, ("sweep", p)
for sec in ("sweep", "sweep-points", "sweep-results"):
    assert re.search(r'<section id="%s" data-rendered="1"' % sec, dom), sec
rings = re.findall(r'class="plateau"><title>([^<]*)</title>', dom)
assert sorted(rings) == ["streams=1, batch=2: 55.0 fps (plateau)",
                         "streams=2, batch=4: 100.0 fps (plateau)"], rings
assert dom.count('class="point"') == 5, dom.count('class="point"')
assert "x &lt;/script&gt;&lt;b&gt;" in dom, "the error text is shown as text"
print("sweep.html: plateau rings", rings)
PY
echo "tools-html: ok"
