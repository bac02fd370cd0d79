#!/bin/sh
# Parameters through GST_TRACERS: a bad key or value warns once, naming it
# and the valid choices, and the run goes on with the defaults; report=
# chooses where the report goes; nvtx=off emits no NVTX at all.
# usage: test-params.sh BUILD_ROOT
set -u
build=${1:?build root}
. "$(dirname "$0")/../common/check-lib.sh"

launch "gpuprof(bogus=1,nvtx=maybe)" fakesrc num-buffers=10 ! fakesink \
  >"$out/o1" 2>"$out/e1"
check "run goes on after bad parameters" "[ \$? -eq 0 ]"
check "unknown key named with the valid keys" \
  "grep -q \"unknown parameter 'bogus' ignored (valid: nvtx=on|off, report=\" $out/e1"
check "bad value named with its choices" \
  "grep -q \"bad value 'maybe' for 'nvtx' (valid: nvtx=on|off)\" $out/e1"
check "one warning line each" "[ \$(grep -c bogus $out/e1) -eq 1 ]"
check "report still printed (stderr by default)" \
  "grep -q '^limit: ' $out/e1"

launch "gpuprof(report=stdout)" fakesrc num-buffers=10 ! fakesink \
  >"$out/o2" 2>"$out/e2"
check "report=stdout" "grep -q '=== gpuprof report' $out/o2 && ! grep -q '=== gpuprof report' $out/e2"

launch "gpuprof(report=$out/r.txt)" fakesrc num-buffers=10 ! fakesink \
  >"$out/o3" 2>"$out/e3"
check "report=<path>" "grep -q '=== gpuprof report' $out/r.txt && ! grep -q '=== gpuprof' $out/e3"

launch "gpuprof(report=off)" fakesrc num-buffers=10 ! fakesink \
  >"$out/o4" 2>"$out/e4"
check "report=off" "! grep -q '=== gpuprof report' $out/o4 $out/e4"

launch "gpuprof(report=/nonexistent/dir/r.txt)" fakesrc num-buffers=10 ! fakesink \
  >"$out/o5" 2>"$out/e5"
check "unwritable report path: one clear error, report on stderr" \
  "grep -q \"cannot open report file '/nonexistent/dir/r.txt': No such file\" $out/e5 && grep -q '^limit: ' $out/e5"

if [ -f "$rec" ]; then
  nvtx_launch "$out/on.jsonl" "gpuprof(report=off)" \
    fakesrc num-buffers=10 ! identity ! fakesink
  nvtx_launch "$out/off.jsonl" "gpuprof(report=off,nvtx=off)" \
    fakesrc num-buffers=10 ! identity ! fakesink
  check "nvtx=on records ranges" "grep -q '\"push\"' $out/on.jsonl"
  check "nvtx=off records nothing" "[ ! -s $out/off.jsonl ] || ! grep -q '\"push\"' $out/off.jsonl"
fi

# a report at exit for a pipeline never set back to NULL is covered by
# gst-launch's own NULL; an application that exits while PLAYING:
GST_TRACERS="gpuprof" "$build/tests/common/gpuprof-exit-app" --keep-playing \
  >"$out/o6" 2>"$out/e6"
check "report at process exit, once" "[ \$(grep -c '=== gpuprof report' $out/e6) -eq 1 ]"

checks_done
