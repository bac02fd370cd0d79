#!/bin/sh
# batch-sweep.sh: fps and inference cost per batch and per frame as the batch
# size grows, for each stream count: the table behind "which batch-size should
# I set?". Each run: N videotestsrc -> analyticsmux batch-size=B ->
# analyticsinfer batch-size=B -> tracker -> fakesink (queues, no OSD), under
# GST_TRACERS="gpuprof(cupti=...)"; the figures come from its report.
#
#   examples/analytics/batch-sweep.sh -b build [-n "4 16"] [-B "1 2 4 8 16"]
#       [-f FRAMES] [-- extra pipeline.sh options, e.g. --device gpu]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${GPUPROF_BUILD_DIR:-build}
streams_list="4 16"
batches="1 2 4 8 16"
frames=300
while [ $# -gt 0 ]; do
  case $1 in
    -b|--build) build=$2; shift 2 ;;
    -n|--streams) streams_list=$2; shift 2 ;;
    -B|--batches) batches=$2; shift 2 ;;
    -f|--frames) frames=$2; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    --) shift; break ;;
    *) echo "$0: unknown option '$1' (valid: -b -n -B -f --)" >&2; exit 2 ;;
  esac
done
out=$(mktemp -d "${TMPDIR:-/tmp}/gpuprof-sweep.XXXXXX")

printf '%-7s %-6s %9s %11s %11s %13s %7s  %s\n' streams batch fps \
  "infer ms/b" "infer µs/fr" "infer GPU ms/b" "util %" "limiting stage"
for n in $streams_list; do
  for b in $batches; do
    report="$out/n$n-b$b.txt"
    start=$(date +%s%N)
    GST_TRACERS="gpuprof(report=$report)" "$here/pipeline.sh" --build "$build" \
      --streams "$n" --frames "$frames" --mux-batch "$b" --infer-batch "$b" \
      --timeout 40000 --osd off --queues on "$@" -- -q >"$out/n$n-b$b.log" 2>&1 \
      || { echo "$0: run n=$n b=$b failed, see $out/n$n-b$b.log" >&2; continue; }
    end=$(date +%s%N)
    fps=$(awk -v f="$((n * frames))" -v t="$((end - start))" 'BEGIN { printf "%.1f", f / (t / 1e9) }')
    # the inference row of "Batch stages": ms/batch, µs/frame, GPU ms/batch, util
    row=$(awk '/^Batch stages/ { s = 1; next } s && /analyticsinfer/ { print $(NF-3), $(NF-2), $(NF-1), $NF; exit }' "$report")
    lim=$(sed -n 's/^limiting stage: *\([^ ]*\).*/\1/p' "$report" | sed 's|^[^/]*/||')
    printf '%-7s %-6s %9s %11s %11s %13s %7s  %s\n' "$n" "$b" "$fps" $row "${lim:--}"
  done
done
echo "reports: $out"
