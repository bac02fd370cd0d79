#!/bin/bash
# NVML check on the GPU host, run by hand (docs/resources.md, "Checking on
# a GPU host"): what gpuprof's NVML loader reads, beside `nvidia-smi dmon`
# read at the same time, idle and under a decode load; what one reading
# costs; which NVML device CUDA device 0 is. Not a meson test: CI has no
# GPU.
#
#   tests/gpu/nvml-host-check.sh [BUILD_DIR] [CLIP] [STREAMS] [SECONDS]
#
# BUILD_DIR: the meson build folder (default: build); CLIP: the H.264 clip
# (default: ../shared/media/ball-720p30-10s.mp4); STREAMS parallel
# `nvh264dec` decodes of it, restarted until SECONDS (defaults 12, 15) are
# over. Sources .gpubundle/env.sh when there. $NVIDIA_SMI replaces
# nvidia-smi (a dry run). Logs: $OUT (default /tmp)/gpuprof-nvml-host.
# Prints both readings side by side and a PASS/FAIL table: the means of
# sm, mem, enc and dec of both tools within 10 points, the SM clock within
# 5 %, NVDEC busy under the load, the decoders seen as processes.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd) || exit 2
CLIP=${2:-$ROOT/../shared/media/ball-720p30-10s.mp4}
STREAMS=${3:-12}
SECONDS_LOAD=${4:-15}
SMI=${NVIDIA_SMI:-nvidia-smi}
LOGS=${OUT:-/tmp}/gpuprof-nvml-host
CHECK="$BUILD/tests/gpu/gpuprof-nvml-check"
mkdir -p "$LOGS"
[ -f "$ROOT/.gpubundle/env.sh" ] && . "$ROOT/.gpubundle/env.sh"
export LD_LIBRARY_PATH="$BUILD/gst${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

ROWS=()
FAILS=0
row() {
  ROWS+=("$(printf '%-4s %-44s %s' "$2" "$1" "$3")")
  if [ "$2" = FAIL ]; then FAILS=$((FAILS + 1)); fi
}

# dmon's columns by their header names; gpu 0 only
dmon_means() {
  awk '/^# *gpu/ { for (i = 2; i <= NF; i++) col[$i] = i - 1; next }
    /^#/ { next }
    $1 == 0 { n++; sm += $col["sm"]; mem += $col["mem"]; enc += $col["enc"];
      dec += $col["dec"]; if ("pclk" in col) clk += $col["pclk"] }
    END { if (n) printf "%.1f %.1f %.1f %.1f %.0f %d\n", sm/n, mem/n, enc/n,
      dec/n, clk/n, n; else print "- - - - - 0" }' "$1"
}

# gpuprof-nvml-check's columns: time gpu sm mem enc dec sm_MHz ... procs
check_means() {
  awk '!/^#/ && $2 == 0 { n++; sm += $3; mem += $4; enc += $5; dec += $6;
      clk += $7; procs += $14 }
    END { if (n) printf "%.1f %.1f %.1f %.1f %.0f %d %.1f\n", sm/n, mem/n,
      enc/n, dec/n, clk/n, n, procs/n; else print "- - - - - 0 -" }' "$1"
}

close_enough() {         # a b tolerance
  awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d;
    exit !(a != "-" && b != "-" && d <= t) }'
}

# both tools for N seconds at 1 Hz, the same seconds
sample_both() {          # name seconds
  "$SMI" dmon -s uc -d 1 -c "$2" >"$LOGS/$1-dmon.txt" 2>&1 &
  local smi=$!
  "$CHECK" --count "$2" --period-ms 1000 >"$LOGS/$1-nvml.txt" 2>&1
  wait "$smi"
  echo "--- $1: nvidia-smi dmon -s uc"
  cat "$LOGS/$1-dmon.txt"
  echo "--- $1: gpuprof-nvml-check"
  cat "$LOGS/$1-nvml.txt"
}

compare() {              # name
  local d c
  read -r -a d <<<"$(dmon_means "$LOGS/$1-dmon.txt")"
  read -r -a c <<<"$(check_means "$LOGS/$1-nvml.txt")"
  local names=(sm mem enc dec)
  for i in 0 1 2 3; do
    if close_enough "${d[$i]}" "${c[$i]}" 10; then
      row "$1: ${names[$i]} % (dmon vs gpuprof)" PASS "${d[$i]} vs ${c[$i]}"
    else
      row "$1: ${names[$i]} % (dmon vs gpuprof)" FAIL "${d[$i]} vs ${c[$i]}"
    fi
  done
  if close_enough "${d[4]}" "${c[4]}" "$(awk -v a="${d[4]}" 'BEGIN { print a * 0.05 + 15 }')"; then
    row "$1: SM clock MHz (dmon pclk vs gpuprof)" PASS "${d[4]} vs ${c[4]}"
  else
    row "$1: SM clock MHz (dmon pclk vs gpuprof)" FAIL "${d[4]} vs ${c[4]}"
  fi
  MEANS_DEC=${c[3]}
  MEANS_PROCS=${c[6]}
}

"$SMI" -L
if ! "$CHECK" --count 1 --period-ms 0 --cuda-device 0 >"$LOGS/open.txt" 2>&1; then
  cat "$LOGS/open.txt"
  row "NVML opens" FAIL "$(head -1 "$LOGS/open.txt")"
  printf '%s\n' "${ROWS[@]}"
  exit 1
fi
cat "$LOGS/open.txt"
row "NVML opens" PASS "$(grep -c '^# gpu [0-9]*:' "$LOGS/open.txt") device(s), missing: $(sed -n 's/.*optional calls missing: //p' "$LOGS/open.txt")"
grep -q 'CUDA device 0 .* is NVML device [0-9]' "$LOGS/open.txt" \
  && row "CUDA device 0 -> NVML device" PASS "$(sed -n 's/.*is NVML device \([-0-9]*\).*/\1/p' "$LOGS/open.txt")" \
  || row "CUDA device 0 -> NVML device" FAIL "cannot tell"

echo
echo "=== 1. idle, 5 s"
sample_both idle 5
compare idle

echo
echo "=== 2. $STREAMS x nvh264dec of $CLIP for $SECONDS_LOAD s"
if [ -f "$CLIP" ] && gst-inspect-1.0 nvh264dec >/dev/null 2>&1; then
  end=$(( $(date +%s) + SECONDS_LOAD ))
  pids=()
  for _ in $(seq "$STREAMS"); do
    ( while [ "$(date +%s)" -lt "$end" ]; do
        gst-launch-1.0 -q filesrc location="$CLIP" ! qtdemux ! h264parse ! \
          nvh264dec ! fakesink >/dev/null 2>&1
      done ) &
    pids+=($!)
  done
  sleep 3                 # decoders created
  sample_both decode $(( SECONDS_LOAD - 5 ))
  wait "${pids[@]}"
  compare decode
  awk -v d="$MEANS_DEC" 'BEGIN { exit !(d != "-" && d >= 50) }' \
    && row "decode: NVDEC busy" PASS "dec $MEANS_DEC %" \
    || row "decode: NVDEC busy" FAIL "dec $MEANS_DEC %"
  awk -v p="$MEANS_PROCS" 'BEGIN { exit !(p != "-" && p >= 1) }' \
    && row "decode: decoders seen as processes" PASS "$MEANS_PROCS on average" \
    || row "decode: decoders seen as processes" FAIL "$MEANS_PROCS"
else
  row "decode load" FAIL "no clip at $CLIP or no nvh264dec"
fi

echo
echo "=== 3. cost of one reading (all GPUs), 50 readings at 10 Hz, then with PCIe"
"$CHECK" --count 50 --period-ms 100 >"$LOGS/cost.txt" 2>&1
"$CHECK" --count 10 --period-ms 100 --pcie >"$LOGS/cost-pcie.txt" 2>&1
median() {
  awk '!/^#/ { print $NF }' "$1" | sort -n | awk '{ a[NR] = $1 }
    END { if (NR) print a[int((NR + 1) / 2)]; else print "-" }'
}
row "reading cost, µs per device (median)" INFO "$(median "$LOGS/cost.txt") without PCIe, $(median "$LOGS/cost-pcie.txt") with"

echo
printf '%s\n' "${ROWS[@]}"
echo "logs: $LOGS"
[ "$FAILS" -eq 0 ]
