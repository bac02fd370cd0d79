#!/usr/bin/env bash
# Do the includes keep the layers? Lists, per folder, which folders its
# files include, and fails on an include that goes up a layer (docs/layers.md):
#
#   core      the ground: ids, clock, threads, parameters, the event bus
#   gpu       GPU attribution                      (core)
#   snapshot  the schema and the snapshot          (core, gpu)
#   measure   what the hooks do, rows it fills     (core, gpu, snapshot)
#   outputs   report, summary, trace, live         (core, gpu, snapshot)
#   session   ties them together                   (all of the above)
#
# and outside the library: tracers/ and tests/ and bench/ may include any
# folder of gst/, elements/ core and gpu, tools/ core, gpu, snapshot and
# outputs, examples/ none.
#
#   tools/check-layers.sh [SOURCE_ROOT]      (default: this checkout)
#
# A quoted include is found as the compiler finds it: beside the including
# file first, then in the folders of gst/. Headers found nowhere in the tree
# (config.h, generated ones, system headers) are not layers. Exit status 1
# when any include goes up, 0 otherwise.
set -euo pipefail
root=$(cd "${1:-$(dirname "${BASH_SOURCE[0]}")/..}" && pwd)
lib=(core gpu snapshot measure outputs session)

# allowed FOLDER: the gst/ folders FOLDER may include
allowed() {
  case $1 in
    core) echo "core" ;;
    gpu) echo "core gpu" ;;
    snapshot) echo "core gpu snapshot" ;;
    measure) echo "core gpu snapshot measure" ;;
    outputs) echo "core gpu snapshot outputs" ;;
    session) echo "core gpu snapshot measure outputs session" ;;
    tracers | tests | bench) echo "${lib[*]}" ;;
    elements) echo "core gpu" ;;
    tools) echo "core gpu snapshot outputs" ;;
    examples) echo "" ;;
  esac
}

# which gst/ folder holds header NAME ("" when none does); the first found
declare -A home=()
for d in "${lib[@]}"; do
  [ -d "$root/gst/$d" ] || continue
  for h in "$root/gst/$d"/*.h; do
    [ -e "$h" ] || continue
    n=${h##*/}
    [ -n "${home[$n]:-}" ] || home[$n]=$d
  done
done

bad=0
report() { # folder label: prints the folder's include counts, checks each
  local folder=$1 label=$2 ok f line name target
  declare -A count=()
  ok=" $(allowed "$folder") "
  while IFS= read -r f; do
    while IFS=: read -r line name; do
      if [ -e "$(dirname "$f")/$name" ]; then
        # beside the includer: its own layer, or none outside gst/
        [[ "$label" == gst/* ]] || continue
        target=$(basename "$(cd "$(dirname "$(dirname "$f")/$name")" && pwd)")
        [[ " ${lib[*]} " == *" $target "* ]] || continue
      else
        target=${home[${name##*/}]:-}
        [ -n "$target" ] || continue
      fi
      count[$target]=$(( ${count[$target]:-0} + 1 ))
      if [[ "$ok" != *" $target "* ]]; then
        echo "UP: ${f#"$root"/}:$line: $folder includes $target/$name" \
          "($folder may include: ${ok:1:-1})"
        bad=$(( bad + 1 ))
      fi
    done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" \
      | sed 's/^\([0-9]*\):[^"]*"\([^"]*\)".*/\1:\2/' || true)
  done < <(find "$root/$label" -name '*.[ch]' | sort)
  local line_out=""
  for d in "${lib[@]}"; do
    [ -n "${count[$d]:-}" ] && line_out+=" $d(${count[$d]})"
  done
  printf '%-14s includes:%s\n' "$label" "${line_out:- nothing of gst/}"
}

for d in "${lib[@]}"; do
  [ -d "$root/gst/$d" ] && report "$d" "gst/$d"
done
for d in tracers elements tools examples tests bench; do
  [ -d "$root/$d" ] && report "$d" "$d"
done

if [ "$bad" -gt 0 ]; then
  echo "check-layers: $bad include(s) go up a layer (docs/layers.md)"
  exit 1
fi
echo "check-layers: every include goes down or stays in its layer"
