#!/bin/sh
# diff compares every table of the summary, GPU and batch tables included:
# per row (matched by its key columns) each numeric column that changed,
# with after/before; unchanged values and tables print nothing.
set -u
tool=${1:?usage: tools-diff-tables.sh GST_GPUPROF DATA_DIR}
data=${2:?}
out=$("$tool" diff "$data/before-gpu.json" "$data/after-gpu.json") || {
  echo "FAIL: diff exited $?"; exit 1; }
echo "$out"
fail=0
# change TABLE ROW COLUMN -> "before after ratio" from the "Changed: TABLE"
# section (rows may hold spaces: match the columns from the end)
change() {
  echo "$out" | awk -v t="$1" -v row="$2" -v col="$3" '
    /^Changed: / { cur = $2; next }
    /^[^ ]/ { cur = "" }
    cur == t {
      line = $0; sub(/^  /, "", line)
      n = split(line, f, / +/)
      key = f[1]; for (i = 2; i <= n - 4; i++) key = key " " f[i]
      if (key == row && f[n - 3] == col) { print f[n - 2], f[n - 1], f[n]; exit }
    }'
}
expect() {
  if [ "$2" = "$3" ]; then echo "ok   $1 = $3"; else
    echo "FAIL $1: got '$2', expected '$3'"; fail=1; fi
}
expect "gpu_elements infer gpu_ns" \
  "$(change gpu_elements pipeline0/infer gpu_ns)" "3000000000 1500000000 0.50"
expect "gpu_elements infer copy_ns unchanged" \
  "$(change gpu_elements pipeline0/infer copy_ns)" ""
expect "gpu_elements row gone" \
  "$(change gpu_elements "unattributed (thread worker)" kernel_ns)" "7000000 - -"
expect "gpu_kernels by name and element" \
  "$(change gpu_kernels "conv2d @ pipeline0/infer" ns)" "2500000000 1000000000 0.40"
expect "gpu_kernels new row" \
  "$(change gpu_kernels "nms @ pipeline0/infer" calls)" "- 125 -"
expect "gpu_devices busy" \
  "$(change gpu_devices 0 busy)" "0.301 0.150 0.50"
expect "gpu totals" "$(change gpu gpu records)" "1507 750 0.50"
expect "batches frames_mean" \
  "$(change batches pipeline0/mux frames_mean)" "4.000 8.000 2.00"
expect "elements buffers_out" \
  "$(change elements pipeline0/infer buffers_out)" "250 125 0.50"
expect "run unchanged: no section" \
  "$(echo "$out" | grep -c '^Changed: run$')" 0
# the same file against itself: no changes at all
same=$("$tool" diff "$data/before-gpu.json" "$data/before-gpu.json")
expect "self-diff changes" "$(echo "$same" | grep -c '^Changed: ')" 0
exit $fail
