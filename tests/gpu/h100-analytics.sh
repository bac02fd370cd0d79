#!/bin/bash
# The analytics example on the GPU host (issues 9 and 10), one call:
#   tests/gpu/h100-analytics.sh BUILD_DIR [SWEEP]
# 1. 1, 4 and 16 streams (mux and inference batch = streams, GPU inference,
#    queues between the stages, cupti=on): the report's fps, verdict and
#    advice, and from the trace the inference kernels charged to
#    analyticsinfer and to their batch (gpu-trace-batches.py);
# 2. with SWEEP=1: gst-gpuprof sweep of 1/4/8/16 streams x batch 1..16
#    (examples/analytics/batch-sweep.sh --plateau ... --device gpu,
#    cupti=on), its JSON and HTML.
# Sources .gpubundle/env.sh. Writes under $OUT.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:?build dir}" && pwd)
SWEEP=${2:-0}
OUT=${OUT:-/tmp/gpuprof-h100-analytics}
mkdir -p "$OUT"
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
  GST_TRACERS="gpuprof(cupti=on,trace=$OUT/trace-$n.json,stats=$OUT/stats-$n.json,report=$OUT/report-$n.txt)" \
    gst-launch-1.0 -q $P > "$OUT/log-$n.txt" 2>&1
  echo "exit $? in $(awk "BEGIN{print $(date +%s.%N) - $start}") s"
  cat "$OUT/report-$n.txt"
  # one launch per batch: a preprocess kernel and one per layer, + output
  python3 "$ROOT/tests/gpu/gpu-trace-batches.py" "$OUT/trace-$n.json" \
    /analyticsinfer0 "${KERNELS_PER_BATCH:-$((LAYERS + 2))}"
  rm -f "$OUT/trace-$n.json"
done
if [ "$SWEEP" = 1 ]; then
  echo "=== sweep: 1/4/8/16 streams x batch 1..16, plateau per stream count"
  start=$(date +%s.%N)
  "$ROOT/examples/analytics/batch-sweep.sh" -b "$BUILD" -n "1 4 8 16" \
    -B "1 2 4 8 16" -f 300 --plateau -o "$OUT/sweep.json" \
    --dir "$OUT/sweep" -p cupti=on -- --device gpu 2>&1 | tail -60
  echo "sweep exit $? in $(awk "BEGIN{print $(date +%s.%N) - $start}") s"
  "$BUILD/tools/gst-gpuprof/gst-gpuprof" html "$OUT/sweep.json" \
    -o "$OUT/sweep.html"
  rm -rf "$OUT/sweep"/*.json.trace 2>/dev/null
fi
