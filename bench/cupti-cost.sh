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
#              record, memcpy2, buf4: bench/cupti-min-client.c)
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
# µs per op above none; then the same paired by round (the median over the
# rounds of each mode minus the none and off of its own round, so drift of
# the host between rounds falls out), and (callback-off)/(min-none), GPU
# collection alone against the floor. Raw times in $OUT/cupti-cost-times.txt (lines
# "time PIPELINE MODE ROUND SECONDS" and "ops PIPELINE ROUND N").
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)

# summarize FILE: the tables, from the raw lines (testable without a GPU:
# tests/gpu/test-cupti-cost-summary.sh): wall time of the process ("time"
# lines), then, when the file has them, the pipeline's own time from
# PLAYING to EOS ("exec" lines: gst-launch's "Execution ended after"), which
# leaves out process start, plugin loading and CUDA/CUPTI start-up: what a
# long-running pipeline's fps sees
summarize () {
  summarize_metric "$1" time
  if grep -q '^exec ' "$1"; then
    echo
    echo "pipeline time, PLAYING to EOS (gst-launch's 'Execution ended after'):"
    summarize_metric "$1" exec
  fi
}

summarize_metric () {
  awk -v metric="$2" '
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
    # within each round, each mode minus the none and off of that round (the
    # rounds run every mode back to back: drift of the host between rounds
    # falls out); the median of those differences over the rounds
    function diffs(name, mode, ref,   n, rs, i, k, out) {
      n = split(rounds[name], rs, " ")
      out = ""
      for (i = 1; i <= n; i++) {
        k = name SUBSEP mode SUBSEP rs[i]
        if ((k in r) && ((name SUBSEP ref SUBSEP rs[i]) in r))
          out = out " " (r[k] - r[name SUBSEP ref SUBSEP rs[i]])
      }
      return out
    }
    function paired(name, ops,   m, dn, do_, pn, base) {
      if (!((name SUBSEP "none") in t)) return
      base = median(t[name SUBSEP "none"])
      printf "  paired by round (median of mode - none, mode - off within a round):\n"
      printf "  %-9s %9s %8s %12s %9s %12s\n", "mode", "-none_s", "slower%", \
        "us/op_none", "-off_s", "us/op_off"
      for (m = 1; m <= n; m++) {
        if (modes[m] == "none" || !((name SUBSEP modes[m]) in t)) continue
        dn = median(diffs(name, modes[m], "none"))
        do_ = median(diffs(name, modes[m], "off"))
        pdn[modes[m]] = dn
        pdo[modes[m]] = do_
        printf "  %-9s %9.3f %8.1f %12s %9s %12s\n", modes[m], dn, \
          (base > 0 ? 100 * dn / base : 0), \
          (ops > 0 ? sprintf("%.2f", dn * 1e6 / ops) : "-"), \
          (do_ == "" ? "-" : sprintf("%.3f", do_)), \
          (ops > 0 && do_ != "" ? sprintf("%.2f", do_ * 1e6 / ops) : "-")
      }
      if (pdo["callback"] != "" && pdn["min"] != "" && pdn["min"] > 0)
        printf "  paired (callback-off)/(min-none) %.2f\n", \
          pdo["callback"] / pdn["min"]
      delete pdn
      delete pdo
    }
    $1 == metric { t[$2 SUBSEP $3] = t[$2 SUBSEP $3] " " $5
                   r[$2 SUBSEP $3 SUBSEP $4] = $5
                   if (!(($2 SUBSEP $4) in rseen)) {
                     rseen[$2 SUBSEP $4] = 1; rounds[$2] = rounds[$2] " " $4 }
                   if (!($2 in seen)) { seen[$2] = 1; order[++np] = $2 } }
    $1 == "ops"  { o[$2] = o[$2] " " $4 }
    $1 == metric && !($3 in mseen) { mseen[$3] = 1; morder[++nm] = $3 }
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
          med[modes[m]] = s
          printf "  %-9s %9.3f %9.3f %12s %12s %8.1f\n", modes[m], s, d, \
            upn, upo, (base > 0 ? 100 * d / base : 0)
        }
        if (per["min"] != "" && per["min"] > 0) {
          if (per["callback"] != "")
            printf "  callback/min %.2f", per["callback"] / per["min"]
          if (per["activity"] != "")
            printf "  activity/min %.2f", per["activity"] / per["min"]
          printf "\n"
          # GPU collection alone: cupti=on above cupti=off against the
          # minimal client above no tracer (the CPU hooks of the tracer left out)
          if (per["callback"] != "" && off != "")
            printf "  (callback-off)/(min-none) %.2f\n", \
              (med["callback"] - off) / (med["min"] - base)
        }
        delete per
        delete med
        paired(name, ops)
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
PIPES[hd1080]="videotestsrc num-buffers=2000 pattern=black ! \
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
    none) env -u GST_TRACERS gst-launch-1.0 ${PIPES[$p]} > "$log" 2>&1 ;;
    off) GST_TRACERS="gpuprof(cupti=off,report=off)" \
        gst-launch-1.0 ${PIPES[$p]} > "$log" 2>&1 ;;
    callback|activity) GST_TRACERS="gpuprof(cupti=on,cupti-path=$m,report=off)" \
        gst-launch-1.0 ${PIPES[$p]} > "$log" 2>&1 ;;
    callback-skip-*) GPUPROF_CUPTI_SKIP=$(echo "${m#callback-skip-}" | tr + ,) \
        GST_TRACERS="gpuprof(cupti=on,report=off)" \
        gst-launch-1.0 ${PIPES[$p]} > "$log" 2>&1 ;;
    min|min+*) env -u GST_TRACERS CUDA_INJECTION64_PATH="$MIN" \
        CUPTI_MIN_ADD=$(echo "${m#min}" | sed 's/^+//' | tr + ,) \
        gst-launch-1.0 ${PIPES[$p]} > "$log" 2>&1 ;;
    *) echo "unknown mode '$m' (valid: none off callback activity min" \
        "callback-skip-A+B min+A+B)" >&2; return ;;
  esac
  rc=$?
  t1=$(date +%s.%N)
  # gst-launch prints it unless -q: "Execution ended after 0:00:03.123456789"
  sed -n 's/^Execution ended after \([0-9]*\):\([0-9]*\):\([0-9.]*\)$/\1 \2 \3/p' \
    "$log" | awk -v k="exec $p $m $r" \
    '{ printf "%s %.6f\n", k, $1 * 3600 + $2 * 60 + $3 }' >> "$TIMES"
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
