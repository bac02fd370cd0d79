#!/usr/bin/env bash
# Cost of the gpuprof hooks per pad push, next to GStreamer's own tracers.
#
#   bench/hook-overhead.sh [BUILD_DIR] [BUFFERS] [REPEATS]
#
# Times `fakesrc ! identity x10 ! fakesink` (11 pushes per buffer) and the
# same with a queue after every second identity, with no tracer, with the
# core `factories` tracer (it hooks nothing on the buffer path, so it
# measures GStreamer's hook dispatch: the floor), `stats`, `latency`, and
# gpuprof with nvtx=off, with NVTX on but no NVTX tool attached, and with
# everything on. Prints ns per push added over no tracer and over the floor,
# from the fastest of REPEATS runs (the machine is shared: the minimum is
# the least disturbed run). Not a test: it prints figures.
# BENCH_CALLGRIND=1 counts instructions per push with callgrind instead
# (repeatable on a noisy machine; a few minutes).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
n=${2:-200000}
repeats=${3:-5}
export GST_PLUGIN_PATH="$build/tracers"
export GST_REGISTRY_1_0="${TMPDIR:-/tmp}/gpuprof-bench-registry.bin"
unset GST_DEBUG NVTX_INJECTION64_PATH
gst-inspect-1.0 gpuprof >/dev/null 2>&1 || { echo "gpuprof tracer not found in $build" >&2; exit 2; }

linear="fakesrc num-buffers=$n sizetype=fixed sizemax=16 ! identity ! identity ! \
identity ! identity ! identity ! identity ! identity ! identity ! identity ! \
identity ! fakesink sync=false"
queued="fakesrc num-buffers=$n sizetype=fixed sizemax=16 ! identity ! identity ! \
queue ! identity ! identity ! queue ! identity ! identity ! queue ! identity ! \
identity ! queue ! identity ! identity ! queue ! fakesink sync=false"
# pushes per buffer: every link that carries it
linear_pushes=11
queued_pushes=16

variants=(
  "none|"
  "factories (floor)|factories"
  "stats|stats"
  "latency|latency"
  "gpuprof(nvtx=off)|gpuprof(nvtx=off,report=off,cupti=off)"
  "gpuprof (NVTX on, no tool)|gpuprof(report=off,cupti=off)"
  "gpuprof full (cupti=auto)|gpuprof(report=off)"
)

time_run () { # tracers pipeline -> ns
  local t=$1 p=$2 s e
  s=$(date +%s%N)
  if [ -n "$t" ]; then
    # shellcheck disable=SC2086
    GST_TRACERS="$t" gst-launch-1.0 -q $p >/dev/null 2>&1
  else
    # shellcheck disable=SC2086
    env -u GST_TRACERS gst-launch-1.0 -q $p >/dev/null 2>&1
  fi
  e=$(date +%s%N)
  echo $((e - s))
}

bench () { # name pipeline pushes
  local name=$1 p=$2 pushes=$3 best floor=0 base=0
  echo "== $name: $n buffers, $pushes pushes per buffer, best of $repeats"
  printf '  %-30s %12s %16s %16s\n' "tracers" "ms" "ns/push vs none" "ns/push vs floor"
  for v in "${variants[@]}"; do
    local label=${v%%|*} t=${v#*|}
    best=
    for _ in $(seq "$repeats"); do
      local x
      x=$(time_run "$t" "$p")
      if [ -z "$best" ] || [ "$x" -lt "$best" ]; then best=$x; fi
    done
    [ "$label" = none ] && base=$best
    [ "$label" = "factories (floor)" ] && floor=$best
    local vs_none vs_floor="-"
    vs_none=$(awk -v a="$best" -v b="$base" -v k=$((n * pushes)) 'BEGIN { printf "%.1f", (a - b) / k }')
    [ "$floor" -gt 0 ] && vs_floor=$(awk -v a="$best" -v b="$floor" -v k=$((n * pushes)) 'BEGIN { printf "%.1f", (a - b) / k }')
    printf '  %-30s %12.1f %16s %16s\n' "$label" "$(awk -v a="$best" 'BEGIN { print a / 1e6 }')" "$vs_none" "$vs_floor"
  done
}

# Instructions instead of seconds: callgrind counts are repeatable on a
# shared machine (the same binary and input give the same count).
instructions () { # tracers pipeline -> instructions
  local t=$1 p=$2 f
  f=$(mktemp)
  # shellcheck disable=SC2086
  GST_TRACERS="$t" valgrind --tool=callgrind --callgrind-out-file="$f" \
    gst-launch-1.0 -q $p >/dev/null 2>&1
  sed -n 's/^summary: //p' "$f"
  rm -f "$f"
}

bench_instructions () { # name pipeline pushes
  local name=$1 p=$2 pushes=$3 floor=""
  echo "== $name: $n buffers, instructions per push (callgrind)"
  printf '  %-30s %16s %18s\n' "tracers" "instructions" "per push vs floor"
  for v in "${variants[@]}"; do
    local label=${v%%|*} t=${v#*|} x
    [ "$label" = none ] && continue
    x=$(instructions "$t" "$p")
    [ -z "$floor" ] && floor=$x
    printf '  %-30s %16s %18s\n' "$label" "$x" \
      "$(awk -v a="$x" -v b="$floor" -v k=$((n * pushes)) 'BEGIN { printf "%.0f", (a - b) / k }')"
  done
}

if [ "${BENCH_CALLGRIND:-0}" = 1 ]; then
  n=${2:-20000}
  linear="fakesrc num-buffers=$n ${linear#fakesrc num-buffers=* }"
  bench_instructions "fakesrc ! identity x10 ! fakesink" "$linear" $linear_pushes
  exit 0
fi

bench "fakesrc ! identity x10 ! fakesink" "$linear" $linear_pushes
bench "with 5 queues" "$queued" $queued_pushes
