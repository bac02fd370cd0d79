#!/bin/sh
# checkpoint-cost.sh: what checkpoint= costs (docs/benchmarks.md#checkpoints).
#
#   bench/checkpoint-cost.sh [BUILD_DIR]      (default: build)
#
# A live pipeline of STREAMS (default 8) cameras (videotestsrc is-live
# 320x240 30 fps ! videoconvert ! queue) into a funnel ! queue ! fakesink,
# ~5 x STREAMS + 3 elements, runs SECS seconds (default 20) under
# GST_TRACERS="gpuprof(stats=...,html=...,checkpoint=P)" for P = 0 (off),
# 5 (the default), 1 and 0.1. Just before the end it reads, from /proc, the
# CPU time of the whole process and of the checkpoint thread
# (gpuprof-checkpt, its schedstat run time) itself, and prints: checkpoints taken (the stats= file's
# renames are not counted: SECS / P, a late tick is not made up), the
# checkpoint thread's CPU per checkpoint, and that cost as a share of one
# core at the period P. The process CPU of each run shows the same cost is
# below the run-to-run noise of the pipeline itself.
set -eu
build=${1:-build}
secs=${SECS:-20}
streams=${STREAMS:-8}
tdir=$(mktemp -d)
trap 'rm -rf "$tdir"' EXIT
export GST_PLUGIN_PATH="$build/tracers${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
export GST_REGISTRY_1_0="$tdir/registry.bin"
tck=$(getconf CLK_TCK)

GST_TRACERS="gpuprof(report=off)" gst-launch-1.0 -q fakesrc num-buffers=1 \
  ! fakesink > /dev/null 2>&1

desc="funnel name=f ! queue ! fakesink sync=false"
i=0
while [ $i -lt "$streams" ]; do
  desc="$desc videotestsrc is-live=true pattern=ball ! video/x-raw,width=320,height=240,framerate=30/1 ! videoconvert ! queue ! f."
  i=$((i + 1))
done

cpu_ticks() { # STAT_FILE: utime + stime (fields 14, 15 after the comm)
  sed 's/^.*) //' "$1" 2>/dev/null | awk '{ print $12 + $13 }'
}

printf '%-12s %-10s %-12s %-14s %-16s %s\n' checkpoint "process s" \
  checkpoints "thread ms" "ms / checkpoint" "share of a core"
for period in 0 5 1 0.1; do
  rm -f "$tdir"/run*
  # shellcheck disable=SC2086
  GST_TRACERS="gpuprof(report=off,stats=$tdir/run.json,html=$tdir/run.html,checkpoint=$period)" \
    gst-launch-1.0 -q -e $desc > /dev/null 2>&1 &
  pid=$!
  sleep "$secs"
  proc=$(cpu_ticks "/proc/$pid/stat")
  thread=0
  for t in /proc/$pid/task/*; do
    if [ "$(cat "$t/comm" 2>/dev/null)" = gpuprof-checkpt ]; then
      # ns on the CPU (schedstat): finer than the stat file's ticks
      thread=$(awk '{ print $1 }' "$t/schedstat")
    fi
  done
  kill -INT $pid
  wait $pid || true
  echo "$period $proc $thread $secs $tck" | awk '{
    n = $1 > 0 ? int($4 / $1) : 0
    ms = $3 / 1e6
    per = n ? ms / n : 0
    printf "%-12s %-10.2f %-12d %-14.1f %-16.2f %s\n", $1, $2 / $5, n, ms, per,
      n ? sprintf("%.3f %%", per / ($1 * 1000) * 100) : "-" }'
done
echo "summary: $(wc -c < "$tdir/run.json") bytes of JSON, $(ls "$tdir" | grep -c csv) CSV files, $(wc -c < "$tdir/run.html") bytes of HTML per checkpoint"
