#!/bin/sh
# batch-sweep.sh: fps, GPU cost per batch and per frame, batch fill and the
# limiting stage as the batch size grows, for each stream count: the table
# behind "which batch-size should I set?". A use of `gst-gpuprof sweep`
# (docs/sweep.md) over pipeline.sh: N videotestsrc -> analyticsmux
# batch-size=B -> analyticsinfer batch-size=B -> tracker -> fakesink
# (queues, no OSD), each run under the tracer in a process of its own.
#
#   examples/analytics/batch-sweep.sh -b build [-n "4 16"] [-B "1 2 4 8 16"]
#       [-f FRAMES] [--plateau] [-o SWEEP.json] [-- pipeline.sh options,
#       e.g. --device gpu]
set -eu
here=$(cd "$(dirname "$0")" && pwd)

usage() {
  cat <<EOF
usage: $0 [options] [-- extra pipeline.sh options for every run]
  -b, --build DIR      meson build folder (default: \$GPUPROF_BUILD_DIR or build)
  -n, --streams LIST   stream counts, space- or comma-separated ("4 16")
  -B, --batches LIST   batch sizes, mux and inference alike ("1 2 4 8 16")
  -f, --frames N       frames per stream (300)
      --plateau        per stream count, stop at the plateau batch (the next
                       batch gives < 5 % more fps) and print it
  -o, --json FILE      the sweep as JSON (gst-gpuprof html/diff read it)
      --csv FILE       one row per run
      --dir DIR        where each run's summary, report and log go
  -p, --tracer-params K=V,...  e.g. cupti=on for GPU ms per batch
  -h, --help           this text
EOF
}

build=${GPUPROF_BUILD_DIR:-build}
streams_list="4 16"
batches="1 2 4 8 16"
frames=300
mode=grid
json= csv= dir= tparams=
while [ $# -gt 0 ]; do
  case $1 in
    -b|--build) build=$2; shift 2 ;;
    -n|--streams) streams_list=$2; shift 2 ;;
    -B|--batches) batches=$2; shift 2 ;;
    -f|--frames) frames=$2; shift 2 ;;
    --plateau) mode=plateau; shift ;;
    -o|--json) json=$2; shift 2 ;;
    --csv) csv=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    -p|--tracer-params) tparams=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; break ;;
    *) echo "$0: unknown option '$1' (valid: -b -n -B -f --plateau -o --csv --dir -p --)" >&2
      exit 2 ;;
  esac
done

# one shell word, quoted for the sweep's /bin/sh -c
q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
extra=""
for a in "$@"; do extra="$extra $(q "$a")"; done
list() { echo "$1" | tr ' ' ',' | sed -e 's/,,*/,/g' -e 's/^,//' -e 's/,$//'; }

tool="$build/tools/gst-gpuprof/gst-gpuprof"
[ -x "$tool" ] || tool=gst-gpuprof
template="$(q "$here/pipeline.sh") --build $(q "$build") --streams {streams} \
--frames $frames --mux-batch {batch} --infer-batch {batch} --timeout 40000 \
--osd off --queues on$extra -- -q"
set -- sweep --mode "$mode" --command \
  --set "streams=$(list "$streams_list")" --set "batch=$(list "$batches")"
[ -z "$json" ] || set -- "$@" --json "$json"
[ -z "$csv" ] || set -- "$@" --csv "$csv"
[ -z "$dir" ] || set -- "$@" --dir "$dir"
[ -z "$tparams" ] || set -- "$@" --tracer-params "$tparams"
exec "$tool" "$@" -- "$template"
