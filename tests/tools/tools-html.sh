#!/usr/bin/env bash
# gst-gpuprof dot and html, and the html= output, on a real run:
#  - the DOT parses with Graphviz (dot -Tsvg) and its fill colours follow
#    the busy % that the same run's summary holds (redder = busier);
#  - the HTML pages (html= live, gst-gpuprof html of the summary and of a
#    sweep) load in headless Chromium with the network cut off: no console
#    message, no blocked request, every section rendered, one graph node per
#    element with the summary's busy share, the plateau ringed.
#  - over time: a ~3 s live run at interval=0.5 (html= page, the page of its
#    summary with the -live.jsonl found beside it or named by --live): one
#    fps point per JSON line, equal to the line's fps; its trace's page: the
#    sink's fps points add up to the sink's buffers in the summary;
#  - 120 elements in 12 bins: groups by bin and factory, an opened group,
#    sort by a column, the filter, the graph folded per bin and expanded;
#  - screenshots (chromium --screenshot, read with tests/common/png_pixels.py)
#    checked for content: the graph drawn, the bottleneck's colour at its
#    busy share, the over-time lines, the sweep's lines.
# Negative controls show the checks can fail: a page with a script error and
# one with a remote image are caught; a page without a time series, or
# without its script, fails the screenshot checks.
# In a sanitizer build the Chromium part is left to the plain build (the
# pages are the same). Skips (77) when neither Graphviz nor Chromium is
# installed; says which part
# it skipped otherwise. Usage: tools-html.sh GST_GPUPROF BUILD_ROOT
set -euo pipefail
tool=$1
build=$2
export GST_PLUGIN_PATH=$build/tracers
work=$(mktemp -d)
# GPUPROF_KEEP_TMP=1 keeps the pages, DOMs and screenshots to look at
trap '[ -n "${GPUPROF_KEEP_TMP:-}" ] && echo "kept $work" || rm -rf "$work"' EXIT
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
"$py" - "$work/run.json" "$work/run.dot" "$(dirname "$0")/../common" <<'PY'
import json, re, sys
sys.path.insert(0, sys.argv[3])
from occupancy import occupancy
s = json.load(open(sys.argv[1]))
dot = open(sys.argv[2]).read()
# the share of its thread's time in its work, as the verdict's (busy: the
# on-CPU part)
busy = {e["path"]: occupancy(e) for e in s["elements"]}
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
"$py" "$(dirname "$0")/tools-html-fixture.py" chain "$work/run.json" "$work/big.json"
"$tool" html "$work/big.json" -o "$work/big.html"
# a ~3 s live run at interval=0.5 (the sink slower than the source, so the
# queue fills), with a trace: the over-time sources
GST_TRACERS="gpuprof(stats=$work/ot.json,html=$work/ot-live.html,trace=$work/ot-trace.json,interval=0.5,report=off)" \
  gst-launch-1.0 -q videotestsrc is-live=true num-buffers=75 \
  ! video/x-raw,width=160,height=120,framerate=30/1 ! queue max-size-buffers=3 \
  ! identity sleep-time=40000 ! fakesink sync=true \
  >"$work/launch-ot.log" 2>&1 || { cat "$work/launch-ot.log"; fail "live pipeline"; }
[ -s "$work/ot-live.jsonl" ] || fail "interval= wrote no ot-live.jsonl"
"$tool" html "$work/ot.json" -o "$work/ot-tool.html"
cp "$work/ot-live.jsonl" "$work/elsewhere.jsonl"
cp "$work/ot.json" "$work/alone.json"
"$tool" html "$work/alone.json" --live "$work/elsewhere.jsonl" -o "$work/ot-opt.html"
"$tool" html "$work/ot-trace.json" -o "$work/ot-trace.html"
echo '{"seq": 1, "pipeline": "pipeline0"' >"$work/bad.jsonl"
echo '{"seq": 2, "pipeline": "pipeline0"}' >>"$work/bad.jsonl"
rc=0
"$tool" html "$work/ot.json" --live "$work/bad.jsonl" -o "$work/x.html" 2>"$work/bad-live.err" || rc=$?
[ "$rc" = 2 ] && grep -q "bad.jsonl:1:" "$work/bad-live.err" || \
  { cat "$work/bad-live.err"; fail "a broken --live file: exit $rc, not 2 naming its line"; }
# 120 elements in 12 bins of 10, three factories; blocked time in another
# order than work, so the sort by column shows
"$py" "$(dirname "$0")/tools-html-fixture.py" bins "$work/run.json" "$work/bins.json"
"$tool" html "$work/bins.json" -o "$work/bins.html"
# nothing in the files points outside: the only URL is the SVG namespace
for f in live tool sweep ot-live ot-trace bins; do
  if grep -o 'https\?://[^" ]*' "$work/$f.html" | grep -v '^http://www.w3.org/2000/svg$' | grep -q .; then
    fail "$f.html names a URL"
  fi
done
if [ -z "$chrome" ]; then
  echo "SKIP part: chromium not installed, the pages were not loaded"
  exit 0
fi
# Under the sanitizers our code (the tool, the tracer) ran above; what
# Chromium checks next is the pages' own script and layout, the same pages
# as in the plain build, where it runs (half this test's time)
if [ -n "${GPUPROF_SANITIZER_PRELOAD:-}" ]; then
  echo "SKIP part: sanitizer build: the pages are loaded in Chromium by the plain build's run"
  exit 0
fi
# negative controls
sed 's|"use strict";|"use strict"; undefinedFunction();|' "$work/tool.html" >"$work/bad-js.html"
sed 's|<div id="content"></div>|<div id="content"></div><img src="http://example.invalid/x.png">|' \
  "$work/tool.html" >"$work/bad-net.html"
# network off: a dead proxy and no name resolution; the page's own CSP
# also blocks any request and the page records the violation
offline=(--headless --no-sandbox --disable-gpu --proxy-server=127.0.0.1:9
  --host-resolver-rules="MAP * ~NOTFOUND" --user-data-dir="$work/profile"
  --virtual-time-budget=5000)
# load PAGE [#VIEW OUT]: PAGE.html's DOM after its script, in OUT.dom
load() {
  local out=${3:-$1}
  timeout 180 "$chrome" "${offline[@]}" --enable-logging=stderr --v=0 \
    --dump-dom "file://$work/$1.html${2:-}" >"$work/$out.dom" 2>"$work/$out.err" || true
  grep -q '<body' "$work/$out.dom" || { cat "$work/$out.err"; fail "$out: chromium gave no DOM"; }
}
# shot PAGE #VIEW OUT: a screenshot of PAGE.html in that view, OUT.png
shot() {
  timeout 180 "$chrome" "${offline[@]}" --hide-scrollbars --window-size=2000,800 \
    --screenshot="$work/$3.png" "file://$work/$1.html$2" >"$work/$3.shot.err" 2>&1 || true
  [ -s "$work/$3.png" ] || { cat "$work/$3.shot.err"; fail "$3: chromium took no screenshot"; }
}
for f in live tool sweep big bad-js bad-net ot-live ot-tool ot-opt ot-trace bins; do load $f; done
load bins "#group=bin" bins-group
load bins "#group=bin&open=big%2Fbin03" bins-open
load bins "#group=factory&sort=blocked" bins-factory
load bins "#sort=blocked" bins-sort
load bins "#filter=e00" bins-filter
load bins "#expand=big%2Fbin03" bins-expand
load bins "#group=nonsense" bins-badview
shot tool "#only=graph" shot-graph
shot bad-js "#only=graph" shot-graph-bad
shot ot-live "#only=over-time" shot-ot
shot tool "#only=over-time" shot-ot-none
shot sweep "#only=sweep" shot-sweep
shot bins "#only=graph" shot-bins
"$py" "$(dirname "$0")/tools-html-views.py" "$work" "$(dirname "$0")/../common"
echo "tools-html: ok"
