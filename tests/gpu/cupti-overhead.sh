#!/bin/bash
# What GPU attribution costs, part by part, on the GPU host:
#   tests/gpu/cupti-overhead.sh BUILD_DIR [RUNS]
# fps (median of RUNS) of gst-plugins-bad's CUDA pipeline with no tracer, the
# tracer without CUPTI, with CUPTI, and with CUPTI activity kinds left off
# one group at a time (GPUPROF_CUPTI_SKIP, a diagnostic switch).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:?build dir}" && pwd)
RUNS=${2:-5}
OUT=${OUT:-/tmp}
. "$ROOT/.gpubundle/env.sh"
export LD_LIBRARY_PATH="$BUILD/gst:$LD_LIBRARY_PATH"
export GST_PLUGIN_PATH="$BUILD/tracers:$BUILD/elements/gpuprofmeter"
export GST_REGISTRY_1_0="$OUT/registry-overhead.bin"
CHECK="$BUILD/tests/gpu/gpuprof-gpu-check"
PIPE=(videotestsrc num-buffers=600 ! video/x-raw,format=I420,width=1920,height=1080 !
  cudaupload ! cudaconvert ! 'video/x-raw(memory:CUDAMemory),format=NV12' !
  cudascale ! 'video/x-raw(memory:CUDAMemory),width=640,height=360' ! cudadownload !
  video/x-raw ! fakesink)

fps_of () { awk '/^run /{for(i=1;i<=NF;i++){split($i,kv,"=");if(kv[1]=="fps")print kv[2]}}' "$1"; }

measure () { # label tracers skip
  local label=$1 tr=$2 skip=$3 f=() i
  for i in $(seq "$RUNS"); do
    if [ -n "$tr" ]; then
      GPUPROF_CUPTI_SKIP="$skip" GST_TRACERS="$tr" "$CHECK" "${PIPE[@]}" > "$OUT/ovh.txt" 2>"$OUT/ovh.err"
    else
      env -u GST_TRACERS "$CHECK" "${PIPE[@]}" > "$OUT/ovh.txt" 2>"$OUT/ovh.err"
    fi
    f+=("$(fps_of "$OUT/ovh.txt")")
  done
  printf '%-48s %s   (runs: %s)\n' "$label" "$(printf '%s\n' "${f[@]}" | sort -g | sed -n "$(( (RUNS + 1) / 2 ))p")" "${f[*]}"
}

echo "CUDA pipeline, 600 frames 1080p -> 640x360, median fps of $RUNS"
measure "no tracer" "" ""
measure "gpuprof(cupti=off)" "gpuprof(cupti=off,report=off)" ""
measure "gpuprof(cupti=on)" "gpuprof(cupti=on,report=off)" ""
measure "gpuprof(cupti=on) without DRIVER API records" "gpuprof(cupti=on,report=off)" driver
measure "gpuprof(cupti=on) without RUNTIME+DRIVER" "gpuprof(cupti=on,report=off)" runtime,driver
measure "gpuprof(cupti=on) without memcpy/memset" "gpuprof(cupti=on,report=off)" memcpy,memcpy2,memset
measure "gpuprof(cupti=on) kernels only" "gpuprof(cupti=on,report=off)" memcpy,memcpy2,memset,runtime,driver,external
