#!/usr/bin/env bash
# Set up, build, and run the whole test suite twice: as built (./build), then
# under ASan+UBSan (./build-asan, -Db_sanitize=address,undefined; any
# sanitizer report fails its test, see docs/testing.md). Ends with a line
# "N passed, N failed, N skipped" summing both runs; exit status 0 only if
# none failed. Arguments go to both `meson test` runs (a test name, --suite).
# GPUPROF_SANITIZE=0 skips the sanitizer run (a quick local loop).
set -uo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GPUPROF_BUILD:-$top/build}
asan=${GPUPROF_BUILD_ASAN:-$top/build-asan}
total_ok=0 total_fail=0 total_skip=0 status=0

# run_suite LABEL BUILD_DIR [meson test args]: adds to the totals
run_suite() {
  local label=$1 dir=$2 out=$2/test-output.txt st ok fail timeout skipped
  shift 2
  meson test -C "$dir" --print-errorlogs "$@" 2>&1 | tee "$out"
  st=${PIPESTATUS[0]}
  ok=$(sed -n 's/^Ok: *\([0-9]*\).*/\1/p' "$out" | tail -1)
  fail=$(sed -n 's/^Fail: *\([0-9]*\).*/\1/p' "$out" | tail -1)
  timeout=$(sed -n 's/^Timeout: *\([0-9]*\).*/\1/p' "$out" | tail -1)
  skipped=$(sed -n 's/^Skipped: *\([0-9]*\).*/\1/p' "$out" | tail -1)
  fail=$(( ${fail:-0} + ${timeout:-0} ))
  # meson failing before any test ran (a build error) counts as a failure
  [ "$st" -ne 0 ] && [ "$fail" -eq 0 ] && fail=1
  summary="$summary$label: ${ok:-0} passed, $fail failed, ${skipped:-0} skipped"$'\n'
  total_ok=$(( total_ok + ${ok:-0} ))
  total_fail=$(( total_fail + fail ))
  total_skip=$(( total_skip + ${skipped:-0} ))
  [ "$st" -eq 0 ] || status=1
}

summary=""
bash "$top/tools/dev-setup.sh" || exit 1
run_suite "as built ($build)" "$build" "$@"

if [ "${GPUPROF_SANITIZE:-1}" != 0 ]; then
  if GPUPROF_BUILD=$asan bash "$top/tools/dev-setup.sh" \
      -Db_sanitize=address,undefined -Db_lundef=false; then
    rm -rf "$asan/sanitizer-logs"
    run_suite "ASan+UBSan ($asan)" "$asan" "$@"
  else
    summary="${summary}ASan+UBSan: the build failed"$'\n'
    total_fail=$(( total_fail + 1 )); status=1
  fi
fi

printf '%s' "$summary"
echo "$total_ok passed, $total_fail failed, $total_skip skipped"
exit "$status"
