#!/usr/bin/env bash
# The tracer's tests under valgrind memcheck: reports invalid accesses and
# memory definitely lost in any traced process (test programs and the
# gst-launch-1.0 runs they start; shell tools are skipped; GStreamer's own
# process-lifetime allocations are suppressed by tests/*.supp). Timing bounds
# are relaxed (GPUPROF_TEST_NO_TIMING), every other check stays. Slow.
#   tools/run-valgrind.sh                 # tracer and batch suites
#   tools/run-valgrind.sh --suite trace   # any meson test arguments
set -uo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GPUPROF_BUILD:-$top/build}
bash "$top/tools/dev-setup.sh" >/dev/null || exit 1
logs="$build/valgrind"
rm -rf "$logs"; mkdir -p "$logs"
supp=""
for s in "$top"/tests/*.supp "$top"/tests/*/*.supp; do
  case $s in */lsan.supp|*/tsan.supp) continue ;; esac   # the sanitizers'
  supp="$supp --suppressions=$s"
done
skip='sh,dash,bash,*/dash,*/sh,*/bash,*/grep,*/sed,*/awk,*/mawk,*/gawk,*/tail,*/head,*/cat,*/jq,*/sort,*/uniq,*/wc,*/mktemp,*/rm,*/date,*/timeout,*/env,*/kill,*/sleep,*/tr,*/cut,*/ls,*/mkdir,*/cp,*/mv,*/gst-plugin-scanner,*/seq,*/stat,*/du,*/id,*/dirname,*/basename,*/readlink,*/touch,*/tee,*/find,*/xargs,*/expr,*/cmp,*/diff,*/python3*'
export CK_DEFAULT_TIMEOUT=600 G_SLICE=always-malloc GPUPROF_TEST_NO_TIMING=1
[ $# -eq 0 ] && set -- --suite tracer --suite batch
meson test -C "$build" --timeout-multiplier 20 \
  --wrapper "valgrind --leak-check=full --errors-for-leak-kinds=definite --trace-children=yes --trace-children-skip=$skip --num-callers=30 --log-file=$logs/vg.%p.log $supp" "$@"
status=$?
# a shell-script test is itself run under valgrind: its shell is not ours
bad=$(grep -lE "Invalid (read|write|free)|definitely lost: [1-9]|uninitialised" "$logs"/vg.*.log 2>/dev/null \
  | xargs -r grep -LE "Command: [^ ]*\.sh( |$)")
echo "valgrind: $(ls "$logs" | wc -l) processes checked, $(echo "$bad" | grep -c . ) with errors"
for f in $bad; do echo "== $f"; grep -E "Invalid|definitely lost|uninitialised|^==[0-9]+== +(at|by) " "$f" | head -40; done
[ $status -eq 0 ] && [ -z "$bad" ]
