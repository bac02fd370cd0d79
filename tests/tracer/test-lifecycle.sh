#!/bin/sh
# Which pipelines get a report, through gst-launch as a user runs it:
# one report per real top-level pipeline (an element that touched a pad
# before it had a parent is not a pipeline of its own), stats= holds that
# pipeline's summary, and a second gpuprof instance in GST_TRACERS is
# refused with one line instead of counting everything twice.
# usage: test-lifecycle.sh BUILD_ROOT
set -u
build=${1:?build root}
. "$(dirname "$0")/../common/check-lib.sh"
reports() { grep -c '^=== gpuprof report' "$1"; }
# buffers in of an element's row in a report: the 4th column
buf_in() { # file, element path
  awk -v p="$2" '$1 == p { print $4; exit }' "$1"
}

# capsfilter caps=... sends an event on its pads before it is in the pipeline
launch "gpuprof(report=stdout,stats=$out/s1.json)" \
  videotestsrc num-buffers=5 ! capsfilter caps=video/x-raw ! fakesink \
  >"$out/o1" 2>"$out/e1"
check "capsfilter set before linking: one report" "[ \$(reports $out/o1) -eq 1 ]"
check "capsfilter in the pipeline's report" \
  "[ \"\$(buf_in $out/o1 pipeline0/capsfilter0)\" = 5 ]"
check "stats= holds pipeline0's summary" \
  "grep -q '\"pipeline\" *: *\"pipeline0\"' $out/s1.json && grep -q 'pipeline0/capsfilter0' $out/s1.json"

# valve drop=... (set before linking): the same
launch "gpuprof(report=stdout)" \
  videotestsrc num-buffers=5 ! valve drop=false ! fakesink \
  >"$out/o2" 2>"$out/e2"
check "valve: one report naming it" \
  "[ \$(reports $out/o2) -eq 1 ] && [ \"\$(buf_in $out/o2 pipeline0/valve0)\" = 5 ]"

# its NVTX rows are named by its path in the pipeline too
if [ -f "$rec" ]; then
  nvtx_launch "$out/nvtx.jsonl" "gpuprof(report=off)" \
    videotestsrc num-buffers=5 ! capsfilter caps=video/x-raw ! fakesink \
    >/dev/null 2>&1
  check "NVTX domain named by the path in the pipeline" \
    "grep -q '\"domain_create\",\"domain\":\"pipeline0/capsfilter0\"' $out/nvtx.jsonl \
     && ! grep -q '\"domain\":\"capsfilter0\"' $out/nvtx.jsonl"
  check "its chain calls in that domain" \
    "[ \$(grep '\"push\"' $out/nvtx.jsonl | grep -c '\"domain\":\"pipeline0/capsfilter0\"') -eq 5 ]"
fi

clip=${GPUPROF_TEST_CLIP:-}
if [ -n "$clip" ] && [ -f "$clip" ]; then
  launch "gpuprof(report=stdout,stats=$out/s3.json)" \
    filesrc location="$clip" ! decodebin ! fakesink >"$out/o3" 2>"$out/e3"
  check "decodebin: one report" "[ \$(reports $out/o3) -eq 1 ]"
  check "decodebin's capsfilter under its bin" \
    "grep -q '^  pipeline0/decodebin0/capsfilter0 ' $out/o3"
  check "decodebin: stats= is pipeline0's" \
    "grep -q '\"pipeline\" *: *\"pipeline0\"' $out/s3.json"
else
  echo "skip: decodebin (no clip)"
fi

# two instances: the second is refused with one line, the first counts once
launch "gpuprof(report=stdout,trace=$out/a.json);gpuprof(trace=$out/b.json)" \
  videotestsrc num-buffers=5 ! fakesink >"$out/o4" 2>"$out/e4"
check "run goes on with two instances" "[ \$? -eq 0 ]"
check "second instance refused with one line" \
  "[ \$(grep -c 'gpuprof more than once' $out/e4) -eq 1 ]"
check "one report, counts not doubled" \
  "[ \$(reports $out/o4) -eq 1 ] && [ \"\$(buf_in $out/o4 pipeline0/fakesink0)\" = 5 ]"
check "the first instance's trace written, the second's not opened" \
  "[ -s $out/a.json ] && [ ! -e $out/b.json ]"

checks_done
