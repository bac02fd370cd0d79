#!/bin/sh
# check-trace.sh: the project's own checker of a gpuprof trace file
# (Chrome trace-event JSON, array form). Needs jq.
#
#   check-trace.sh [options] TRACE
#     --truncated            the file may lack its closing bracket (killed
#                            process): it must load once "]" is appended;
#                            residencies still open at the cut are allowed
#     --chain NAME=N         exactly N chain ("X") events named NAME
#     --async NAME=N         exactly N residency begins ("b") named NAME
#     --arrows N             exactly N buffer arrows ("s" named "buffer")
#     --summary              the run summary and writer counters are inside
#     --counts-from-summary  chain events per element equal the summary's
#                            calls (elements other than sources), when the
#                            writer lost, dropped and filtered nothing
#     --gpu-ops N            exactly N GPU ops (cat "gpu" complete events)
#     --gpu-flows N          exactly N launch arrows ("s" named "launch")
#     --gpu-element NAME=N   exactly N GPU ops whose args.element is NAME
#                            ("unattributed" for those without an element)
#     --gpu-name NAME=N      exactly N GPU ops named NAME (kernel name,
#                            "memcpy HtoD 3.0 MB", "memset")
#
# Always checked: events are objects with ph/pid, the process and every
# thread with events are named ("M"), per thread the events come in time
# order (a complete event is pushed when it ends, so its end counts) and
# complete events nest properly, every residency begin has one end after it,
# every flow start ("s") has one end ("f") after it, a buffer arrow only
# for a residency that ended "pushed" (docs/trace.md: a buffer dropped,
# flushed or left has no arrow).
# When there are GPU ops (cat "gpu"): each GPU track is named "GPU <device>
# stream <stream>" after its ops' device and stream and has a
# thread_sort_index; each op has the element, seq, bytes and correlation
# args; each launch arrow starts inside a chain call ("X", cat "chain") of
# the op's element on its thread and ends inside the op. GPU ops settle out
# of order, so the per-thread time order is not asked of GPU tracks.
# Prints one line per check; exit status 0 when all pass, 1 otherwise,
# 2 when the file does not load.
set -u

truncated=false
chains='{}'
asyncs='{}'
arrows=null
summary=false
from_summary=false
gpu_ops=null
gpu_flows=null
gpu_elements='{}'
gpu_names='{}'
kv() { # kv MAP NAME=N: MAP with NAME set to N
  jq -cn --argjson m "$1" --arg kv "$2" \
    '$m + {($kv | sub("=[0-9]+$"; "")): ($kv | capture("=(?<n>[0-9]+)$").n | tonumber)}'
}
while [ $# -gt 1 ]; do
  case "$1" in
    --truncated) truncated=true ;;
    --chain) chains=$(jq -cn --argjson m "$chains" --arg kv "$2" \
        '$m + {($kv | sub("=[0-9]+$"; "")): ($kv | capture("=(?<n>[0-9]+)$").n | tonumber)}'); shift ;;
    --async) asyncs=$(jq -cn --argjson m "$asyncs" --arg kv "$2" \
        '$m + {($kv | sub("=[0-9]+$"; "")): ($kv | capture("=(?<n>[0-9]+)$").n | tonumber)}'); shift ;;
    --arrows) arrows=$2; shift ;;
    --summary) summary=true ;;
    --counts-from-summary) from_summary=true ;;
    --gpu-ops) gpu_ops=$2; shift ;;
    --gpu-flows) gpu_flows=$2; shift ;;
    --gpu-element) gpu_elements=$(kv "$gpu_elements" "$2"); shift ;;
    --gpu-name) gpu_names=$(kv "$gpu_names" "$2"); shift ;;
    *) echo "check-trace.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
file=${1:?usage: check-trace.sh [options] TRACE}

result=$(mktemp)
copy=
trap 'rm -f "$result" $copy' EXIT
if [ ! -s "$file" ]; then
  echo "FAIL load: $file is missing or empty"; exit 2
fi
if $truncated; then
  # the missing-bracket rule: appending "]" must give valid JSON
  input=$(mktemp); copy=$input
  if jq -e 'type == "array"' "$file" >/dev/null 2>&1; then
    cp "$file" "$input"; echo "ok   load: complete file"
  else
    { cat "$file"; printf '\n]\n'; } > "$input"
    if ! jq -e 'type == "array"' "$input" >/dev/null 2>&1; then
      echo "FAIL load: $file does not load with a closing bracket appended"
      exit 2
    fi
    echo "ok   load: loads with the missing-bracket rule"
  fi
else
  input=$file
  if ! jq -e 'type == "array"' "$input" >/dev/null 2>&1; then
    echo "FAIL load: $file is not a valid JSON array:"
    jq . "$input" 2>&1 >/dev/null | head -3
    exit 2
  fi
  echo "ok   load: valid JSON array"
fi

jq -r --argjson truncated "$truncated" --argjson chains "$chains" \
    --argjson asyncs "$asyncs" --argjson summary "$summary" \
    --argjson arrows "$arrows" \
    --argjson from_summary "$from_summary" --argjson gpu_ops "$gpu_ops" \
    --argjson gpu_flows "$gpu_flows" --argjson gpu_elements "$gpu_elements" \
    --argjson gpu_names "$gpu_names" '
def eps: 0.0005;
def check(name; ok; detail):
  if ok then "ok   \(name)" else "FAIL \(name): \(detail)" end;
def done_time: if .ph == "X" then .ts + .dur else .ts end;
# per-thread event in push order: everything but metadata, flows, globals
def thread_events: [to_entries[] | .value + {_i: .key}
  | select(.ph != "M" and .ph != "s" and .ph != "f" and .ph != "t"
           and (.s // "") != "g")];
def is_gpu: .ph == "X" and .cat == "gpu";
# complete events grouped by key, sorted by start, with their starts apart
# for bsearch
def index_by(key): group_by(key) | map(sort_by(.ts)
    | {key: (.[0] | key | tostring), value: {ev: ., ts: map(.ts)}})
  | from_entries;
# of an index entry: the last event starting at or before t, if it holds t
def holding($t): if . == null then null else
    (.ts | bsearch($t)) as $i
  | (if $i >= 0 then $i else -2 - $i end) as $j
  | if $j >= 0 and .ev[$j].ts <= $t + eps
       and $t <= .ev[$j].ts + .ev[$j].dur + eps
    then .ev[$j] else null end end;
def out_of_order: sort_by(._i) | . as $g
  | [range(1; length) | select(($g[.] | done_time) < ($g[. - 1] | done_time) - eps)
     | $g[.]] ;
def bad_nesting: map(select(.ph == "X")) | sort_by(.ts, -.dur)
  | reduce .[] as $e ({stack: [], bad: []};
      .stack |= until(length == 0 or .[-1] > $e.ts + eps; .[:-1])
      | if (.stack | length) > 0 and $e.ts + $e.dur > .stack[-1] + eps
        then .bad += [$e] else . end
      | .stack += [$e.ts + $e.dur])
  | .bad;
def pairs(open; close):
  map(select(.ph == open or .ph == close)) | group_by([.cat, .name, (.id | tostring)])
  | map(select(
      (map(.ph) | sort) != ([open, close] | sort)
      or (map(select(.ph == close))[0].ts < map(select(.ph == open))[0].ts - 0.0015)));
def summary_event: map(select(.ph == "i" and .name == "gpuprof summary"))[-1];
def writer_event: map(select(.ph == "i" and .name == "gpuprof trace"))[-1];

. as $all
| ($all | thread_events) as $te
| ([$all[] | select(.ph == "M" and .name == "thread_name") | .tid] | unique) as $named
| ([$te[].tid] | unique) as $tids
| ($all | map(select(.ph == "X")) | group_by(.name)
   | map({key: .[0].name, value: length}) | from_entries) as $xcount
| ($all | map(select(.ph == "b")) | group_by(.name)
   | map({key: .[0].name, value: length}) | from_entries) as $bcount
| ($all | map(select(is_gpu))) as $gpu
| ($all | map(select(.ph == "M" and .name == "thread_name"))
   | map({key: (.tid | tostring), value: .args.name}) | from_entries) as $tname
| check("events are objects with ph and pid";
    all($all[]; type == "object" and has("ph") and has("pid")); "bad event")
, check("process named"; any($all[]; .ph == "M" and .name == "process_name");
    "no process_name metadata")
, check("threads named"; ($tids - $named) == []; "unnamed tids \($tids - $named)")
, ([$te | map(select(is_gpu | not)) | group_by(.tid)[] | out_of_order[]] as $bad
   | check("timestamps monotonic per thread"; $bad == [];
       "\($bad | length) events go back in time, first: \($bad[0] | del(._i))"))
, ([$te | group_by(.tid)[] | bad_nesting[]] as $bad
   | check("complete events nest per thread"; $bad == [];
       "\($bad | length) overlap, first: \($bad[0] | del(._i))"))
, ($all | pairs("b"; "e")
   | if $truncated then map(select(any(.[]; .ph == "e"))) else . end) as $bad
   | check("every residency begin has one end";  $bad == [];
       "\($bad | length) unmatched, first: \($bad[0])")
, ($all | pairs("s"; "f")
   | if $truncated then map(select(any(.[]; .ph == "f"))) else . end) as $bad
   | check("every flow start has one end"; $bad == [];
       "\($bad | length) unmatched, first: \($bad[0])")
, ([$all[] | select(.ph == "e" and .cat == "queue"
      and (.args.result // "pushed") == "pushed") | .id | tostring]
   | map({key: ., value: true}) | from_entries) as $pushed
   | [$all[] | select(.ph == "s" and .name == "buffer")
      | select($pushed[.id | tostring] | not)] as $bad
   | (if $truncated then [] else $bad end) as $bad
   | check("buffer arrows only for buffers pushed out"; $bad == [];
       "\($bad | length) arrows of buffers not pushed, first: \($bad[0])")
, if $arrows != null then
    ($all | map(select(.ph == "s" and .name == "buffer")) | length) as $n
    | check("\($arrows) buffer arrows"; $n == $arrows; "found \($n)")
  else empty end
, ($chains | to_entries[] | check("\(.value) chain events for \(.key)";
    ($xcount[.key] // 0) == .value; "found \($xcount[.key] // 0)"))
, ($asyncs | to_entries[] | check("\(.value) residencies for \(.key)";
    ($bcount[.key] // 0) == .value; "found \($bcount[.key] // 0)"))
, if $summary then
    check("run summary inside"; ($all | summary_event) != null; "none"),
    check("writer counters inside"; ($all | writer_event) != null; "none")
  else empty end
, if $from_summary then
    ($all | writer_event | .args) as $w
    | ($all | summary_event | .args.summary.elements // []) as $rows
    | if $w == null or $w.events_lost + $w.events_dropped + $w.events_filtered > 0
      then check("chain events equal calls"; false;
             "writer counters missing or events lost: \($w)")
      else ($rows[] | select(.role != "source")
            | check("chain events of \(.path) equal its calls (\(.calls))";
                ($xcount[.path] // 0) == .calls; "found \($xcount[.path] // 0)"))
      end
  else empty end
, if ($gpu | length) > 0 or $gpu_ops != null then
    ([$gpu[] | {tid, want: "GPU \(.args.device) stream \(.args.stream)",
                other: "GPU \(.args.device) other streams"}
      | select(($tname[.tid | tostring] // "") as $n
               | $n != .want and $n != .other)
      | del(.other)] | unique) as $bad
    | check("GPU tracks named after their device and stream"; $bad == [];
        "\($bad | length) tracks, first: \($bad[0])"),
    ([$gpu[].tid] | unique) as $tracks
    | ([$all[] | select(.ph == "M" and .name == "thread_sort_index") | .tid]
       | unique) as $sorted
    | check("GPU tracks have a sort index"; ($tracks - $sorted) == [];
        "none for tids \($tracks - $sorted)"),
    ([$gpu[] | select((.args.element | type) != "string"
        or ((.args.seq | type) as $t | $t != "number" and $t != "null")
        or (.args.bytes | type) != "number"
        or (.args.correlation | type) != "number")] as $bad
     | check("GPU ops have element, seq, bytes and correlation"; $bad == [];
         "\($bad | length) without, first: \($bad[0])")),
    ($all | map(select(.ph == "X" and .cat == "chain"))
     | index_by([.tid, .name])) as $chains
    | ($gpu | index_by(.tid)) as $ops
    | ($all | map(select((.ph == "s" or .ph == "f") and .name == "launch"))
       | group_by(.id) | map(select(length == 2))) as $arrows
    | [$arrows[] | (map(select(.ph == "s"))[0]) as $s
       | (map(select(.ph == "f"))[0]) as $f
       | if $s == null or $f == null then {arrow: .[0].id, why: "not one s and one f"}
         else ($ops[$f.tid | tostring] | holding($f.ts)) as $op
         | if $op == null then {arrow: $s.id, why: "ends in no GPU op"}
           elif ($chains[[$s.tid, $op.args.element] | tostring]
                 | holding($s.ts)) == null
           then {arrow: $s.id, why: "starts in no chain call of \($op.args.element)",
                 s: $s, op: ($op | {name, ts, args})}
           else empty end
         end] as $bad
    | check("launch arrows go from a chain call of the element to its op";
        $bad == []; "\($bad | length) bad, first: \($bad[0])")
  else empty end
, if $gpu_ops != null then check("\($gpu_ops) GPU ops"; ($gpu | length) == $gpu_ops;
    "found \($gpu | length)") else empty end
, if $gpu_flows != null then
    ($all | map(select(.ph == "s" and .name == "launch")) | length) as $n
    | check("\($gpu_flows) launch arrows"; $n == $gpu_flows; "found \($n)")
  else empty end
, ($gpu_elements | to_entries[] | . as $kv
   | ($gpu | map(select(.args.element == $kv.key)) | length) as $n
   | check("\($kv.value) GPU ops of \($kv.key)"; $n == $kv.value; "found \($n)"))
, ($gpu_names | to_entries[] | . as $kv
   | ($gpu | map(select(.name == $kv.key)) | length) as $n
   | check("\($kv.value) GPU ops named \($kv.key)"; $n == $kv.value; "found \($n)"))
' "$input" > "$result" 2>&1
status=$?
cat "$result"
[ $status -eq 0 ] || exit 2
! grep -q '^FAIL' "$result" || exit 1
exit 0
