#!/usr/bin/env bash
# The test suite under ThreadSanitizer (./build-tsan, -Db_sanitize=thread),
# then the reports sorted into ours and GLib/GStreamer's. GLib and GStreamer
# are not built with TSan: tests/sanitizer-tsan-glib.c shows their locks to
# it, tests/tsan.supp drops what is left inside them. A report is ours when
# the first frame (past the sanitizer's own) of one of its accesses is in
# our sources (gst/, tracers/, elements/, examples/, tests/); the others are
# counted, and kept with the rest in build-tsan/sanitizer-logs. Slow (five
# to six times the plain suite); not part of CI. Exit status 0 when no
# report is ours (docs/testing.md).
#   tools/run-tsan.sh                  # whole suite
#   tools/run-tsan.sh --suite tracer   # any meson test arguments
set -uo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GPUPROF_BUILD_TSAN:-$top/build-tsan}
GPUPROF_BUILD=$build bash "$top/tools/dev-setup.sh" \
  -Db_sanitize=thread -Db_lundef=false >/dev/null || exit 1
logs="$build/sanitizer-logs"
rm -rf "$logs"
meson test -C "$build" --print-errorlogs "$@" > "$build/test-output.txt" 2>&1
grep -E '^(Ok|Fail|Timeout|Skipped):' "$build/test-output.txt"

files=$(find "$logs" -type f 2>/dev/null | sort)
[ -n "$files" ] || { echo "tsan: no reports"; exit 0; }
# one line per report: "ours<TAB>kind: our first frame" or
# "theirs<TAB>SUMMARY text"
# shellcheck disable=SC2086
awk -v ourpat='\\.\\./(gst|tracers|elements|examples|tests)/' '
  function flush() {
    if (kind != "")
      print (ours && !gstfree ? "ours\t" kind ": " where : \
             ours ? "free\t" where : "theirs\t" summary)
    kind = ""; ours = 0; summary = ""; where = ""; gstfree = 0
  }
  /^WARNING: ThreadSanitizer: / {
    flush(); kind = $0; sec = 0
    sub(/^WARNING: ThreadSanitizer: /, "", kind); sub(/ \(pid=[0-9]+\)/, "", kind)
    next
  }
  /^  [A-Z]/ {            # a new stack: one access, a mutex, a thread
    sec = ($0 ~ /^  (Read|Write|Atomic|Previous|Mutex .* acquired here)/)
    first = 1; freed = 0; next
  }
  /^    #0 free / && sec { freed = 1 }
  /^    #[0-9]+ / && sec && first {
    if ($0 ~ /libtsan\.so|tsan_interceptors|tsan_interface|sanitizer-tsan-glib/)
      next                # the sanitizer and our GLib wrappers
    if ($0 ~ ourpat && !ours) { ours = 1; where = $2 " " $3 }
    # freed inside GLib/GStreamer after an unref TSan cannot see
    if (freed && $0 !~ ourpat) gstfree = 1
    first = 0; next
  }
  /^SUMMARY: / { sub(/^SUMMARY: ThreadSanitizer: /, ""); summary = $0 }
  END { flush() }
' $files > "$build/tsan-sorted.txt"

n_ours=$(grep -c '^ours' "$build/tsan-sorted.txt")
n_free=$(grep -c '^free' "$build/tsan-sorted.txt")
n_theirs=$(grep -c '^theirs' "$build/tsan-sorted.txt")
echo "tsan: $(echo "$files" | wc -l) processes with reports;" \
  "$n_ours reports in our code, $n_theirs inside GLib/GStreamer only"
if [ "$n_free" -gt 0 ]; then
  # a GStreamer object read by us, then freed by GStreamer's own last unref
  # (an atomic in libgstreamer TSan does not see); a real use after free is
  # ASan's to find
  echo "$n_free more: our access, then a free inside GLib/GStreamer after" \
    "its own unref (not ordered for TSan; not counted as ours):"
  grep '^free' "$build/tsan-sorted.txt" | cut -f2 | sort | uniq -c | sort -rn
fi
if [ "$n_ours" -gt 0 ]; then
  echo "ours, by place (count, report):"
  grep '^ours' "$build/tsan-sorted.txt" | cut -f2 | sort | uniq -c | sort -rn
fi
echo "full reports: $logs"
[ "$n_ours" -eq 0 ]
