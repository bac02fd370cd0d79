#!/usr/bin/env bash
# The test suite under valgrind memcheck: fails on any invalid access and on
# memory definitely lost (GStreamer's own process-lifetime allocations are
# suppressed in tests/*.supp). Slow: several minutes.
#   tools/run-valgrind.sh [meson test args, e.g. --suite tracer]
set -uo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GPUPROF_BUILD:-$top/build}
bash "$top/tools/dev-setup.sh" >/dev/null || exit 1
supp=""
for s in "$top"/tests/*.supp "$top"/tests/*/*.supp; do supp="$supp --suppressions=$s"; done
export CK_DEFAULT_TIMEOUT=600 G_SLICE=always-malloc
meson test -C "$build" --print-errorlogs --timeout-multiplier 20 \
  --wrapper "valgrind --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=1 --trace-children=yes --trace-children-skip=*/jq,*/gst-plugin-scanner,*/sh,*/bash --num-callers=30 $supp" "$@"
