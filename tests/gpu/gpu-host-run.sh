#!/bin/bash
# Everything the GPU host checks in one call (the device time is scarce):
#   tests/gpu/gpu-host-run.sh BUILD_DIR CLIP
# BUILD_DIR: a build made on the build machine (only the .so files and the
# check programs are needed); CLIP: the H.264 test clip. Sources
# .gpubundle/env.sh. Writes logs, traces and NVTX records under $OUT.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:?build dir}" && pwd)
CLIP=${2:?clip}
OUT=${OUT:-/tmp/gpuprof-gpu-host}
mkdir -p "$OUT"
. "$ROOT/.gpubundle/env.sh"
export LD_LIBRARY_PATH="$BUILD/gst:$LD_LIBRARY_PATH"
export GST_PLUGIN_PATH="$BUILD/tracers:$BUILD/elements/gpuprofmeter:$BUILD/examples/analytics"
export GST_REGISTRY_1_0="$OUT/registry.bin"
nvidia-smi -L

echo "=== 1. GPU attribution checks (tests/gpu/check-h100.sh)"
bash "$ROOT/tests/gpu/check-h100.sh" "$BUILD" "$CLIP" 2>&1 | tail -40

CUDA="videotestsrc num-buffers=300 ! video/x-raw,width=1920,height=1080 ! \
cudaupload ! cudaconvert ! video/x-raw(memory:CUDAMemory),format=NV12 ! \
cudascale ! video/x-raw(memory:CUDAMemory),width=640,height=360 ! \
cudadownload ! video/x-raw ! queue ! fakesink"
echo
echo "=== 2. CUDA pipeline under gpuprof(cupti=on) with the NVTX recorder"
# shellcheck disable=SC2086
NVTX_INJECTION64_PATH="$BUILD/tests/nvtx-recorder/libgpuprof-nvtxrec.so" \
NVTXREC_OUT="$OUT/cuda-nvtx.jsonl" \
GST_TRACERS="gpuprof(cupti=on,trace=$OUT/cuda-trace.json,stats=$OUT/cuda-stats.json)" \
  gst-launch-1.0 -q $CUDA
echo "--- nvtxrec-summary"
"$BUILD/tests/nvtx-recorder/nvtxrec-summary" "$OUT/cuda-nvtx.jsonl"
echo "nvtxrec-summary exit: $?"
echo "--- trace: $(wc -c < "$OUT/cuda-trace.json") bytes, $(grep -c '"ph":"X"' "$OUT/cuda-trace.json") complete events"

echo
echo "=== 3. nvh264dec clip under gpuprof(cupti=on)"
GST_TRACERS="gpuprof(cupti=on)" gst-launch-1.0 -q filesrc location="$CLIP" ! \
  qtdemux ! h264parse ! nvh264dec ! queue ! videoconvert ! fakesink 2>&1 | tail -45

echo
echo "=== 4. analytics example, 4 streams, inference on the GPU, cupti=on"
if [ -x "$ROOT/examples/analytics/pipeline.sh" ]; then
  P=$("$ROOT/examples/analytics/pipeline.sh" -b "$BUILD" --print -n 4 \
      --mux-batch 4 --infer-batch 4 --queues on --device gpu 2>/dev/null)
  echo "+ $P"
  # shellcheck disable=SC2086
  GST_TRACERS="gpuprof(cupti=on)" gst-launch-1.0 -q $P 2>&1 | tail -50
fi

echo
echo "=== 5. NVML readings beside nvidia-smi dmon, idle and 12 decodes (tests/gpu/nvml-host-check.sh)"
OUT="$OUT" bash "$ROOT/tests/gpu/nvml-host-check.sh" "$BUILD" "$CLIP" 12 15 2>&1 | tail -80
