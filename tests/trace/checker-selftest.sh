#!/bin/sh
# The checker must catch what it claims to check: each broken trace below
# fails it, the good one passes.
set -u
check=${1:?usage: checker-selftest.sh CHECK_TRACE}
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
fails=0

meta='{"ph":"M","name":"process_name","pid":1,"tid":0,"ts":0,"args":{"name":"p"}},
{"ph":"M","name":"thread_name","pid":1,"tid":1,"ts":0,"args":{"name":"t1"}},
{"ph":"M","name":"thread_name","pid":1,"tid":2,"ts":0,"args":{"name":"t2"}}'
good='{"ph":"b","cat":"queue","name":"q","pid":1,"tid":1,"ts":1.000,"id":7},
{"ph":"X","cat":"chain","name":"q","pid":1,"tid":1,"ts":0.500,"dur":1.000},
{"ph":"s","cat":"flow","name":"buffer","pid":1,"tid":1,"ts":1.000,"id":7},
{"ph":"X","cat":"chain","name":"a","pid":1,"tid":1,"ts":0.000,"dur":2.000},
{"ph":"e","cat":"queue","name":"q","pid":1,"tid":2,"ts":3.000,"id":7,"args":{"result":"pushed"}},
{"ph":"f","cat":"flow","name":"buffer","pid":1,"tid":2,"ts":3.000,"id":7},
{"ph":"X","cat":"chain","name":"b","pid":1,"tid":2,"ts":3.500,"dur":1.000}'

expect() { # expect STATUS NAME CONTENT [OPTIONS...]
  want=$1 name=$2; printf '%s' "$3" > "$dir/$name.json"; shift 3
  "$check" "$@" "$dir/$name.json" > "$dir/$name.out" 2>&1
  got=$?
  if [ "$got" -ne "$want" ]; then
    echo "FAIL $name: checker exit $got, expected $want"; cat "$dir/$name.out"
    fails=$((fails + 1))
  else
    echo "ok   $name (exit $got)"
  fi
}

expect 0 good "[
$meta,
$good
]" --chain a=1 --async q=1 --arrows 1
expect 0 killed "[
$meta,
$good" --truncated
expect 2 killed-strict "[
$meta,
$good"
expect 2 killed-mid-event "[
$meta,
$good,
{\"ph\":\"X\",\"na" --truncated
expect 1 wrong-arrows "[
$meta,
$good
]" --arrows 2
expect 1 arrow-of-dropped "[
$meta,
$(printf '%s' "$good" | sed 's/"pushed"/"dropped"/')
]"
expect 1 wrong-count "[
$meta,
$good
]" --chain a=2
expect 1 unnamed-thread "[
$meta,
$good,
{\"ph\":\"X\",\"cat\":\"chain\",\"name\":\"c\",\"pid\":1,\"tid\":9,\"ts\":5.0,\"dur\":1.0}
]"
expect 1 backwards "[
$meta,
$good,
{\"ph\":\"X\",\"cat\":\"chain\",\"name\":\"c\",\"pid\":1,\"tid\":2,\"ts\":1.0,\"dur\":1.0}
]"
expect 1 overlap "[
$meta,
$good,
{\"ph\":\"X\",\"cat\":\"chain\",\"name\":\"c\",\"pid\":1,\"tid\":2,\"ts\":4.0,\"dur\":1.0}
]"
expect 1 open-residency "[
$meta,
$good,
{\"ph\":\"b\",\"cat\":\"queue\",\"name\":\"q\",\"pid\":1,\"tid\":1,\"ts\":6.0,\"id\":8}
]"
expect 1 dangling-flow "[
$meta,
$good,
{\"ph\":\"s\",\"cat\":\"flow\",\"name\":\"buffer\",\"pid\":1,\"tid\":1,\"ts\":6.0,\"id\":9}
]"
expect 1 no-summary "[
$meta,
$good
]" --summary

# GPU ops: a track per (device, stream), arrows from a chain call of the
# op's element to the op
gmeta='{"ph":"M","name":"thread_name","pid":1,"tid":1000000001,"ts":0,"args":{"name":"GPU 0 stream 7"}},
{"ph":"M","name":"thread_sort_index","pid":1,"tid":1000000001,"ts":0,"args":{"sort_index":1000001}}'
gop='{"ph":"X","cat":"gpu","name":"k","pid":1,"tid":1000000001,"ts":5.000,"dur":2.000,"args":{"element":"a","seq":0,"bytes":0,"correlation":3,"device":0,"stream":7}}'
garrow='{"ph":"s","cat":"flow","name":"launch","pid":1,"tid":1,"ts":1.500,"id":1},
{"ph":"f","cat":"flow","name":"launch","pid":1,"tid":1000000001,"ts":5.001,"bp":"e","id":1}'
expect 0 gpu-good "[
$meta,
$gmeta,
$good,
$gop,
$garrow
]" --gpu-ops 1 --gpu-flows 1 --gpu-element a=1 --gpu-name k=1
expect 1 gpu-wrong-count "[
$meta,
$gmeta,
$good,
$gop,
$garrow
]" --gpu-element a=2
expect 1 gpu-arrow-outside-chain "[
$meta,
$gmeta,
$good,
$gop,
$(echo "$garrow" | sed 's/"ts":1.500/"ts":2.500/')
]"
expect 1 gpu-arrow-other-element "[
$meta,
$gmeta,
$good,
$(echo "$gop" | sed 's/"element":"a"/"element":"b"/'),
$garrow
]"
expect 1 gpu-arrow-outside-op "[
$meta,
$gmeta,
$good,
$gop,
$(echo "$garrow" | sed 's/"ts":5.001/"ts":7.500/')
]"
expect 1 gpu-track-misnamed "[
$meta,
$(echo "$gmeta" | sed 's/stream 7/stream 8/'),
$good,
$gop,
$garrow
]"
expect 1 gpu-no-args "[
$meta,
$gmeta,
$good,
$(echo "$gop" | sed 's/"correlation":3,//'),
$garrow
]"
[ $fails -eq 0 ]
