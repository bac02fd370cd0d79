#!/bin/bash
# Two builds side by side on the GPU host (issue 11): the 64x64 CUDA
# pipeline of bench/cupti-cost.sh with no tracer, gpuprof(cupti=off) and
# gpuprof(cupti=on) for an OLD and a NEW build, interleaved rounds, wall
# seconds of the whole process; prints the medians and µs per GPU op of
# cupti=on above cupti=off for each build (GPU ops per run: OPS, 140058 by
# the minimal client on the H100).
#   bench/cupti-ab.sh OLD_DIR NEW_BUILD [ROUNDS]
# OLD_DIR holds gst/ (libgstgpuprof-1.0.so*) and tracers/ of the old build
# (a copy small enough to carry to the host). Sources .gpubundle/env.sh.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OLD=$(cd "${1:?old dir}" && pwd)
NEW=$(cd "${2:?new build}" && pwd)
ROUNDS=${3:-5}
OPS=${OPS:-140058}
. "$ROOT/.gpubundle/env.sh"
P="videotestsrc num-buffers=20000 pattern=black ! video/x-raw,width=64,height=64,format=I420 ! cudaupload ! cudaconvert ! video/x-raw(memory:CUDAMemory),format=NV12 ! cudascale ! video/x-raw(memory:CUDAMemory),width=32,height=32 ! cudadownload ! video/x-raw ! fakesink"
base=$LD_LIBRARY_PATH
times=$(mktemp)
run () {  # label libdir tracer-dir GST_TRACERS
  local s e
  s=$(date +%s.%N)
  # shellcheck disable=SC2086
  LD_LIBRARY_PATH="$2:$base" GST_PLUGIN_PATH="$3" GST_TRACERS="$4" \
    GST_REGISTRY_1_0="/tmp/reg-ab-$1.bin" gst-launch-1.0 -q $P >/dev/null 2>&1
  e=$(date +%s.%N)
  echo "$1 $(awk "BEGIN{print $e - $s}")" >> "$times"
}
for r in $(seq 1 "$ROUNDS"); do
  run none "$NEW/gst" "" ""
  run old-off "$OLD/gst" "$OLD/tracers" "gpuprof(cupti=off)"
  run old-on "$OLD/gst" "$OLD/tracers" "gpuprof(cupti=on)"
  run new-off "$NEW/gst" "$NEW/tracers" "gpuprof(cupti=off)"
  run new-on "$NEW/gst" "$NEW/tracers" "gpuprof(cupti=on)"
  echo "round $r of $ROUNDS done" >&2
done
awk -v ops="$OPS" '
  function median(s,   n, a, i, j, t) {
    n = split(s, a, " ")
    for (i = 2; i <= n; i++) { t = a[i] + 0
      for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]
      a[j + 1] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  { t[$1] = t[$1] " " $2 }
  END {
    for (k in t) m[k] = median(t[k])
    printf "median s: none %.3f  old off %.3f on %.3f  new off %.3f on %.3f\n",
      m["none"], m["old-off"], m["old-on"], m["new-off"], m["new-on"]
    printf "cupti=on above cupti=off: old %.2f us/op, new %.2f us/op\n",
      (m["old-on"] - m["old-off"]) * 1e6 / ops, (m["new-on"] - m["new-off"]) * 1e6 / ops
  }' "$times"
rm -f "$times"
