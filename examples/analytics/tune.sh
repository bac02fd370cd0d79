#!/bin/sh
# tune.sh: the usual tuning steps of a DeepStream-style pipeline, measured.
#
# For N streams it runs pipeline.sh step after step, each step keeping the
# knobs of the ones before:
#   default     mux batch 1, inference batch 1, OSD on, no queues
#   queues      + a queue between the stages
#   no-osd      + no OSD
#   mux-batch   + analyticsmux batch-size = N (batched-push-timeout 40 ms)
#   infer-batch + analyticsinfer batch-size = N
#   interval    + analyticsinfer interval = 1
# each under GST_TRACERS=gpuprof with the report in a file, and prints a
# table: step, fps, fps relative to default, bottleneck named by gpuprof.
#
#   examples/analytics/tune.sh --build build --streams 4
#   examples/analytics/tune.sh -b build -n 16 -f 600 -- --device gpu
set -eu

here=$(cd "$(dirname "$0")" && pwd)

usage() {
  cat <<EOF
usage: $0 [options] [-- extra pipeline.sh options for every step]
  -b, --build DIR     meson build folder (default: \$GPUPROF_BUILD_DIR or build)
  -n, --streams N     streams (4)
  -f, --frames N      frames per stream (300)
  -o, --out DIR       where the reports go (a new folder under /tmp)
      --no-tracer     measure without GST_TRACERS=gpuprof (no bottleneck column)
  -h, --help          this text
fps = frames through the sink (streams x frames) / wall time of the run.
EOF
}

build=${GPUPROF_BUILD_DIR:-build}
streams=4
frames=300
out=
tracer=true

while [ $# -gt 0 ]; do
  case $1 in
    -b|--build) build=$2; shift ;;
    -n|--streams) streams=$2; shift ;;
    -f|--frames) frames=$2; shift ;;
    -o|--out) out=$2; shift ;;
    --no-tracer) tracer=false ;;
    -h|--help) usage; exit 0 ;;
    --) shift; break ;;
    *) echo "$0: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
  shift
done

[ -n "$out" ] || out=$(mktemp -d /tmp/gpuprof-tune.XXXXXX)
mkdir -p "$out"

# ---------------------------------------------------------------------------
# BOTTLENECK EXTRACTION: the one place that knows the report's format.
# The gpuprof report ends with a verdict line "bottleneck: <element> — ...".
# Prints the element (the text up to " — " or the first comma), or "?".
# Adapt this function when the report format changes.
bottleneck_from_report() {
  line=$(grep -m1 '^bottleneck:' "$1" 2>/dev/null || true)
  if [ -z "$line" ]; then
    echo "?"
    return
  fi
  echo "$line" | sed -e 's/^bottleneck: *//' -e 's/ — .*//' -e 's/,.*//' \
    -e 's|^[^/]*/||'
}

# The per-batch verdict: the stage that limits throughput, and the first
# advice line's knob ("m: batch-size=16 batched-push-timeout=33333").
limiting_from_report() {
  line=$(grep -m1 '^limiting stage:' "$1" 2>/dev/null || true)
  [ -n "$line" ] || { echo "-"; return; }
  echo "$line" | sed -e 's/^limiting stage: *//' -e 's/ — .*//' -e 's|^[^/]*/||'
}

advice_from_report() {
  line=$(grep -m1 '^advice:' "$1" 2>/dev/null || true)
  [ -n "$line" ] || { echo "-"; return; }
  echo "$line" | sed -e 's/^advice: *//' -e 's/ — .*//' -e 's|^[^/]*/||'
}
# ---------------------------------------------------------------------------

now_ns() {
  date +%s%N
}

# run_step NAME pipeline.sh-options... : prints "NAME fps bottleneck"
run_step() {
  name=$1
  shift
  report="$out/$name.txt"
  rm -f "$report"
  start=$(now_ns)
  if [ "$tracer" = true ]; then
    GST_TRACERS="gpuprof(report=$report)" \
      "$here/pipeline.sh" --build "$build" --streams "$streams" \
      --frames "$frames" "$@" -- -q >"$out/$name.log" 2>&1 || {
        echo "$0: step $name failed, see $out/$name.log" >&2
        return 1
      }
  else
    "$here/pipeline.sh" --build "$build" --streams "$streams" \
      --frames "$frames" "$@" -- -q >"$out/$name.log" 2>&1 || {
        echo "$0: step $name failed, see $out/$name.log" >&2
        return 1
      }
  fi
  end=$(now_ns)
  fps=$(awk -v n="$((streams * frames))" -v t="$((end - start))" \
    'BEGIN { printf "%.1f", n / (t / 1e9) }')
  echo "$name|$fps|$(bottleneck_from_report "$report")|$(limiting_from_report "$report")|$(advice_from_report "$report")"
}

# Each step adds its knob to the ones before.
knobs=""
results=""
for step in default queues no-osd mux-batch infer-batch interval; do
  case $step in
    default) knobs="--mux-batch 1 --infer-batch 1 --osd on --queues off" ;;
    queues) knobs="$knobs --queues on" ;;
    no-osd) knobs="$knobs --osd off" ;;
    mux-batch) knobs="$knobs --mux-batch $streams --timeout 40000" ;;
    infer-batch) knobs="$knobs --infer-batch $streams" ;;
    interval) knobs="$knobs --interval 1" ;;
  esac
  # shellcheck disable=SC2086  # knobs are split into options on purpose
  line=$(run_step "$step" $knobs "$@")
  results="$results$line
"
  echo "$line" >&2
done

echo
echo "streams: $streams, frames per stream: $frames, reports: $out"
echo "$results" | awk -F'|' '
  NF == 0 { next }
  base == "" { base = $2 }
  { rows[++n] = sprintf("%-12s %9.1f %9.2fx  %-26s %-26s %s", $1, $2, $2 / base, $3, $4, $5) }
  END {
    printf "%-12s %9s %10s  %-26s %-26s %s\n", "step", "fps", "vs default",
        "bottleneck (thread)", "limiting stage (batch)", "first advice"
    for (i = 1; i <= n; i++) print rows[i]
  }'
