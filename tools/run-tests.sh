#!/usr/bin/env bash
# Set up, build, and run the whole test suite on every GStreamer release we
# test (docs/testing.md, "What runs where"): on this Debian 12 machine's
# 1.22 twice, as built (./build) and under ASan+UBSan (./build-asan,
# -Db_sanitize=address,undefined; any sanitizer report fails its test);
# then in a Debian 13 chroot on its 1.26 (./build-trixie, plain build), and
# that build over Debian sid's 1.28 libraries (tools/run-chroot-tests.sh).
# Ends with one line per run and "N passed, N failed, N skipped" summing
# them all; exit status 0 only if none failed. Arguments go to every
# `meson test` run (a test name, --suite).
#   GPUPROF_SANITIZE=0  skips the sanitizer run (a quick local loop)
#   GPUPROF_CHROOTS=0   skips the 1.26 and 1.28 runs (they need root or
#                       sudo, and Debian's mirror the first time); said in
#                       the summary, never silently
set -uo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GPUPROF_BUILD:-$top/build}
asan=${GPUPROF_BUILD_ASAN:-$top/build-asan}
chroot_build=${GPUPROF_CHROOT_BUILD:-$top/build-trixie}
total_ok=0 total_fail=0 total_skip=0 status=0 summary=""

# run_counted LABEL OUTPUT_FILE BUILD COMMAND...: runs a suite, adds its
# counts (meson test's summary lines) to the totals; meson's full log of
# it (BUILD/meson-logs/testlog.txt, which the next run in BUILD replaces:
# the 1.26 and 1.28 runs share one) is kept beside OUTPUT_FILE as
# OUTPUT_FILE less .txt plus .testlog.txt (--print-errorlogs shows a
# failed test's last 100 lines only)
run_counted() {
  local label=$1 out=$2 testlog=$3/meson-logs/testlog.txt st ok fail \
    timeout skipped t0=$SECONDS why=""
  shift 3
  mkdir -p "$(dirname "$out")"
  rm -f "$testlog"
  "$@" 2>&1 | tee "$out"
  st=${PIPESTATUS[0]}
  [ ! -f "$testlog" ] || cp "$testlog" "${out%.txt}.testlog.txt"
  ok=$(sed -n 's/^Ok: *\([0-9]*\).*/\1/p' "$out" | tail -1)
  fail=$(sed -n 's/^Fail: *\([0-9]*\).*/\1/p' "$out" | tail -1)
  timeout=$(sed -n 's/^Timeout: *\([0-9]*\).*/\1/p' "$out" | tail -1)
  skipped=$(sed -n 's/^Skipped: *\([0-9]*\).*/\1/p' "$out" | tail -1)
  fail=$(( ${fail:-0} + ${timeout:-0} ))
  # failing before any test ran (a build error, a chroot that could not
  # be made) counts as a failure
  if [ "$st" -ne 0 ] && [ "$fail" -eq 0 ]; then
    fail=1
    why=" (no test ran: see the ERROR above)"
  fi
  summary="$summary$label: ${ok:-0} passed, $fail failed, ${skipped:-0} skipped$why, $(( (SECONDS - t0) / 60 )) min $(( (SECONDS - t0) % 60 )) s"$'\n'
  total_ok=$(( total_ok + ${ok:-0} ))
  total_fail=$(( total_fail + fail ))
  total_skip=$(( total_skip + ${skipped:-0} ))
  [ "$st" -eq 0 ] || status=1
}

t0=$SECONDS
bash "$top/tools/dev-setup.sh" || exit 1
run_counted "GStreamer 1.22, as built ($build)" "$build/test-output.txt" \
  "$build" meson test -C "$build" --print-errorlogs "$@"

if [ "${GPUPROF_SANITIZE:-1}" != 0 ]; then
  if GPUPROF_BUILD=$asan bash "$top/tools/dev-setup.sh" \
      -Db_sanitize=address,undefined -Db_lundef=false; then
    rm -rf "$asan/sanitizer-logs"
    run_counted "GStreamer 1.22, ASan+UBSan ($asan)" "$asan/test-output.txt" \
      "$asan" meson test -C "$asan" --print-errorlogs "$@"
  else
    summary="${summary}GStreamer 1.22, ASan+UBSan: the build failed"$'\n'
    total_fail=$(( total_fail + 1 )); status=1
  fi
fi

if [ "${GPUPROF_CHROOTS:-1}" != 0 ]; then
  for gst in 1.26 1.28; do
    run_counted "GStreamer $gst, Debian 13 chroot ($chroot_build)" \
      "$chroot_build/test-output-$gst.txt" "$chroot_build" \
      env GPUPROF_CHROOT_BUILD="$chroot_build" \
      bash "$top/tools/run-chroot-tests.sh" --gst "$gst" "$@"
  done
else
  summary="${summary}GStreamer 1.26 and 1.28 (Debian 13 chroot): skipped (GPUPROF_CHROOTS=0)"$'\n'
fi

printf '%s' "$summary"
echo "all runs: $(( (SECONDS - t0) / 60 )) min $(( (SECONDS - t0) % 60 )) s"
echo "$total_ok passed, $total_fail failed, $total_skip skipped"
exit "$status"
