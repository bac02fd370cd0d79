#!/usr/bin/env bash
# nvml= from the shell (issue 23): where NVML cannot run, nvml=on says why
# in one stderr line and one report line and the run goes on; nvml=auto
# says nothing; an older driver's missing calls are survived (its rows
# there, what it lacks named, this process's share "-"); a driver without
# a required call is one line; nvml=off never loads the library
# (LD_DEBUG=files). cupti=off throughout: NVML needs no CUPTI.
# usage: test-gpu-resources.sh BUILD
#   (env: FAKE_NVML_PATH, FAKE_NVML_OLD_PATH, FAKE_NVML_BROKEN_PATH)
set -euo pipefail
build=$1
export GST_PLUGIN_PATH_1_0="$build/tracers" GST_PLUGIN_PATH="$build/tracers"
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
fail() { echo "FAIL: $*"; echo "--- stdout"; cat "$out"; echo "--- stderr"; cat "$err"; exit 1; }
PIPE="videotestsrc num-buffers=15 ! video/x-raw,framerate=30/1 ! fakesink sync=true"

# nvml-hz=10: the run lasts 0.5 s, and at the default 2 a second a loaded
# machine let it end before the first reading (no rows, so no line naming
# the missing calls: 1 run in 3 of a loaded fresh check)
run() { # LIBRARY MODE: the report on stdout, the rest on stderr
  # shellcheck disable=SC2086
  GPUPROF_NVML_LIBRARY=$1 FAKE_NVML_SCRIPT=0:decode-bound \
    GST_TRACERS="gpuprof(nvml=$2,nvml-hz=10,cupti=off,report=stdout)" \
    gst-launch-1.0 -q $PIPE >"$out" 2>"$err" || fail "gst-launch failed"
}

# absent: one line each, exactly, and a report
run /nonexistent/libnvidia-ml.so.1 on
want="NVML off: /nonexistent/libnvidia-ml.so.1 not loadable (/nonexistent/libnvidia-ml.so.1: cannot open shared object file: No such file or directory)"
[ "$(grep -c . "$err")" -eq 1 ] || fail "nvml=on, absent: expected one stderr line"
grep -qxF "gpuprof: $want" "$err" || fail "nvml=on, absent: not the line"
[ "$(grep -cxF "GPU resources: $want" "$out")" -eq 1 ] || fail "no report line"
grep -q '=== gpuprof report' "$out" || fail "no report"
grep -q 'GPU resources (NVML' "$out" && fail "a resources table without NVML"
run /nonexistent/libnvidia-ml.so.1 auto
[ ! -s "$err" ] || fail "nvml=auto, absent: said something"
grep -q 'NVML' "$out" && fail "nvml=auto, absent: the report mentions NVML"

# a required call missing: one line
run "$FAKE_NVML_BROKEN_PATH" on
[ "$(grep -c . "$err")" -eq 1 ] || fail "broken: expected one stderr line"
grep -qx "gpuprof: NVML off: .*libfakenvml-broken.so has no nvmlDeviceGetUtilizationRates (driver too old?)" \
  "$err" || fail "broken: not the line"

# an older driver: rows, the missing calls named, our share unknown
run "$FAKE_NVML_OLD_PATH" on
[ ! -s "$err" ] || fail "old driver: said something on stderr"
grep -q "this driver's NVML lacks nvmlDeviceGetPcieThroughput, nvmlDeviceGetProcessUtilization" \
  "$out" || fail "old driver: missing calls not named"
# "GPU 0 Fake GPU" readings SM% peak mem% NVDEC% ... ours SM, ours NVDEC: "-"
awk '$1 == "GPU" && $2 == 0 && $9 == "97.0" && $(NF) == "-" && $(NF - 1) == "-"' \
  "$out" | grep -q . || fail "old driver: no row with NVDEC 97 and our share '-'"

# three GPUs, none named by the pipeline: every one read, said so
FAKE_NVML_DEVICES=3 run "$FAKE_NVML_PATH" on
[ ! -s "$err" ] || fail "three GPUs: said something on stderr"
for i in 0 1 2; do
  grep -q "^  GPU $i Fake GPU: used by the pipeline as all 3 devices: which the pipeline uses is not known" \
    "$out" || fail "three GPUs: no line for GPU $i"
done

# off: the library is never loaded
GPUPROF_NVML_LIBRARY=$FAKE_NVML_PATH LD_DEBUG=files \
  GST_TRACERS="gpuprof(nvml=off,cupti=off,report=stdout)" \
  gst-launch-1.0 -q $PIPE >"$out" 2>"$err" || fail "gst-launch failed"
grep -q "libfakenvml" "$err" && fail "nvml=off loaded the library"
# ... which nvml=on does
GPUPROF_NVML_LIBRARY=$FAKE_NVML_PATH LD_DEBUG=files \
  GST_TRACERS="gpuprof(nvml=on,cupti=off,report=stdout)" \
  gst-launch-1.0 -q $PIPE >"$out" 2>"$err" || fail "gst-launch failed"
grep -q "libfakenvml" "$err" || fail "nvml=on did not load the library"
echo "OK"
