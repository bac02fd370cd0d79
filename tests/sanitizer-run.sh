#!/bin/sh
# Runs one test under a sanitizer: the exe_wrapper of the "asan" and "tsan"
# test setups (tests/meson.build), the default setup in a folder configured
# with -Db_sanitize=... (docs/testing.md, "Sanitizers").
#
# Our plugin is instrumented, GStreamer's programs are not: a process that
# loads the plugin needs the sanitizer runtime first in its library list.
# Test programs built in the folder link it; gst-launch-1.0, gst-inspect-1.0
# (run by shell tests) and gst-plugin-scanner (run by GStreamer) go through
# shims that preload it. Reports go to files (log_path), so a report from a
# child whose stderr a test swallows still fails the test: any report fails
# it, is printed, and is kept in GPUPROF_SANITIZER_LOGS.
#   usage: sanitizer-run.sh PROGRAM [ARGS...]
# Set by meson: GPUPROF_SANITIZER_PRELOAD (runtime libraries, ':'-separated),
# GPUPROF_SANITIZER_LOGS (folder for kept reports), GPUPROF_SANITIZER_SCANNER.
set -u
: "${GPUPROF_SANITIZER_PRELOAD:?set by the meson test setup}"
: "${GPUPROF_SANITIZER_LOGS:?set by the meson test setup}"
prog=$1; shift
case $prog in */*) ;; *) prog=$(command -v "$prog") || exit 127 ;; esac

mkdir -p "$GPUPROF_SANITIZER_LOGS"
logs=$(mktemp -d "$GPUPROF_SANITIZER_LOGS/$(basename "$prog").XXXXXX")
shims=$(mktemp -d "${TMPDIR:-/tmp}/gpuprof-shims.XXXXXX")
trap 'rm -rf "$shims"' EXIT

shim() { # NAME REAL-PATH [ENV-ASSIGNMENT]
  [ -x "$2" ] || return 0
  {
    echo '#!/bin/sh'
    echo "LD_PRELOAD=\"$GPUPROF_SANITIZER_PRELOAD\${LD_PRELOAD:+:\$LD_PRELOAD}\" ${3:-} exec \"$2\" \"\$@\""
  } > "$shims/$1"
  chmod +x "$shims/$1"
}
for t in gst-launch-1.0 gst-inspect-1.0; do
  shim "$t" "$(command -v "$t")"
done
# The scanner loads every system plugin once to fill a registry: their
# process-lifetime allocations are not ours, so no leak check there (memory
# errors are still caught; our plugin_init runs in the tests as well).
scanner=${GPUPROF_SANITIZER_SCANNER:-}
if [ -x "$scanner" ]; then
  shim gst-plugin-scanner "$scanner" \
    "ASAN_OPTIONS=\"\${ASAN_OPTIONS:+\$ASAN_OPTIONS:}detect_leaks=0\""
  export GST_PLUGIN_SCANNER_1_0="$shims/gst-plugin-scanner"
fi
export PATH="$shims:$PATH"
if [ "${GPUPROF_SANITIZER_PRELOAD_ALL:-0}" = 1 ]; then
  export LD_PRELOAD="$GPUPROF_SANITIZER_PRELOAD${LD_PRELOAD:+:$LD_PRELOAD}"
fi

opt() { printf '%s' "${1:+$1:}log_path=$logs/$2"; }
base_asan=${ASAN_OPTIONS:-}
base_ubsan=${UBSAN_OPTIONS:-}
base_tsan=${TSAN_OPTIONS:-}

run_once() {
  export ASAN_OPTIONS="$(opt "$base_asan" asan)"
  export UBSAN_OPTIONS="$(opt "$base_ubsan" ubsan)"
  export TSAN_OPTIONS="$(opt "$base_tsan" tsan)"
  # libubsan beside libasan ignores log_path: see sanitizer-ubsan-log.c. The
  # test programs themselves halt on a UBSan report (halt_on_error=1), which
  # fails them, with the report on their stderr.
  export GPUPROF_UBSAN_LOG="$logs/ubsan"
  "$prog" "$@"
  status=$?
}

# LeakSanitizer's own stop-the-world tracer sometimes crashes at exit
# ("Tracer caught signal 11", google/sanitizers#1353): no leak was found,
# the check did not run. Seen about once in 60 suite runs here. Only when
# every report is that crash is the test run once more; any real report,
# or the crash twice, fails it.
only_tracer_crash() {
  for f in "$logs"/*; do
    grep -q "Tracer caught signal" "$f" || return 1
    grep -q "LeakSanitizer has encountered a fatal error" "$f" || return 1
    grep -Eq "ERROR: (AddressSanitizer|LeakSanitizer: detected)|runtime error|WARNING: ThreadSanitizer" "$f" && return 1
  done
  return 0
}

run_once "$@"
if [ -n "$(ls -A "$logs")" ] && only_tracer_crash; then
  echo "sanitizer: LeakSanitizer's tracer crashed at exit (no report; a known LSan flake): running the test once more" >&2
  for f in "$logs"/*; do cat "$f" >&2; done
  rm -f "$logs"/*
  run_once "$@"
fi

# LeakSanitizer warns when a thread it could not stop at exit was running
# ("Running thread N was not suspended. False leaks are possible."): a
# warning, not a report. A file with nothing else is said and dropped; one
# with a leak beside it stays a report.
for f in "$logs"/*; do
  [ -f "$f" ] || continue
  if ! grep -Ev '^$|^==[0-9]+==Running thread [0-9]+ was not suspended\. False leaks are possible\.$' "$f" >/dev/null; then
    echo "sanitizer: $(cat "$f") (LSan's warning, no report)" >&2
    rm -f "$f"
  fi
done

if [ -z "$(ls -A "$logs")" ]; then
  rmdir "$logs"
  exit $status
fi
for f in "$logs"/*; do
  echo "=== sanitizer report $f" >&2
  cat "$f" >&2
done
echo "sanitizer: $(ls "$logs" | wc -l) report(s), kept in $logs" >&2
# a report fails the test, also one that passed or skipped
if [ $status -eq 0 ] || [ $status -eq 77 ]; then status=1; fi
exit $status
