#!/bin/sh
# pipeline-churn.sh: memory of a process that creates, runs and destroys
# N pipelines one after another (a service making one per request), without
# the tracer, with it, and with it writing a trace. The resident memory
# after the first pipeline and after the last should be about the same in
# all three: the tracer frees what it kept for destroyed objects once their
# run was reported.
#
#   bench/pipeline-churn.sh [BUILD_DIR] [N]      (defaults: build, 400)
set -eu
build=${1:-build}
n=${2:-400}
tdir=$(mktemp -d)
trap 'rm -rf "$tdir"' EXIT
export GST_PLUGIN_PATH="$build/tracers${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
export GST_REGISTRY_1_0="$tdir/registry.bin"
churn="$build/bench/pipeline-churn"

echo "== untraced"
GST_TRACERS= "$churn" "$n"
echo "== gpuprof(report=off)"
GST_TRACERS="gpuprof(report=off)" "$churn" "$n"
echo "== gpuprof(report=off,trace=...)"
GST_TRACERS="gpuprof(report=off,trace=$tdir/t.json)" "$churn" "$n"
