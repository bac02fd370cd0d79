#!/usr/bin/env bash
# Set up, build, and run the whole test suite. Ends with a line
# "N passed, N failed" (and skipped); exit status 0 only if none failed.
set -uo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GPUPROF_BUILD:-$top/build}
bash "$top/tools/dev-setup.sh" || exit 1

meson test -C "$build" --print-errorlogs "$@" 2>&1 | tee "$build/test-output.txt"
status=${PIPESTATUS[0]}
ok=$(sed -n 's/^Ok: *\([0-9]*\).*/\1/p' "$build/test-output.txt" | tail -1)
fail=$(sed -n 's/^Fail: *\([0-9]*\).*/\1/p' "$build/test-output.txt" | tail -1)
timeout=$(sed -n 's/^Timeout: *\([0-9]*\).*/\1/p' "$build/test-output.txt" | tail -1)
skipped=$(sed -n 's/^Skipped: *\([0-9]*\).*/\1/p' "$build/test-output.txt" | tail -1)
echo "${ok:-0} passed, $(( ${fail:-0} + ${timeout:-0} )) failed, ${skipped:-0} skipped"
exit "$status"
