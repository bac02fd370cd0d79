#!/bin/bash
# What GPU attribution costs per GPU operation, on the GPU host (issue 11):
#   bench/cupti-cost.sh BUILD_DIR [ROUNDS]         (default 6 rounds)
#   bench/cupti-cost.sh --summarize TIMES_FILE     (the table only)
# Interleaved rounds: each round runs every pipeline in every mode once, so
# drift of the machine falls on all modes alike. Modes:
#   none       no tracer
#   off        gpuprof(cupti=off)
#   callback   gpuprof(cupti=on,cupti-path=callback)
#   activity   gpuprof(cupti=on,cupti-path=activity)
#   min        no tracer, our minimal CUPTI client (bench/cupti-min-client.c:
#              kernel + memcpy + memset activity, records discarded) through
#              CUDA_INJECTION64_PATH: the floor of GPU tracing
#   callback-skip-A+B   callback with GPUPROF_CUPTI_SKIP=A,B (flush, ts,
#              sync, memcpy2...: docs/gpu.md), to find what each part costs
#   min+A+B    the minimal client with CUPTI_MIN_ADD=A,B: gpuprof's CUPTI
#              choices added one at a time (flush, ts, launch, sync,
#              memcpy2, buf4: bench/cupti-min-client.c)
# MODES="none off ..." and PIPELINES="small64 hd1080 analytics16" choose
# (default: the five modes above the variants, every pipeline).
# Pipelines: the 64x64 CUDA pipeline of issue 11 (GPU ops dominate), the
# same at 1080p, and the analytics example at 16 streams with GPU inference
# (skipped when examples/analytics/pipeline.sh cannot print it).
# Wall time of the whole process (date +%s.%N around it). GPU operations per
# run: the minimal client's record count (median over rounds). Prints, per
# pipeline and mode: median seconds, seconds above `none`, µs per GPU op
# above `none` and above `off`, % slower than `none` (= fps loss for a
# fixed number of frames), and callback/min and activity/min ratios of the
# µs per op above none. Raw times in $OUT/cupti-cost-times.txt (lines
# "time PIPELINE MODE ROUND SECONDS" and "ops PIPELINE ROUND N").
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)

# summarize FILE: the table, from the raw lines (testable without a GPU:
# tests/gpu/test-cupti-cost-summary.sh)
summarize () {
  awk '
    function median(s,   n, a, i, j, t) {
      n = split(s, a, " ")
      for (i = 2; i <= n; i++) {           # insertion sort, numeric
        t = a[i] + 0
        for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]
        a[j + 1] = t
      }
      if (n == 0) return ""
      return (n % 2) ? a[(n + 1) / 2] + 0 : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    $1 == "time" { t[$2 SUBSEP $3] = t[$2 SUBSEP $3] " " $5
                   if (!($2 in seen)) { seen[$2] = 1; order[++np] = $2 } }
    $1 == "ops"  { o[$2] = o[$2] " " $4 }
    $1 == "time" && !($3 in mseen) { mseen[$3] = 1; morder[++nm] = $3 }
    END {
      # the five modes first, in this order, then the others as they came
      n = split("none off callback activity min", modes, " ")
      for (m = 1; m <= nm; m++)
        if (index(" none off callback activity min ", " " morder[m] " ") == 0)
          modes[++n] = morder[m]
      for (p = 1; p <= np; p++) {
        name = order[p]
        ops = median(o[name])
        base = median(t[name SUBSEP "none"])
        off = median(t[name SUBSEP "off"])
        printf "%s: %s GPU ops per run (minimal client)\n", name, \
          ops == "" ? "?" : ops
        printf "  %-9s %9s %9s %12s %12s %8s\n", "mode", "median_s", \
          "+s_none", "us/op_none", "us/op_off", "slower%"
        for (m = 1; m <= n; m++) {
          k = name SUBSEP modes[m]
          if (!(k in t)) continue
          s = median(t[k])
          d = s - base
          upn = (ops > 0) ? sprintf("%.2f", d * 1e6 / ops) : "-"
          upo = (ops > 0 && off != "") ? sprintf("%.2f", (s - off) * 1e6 / ops) : "-"
          per[modes[m]] = (ops > 0) ? d * 1e6 / ops : ""
          printf "  %-9s %9.3f %9.3f %12s %12s %8.1f\n", modes[m], s, d, \
            upn, upo, (base > 0 ? 100 * d / base : 0)
        }
        if (per["min"] != "" && per["min"] > 0) {
          if (per["callback"] != "")
            printf "  callback/min %.2f", per["callback"] / per["min"]
          if (per["activity"] != "")
            printf "  activity/min %.2f", per["activity"] / per["min"]
          printf "\n"
        }
        delete per
      }
    }' "$1"
}

if [ "${1:-}" = "--summarize" ]; then
  summarize "${2:?times file}"
  exit
fi

BUILD=$(cd "${1:?build dir}" && pwd) || exit 2
ROUNDS=${2:-6}
OUT=${OUT:-/tmp/gpuprof-cupti-cost}
mkdir -p "$OUT"
[ -f "$ROOT/.gpubundle/env.sh" ] && . "$ROOT/.gpubundle/env.sh"
export LD_LIBRARY_PATH="$BUILD/gst${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export GST_PLUGIN_PATH_1_0="$BUILD/tracers:$BUILD/examples/analytics${GST_PLUGIN_PATH_1_0:+:$GST_PLUGIN_PATH_1_0}"
export GST_PLUGIN_PATH="$GST_PLUGIN_PATH_1_0"
export GST_REGISTRY_1_0="$OUT/registry.bin"
MIN="$BUILD/bench/libgpuprof-cupti-min.so"
[ -f "$MIN" ] || { echo "no $MIN (built only with the CUPTI library)" >&2; exit 2; }
TIMES="$OUT/cupti-cost-times.txt"
: > "$TIMES"

declare -A PIPES
PIPES[small64]="videotestsrc num-buffers=20000 pattern=black ! \
video/x-raw,width=64,height=64,format=I420 ! cudaupload ! cudaconvert ! \
video/x-raw(memory:CUDAMemory),format=NV12 ! cudascale ! \
video/x-raw(memory:CUDAMemory),width=32,height=32 ! cudadownload ! video/x-raw ! fakesink"
PIPES[hd1080]="videotestsrc num-buffers=1000 ! \
video/x-raw,width=1920,height=1080,format=I420 ! cudaupload ! cudaconvert ! \
video/x-raw(memory:CUDAMemory),format=NV12 ! cudascale ! \
video/x-raw(memory:CUDAMemory),width=640,height=360 ! cudadownload ! video/x-raw ! fakesink"
NAMES=(small64 hd1080)
if [ -x "$ROOT/examples/analytics/pipeline.sh" ] \
    && [[ " ${PIPELINES:-analytics16} " == *" analytics16 "* ]]; then
  A=$("$ROOT/examples/analytics/pipeline.sh" -b "$BUILD" --print -n 16 \
      --device gpu 2>/dev/null) && [ -n "$A" ] && PIPES[analytics16]="$A" \
      && NAMES+=(analytics16)
fi

[ -n "${PIPELINES:-}" ] && read -r -a NAMES <<< "$(for p in $PIPELINES; do
  [ -n "${PIPES[$p]:-}" ] && printf '%s ' "$p" \
    || echo "unknown pipeline '$p' (valid: ${!PIPES[*]})" >&2; done)"
read -r -a MODE_LIST <<< "${MODES:-none off callback activity min}"

run_one () {   # pipeline mode round
  local p=$1 m=$2 r=$3 t0 t1 log="$OUT/$1-$2-$3.log" rc
  t0=$(date +%s.%N)
  case $m in
    none) env -u GST_TRACERS gst-launch-1.0 -q ${PIPES[$p]} > "$log" 2>&1 ;;
    off) GST_TRACERS="gpuprof(cupti=off,report=off)" \
        gst-launch-1.0 -q ${PIPES[$p]} > "$log" 2>&1 ;;
    callback|activity) GST_TRACERS="gpuprof(cupti=on,cupti-path=$m,report=off)" \
        gst-launch-1.0 -q ${PIPES[$p]} > "$log" 2>&1 ;;
    callback-skip-*) GPUPROF_CUPTI_SKIP=$(echo "${m#callback-skip-}" | tr + ,) \
        GST_TRACERS="gpuprof(cupti=on,report=off)" \
        gst-launch-1.0 -q ${PIPES[$p]} > "$log" 2>&1 ;;
    min|min+*) env -u GST_TRACERS CUDA_INJECTION64_PATH="$MIN" \
        CUPTI_MIN_ADD=$(echo "${m#min}" | sed 's/^+//' | tr + ,) \
        gst-launch-1.0 -q ${PIPES[$p]} > "$log" 2>&1 ;;
    *) echo "unknown mode '$m' (valid: none off callback activity min" \
        "callback-skip-A+B min+A+B)" >&2; return ;;
  esac
  rc=$?
  t1=$(date +%s.%N)
  [ $rc -eq 0 ] || echo "warning: $p $m round $r exited $rc (see $log)" >&2
  echo "time $p $m $r $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')" >> "$TIMES"
  if [ "$m" = min ]; then
    echo "ops $p $r $(sed -n 's/^cupti-min: records=\([0-9]*\).*/\1/p' "$log" | tail -1)" >> "$TIMES"
  fi
}

for r in $(seq "$ROUNDS"); do
  for p in "${NAMES[@]}"; do
    for m in "${MODE_LIST[@]}"; do
      run_one "$p" "$m" "$r"
    done
  done
  echo "round $r of $ROUNDS done" >&2
done
summarize "$TIMES"
