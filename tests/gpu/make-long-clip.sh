#!/bin/bash
# A long H.264 clip for the GPU host's decode runs (tests/gpu/h100-resources.sh),
# made reproducibly on the build machine from videotestsrc (pattern ball, the
# shared clip's), x264enc and mp4mux:
#   tests/gpu/make-long-clip.sh [OUT] [FRAMES] [WIDTHxHEIGHT]
# default .gpurun/media/ball-720p30-long.mp4 (an ignored folder the
# coordinator carries to the host), 3000 frames (100 s at 30 fps), 1280x720.
# A 300-frame clip decodes in a fraction of a second per stream: the
# decoders then live mostly in start-up and NVDEC never fills (GPU host run
# 1); thousands of frames per stream keep 12-16 decoders busy for tens of
# seconds.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-$ROOT/.gpurun/media/ball-720p30-long.mp4}
FRAMES=${2:-3000}
SIZE=${3:-1280x720}
mkdir -p "$(dirname "$OUT")"
start=$(date +%s.%N)
gst-launch-1.0 -q -e videotestsrc pattern=ball num-buffers="$FRAMES" ! \
  "video/x-raw,format=I420,width=${SIZE%x*},height=${SIZE#*x},framerate=30/1" ! \
  x264enc speed-preset=ultrafast tune=zerolatency bitrate=4000 key-int-max=60 \
    threads=2 ! video/x-h264,profile=constrained-baseline ! h264parse ! \
  mp4mux ! filesink location="$OUT"
echo "$OUT: $FRAMES frames ${SIZE} 30 fps H.264, $(stat -c %s "$OUT") bytes," \
  "md5 $(md5sum < "$OUT" | cut -c1-32), made in" \
  "$(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $start}") s"
