#!/bin/bash
# The GPU as resources on the GPU host (issue 23), one call (~5 min):
#   tests/gpu/h100-resources.sh BUILD_DIR LONG_CLIP [STREAMS] [ROUNDS]
# BUILD_DIR: a build of this tree made on the build machine (the coordinator
# carries one at .gpurun/build); LONG_CLIP: a long H.264 clip
# (tests/gpu/make-long-clip.sh: .gpurun/media/ball-720p30-long.mp4, 3000
# frames of 720p30); STREAMS: decode branches (14); ROUNDS: paired rounds
# of the cost check (5). Sources .gpubundle/env.sh.
#  (a) STREAMS nvh264dec branches in ONE process on the long clip, with
#      nvidia-smi dmon read in the same run: gpuprof's GPU resources table,
#      verdict and interval lines beside dmon's; PASS when the verdict says
#      decode-bound with NVDEC >= 90 % and gpuprof's NVDEC mean is within
#      10 points of dmon's over the same seconds;
#  (b) the analytics example at 16 streams (batch 16, GPU inference,
#      queues, cupti=on, nvml=on): the inference stage's share of the
#      kernel time and of the wall (CUPTI), the SMs (NVML), the verdict and
#      the ncu command;
#  (c) nvml=on cupti=off against no tracer on (b)'s pipeline, ROUNDS
#      rounds each running both back to back in turns: fps per round and
#      the median of the paired differences.
# Everything goes to stdout and to files under $OUT; send back both.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:?build dir}" && pwd)
CLIP=${2:?long clip (tests/gpu/make-long-clip.sh)}
STREAMS=${3:-14}
DECODER=${DECODER:-nvh264dec}
ROUNDS=${4:-5}
OUT=${OUT:-/tmp/gpuprof-h100-resources}
WORK=${WORK:-/tmp/gpuprof-h100-resources-work}
mkdir -p "$OUT" "$WORK"
. "$ROOT/.gpubundle/env.sh"
export LD_LIBRARY_PATH="$BUILD/gst${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export GST_PLUGIN_PATH="$BUILD/tracers:$BUILD/elements/gpuprofmeter:$BUILD/examples/analytics"
export GST_REGISTRY_1_0="$OUT/registry.bin"
[ -f "$CLIP" ] || { echo "no clip $CLIP (make it with tests/gpu/make-long-clip.sh)"; exit 1; }
nvidia-smi -L
echo "clip: $CLIP, $(stat -c %s "$CLIP") bytes"
PASS=() FAIL=()
check() { if [ "$2" = 1 ]; then PASS+=("$1"); else FAIL+=("$1"); fi; }

# ---------------------------------------------------------------- (a)
echo
echo "=== (a) $STREAMS x nvh264dec in one process on the long clip, nvidia-smi dmon beside"
P=""
for i in $(seq 0 $((STREAMS - 1))); do
  P="$P filesrc location=$CLIP ! qtdemux ! h264parse ! $DECODER name=dec$i ! fakesink sync=false"
done
nvidia-smi dmon -s uc -d 1 -o T > "$OUT/dmon-decode.txt" 2>&1 &
DMON=$!
sleep 2
t0=$(date +%T)
# shellcheck disable=SC2086
GST_TRACERS="gpuprof(nvml=on,cupti=on,nvml-hz=2,interval=1,stats=$WORK/decode.json,report=$OUT/report-decode.txt)" \
  timeout 240 gst-launch-1.0 $P > "$OUT/log-decode.txt" 2>&1
echo "gst-launch exit $? ($(grep -o 'Execution ended after [0-9:.]*' "$OUT/log-decode.txt"))"
t1=$(date +%T)
sleep 2
kill $DMON 2>/dev/null
wait $DMON 2>/dev/null
echo "--- nvidia-smi dmon (run from $t0 to $t1)"
cat "$OUT/dmon-decode.txt"
echo "--- gpuprof report"
cat "$OUT/report-decode.txt"
echo "--- gpuprof interval lines (NVDEC over time)"
cat "$OUT/report-decode.txt" "$OUT/log-decode.txt" | grep -o 'gpuprof live [0-9.]* s [^:]*:.*GPU [0-9]* NVDEC [0-9]*% SM [0-9]*%' \
  | sed 's/: .*; GPU/: ... GPU/' | head -40
cp "$WORK/decode.json" "$WORK/decode-live.jsonl" "$OUT/" 2>/dev/null
python3 - "$WORK/decode.json" "$OUT/dmon-decode.txt" "$t0" "$t1" <<'PY' > "$OUT/decode-check.txt"
import json, sys
summary, dmon, t0, t1 = sys.argv[1:5]
s = json.load(open(summary))
g = (s.get("gpu_resources") or [{}])[0]
# the same seconds: gpuprof's run ends at taken_utc and lasted wall_ns;
# a dmon row at HH:MM:SS is weighted by its second's overlap with the run
# (rows outside it, start-up before PLAYING and tear-down, weigh nothing)
import datetime
run_ = s.get("run") or {}
end = datetime.datetime.strptime(run_.get("taken_utc", "1970-01-01T00:00:00.000Z"),
                                 "%Y-%m-%dT%H:%M:%S.%fZ")
end_s = end.hour * 3600 + end.minute * 60 + end.second + end.microsecond / 1e6
start_s = end_s - run_.get("wall_ns", 0) / 1e9
head, rows = None, []
for line in open(dmon):
    f = line.split()
    if line.startswith("#") and "dec" in f:
        head = [x.lstrip("#") for x in f]
    elif head and f and not line.startswith("#") and len(f) == len(head):
        r = dict(zip(head, f))
        if t0 <= r.get("Time", "") <= t1:
            hh, mm, ss = (int(x) for x in r["Time"].split(":"))
            sec = hh * 3600 + mm * 60 + ss
            r["w"] = max(0.0, min(sec + 1, end_s) - max(sec, start_s))
            rows.append(r)
def mean(k):
    v = [(float(r[k]), r["w"]) for r in rows if r.get(k, "-") not in ("-", "")]
    w = sum(x[1] for x in v)
    return sum(x[0] * x[1] for x in v) / w if w else float("nan")
limits = s.get("limits") or []
gpu_lim = [l for l in limits if l.get("kind") == "gpu"]
run = s.get("run") or {}
print("dmon over gpuprof's run (%.2f s, weighted by overlap): %d rows, sm %.1f %%, dec %.1f %%, pclk %.0f MHz"
      % (end_s - start_s, sum(1 for r in rows if r["w"] > 0), mean("sm"), mean("dec"), mean("pclk")))
print("gpuprof: %s readings, sm %.1f %%, dec %.1f %% (>=90 %% in %.0f %% of readings), "
      "clock %.0f/%s MHz, throttled %.0f %%, ours dec %.0f %%, read every %.0f ms, "
      "%.3f ms CPU / %.3f ms wall a reading"
      % (g.get("readings"), 100 * g.get("sm", 0), 100 * g.get("dec", 0),
         100 * g.get("dec_saturated", 0), g.get("clock_mhz", 0),
         g.get("clock_max_mhz"), 100 * g.get("throttled", 0),
         100 * g.get("self_dec", 0), g.get("read_period_ns", 0) / 1e6,
         g.get("read_cpu_ns", 0) / 1e6, g.get("read_wall_ns", 0) / 1e6))
print("verdict: limit %s %s; gpu candidates: %s"
      % (run.get("limit_kind"), run.get("limit_what"),
         "; ".join("%s %.0f%%: %s" % (l["what"], 100 * l["utilisation"], l["evidence"])
                   for l in gpu_lim) or "-"))
dec_ok = g.get("dec", 0) >= 0.9
near = abs(100 * g.get("dec", 0) - mean("dec")) <= 10
print("CHECK nvdec>=90 %d" % dec_ok)
print("CHECK near-dmon %d" % near)
PY
cat "$OUT/decode-check.txt"
check "(a) NVDEC >= 90 % (gpuprof)" "$(sed -n 's/^CHECK nvdec>=90 //p' "$OUT/decode-check.txt")"
check "(a) gpuprof's NVDEC within 10 points of dmon's" "$(sed -n 's/^CHECK near-dmon //p' "$OUT/decode-check.txt")"
grep -q 'decode-bound' "$OUT/report-decode.txt" && d=1 || d=0
check "(a) the verdict says decode-bound" "$d"

# ---------------------------------------------------------------- (b)
echo
echo "=== (b) the analytics example, 16 streams, batch 16, GPU inference, cupti=on, nvml=on"
AP=$("$ROOT/examples/analytics/pipeline.sh" -b "$BUILD" --print -n 16 -f 600 \
  --mux-batch 16 --infer-batch 16 --infer-layers 3 --queues on --device gpu)
# shellcheck disable=SC2086
GST_TRACERS="gpuprof(cupti=on,nvml=on,stats=$WORK/analytics.json,report=$OUT/report-analytics.txt)" \
  timeout 180 gst-launch-1.0 $AP > "$OUT/log-analytics.txt" 2>&1
echo "gst-launch exit $? ($(grep -o 'Execution ended after [0-9:.]*' "$OUT/log-analytics.txt"))"
cat "$OUT/report-analytics.txt"
cp "$WORK/analytics.json" "$OUT/" 2>/dev/null
python3 - "$WORK/analytics.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
run = s.get("run") or {}
wall = run.get("wall_ns") or 1
els = s.get("gpu_elements") or []
kern = sum(e.get("kernel_ns", 0) for e in els) or 1
for e in sorted(els, key=lambda e: -e.get("kernel_ns", 0))[:4]:
    print("%-40s kernels %.1f %% of the kernel time, %.1f %% of the wall (%.3f ms GPU/buffer)"
          % (e["path"], 100.0 * e["kernel_ns"] / kern, 100.0 * e["kernel_ns"] / wall,
             e.get("ns_per_buffer", 0) / 1e6))
for g in s.get("gpu_resources") or []:
    print("%s: SMs %.1f %% (NVML, ours %.0f %%), memory %.1f %%, NVDEC %.1f %%, clock %.0f MHz"
          % (g["name"], 100 * g["sm"], 100 * g["self_sm"], 100 * g["mem"],
             100 * g["dec"], g["clock_mhz"]))
print("verdict: limit %s %s (%.0f %%), next %s %s"
      % (run.get("limit_kind"), run.get("limit_what"), 100 * (run.get("limit_utilisation") or 0),
         run.get("next_kind"), run.get("next_what")))
for l in s.get("limits") or []:
    print("  %s. %s %s %.0f%%: %s%s" % (l["rank"], l["kind"], l["what"], 100 * l["utilisation"],
                                    l["evidence"], ("; advice: " + l["advice"]) if l.get("advice") else ""))
print("ncu: %s" % ((s.get("gpu") or {}).get("ncu") or "-"))
PY

# ---------------------------------------------------------------- (c)
echo
echo "=== (c) nvml=on cupti=off against no tracer, (b)'s pipeline, $ROUNDS paired rounds"
frames=$((16 * 600))
fps_of() { # log: frames over gst-launch's time in PLAYING
  local t
  t=$(grep -o 'Execution ended after [0-9:.]*' "$1" | awk '{print $4}')
  [ -n "$t" ] || { echo 0; return; }
  awk -v t="$t" -v n=$frames 'BEGIN{split(t,a,":"); s=a[1]*3600+a[2]*60+a[3]; printf "%.1f", n/s}'
}
: > "$OUT/cost.txt"
for r in $(seq 1 "$ROUNDS"); do
  # shellcheck disable=SC2086
  env -u GST_TRACERS timeout 120 gst-launch-1.0 $AP > "$WORK/none.log" 2>&1
  # shellcheck disable=SC2086
  GST_TRACERS="gpuprof(nvml=on,cupti=off,report=off)" timeout 120 gst-launch-1.0 $AP \
    > "$WORK/nvml.log" 2>&1
  a=$(fps_of "$WORK/none.log") b=$(fps_of "$WORK/nvml.log")
  echo "round $r: no tracer $a fps, nvml=on cupti=off $b fps" | tee -a "$OUT/cost.txt"
done
python3 - "$OUT/cost.txt" <<'PY'
import re, statistics, sys
d = []
for line in open(sys.argv[1]):
    m = re.search(r"no tracer ([0-9.]+) fps, nvml=on cupti=off ([0-9.]+) fps", line)
    if m and float(m.group(1)) > 0:
        d.append(100.0 * (float(m.group(1)) - float(m.group(2))) / float(m.group(1)))
if d:
    print("fps loss with nvml=on cupti=off: median %.1f %% over %d paired rounds (each: %s)"
          % (statistics.median(d), len(d), ", ".join("%.1f" % x for x in d)))
PY

echo
echo "=== summary"
for p in "${PASS[@]}"; do echo "PASS $p"; done
for f in "${FAIL[@]}"; do echo "FAIL $f"; done
