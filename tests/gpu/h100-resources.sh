#!/bin/bash
# The GPU as resources on the GPU host (issue 23), one call (about 3-5 min,
# never more than BUDGET_S, 420 s, of runs):
#   tests/gpu/h100-resources.sh BUILD_DIR LONG_CLIP [STREAMS] [ROUNDS]
# BUILD_DIR: a build of this tree made on the build machine (carried as
# .gpurun/build: /work/notes/mkgpurun.sh); LONG_CLIP: a long H.264 clip
# (tests/gpu/make-long-clip.sh: .gpurun/media/ball-720p30-long.mp4, 3000
# frames of 720p30); STREAMS: decode branches (14); ROUNDS: paired rounds of
# the cost check (5). Sources .gpubundle/env.sh (carried).
#  (a) STREAMS nvh264dec branches in ONE process on the long clip (a
#      process per stream spends its life in start-up: GPU host run 1),
#      nvidia-smi dmon beside it in the same seconds: gpuprof's GPU
#      resources table, ranked verdict, start-up line and interval lines;
#      PASS when NVDEC >= 90 % (gpuprof), gpuprof's NVDEC mean is within 10
#      points of dmon's over its readings' seconds, the verdict's rank 1 is the GPU's NVDEC
#      (decode-bound) naming the decoders, and the decoders' start-up is
#      reported apart (first call far above their largest steady call);
#  (b) the analytics example at 16 streams (batch 16, GPU inference,
#      queues, cupti=on, nvml=on): the inference stage's share of the
#      kernel time and of the wall (CUPTI), the SMs (NVML), the verdict and
#      the ncu command;
#  (c) (b)'s pipeline with no tracer, gpuprof(nvml=off,cupti=off) and
#      gpuprof(nvml=on,cupti=off), ROUNDS rounds each running the three back
#      to back: fps per round, the median of the paired losses; PASS when
#      nvml=on cupti=off loses at most 5 % against no tracer (median).
# Output: stdout (the lines to paste are the "FIGURE" and "PASS"/"FAIL"
# lines at the end) and files under $OUT; send back both.
# Environment: OUT, WORK (folders), DECODER (nvh264dec), INFER_DEVICE (gpu),
# BUDGET_S (420), PARTS (abc: which of the three to run).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:?build dir}" && pwd)
CLIP=$(cd "$(dirname "${2:?long clip (tests/gpu/make-long-clip.sh)}")" && pwd)/$(basename "$2")
STREAMS=${3:-14}
ROUNDS=${4:-5}
DECODER=${DECODER:-nvh264dec}
INFER_DEVICE=${INFER_DEVICE:-gpu}
BUDGET_S=${BUDGET_S:-420}
PARTS=${PARTS:-abc}
OUT=${OUT:-/tmp/gpuprof-h100-resources}
WORK=${WORK:-/tmp/gpuprof-h100-resources-work}
mkdir -p "$OUT" "$WORK"
# shellcheck disable=SC1091
. "$ROOT/.gpubundle/env.sh"
export LD_LIBRARY_PATH="$BUILD/gst${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export GST_PLUGIN_PATH="$BUILD/tracers:$BUILD/elements/gpuprofmeter:$BUILD/examples/analytics"
export GST_REGISTRY_1_0="$WORK/registry.bin"
SECONDS=0
PASS=() FAIL=() FIGURES=()
check() { if [ "$2" = 1 ]; then PASS+=("$1"); else FAIL+=("$1"); fi; }
figure() { FIGURES+=("$1"); }
left() { echo $((BUDGET_S - SECONDS)); }
finish() {
  echo
  echo "=== summary ($SECONDS s)"
  for f in "${FIGURES[@]}"; do echo "FIGURE $f"; done
  for p in "${PASS[@]}"; do echo "PASS $p"; done
  for f in "${FAIL[@]}"; do echo "FAIL $f"; done
  echo "files: $OUT"
  exit 0
}

# ---------------------------------------------------------- preflight
echo "=== preflight"
nvidia-smi -L
nvidia-smi --query-gpu=driver_version,clocks.max.sm --format=csv,noheader
echo "tree: $(git -C "$ROOT" log -1 --oneline 2>/dev/null || echo '(no git)')"
echo "clip: $CLIP, $(stat -c %s "$CLIP" 2>/dev/null || echo '?') bytes"
ok=1
[ -f "$CLIP" ] || { echo "no clip $CLIP (make it with tests/gpu/make-long-clip.sh)"; ok=0; }
for f in gpuprof "$DECODER" analyticsinfer; do
  gst-inspect-1.0 "$f" > "$WORK/inspect-$f.txt" 2>&1 || {
    echo "gst-inspect-1.0 $f failed:"; tail -3 "$WORK/inspect-$f.txt"; ok=0; }
done
check "preflight: clip, gpuprof tracer, $DECODER, analyticsinfer found" "$ok"
[ "$ok" = 1 ] || finish

# ---------------------------------------------------------------- (a)
part_a() {
echo
echo "=== (a) $STREAMS x $DECODER in one process on the long clip, nvidia-smi dmon beside"
P=""
for i in $(seq 0 $((STREAMS - 1))); do
  P="$P filesrc location=$CLIP ! qtdemux ! h264parse ! $DECODER name=dec$i ! fakesink sync=false"
done
nvidia-smi dmon -s uc -d 1 -o T > "$OUT/dmon-decode.txt" 2>&1 &
DMON=$!
sleep 2
t0=$(date +%T)
# shellcheck disable=SC2086
GST_TRACERS="gpuprof(nvml=on,cupti=on,nvml-hz=2,interval=1,stats=$WORK/decode.json,report=$OUT/report-decode.txt,html=$OUT/decode.html)" \
  timeout 150 gst-launch-1.0 $P > "$OUT/log-decode.txt" 2>&1
echo "gst-launch exit $? ($(grep -o 'Execution ended after [0-9:.]*' "$OUT/log-decode.txt"))"
t1=$(date +%T)
sleep 2
kill $DMON 2>/dev/null
wait $DMON 2>/dev/null
echo "--- nvidia-smi dmon (run from $t0 to $t1)"
cat "$OUT/dmon-decode.txt"
echo "--- gpuprof report (interval lines: NVDEC over time)"
cat "$OUT/report-decode.txt"
cp "$WORK"/decode*.json "$WORK"/decode-live* "$OUT/" 2>/dev/null
python3 - "$WORK/decode.json" "$OUT/dmon-decode.txt" "$t0" "$t1" <<'PY' > "$OUT/decode-check.txt" 2>&1
import json, sys
summary, dmon, t0, t1 = sys.argv[1:5]
try:
    s = json.load(open(summary))
except Exception as e:
    print("no summary: %s" % e)
    s = {}
g = (s.get("gpu_resources") or [{}])[0]
# the same seconds: gpuprof's run ends at taken_utc; its NVML figures
# cover its readings' span (span_ns, first to last reading, plus the period
# the first one covers), which leaves the decoders' start-up out, as the
# verdict does; the run's wall_ns where there is no span. A dmon row at
# HH:MM:SS is weighted by its second's overlap with those seconds (rows
# outside, start-up and tear-down, weigh nothing)
import datetime
run_ = s.get("run") or {}
end = datetime.datetime.strptime(run_.get("taken_utc", "1970-01-01T00:00:00.000Z"),
                                 "%Y-%m-%dT%H:%M:%S.%fZ")
end_s = end.hour * 3600 + end.minute * 60 + end.second + end.microsecond / 1e6
span = g.get("span_ns", 0) + g.get("read_period_ns", 0) if g.get("span_ns") else 0
start_s = end_s - (span or run_.get("wall_ns", 0)) / 1e9
head, rows = None, []
for line in open(dmon):
    f = line.lstrip("#").split()
    if line.startswith("#"):
        if "dec" in f:
            head = f
    elif head and len(f) == len(head):
        r = dict(zip(head, f))
        if "Time" not in r:
            r["w"] = 1.0
            rows.append(r)
        elif t0 <= r["Time"] <= t1:
            hh, mm, ss = (int(x) for x in r["Time"].split(":"))
            sec = hh * 3600 + mm * 60 + ss
            r["w"] = max(0.0, min(sec + 1, end_s) - max(sec, start_s))
            rows.append(r)
def mean(k):
    v = [(float(r[k]), r["w"]) for r in rows if r.get(k, "-") not in ("-", "")]
    w = sum(x[1] for x in v)
    return sum(x[0] * x[1] for x in v) / w if w else float("nan")
run = s.get("run") or {}
limits = s.get("limits") or []
top = limits[0] if limits else {}
decs = [e for e in s.get("elements") or [] if e.get("factory", "").endswith("dec")]
dmon_dec = mean("dec")
print("dmon over gpuprof's readings (%.2f s; rows weighted by their second's overlap with them): %d rows, sm %.1f %%, dec %.1f %%, pclk %.0f MHz"
      % (end_s - start_s, sum(1 for r in rows if r["w"] > 0), mean("sm"), dmon_dec, mean("pclk")))
print("gpuprof: %s readings, sm %.1f %%, dec %.1f %% (>=90 %% in %.0f %% of readings), "
      "clock %.0f/%s MHz, throttled %.0f %%, ours dec %.0f %%, read every %.0f ms, "
      "%.3f ms CPU / %.3f ms wall a reading"
      % (g.get("readings"), 100 * g.get("sm", 0), 100 * g.get("dec", 0),
         100 * g.get("dec_saturated", 0), g.get("clock_mhz", 0),
         g.get("clock_max_mhz"), 100 * g.get("throttled", 0),
         100 * g.get("self_dec", 0), g.get("read_period_ns", 0) / 1e6,
         g.get("read_cpu_ns", 0) / 1e6, g.get("read_wall_ns", 0) / 1e6))
print("verdict: limit %s %s (%.0f %%); next %s %s"
      % (run.get("limit_kind"), run.get("limit_what"),
         100 * (run.get("limit_utilisation") or 0), run.get("next_kind"),
         run.get("next_what")))
for l in limits[:4]:
    print("  %s. %s %s %.0f%%: %s%s" % (l["rank"], l["kind"], l["what"],
          100 * l["utilisation"], l["evidence"],
          ("; advice: " + l["advice"]) if l.get("advice") else ""))
firsts = [e.get("first_ns", 0) / 1e6 for e in decs]
maxes = [e.get("self_max_ns", 0) / 1e6 for e in decs]
if decs:
    print("decoders: %d; start-up (first call) %.0f..%.0f ms; largest steady call "
          "%.1f ms; busiest occupies %.0f %% of its thread"
          % (len(decs), min(firsts), max(firsts), max(maxes),
             100 * max((e["thread_self_ns"] / e["thread_wall_ns"]
                        for e in decs if e.get("thread_wall_ns")), default=0)))
named = [e["path"] for e in decs if e["path"] in top.get("evidence", "")]
print("FIGURE (a) %d x %s, one process on the long clip: NVDEC %.1f %% "
      "(gpuprof, %s readings) vs %.1f %% (dmon, %d rows); SM %.1f %% vs %.1f %%; "
      "limit: %s %s (%s); decoders' start-up %.0f..%.0f ms apart from a largest "
      "steady call of %.1f ms"
      % (len(decs), decs[0]["factory"] if decs else "?", 100 * g.get("dec", 0),
         g.get("readings"), dmon_dec, sum(1 for r in rows if r["w"] > 0),
         100 * g.get("sm", 0), mean("sm"), run.get("limit_kind"),
         run.get("limit_what"), top.get("evidence", "")[:60],
         min(firsts or [0]), max(firsts or [0]), max(maxes or [0])))
print("CHECK nvdec>=90 %d" % (g.get("dec", 0) >= 0.9))
print("CHECK near-dmon %d" % (abs(100 * g.get("dec", 0) - dmon_dec) <= 10))
print("CHECK verdict %d" % (top.get("kind") == "gpu"
                            and top.get("what", "").endswith("NVDEC")
                            and "decode-bound" in top.get("evidence", "")
                            and len(named) >= 1))
# each decoder's first call against its own steady calls (their creation
# differs: the first to open its CUDA context pays more)
ratios = [f / m for f, m in zip(firsts, maxes) if m > 0]
print("decoders' first call over their own largest steady call: %.1f..%.1fx"
      % (min(ratios or [0]), max(ratios or [0])))
print("CHECK startup %d" % (bool(decs) and len(ratios) == len(decs)
                            and min(ratios) > 4))
PY
grep -v '^CHECK' "$OUT/decode-check.txt"
ck() { sed -n "s/^CHECK $1 //p" "$OUT/decode-check.txt" | grep -qx 1 && echo 1 || echo 0; }
check "(a) NVDEC >= 90 % (gpuprof)" "$(ck 'nvdec>=90')"
check "(a) gpuprof's NVDEC within 10 points of dmon's" "$(ck near-dmon)"
check "(a) the verdict's rank 1: GPU NVDEC, decode-bound, decoders named" "$(ck verdict)"
check "(a) decoders' start-up reported apart (each one's first call > 4x its largest steady call)" "$(ck startup)"
figure "$(sed -n 's/^FIGURE //p' "$OUT/decode-check.txt")"
echo "(a) done at $SECONDS s"
}

# ---------------------------------------------------------------- (b)
AP=$("$ROOT/examples/analytics/pipeline.sh" -b "$BUILD" --print -n 16 -f 600 \
  --mux-batch 16 --infer-batch 16 --infer-layers 3 --queues on --device "$INFER_DEVICE")
part_b() {
echo
echo "=== (b) the analytics example, 16 streams, batch 16, $INFER_DEVICE inference, cupti=on, nvml=on"
# shellcheck disable=SC2086
GST_TRACERS="gpuprof(cupti=on,nvml=on,stats=$WORK/analytics.json,report=$OUT/report-analytics.txt)" \
  timeout 90 gst-launch-1.0 $AP > "$OUT/log-analytics.txt" 2>&1
echo "gst-launch exit $? ($(grep -o 'Execution ended after [0-9:.]*' "$OUT/log-analytics.txt"))"
cat "$OUT/report-analytics.txt"
cp "$WORK/analytics.json" "$OUT/" 2>/dev/null
python3 - "$WORK/analytics.json" <<'PY' > "$OUT/analytics-check.txt" 2>&1
import json, sys
try:
    s = json.load(open(sys.argv[1]))
except Exception as e:
    print("no summary: %s" % e)
    s = {}
run = s.get("run") or {}
wall = run.get("wall_ns") or 1
els = sorted(s.get("gpu_elements") or [], key=lambda e: -e.get("kernel_ns", 0))
kern = sum(e.get("kernel_ns", 0) for e in els) or 1
for e in els[:4]:
    print("%-40s kernels %.1f %% of the kernel time, %.1f %% of the wall (%.3f ms GPU/buffer)"
          % (e["path"], 100.0 * e["kernel_ns"] / kern, 100.0 * e["kernel_ns"] / wall,
             e.get("ns_per_buffer", 0) / 1e6))
g = (s.get("gpu_resources") or [{}])[0]
print("%s: SMs %.1f %% (NVML, ours %.0f %%), memory %.1f %%, NVDEC %.1f %%, clock %.0f MHz, %s readings"
      % (g.get("name"), 100 * g.get("sm", 0), 100 * g.get("self_sm", 0),
         100 * g.get("mem", 0), 100 * g.get("dec", 0), g.get("clock_mhz", 0),
         g.get("readings")))
print("verdict: limit %s %s (%.0f %%), next %s %s"
      % (run.get("limit_kind"), run.get("limit_what"), 100 * (run.get("limit_utilisation") or 0),
         run.get("next_kind"), run.get("next_what")))
for l in (s.get("limits") or [])[:5]:
    print("  %s. %s %s %.0f%%: %s%s" % (l["rank"], l["kind"], l["what"], 100 * l["utilisation"],
                                    l["evidence"], ("; advice: " + l["advice"]) if l.get("advice") else ""))
ncu = (s.get("gpu") or {}).get("ncu") or ""
print("ncu: %s" % (ncu or "-"))
infer = els[0] if els else {}
print("FIGURE (b) analytics 16 streams batch 16: %s has %.0f %% of the kernel time "
      "(%.1f %% of the wall); SMs %.1f %% (NVML, ours %.0f %%); limit: %s %s (%.0f %%), next %s %s"
      % (infer.get("path"), 100.0 * infer.get("kernel_ns", 0) / kern,
         100.0 * infer.get("kernel_ns", 0) / wall, 100 * g.get("sm", 0),
         100 * g.get("self_sm", 0), run.get("limit_kind"), run.get("limit_what"),
         100 * (run.get("limit_utilisation") or 0), run.get("next_kind"), run.get("next_what")))
print("CHECK infer %d" % ("analyticsinfer" in infer.get("path", "")))
print("CHECK nvml %d" % ((g.get("readings") or 0) > 0 and g.get("sm", 0) > 0))
print("CHECK ncu %d" % (ncu.startswith("ncu ") and "--kernel-name" in ncu))
PY
grep -v '^CHECK' "$OUT/analytics-check.txt"
ck() { sed -n "s/^CHECK $1 //p" "$OUT/analytics-check.txt" | grep -qx 1 && echo 1 || echo 0; }
check "(b) the inference stage holds the most kernel time (CUPTI)" "$(ck infer)"
check "(b) NVML read the SMs busy while it ran" "$(ck nvml)"
check "(b) the ncu command for its kernels is given" "$(ck ncu)"
figure "$(sed -n 's/^FIGURE //p' "$OUT/analytics-check.txt")"
echo "(b) done at $SECONDS s"
}

# ---------------------------------------------------------------- (c)
part_c() {
echo
echo "=== (c) no tracer, nvml=off cupti=off, nvml=on cupti=off on (b)'s pipeline, up to $ROUNDS paired rounds"
frames=$((16 * 600))
fps_of() { # frames over gst-launch's time in PLAYING
  local t
  t=$(grep -o 'Execution ended after [0-9:.]*' "$1" | awk '{print $4}')
  [ -n "$t" ] || { echo 0; return; }
  awk -v t="$t" -v n=$frames 'BEGIN{split(t,a,":"); s=a[1]*3600+a[2]*60+a[3]; printf "%.1f", n/s}'
}
: > "$OUT/cost.txt"
last=0
for r in $(seq 1 "$ROUNDS"); do
  # a round takes about what the last one took: stop before the budget
  if [ "$(left)" -lt $((last + 10)) ]; then
    echo "round $r: not run (budget: $SECONDS of $BUDGET_S s used)" | tee -a "$OUT/cost.txt"
    break
  fi
  start=$SECONDS
  # shellcheck disable=SC2086
  env -u GST_TRACERS timeout 60 gst-launch-1.0 $AP > "$WORK/none.log" 2>&1
  # shellcheck disable=SC2086
  GST_TRACERS="gpuprof(nvml=off,cupti=off,report=off)" timeout 60 gst-launch-1.0 $AP \
    > "$WORK/off.log" 2>&1
  # shellcheck disable=SC2086
  GST_TRACERS="gpuprof(nvml=on,cupti=off,report=off)" timeout 60 gst-launch-1.0 $AP \
    > "$WORK/nvml.log" 2>&1
  echo "round $r: no tracer $(fps_of "$WORK/none.log") fps, nvml=off cupti=off" \
    "$(fps_of "$WORK/off.log") fps, nvml=on cupti=off $(fps_of "$WORK/nvml.log") fps" \
    | tee -a "$OUT/cost.txt"
  last=$((SECONDS - start))
done
python3 - "$OUT/cost.txt" <<'PY' > "$OUT/cost-check.txt"
import re, statistics, sys
tracer, nvml = [], []
for line in open(sys.argv[1]):
    m = re.search(r"no tracer ([0-9.]+) fps, nvml=off cupti=off ([0-9.]+) fps, "
                  r"nvml=on cupti=off ([0-9.]+) fps", line)
    if not m:
        continue
    none, off, on = (float(x) for x in m.groups())
    if none > 0 and off > 0 and on > 0:
        tracer.append(100.0 * (none - on) / none)
        nvml.append(100.0 * (off - on) / off)
if tracer:
    med = statistics.median(tracer)
    print("FIGURE (c) analytics 16 streams, nvml=on cupti=off: fps loss against no tracer "
          "median %.1f %% over %d paired rounds (%s); NVML's own part (against nvml=off "
          "cupti=off) median %.1f %% (%s)"
          % (med, len(tracer), ", ".join("%.1f" % x for x in tracer),
             statistics.median(nvml), ", ".join("%.1f" % x for x in nvml)))
    print("CHECK cost %d" % (med <= 5.0))
else:
    print("FIGURE (c) no complete round")
    print("CHECK cost 0")
PY
grep -v '^CHECK' "$OUT/cost-check.txt"
sed -n 's/^CHECK cost //p' "$OUT/cost-check.txt" | grep -qx 1 && c=1 || c=0
check "(c) nvml=on cupti=off costs at most 5 % fps against no tracer (median of paired rounds)" "$c"
figure "$(sed -n 's/^FIGURE //p' "$OUT/cost-check.txt")"
}

[[ $PARTS == *a* ]] && part_a
[[ $PARTS == *b* ]] && part_b
[[ $PARTS == *c* ]] && part_c
finish
