#!/usr/bin/env bash
# When GPU attribution cannot run: cupti=auto says nothing (no stderr line,
# no "GPU:" report line), cupti=on says why once on stderr and in the
# report; inspecting the plugin neither says it nor loads CUPTI, with or
# without GST_TRACERS: the tracer must not load CUPTI when only inspected.
# Usage: test-cupti-messages.sh BUILD_DIR   (FAKE_CUPTI_PATH: the fake
# libcupti, to see whether CUPTI is loaded at all)
set -u
build=${1:?build dir}
# GST_PLUGIN_PATH_1_0, when set (gpuprofmeter), wins over GST_PLUGIN_PATH
export GST_PLUGIN_PATH_1_0=$build/tracers${GST_PLUGIN_PATH_1_0:+:$GST_PLUGIN_PATH_1_0}
missing=/nonexistent/libcupti.so.13
fake=${FAKE_CUPTI_PATH:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

fail () {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# run NAME TRACERS: a short pipeline, report on stdout
run () {
  GST_TRACERS=$2 gst-launch-1.0 -q fakesrc num-buffers=3 ! fakesink \
    >"$tmp/$1.out" 2>"$tmp/$1.err" || fail "$1: gst-launch failed: $(cat "$tmp/$1.err")"
}

count () {
  grep -c -- "$1" "$2" || true
}

# auto, CUPTI not loadable: silent
run auto-missing "gpuprof(report=stdout,cupti-lib=$missing)"
[ "$(count 'GPU attribution off' "$tmp/auto-missing.err")" = 0 ] \
  || fail "cupti=auto printed on stderr: $(cat "$tmp/auto-missing.err")"
[ "$(count '^GPU:' "$tmp/auto-missing.out")" = 0 ] \
  || fail "cupti=auto put a GPU line in the report: $(grep '^GPU:' "$tmp/auto-missing.out")"
grep -q "=== gpuprof report" "$tmp/auto-missing.out" || fail "no report with cupti=auto"

# auto with this machine's own CUPTI: on (a GPU) or off, never a line
run auto-here "gpuprof(report=stdout)"
[ "$(count 'GPU attribution off' "$tmp/auto-here.err" "$tmp/auto-here.out")" = 0 ] \
  || fail "cupti=auto said it is off: $(cat "$tmp/auto-here.err")"

# on, CUPTI not loadable: one stderr line, one report line, both saying why
run on-missing "gpuprof(report=stdout,cupti=on,cupti-lib=$missing)"
[ "$(count '^gpuprof: GPU attribution off: .*libcupti' "$tmp/on-missing.err")" = 1 ] \
  || fail "cupti=on: not one stderr line: $(cat "$tmp/on-missing.err")"
[ "$(count '^GPU: GPU attribution off: .*libcupti' "$tmp/on-missing.out")" = 1 ] \
  || fail "cupti=on: not one report line: $(cat "$tmp/on-missing.out")"

# inspecting: no line, with or without GST_TRACERS
for tracers in "" "gpuprof" "gpuprof(cupti=on,cupti-lib=$missing)"; do
  GST_TRACERS=$tracers gst-inspect-1.0 gpuprof >"$tmp/inspect.out" 2>&1 \
    || fail "gst-inspect-1.0 gpuprof failed (GST_TRACERS='$tracers')"
  grep -q "GstGpuprofTracer" "$tmp/inspect.out" \
    || fail "gst-inspect-1.0 did not show the tracer (GST_TRACERS='$tracers')"
  # gpuprof's line, not any text: gst-inspect >= 1.24 prints the
  # properties' docs ("GPU attribution with CUPTI")
  [ "$(count 'GPU attribution off' "$tmp/inspect.out")" = 0 ] \
    || fail "gst-inspect-1.0 (GST_TRACERS='$tracers'): $(grep 'GPU attribution off' "$tmp/inspect.out")"
done

# inspecting does not load CUPTI; a run does (the check can see it)
if [ -n "$fake" ] && [ -f "$fake" ]; then
  GST_TRACERS="gpuprof(cupti=on,cupti-lib=$fake)" LD_DEBUG=files \
    gst-launch-1.0 -q fakesrc num-buffers=3 ! fakesink >/dev/null 2>"$tmp/ld-run.err"
  grep -q "calling init: $fake" "$tmp/ld-run.err" \
    || fail "a run with cupti=on did not load $fake: the check below sees nothing"
  for tracers in "gpuprof(cupti=on,cupti-lib=$fake)" "gpuprof(cupti-lib=$fake)"; do
    GST_TRACERS=$tracers LD_DEBUG=files gst-inspect-1.0 gpuprof \
      >/dev/null 2>"$tmp/ld-inspect.err"
    ! grep -q "calling init: $fake" "$tmp/ld-inspect.err" \
      || fail "gst-inspect-1.0 gpuprof loaded CUPTI (GST_TRACERS='$tracers')"
  done
else
  echo "no fake libcupti: CUPTI loading on inspect not checked"
fi

if [ "$failures" -gt 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "PASS"
