#!/bin/sh
# pipeline.sh: build (and run) the example analytics pipeline
#
#   N x source -> analyticsmux -> analyticsinfer -> analyticstracker
#              -> analyticsosd -> fakesink
#
# with the knobs people turn on DeepStream pipelines. See docs/examples.md.
#
#   examples/analytics/pipeline.sh --streams 4 --mux-batch 4 --print
#   GST_TRACERS=gpuprof examples/analytics/pipeline.sh --build build -n 8
set -eu

usage() {
  cat <<EOF
usage: $0 [options] [-- extra gst-launch-1.0 options]
  -b, --build DIR       meson build folder (default: \$GPUPROF_BUILD_DIR or build)
  -n, --streams N       number of sources (4)
  -f, --frames N        frames per source, videotestsrc only (300)
      --source S        test (videotestsrc, default) or clip (the H.264 clip)
      --clip PATH       clip for --source clip
                        (/work/shared/media/ball-720p30-10s.mp4)
      --decoder E       H.264 decoder (default: nvh264dec, avdec_h264 or
                        openh264dec, the first installed)
      --src-size WxH    videotestsrc frame size (1280x720)
      --live            sources are live (videotestsrc is-live=true, 30 fps)
  -m, --mux-batch N     analyticsmux batch-size (1)
  -t, --timeout US      analyticsmux batched-push-timeout in us (-1)
      --size WxH        analyticsmux output frame size (640x360)
  -i, --infer-batch N   analyticsinfer batch-size (1)
  -I, --interval N      analyticsinfer interval (0)
      --precision P     fp32 or fp16 (fp32)
      --device D        auto, cpu or gpu (auto)
      --infer-size N    analyticsinfer size, units per hidden layer (512)
      --infer-layers N  analyticsinfer layers (3)
      --osd on|off      analyticsosd in the pipeline (on)
      --osd-cost N      analyticsosd cost (1)
      --queues on|off   a queue between the stages (off)
      --sink E          sink element (fakesink sync=false)
  -p, --print           print the pipeline and exit
  -h, --help            this text
Environment: GPUPROF_BUILD_DIR, GST_TRACERS (passed through), GST_LAUNCH
(gst-launch-1.0).
EOF
}

build=${GPUPROF_BUILD_DIR:-build}
streams=4
frames=300
source=test
clip=/work/shared/media/ball-720p30-10s.mp4
decoder=
src_size=1280x720
live=false
mux_batch=1
timeout=-1
size=640x360
infer_batch=1
interval=0
precision=fp32
device=auto
infer_size=512
infer_layers=3
osd=on
osd_cost=1
queues=off
sink="fakesink sync=false"
print=false

while [ $# -gt 0 ]; do
  case $1 in
    -b|--build) build=$2; shift ;;
    -n|--streams) streams=$2; shift ;;
    -f|--frames) frames=$2; shift ;;
    --source) source=$2; shift ;;
    --clip) clip=$2; shift ;;
    --decoder) decoder=$2; shift ;;
    --src-size) src_size=$2; shift ;;
    --live) live=true ;;
    -m|--mux-batch) mux_batch=$2; shift ;;
    -t|--timeout) timeout=$2; shift ;;
    --size) size=$2; shift ;;
    -i|--infer-batch) infer_batch=$2; shift ;;
    -I|--interval) interval=$2; shift ;;
    --precision) precision=$2; shift ;;
    --device) device=$2; shift ;;
    --infer-size) infer_size=$2; shift ;;
    --infer-layers) infer_layers=$2; shift ;;
    --osd) osd=$2; shift ;;
    --osd-cost) osd_cost=$2; shift ;;
    --queues) queues=$2; shift ;;
    --sink) sink=$2; shift ;;
    -p|--print) print=true ;;
    -h|--help) usage; exit 0 ;;
    --) shift; break ;;
    *) echo "$0: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
  shift
done

gst_launch=${GST_LAUNCH:-gst-launch-1.0}

# A queue gives the next stage its own thread.
q() {
  [ "$queues" = on ] && printf ' ! queue' || true
}

pick_decoder() {
  for d in nvh264dec avdec_h264 openh264dec; do
    if gst-inspect-1.0 --exists "$d" 2>/dev/null; then
      echo "$d"
      return
    fi
  done
  echo "$0: no H.264 decoder (nvh264dec, avdec_h264, openh264dec)" >&2
  exit 1
}

source_desc() {
  case $source in
    test)
      w=${src_size%x*}
      h=${src_size#*x}
      printf 'videotestsrc pattern=ball num-buffers=%s is-live=%s ! video/x-raw,format=I420,width=%s,height=%s,framerate=30/1' \
        "$frames" "$live" "$w" "$h" ;;
    clip)
      [ -n "$decoder" ] || decoder=$(pick_decoder)
      # nvh264dec outputs GPU memory on request only; downloads are implicit.
      printf 'filesrc location=%s ! qtdemux ! h264parse ! %s' "$clip" "$decoder" ;;
    *) echo "$0: --source test|clip" >&2; exit 2 ;;
  esac
}

pipeline_desc() {
  w=${size%x*}
  h=${size#*x}
  printf 'analyticsmux name=m batch-size=%s batched-push-timeout=%s width=%s height=%s' \
    "$mux_batch" "$timeout" "$w" "$h"
  q
  printf ' ! analyticsinfer batch-size=%s interval=%s precision=%s device=%s size=%s layers=%s' \
    "$infer_batch" "$interval" "$precision" "$device" "$infer_size" "$infer_layers"
  q
  printf ' ! analyticstracker'
  q
  if [ "$osd" = on ]; then
    printf ' ! analyticsosd cost=%s' "$osd_cost"
    q
  fi
  printf ' ! %s name=sink' "$sink"
  i=0
  while [ "$i" -lt "$streams" ]; do
    printf '  %s ! m.sink_%s' "$(source_desc)" "$i"
    i=$((i + 1))
  done
  printf '\n'
}

desc=$(pipeline_desc)
if [ "$print" = true ]; then
  echo "$desc"
  exit 0
fi

# The plugins of this project live in the build folder.
GST_PLUGIN_PATH="$build/examples/analytics:$build/tracers:$build/elements${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
export GST_PLUGIN_PATH
# shellcheck disable=SC2086  # the description is split into arguments on purpose
exec $gst_launch "$@" $desc
