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
#     --summary              the run summary and writer counters are inside
#     --counts-from-summary  chain events per element equal the summary's
#                            calls (elements other than sources), when the
#                            writer lost, dropped and filtered nothing
#
# Always checked: events are objects with ph/pid, the process and every
# thread with events are named ("M"), per thread the events come in time
# order (a complete event is pushed when it ends, so its end counts) and
# complete events nest properly, every residency begin has one end after it,
# every flow start ("s") has one end ("f") after it.
# Prints one line per check; exit status 0 when all pass, 1 otherwise,
# 2 when the file does not load.
set -u

truncated=false
chains='{}'
asyncs='{}'
summary=false
from_summary=false
while [ $# -gt 1 ]; do
  case "$1" in
    --truncated) truncated=true ;;
    --chain) chains=$(jq -cn --argjson m "$chains" --arg kv "$2" \
        '$m + {($kv | sub("=[0-9]+$"; "")): ($kv | capture("=(?<n>[0-9]+)$").n | tonumber)}'); shift ;;
    --async) asyncs=$(jq -cn --argjson m "$asyncs" --arg kv "$2" \
        '$m + {($kv | sub("=[0-9]+$"; "")): ($kv | capture("=(?<n>[0-9]+)$").n | tonumber)}'); shift ;;
    --summary) summary=true ;;
    --counts-from-summary) from_summary=true ;;
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
    --argjson from_summary "$from_summary" '
def eps: 0.0005;
def check(name; ok; detail):
  if ok then "ok   \(name)" else "FAIL \(name): \(detail)" end;
def done_time: if .ph == "X" then .ts + .dur else .ts end;
# per-thread event in push order: everything but metadata, flows, globals
def thread_events: [to_entries[] | .value + {_i: .key}
  | select(.ph != "M" and .ph != "s" and .ph != "f" and .ph != "t"
           and (.s // "") != "g")];
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
| check("events are objects with ph and pid";
    all($all[]; type == "object" and has("ph") and has("pid")); "bad event")
, check("process named"; any($all[]; .ph == "M" and .name == "process_name");
    "no process_name metadata")
, check("threads named"; ($tids - $named) == []; "unnamed tids \($tids - $named)")
, ([$te | group_by(.tid)[] | out_of_order[]] as $bad
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
' "$input" > "$result" 2>&1
status=$?
cat "$result"
[ $status -eq 0 ] || exit 2
! grep -q '^FAIL' "$result" || exit 1
exit 0
