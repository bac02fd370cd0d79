#!/bin/sh
# diff of two runs where pipeline0/dec is 2x slower and the run takes twice
# as long: its ratio reads 2.00, the others 1.00, throughput 0.50.
set -u
tool=${1:?usage: tools-diff.sh GST_GPUPROF DATA_DIR}
data=${2:?}
out=$("$tool" diff "$data/before.json" "$data/after.json") || {
  echo "FAIL: diff exited $?"; exit 1; }
echo "$out"
fail=0
ratio() { # ratio ROW_NAME -> the after/before column of the elements table
  echo "$out" | awk -v name="$1" '$1 == name { print $4; exit }'
}
expect() {
  if [ "$2" = "$3" ]; then echo "ok   $1 = $3"; else
    echo "FAIL $1: got '$2', expected '$3'"; fail=1; fi
}
expect "pipeline0/dec ratio" "$(ratio pipeline0/dec)" 2.00
expect "pipeline0/conv ratio" "$(ratio pipeline0/conv)" 1.00
expect "throughput ratio" \
  "$(echo "$out" | sed -n 's/^throughput after\/before: //p')" 0.50
# the same file against itself: every ratio 1.00
same=$("$tool" diff "$data/before.json" "$data/before.json")
expect "self-diff throughput" \
  "$(echo "$same" | sed -n 's/^throughput after\/before: //p')" 1.00
exit $fail
