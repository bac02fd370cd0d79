#!/bin/sh
# gst-gpuprof sweep on real pipelines with planted answers (live sources at
# 30 fps, costs as sleeps so a loaded machine keeps them):
# - plateau: 4 streams into analyticsmux batch-size={batch}, then a stage
#   taking 20 ms per batch: 50, 100, 120, 120 fps for batch 1, 2, 4, 8 ->
#   plateau at 4 (the sources cap it at 120);
# - max-streams: N streams through a funnel into a stage taking 20.4 ms per
#   buffer (~49 fps shared), floor 20 fps per stream: 2 hold (24.5 each,
#   22 % above the floor), 3 do not (16.3, 18 % below) -> 2, through
#   1 2 4 3 (a slower machine only makes 3 and 4 fail harder; 2 fails only
#   if a buffer takes 25 ms instead of 20.4);
# - Ctrl-C after the first point keeps it (exit 130, JSON written);
# - errors name the bad input.
# Usage: tools-sweep.sh GST_GPUPROF BUILD_DIR
set -u
tool=${1:?usage: tools-sweep.sh GST_GPUPROF BUILD_DIR}
build=${2:?}
export GST_PLUGIN_PATH_1_0="$build/tracers:$build/examples/analytics${GST_PLUGIN_PATH_1_0:+:$GST_PLUGIN_PATH_1_0}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
expect() {
  if [ "$2" = "$3" ]; then echo "ok   $1 = $3"; else
    echo "FAIL $1: got '$2', expected '$3'"; fail=1; fi
}
# a number in a JSON file, compared by jq as a number: jq 1.7 prints a
# stored 1.0 as "1.0" where 1.6 printed "1"
expect_num() {
  expect "$1 ($(jq -c "$3" "$2"))" "$(jq "($3) == $4" "$2")" true
}
SRC='videotestsrc is-live=true num-buffers=60 ! video/x-raw,format=I420,width=64,height=48,framerate=30/1'

"$tool" sweep --mode plateau --set streams=4 --set batch=1..8 \
  --dir "$tmp/p" -o "$tmp/p.json" --csv "$tmp/p.csv" -- \
  "analyticsmux name=m batch-size={batch} width=64 height=48 ! identity sleep-time=20000 ! fakesink sync=false {for i in streams: $SRC ! m.sink_{i} }" \
  >"$tmp/p.out" 2>"$tmp/p.err"
expect "plateau exit status" $? 0
cat "$tmp/p.out"
expect "plateau batch" "$(jq -r '.results[0].plateau' "$tmp/p.json")" 4
expect "plateau points" "$(jq '.points | length' "$tmp/p.json")" 4
expect "batch 1 below 60 fps" "$(jq '.points[0].fps < 60' "$tmp/p.json")" true
expect "batch 4 at the sources' rate" \
  "$(jq '.points[2].fps > 110 and .points[2].fps < 130' "$tmp/p.json")" true
expect_num "batch fill read" "$tmp/p.json" '.points[2].fill' 1
expect "CSV rows" "$(wc -l < "$tmp/p.csv")" 5
expect "summaries kept" "$(ls "$tmp/p"/point-*.json | wc -l)" 4

"$tool" sweep --mode max-streams --fps-floor 20 --max-streams 16 \
  --dir "$tmp/m" -o "$tmp/m.json" -- \
  "funnel name=f ! identity sleep-time=20400 ! fakesink sync=false {for i in streams: $SRC ! f. }" \
  >"$tmp/m.out" 2>"$tmp/m.err"
expect "max-streams exit status" $? 0
cat "$tmp/m.out"
expect "max streams" "$(jq -r '.results[0].max_streams' "$tmp/m.json")" 2
expect "streams tried" "$(jq -r '[.points[].values.streams] | join(" ")' "$tmp/m.json")" \
  "1 2 4 3"

# Ctrl-C after the first point: it is kept
"$tool" sweep --set streams=1,2,3,4 --dir "$tmp/i" -o "$tmp/i.json" -- \
  "$SRC ! fakesink sync=false" >"$tmp/i.out" 2>"$tmp/i.err" &
pid=$!
n=0
while ! grep -q '^sweep: \[1/' "$tmp/i.err" 2>/dev/null && [ $n -lt 600 ]; do
  sleep 0.1; n=$((n + 1))
done
kill -INT $pid
wait $pid
expect "interrupted exit status" $? 130
expect "interrupted flag" "$(jq '.interrupted' "$tmp/i.json")" true
expect "finished points kept" "$(jq '.points | length >= 1 and length < 4' "$tmp/i.json")" true
grep -q "interrupted" "$tmp/i.out" || { echo "FAIL: the table does not say interrupted"; fail=1; }

# errors name the bad input and the valid choices
"$tool" sweep --set streams=1 -- "fakesrc num-buffers={strems} ! fakesink" \
  >/dev/null 2>"$tmp/e1"
expect "unknown placeholder exit" $? 2
grep -q "{strems}.*variables: streams" "$tmp/e1" || { echo "FAIL: $(cat "$tmp/e1")"; fail=1; }
"$tool" sweep --mode fast -- "fakesrc ! fakesink" >/dev/null 2>"$tmp/e2"
expect "bad mode exit" $? 1
grep -q "grid, plateau or max-streams" "$tmp/e2" || { echo "FAIL: $(cat "$tmp/e2")"; fail=1; }
# a point that fails is listed, the others still run
"$tool" sweep --set n=1,2 -o "$tmp/f.json" -- "fakesrc num-buffers={n} ! nosuchelement ! fakesink" \
  >"$tmp/f.out" 2>&1
expect "failed points exit" $? 0
expect "failed points listed" "$(jq '[.points[] | select(.status == "failed")] | length' "$tmp/f.json")" 2
exit $fail
