#!/bin/sh
# live-memory.sh: RSS over a long run with interval= on, to show that the
# live snapshots keep memory flat (each snapshot replaces the previous one;
# the JSON Lines and CSV go to disk as they come).
#
#   bench/live-memory.sh [BUILD_DIR]      (default: build)
#
# Runs fakesrc num-buffers=N sizetype=fixed ! identity ! queue ! fakesink
# (N = BUFFERS, default 10 M) under GST_TRACERS="gpuprof(interval=0.1,
# stats=...)" (INTERVAL to change), and for reference the same without
# interval=. Samples VmRSS from /proc/PID/status every 0.5 s and prints it
# at the start (the sample a tenth into the run: the pipeline streams), at
# the middle and at the end (last sample), the peak (VmHWM), the snapshots
# written and the wall time.
set -eu
build=${1:-build}
n=${BUFFERS:-10000000}
interval=${INTERVAL:-0.1}
tdir=$(mktemp -d)
trap 'rm -rf "$tdir"' EXIT
export GST_PLUGIN_PATH="$build/tracers${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
export GST_REGISTRY_1_0="$tdir/registry.bin"

# build the registry first: its scan would inflate the first run's RSS
GST_TRACERS="gpuprof(report=off)" gst-launch-1.0 -q fakesrc num-buffers=1 \
  ! fakesink > /dev/null 2>&1

status_kb() { # PID FIELD
  sed -n "s/^$2:[^0-9]*\([0-9]*\).*/\1/p" "/proc/$1/status" 2>/dev/null || true
}

printf '%-10s %-22s %-10s %-10s %-10s %-10s %-10s %s\n' buffers tracer \
  "start MB" "middle MB" "end MB" "peak MB" snapshots "wall s"
for mode in off live; do
  if [ $mode = off ]; then tracers="gpuprof(report=off,stats=$tdir/run.json)"
  else tracers="gpuprof(interval=$interval,report=off,stats=$tdir/run.json)"
  fi
  rm -f "$tdir"/run*
  start=$(date +%s.%N)
  GST_TRACERS="$tracers" gst-launch-1.0 -q fakesrc num-buffers="$n" \
    sizetype=fixed sizemax=16 ! identity ! queue ! fakesink sync=false \
    > /dev/null 2>&1 &
  pid=$!
  : > "$tdir/rss"
  hwm=0
  while kill -0 $pid 2>/dev/null; do
    v=$(status_kb $pid VmRSS)
    h=$(status_kb $pid VmHWM)
    [ -n "$v" ] && echo "$v" >> "$tdir/rss"
    [ -n "$h" ] && hwm=$h
    sleep 0.5
  done
  wait $pid
  end=$(date +%s.%N)
  snaps=0
  [ -f "$tdir/run-live.jsonl" ] && snaps=$(wc -l < "$tdir/run-live.jsonl")
  samples=$(wc -l < "$tdir/rss")
  pick() { sed -n "${1}p" "$tdir/rss" | awk '{ printf "%.1f", $1 / 1024 }'; }
  printf '%-10s %-22s %-10s %-10s %-10s %-10s %-10s %s\n' "$n" \
    "$([ $mode = off ] && echo gpuprof || echo "gpuprof interval=$interval")" \
    "$(pick $(( samples / 10 + 1 )))" "$(pick $(( (samples + 1) / 2 )))" "$(pick "$samples")" \
    "$(echo "$hwm" | awk '{ printf "%.1f", $1 / 1024 }')" "$snaps" \
    "$(echo "$start $end" | awk '{ printf "%.1f", $2 - $1 }')"
done
