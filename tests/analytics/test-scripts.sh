#!/bin/sh
# tune.sh and batch-sweep.sh are uses of gst-gpuprof sweep: small runs on
# the CPU stand-ins, checked through the sweep's JSON (every point ran, in
# the order and with the values the script promises; the plateau mode gives
# an answer among the values tried; the extra pipeline.sh options reach
# every run).
# Usage: test-scripts.sh SOURCE_ROOT BUILD_DIR
set -u
src=${1:?usage: test-scripts.sh SOURCE_ROOT BUILD_DIR}
build=${2:?}
tmp=$(mktemp -d)
keep=${GPUPROF_KEEP_TMP:-}
[ -n "$keep" ] || trap 'rm -rf "$tmp"' EXIT
fail=0
expect() {
  if [ "$2" = "$3" ]; then echo "ok   $1 = $3"; else
    echo "FAIL $1: got '$2', expected '$3'"; fail=1; fi
}
small="--src-size 64x48 --size 64x48 --infer-size 16 --infer-layers 1 --device cpu"

# shellcheck disable=SC2086  # small is split into options on purpose
sh "$src/examples/analytics/batch-sweep.sh" -b "$build" -n "1 2" -B "1,2" \
  -f 20 -o "$tmp/b.json" --dir "$tmp/b" -- $small --osd on >"$tmp/b.out" 2>&1
expect "batch-sweep exit status" $? 0
expect "batch-sweep mode" "$(jq -r .mode "$tmp/b.json")" grid
expect "batch-sweep points" \
  "$(jq -c '[.points[] | [.values.streams, .values.batch, .status]]' "$tmp/b.json")" \
  '[["1","1","ok"],["1","2","ok"],["2","1","ok"],["2","2","ok"]]'
expect "frames of 2 streams x 20" "$(jq '.points[3].frames' "$tmp/b.json")" 40
expect "a summary per run" \
  "$(jq -c '[.points[].summary] | length' "$tmp/b.json")" 4
expect "mux batch size of the last run" \
  "$(jq '.batches[] | select(.factory == "analyticsmux") | .batch_size' "$tmp"/b/point-004.json)" 2
# the extra options reached every run: --osd on puts the OSD back
expect "extra options in every run" \
  "$(for f in "$tmp"/b/point-00?.json; do jq '[.elements[] | select(.factory == "analyticsosd")] | length' "$f"; done | tr -d '\n')" 1111

# shellcheck disable=SC2086
sh "$src/examples/analytics/batch-sweep.sh" -b "$build" -n 2 -B "1 2 4" \
  -f 20 --plateau -o "$tmp/p.json" -- $small >"$tmp/p.out" 2>&1
expect "plateau exit status" $? 0
expect "plateau mode" "$(jq -r .mode "$tmp/p.json")" plateau
expect "plateau among the values" \
  "$(jq '.results[0].plateau | tostring | IN("1", "2", "4")' "$tmp/p.json")" true

# shellcheck disable=SC2086
sh "$src/examples/analytics/tune.sh" -b "$build" -n 2 -f 20 \
  -o "$tmp/t" -- $small >"$tmp/t.out" 2>&1
expect "tune exit status" $? 0
expect "tune steps in order, all ran" \
  "$(jq -c '[.points[] | [.values.step, .status]]' "$tmp/t/sweep.json")" \
  '[["default","ok"],["queues","ok"],["no-osd","ok"],["mux-batch","ok"],["infer-batch","ok"],["interval","ok"]]'
expect "tune's table names every step" \
  "$(grep -cE '^(default|queues|no-osd|mux-batch|infer-batch|interval) +[0-9.]+ +[0-9.]+x' "$tmp/t.out")" 6
# each step keeps the knobs before it: the last has them all
count() {
  jq "[.elements[] | select(.factory == \"$2\")] | length" "$1"
}
expect "default: OSD, no queue" \
  "$(count "$tmp"/t/point-001.json analyticsosd)$(count "$tmp"/t/point-001.json queue)" 10
expect "interval step: queues, no OSD" \
  "$(count "$tmp"/t/point-006.json analyticsosd)$(count "$tmp"/t/point-006.json queue | sed 's/^[1-9][0-9]*$/n/')" 0n
expect "interval step: mux batch-size 2" \
  "$(jq '.batches[] | select(.factory == "analyticsmux") | .batch_size' "$tmp"/t/point-006.json)" 2

expect "unknown step refused" \
  "$(sh "$src/examples/analytics/tune.sh" --step nope >/dev/null 2>&1; echo $?)" 2

[ $fail = 0 ] || { for f in "$tmp"/*.out; do echo "== $f"; cat "$f"; done; }
exit $fail
