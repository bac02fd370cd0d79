#!/bin/sh
# tune.sh: the usual tuning steps of a DeepStream-style pipeline, measured.
#
# For N streams it runs pipeline.sh step after step, each step keeping the
# knobs of the ones before:
#   default     mux batch 1, inference batch 1, OSD on, no queues
#   queues      + a queue between the stages
#   no-osd      + no OSD
#   mux-batch   + analyticsmux batch-size = N (batched-push-timeout 40 ms)
#   infer-batch + analyticsinfer batch-size = N
#   interval    + analyticsinfer interval = 1
# A use of `gst-gpuprof sweep` (docs/sweep.md) over the variable {step}:
# each step runs under the tracer in a process of its own; the sweep's
# table gives fps, latency, batch fill, the limiting stage and the first
# advice per step, then (with jq) fps relative to the default step.
#
#   examples/analytics/tune.sh --build build --streams 4
#   examples/analytics/tune.sh -b build -n 16 -f 600 -- --device gpu
set -eu

here=$(cd "$(dirname "$0")" && pwd)
steps="default queues no-osd mux-batch infer-batch interval"

usage() {
  cat <<EOF
usage: $0 [options] [-- extra pipeline.sh options for every step]
  -b, --build DIR     meson build folder (default: \$GPUPROF_BUILD_DIR or build)
  -n, --streams N     streams (4)
  -f, --frames N      frames per stream (300)
  -o, --out DIR       where each step's summary, report and log go (a new
                      folder under \$TMPDIR)
      --json FILE     the sweep as JSON (default: OUT/sweep.json)
  -p, --tracer-params K=V,...  more tracer parameters, e.g. cupti=on
  -h, --help          this text
fps = frames the mux took in / the pipeline's wall time (gst-gpuprof sweep).
EOF
}

build=${GPUPROF_BUILD_DIR:-build}
streams=4
frames=300
out=
json=
tparams=
step=

while [ $# -gt 0 ]; do
  case $1 in
    -b|--build) build=$2; shift ;;
    -n|--streams) streams=$2; shift ;;
    -f|--frames) frames=$2; shift ;;
    -o|--out) out=$2; shift ;;
    --json) json=$2; shift ;;
    -p|--tracer-params) tparams=$2; shift ;;
    --step) step=$2; shift ;;   # one step: what the sweep runs
    --no-tracer)
      echo "$0: --no-tracer is gone: gst-gpuprof sweep runs every step under the tracer" >&2
      exit 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; break ;;
    *) echo "$0: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
  shift
done

# One step: its knobs and those of the steps before it, then pipeline.sh
# (GST_TRACERS comes from the sweep).
if [ -n "$step" ]; then
  knobs=""
  found=false
  for s in $steps; do
    case $s in
      default) knobs="--mux-batch 1 --infer-batch 1 --osd on --queues off" ;;
      queues) knobs="$knobs --queues on" ;;
      no-osd) knobs="$knobs --osd off" ;;
      mux-batch) knobs="$knobs --mux-batch $streams --timeout 40000" ;;
      infer-batch) knobs="$knobs --infer-batch $streams" ;;
      interval) knobs="$knobs --interval 1" ;;
    esac
    if [ "$s" = "$step" ]; then found=true; break; fi
  done
  $found || { echo "$0: unknown step $step (valid: $steps)" >&2; exit 2; }
  # shellcheck disable=SC2086  # knobs are split into options on purpose
  exec "$here/pipeline.sh" --build "$build" --streams "$streams" \
    --frames "$frames" $knobs "$@" -- -q
fi

# one shell word, quoted for the sweep's /bin/sh -c
q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
extra=""
for a in "$@"; do extra="$extra $(q "$a")"; done

tool="$build/tools/gst-gpuprof/gst-gpuprof"
[ -x "$tool" ] || tool=gst-gpuprof
[ -n "$out" ] || out=$(mktemp -d "${TMPDIR:-/tmp}/gpuprof-tune.XXXXXX")
mkdir -p "$out"
[ -n "$json" ] || json="$out/sweep.json"
# {streams} has one value: the sweep divides fps by it
set -- sweep --command --set "step=$(echo $steps | tr ' ' ',')" \
  --set "streams=$streams" --dir "$out" --json "$json"
[ -z "$tparams" ] || set -- "$@" --tracer-params "$tparams"
"$tool" "$@" -- "$(q "$here/tune.sh") --build $(q "$build") \
--streams {streams} --frames $frames --step {step} --$extra"

echo
echo "streams: $streams, frames per stream: $frames, runs: $out"
command -v jq >/dev/null 2>&1 || exit 0
jq -r '
  def col($w): tostring | . + (" " * $w) | .[0:$w];
  (.points | map(select(.values.step == "default"))[0].fps) as $base
  | "\("step" | col(12)) \("fps" | col(9)) \("vs default" | col(11)) limiting stage",
    (.points[] | "\(.values.step | col(12)) \(if .fps then (.fps * 10 | round / 10) else "failed" end | col(9)) \(if .fps and $base then "\(.fps / $base * 100 | round / 100)x" else "-" end | col(11)) \(.limiting // "-")")
' "$json"
