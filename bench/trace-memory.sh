#!/bin/sh
# trace-memory.sh: peak RSS of a traced run at 1 M and 10 M buffers, to show
# that the trace writer's memory stays flat however long the run.
#
#   bench/trace-memory.sh [BUILD_DIR]      (default: build)
#
# Runs fakesrc num-buffers=N ! identity ! fakesink under
# GST_TRACERS="gpuprof(trace=FILE)" for N = 1 M and 10 M (BUFFERS="..." to
# change), each also without trace= for reference, and prints per run:
# peak RSS (from /usr/bin/time -v, else
# /proc/PID/status VmHWM), the trace size, events written and lost, and
# wall time. The trace goes to a temporary folder (TRACE_DIR to choose;
# 10 M buffers write several GB) and is deleted after each run.
set -eu
build=${1:-build}
buffers=${BUFFERS:-1000000 10000000}
tdir=${TRACE_DIR:-$(mktemp -d)}
export GST_PLUGIN_PATH="$build/tracers${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
export GST_REGISTRY_1_0="$tdir/registry.bin"

peak_rss_kb() { # run "$@", print peak RSS in kB on fd 3
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -v "$@" 2> "$tdir/time.txt" >/dev/null
    sed -n 's/.*Maximum resident set size (kbytes): //p' "$tdir/time.txt" >&3
  else
    "$@" > /dev/null 2>&1 &
    pid=$! hwm=0
    while kill -0 $pid 2>/dev/null; do
      v=$(sed -n 's/^VmHWM:[^0-9]*\([0-9]*\).*/\1/p' /proc/$pid/status 2>/dev/null || true)
      [ -n "$v" ] && hwm=$v
      sleep 0.2
    done
    wait $pid
    echo "$hwm" >&3
  fi
}

# build the registry first: its scan would inflate the first run's RSS
GST_TRACERS="gpuprof(report=off)" gst-launch-1.0 -q fakesrc num-buffers=1 \
  ! fakesink > /dev/null 2>&1

printf '%-10s %-14s %-12s %-12s %-12s %-10s %s\n' buffers tracer "peak RSS MB" \
  "trace MB" events lost "wall s"
for n in $buffers; do
  for mode in none trace; do
    trace="$tdir/run-$n.json"
    if [ $mode = none ]; then tracers="gpuprof(report=off)"; else
      tracers="gpuprof(trace=$trace,report=off)"; fi
    start=$(date +%s.%N)
    rss=$(GST_TRACERS="$tracers" peak_rss_kb gst-launch-1.0 -q fakesrc \
      num-buffers=$n ! identity ! fakesink 3>&1)
    end=$(date +%s.%N)
    size=0 events=- lost=-
    if [ -f "$trace" ]; then
      size=$(stat -c %s "$trace")
      stats=$(tail -c 4096 "$trace" | grep '"gpuprof trace"' | head -1 || true)
      events=$(echo "$stats" | sed -n 's/.*"events_written":\([0-9]*\).*/\1/p')
      lost=$(echo "$stats" | sed -n 's/.*"events_lost":\([0-9]*\).*/\1/p')
      rm -f "$trace"
    fi
    printf '%-10s %-14s %-12s %-12s %-12s %-10s %s\n' "$n" \
      "$([ $mode = none ] && echo gpuprof || echo gpuprof+trace)" \
      "$(echo "$rss" | awk '{ printf "%.1f", $1 / 1024 }')" \
      "$(echo "$size" | awk '{ printf "%.1f", $1 / 1e6 }')" \
      "${events:--}" "${lost:--}" \
      "$(echo "$start $end" | awk '{ printf "%.1f", $2 - $1 }')"
  done
done
[ -n "${TRACE_DIR:-}" ] || rm -rf "$tdir"
