#!/usr/bin/env bash
# The main job: set up, build, then run a DeepStream-style example pipeline
# (4 camera-like streams -> batching mux -> inference -> tracker -> OSD) under
# GST_TRACERS=gpuprof and print the report. Extra arguments go to the tracer,
# e.g. run-example.sh trace=run.json
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GPUPROF_BUILD:-$top/build}
bash "$top/tools/dev-setup.sh"

export GST_PLUGIN_PATH="$build/tracers:$build/elements/gpuprofmeter:$build/examples/analytics${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
params=${1:-}
tracers="gpuprof${params:+($params)}"
if gst-inspect-1.0 analyticsmux >/dev/null 2>&1; then
  n=4
  pipeline="analyticsmux name=mux batch-size=$n width=320 height=240 ! \
queue ! analyticsinfer batch-size=$n ! queue ! analyticstracker ! \
analyticsosd ! fakesink sync=false"
  for i in $(seq 0 $((n - 1))); do
    pipeline="$pipeline videotestsrc num-buffers=150 pattern=ball ! \
video/x-raw,width=640,height=480,framerate=30/1 ! mux.sink_$i"
  done
else
  pipeline="videotestsrc num-buffers=300 ! video/x-raw,width=640,height=480 ! \
videoconvert ! queue ! videoscale ! video/x-raw,width=320,height=240 ! fakesink sync=false"
fi
echo "+ GST_TRACERS=\"$tracers\" gst-launch-1.0 $pipeline"
# shellcheck disable=SC2086
GST_TRACERS="$tracers" gst-launch-1.0 -q $pipeline
