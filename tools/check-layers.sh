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
#   tools/check-layers.sh [SOURCE_ROOT] [--calls BUILD_DIR]
#
# A quoted include is found as the compiler finds it: beside the including
# file first, then in the folders of gst/. Headers found nowhere in the tree
# (config.h, generated ones, system headers) are not layers.
#
# --calls BUILD_DIR: also the calls, from the library's object files in a
# build of SOURCE_ROOT (nm): a function defined in one file and called from
# another is an edge between them; an edge that goes up a layer fails, and
# so does a circle of files calling each other within a folder (files call
# only what is below them, as gst/gpu/gpuprof-gpu.h lists).
#
# Exit status 1 when anything goes up or round, 0 otherwise.
set -euo pipefail
root= objdir=
while [ $# -gt 0 ]; do
  case $1 in
    --calls) objdir=$(cd "$2" && pwd); shift 2 ;;
    *) root=$1; shift ;;
  esac
done
root=$(cd "${root:-$(dirname "${BASH_SOURCE[0]}")/..}" && pwd)
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

if [ -n "$objdir" ]; then
  # one "layer/file symbol" line per definition (D) and per use (U)
  objs=$(find "$objdir/gst" -name '*.c.o' | grep -E '/(core|gpu|snapshot|measure|outputs|session)_[^/]*\.c\.o$' || true)
  [ -n "$objs" ] || { echo "check-layers: no object files in $objdir/gst"; exit 2; }
  for o in $objs; do
    f=$(basename "$o" .c.o)
    f=${f/_gpuprof-//}
    nm --defined-only -g "$o" | awk -v f="$f" 'NF == 3 { print "D", f, $3 }'
    nm -u "$o" | awk -v f="$f" '{ print "U", f, $NF }'
  done > "${TMPDIR:-/tmp}/check-layers.$$"
  rules=""
  for d in "${lib[@]}"; do rules+="$d=$(allowed "$d" | tr ' ' ,);"; done
  if ! python3 - "${TMPDIR:-/tmp}/check-layers.$$" "$rules" <<'PY'
import collections, sys
defs, edges = {}, collections.defaultdict(set)
rows = [l.split() for l in open(sys.argv[1])]
for kind, f, sym in rows:
    if kind == "D":
        defs[sym] = f
for kind, f, sym in rows:
    if kind == "U" and sym in defs and defs[sym] != f:
        edges[(f, defs[sym])].add(sym)
allowed = dict(r.split("=") for r in sys.argv[2].strip(";").split(";"))
bad = 0
graph = collections.defaultdict(set)
for (a, b), syms in sorted(edges.items()):
    la, lb = a.split("/")[0], b.split("/")[0]
    if lb not in allowed[la].split(","):
        print("UP CALL: %s calls %s (%s)" % (a, b, " ".join(sorted(syms)[:4])))
        bad += 1
    elif la == lb:
        graph[a].add(b)
# circles: strongly connected files within a folder (Tarjan)
index, low, stack, on, n = {}, {}, [], set(), [0]
def visit(v):
    index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
    for w in graph[v]:
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            print("CIRCLE: " + " <-> ".join(sorted(comp)))
            circles.append(comp)
circles = []
sys.setrecursionlimit(10000)
for v in list(graph):
    if v not in index:
        visit(v)
folders = collections.Counter(a.split("/")[0] for (a, b) in edges)
print("calls between files: %d edges, %d up, %d circles" % (len(edges), bad,
    len(circles)))
sys.exit(1 if bad or circles else 0)
PY
  then
    bad=$(( bad + 1 ))
  fi
  rm -f "${TMPDIR:-/tmp}/check-layers.$$"
fi

if [ "$bad" -gt 0 ]; then
  echo "check-layers: $bad include(s) or call checks go up a layer or round (docs/layers.md)"
  exit 1
fi
echo "check-layers: every include${objdir:+ and call} goes down or stays in its layer"
