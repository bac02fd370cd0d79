#!/bin/bash
# The analytics example on the GPU host (issues 9 and 10), one call:
#   tests/gpu/h100-analytics.sh BUILD_DIR [SWEEP]
# 1. 1, 4 and 16 streams (mux and inference batch = streams, GPU inference,
#    queues between the stages, cupti=on): the report's fps, verdict and
#    advice, and from the trace the inference kernels charged to
#    analyticsinfer and to their batch (gpu-trace-batches.py);
# 2. with SWEEP=1: gst-gpuprof sweep of 1/4/8/16 streams x batch 1..16
#    (examples/analytics/batch-sweep.sh ... --device gpu, cupti=on), grid
#    and plateau modes: tables, JSON and HTML.
# Sources .gpubundle/env.sh. Writes reports, the sweep's JSON and HTML
# under $OUT; the runs' own files under $WORK (default /tmp).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:?build dir}" && pwd)
SWEEP=${2:-0}
OUT=${OUT:-/tmp/gpuprof-h100-analytics}
WORK=${WORK:-/tmp/gpuprof-h100-work}
mkdir -p "$OUT" "$WORK"
. "$ROOT/.gpubundle/env.sh"
export LD_LIBRARY_PATH="$BUILD/gst:$LD_LIBRARY_PATH"
export GST_PLUGIN_PATH="$BUILD/tracers:$BUILD/elements/gpuprofmeter:$BUILD/examples/analytics"
export GST_REGISTRY_1_0="$OUT/registry.bin"
LAYERS=3
for n in 1 4 16; do
  echo "=== $n streams, batch $n, GPU inference, cupti=on"
  P=$("$ROOT/examples/analytics/pipeline.sh" -b "$BUILD" --print -n "$n" \
      --mux-batch "$n" --infer-batch "$n" --infer-layers $LAYERS \
      --queues on --device gpu)
  start=$(date +%s.%N)
  # shellcheck disable=SC2086
  GST_TRACERS="gpuprof(cupti=on,trace=$WORK/trace-$n.json,stats=$WORK/stats-$n.json,report=$OUT/report-$n.txt)" \
    gst-launch-1.0 -q $P > "$WORK/log-$n.txt" 2>&1
  echo "exit $? in $(awk "BEGIN{print $(date +%s.%N) - $start}") s"
  cat "$OUT/report-$n.txt"
  # one launch per batch: a preprocess kernel and one per layer, + output
  python3 "$ROOT/tests/gpu/gpu-trace-batches.py" "$WORK/trace-$n.json" \
    /analyticsinfer0 "${KERNELS_PER_BATCH:-$((LAYERS + 2))}"
  cp "$WORK/stats-$n.json" "$OUT/"
done
if [ "$SWEEP" = 1 ]; then
  for mode in grid plateau; do
    echo "=== sweep ($mode): 1/4/8/16 streams x batch 1..16"
    start=$(date +%s.%N)
    flag=""
    [ $mode = plateau ] && flag=--plateau
    # shellcheck disable=SC2086
    "$ROOT/examples/analytics/batch-sweep.sh" -b "$BUILD" -n "1 4 8 16" \
      -B "1 2 4 8 16" -f 300 $flag -o "$OUT/sweep-$mode.json" \
      --dir "$WORK/sweep-$mode" -p cupti=on -- --device gpu 2>&1 | tail -30
    echo "sweep exit $? in $(awk "BEGIN{print $(date +%s.%N) - $start}") s"
    "$BUILD/tools/gst-gpuprof/gst-gpuprof" html "$OUT/sweep-$mode.json" \
      -o "$OUT/sweep-$mode.html"
  done
fi
