#!/usr/bin/env bash
# An application that exits without gst_deinit() while a CUPTI session runs
# must exit cleanly: the session ends before CUPTI's own exit handlers, so
# nothing calls into a torn-down CUPTI (the fake libcupti aborts then, as
# the real one crashed on the H100), and the exit report is printed.
# Usage: test-cupti-exit.sh BUILD_DIR   (FAKE_CUPTI_PATH: the fake libcupti)
set -u
build=${1:?build dir}
fake=${FAKE_CUPTI_PATH:-}
if [ -z "$fake" ]; then
  echo "SKIP: no fake libcupti (CUPTI headers missing)"
  exit 77
fi
export GST_PLUGIN_PATH_1_0=$build/tracers${GST_PLUGIN_PATH_1_0:+:$GST_PLUGIN_PATH_1_0}
app=$build/tests/common/gpuprof-exit-app
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

for mode in stop keep-playing; do
  arg=; [ $mode = keep-playing ] && arg=--keep-playing
  GST_TRACERS="gpuprof(cupti=on,cupti-lib=$fake,report=stdout)" "$app" $arg \
    >"$tmp/$mode.out" 2>"$tmp/$mode.err"
  rc=$?
  if [ $rc != 0 ]; then
    echo "FAIL ($mode): exit status $rc: $(cat "$tmp/$mode.err")"
    failures=$((failures + 1))
  fi
  if grep -q "GPU attribution off" "$tmp/$mode.out" "$tmp/$mode.err"; then
    echo "FAIL ($mode): CUPTI did not start with the fake library: $(cat "$tmp/$mode.err")"
    failures=$((failures + 1))
  fi
  grep -q "=== gpuprof report" "$tmp/$mode.out" || {
    echo "FAIL ($mode): no report"
    failures=$((failures + 1))
  }
  grep -q "^GPU (CUPTI)" "$tmp/$mode.out" || {
    echo "FAIL ($mode): no GPU section in the report: $(cat "$tmp/$mode.out")"
    failures=$((failures + 1))
  }
done
[ $failures = 0 ] && echo "OK: exit with a CUPTI session running is clean"
[ $failures = 0 ]
