#!/bin/sh
# After `meson install`, GST_TRACERS=gpuprof and gst-gpuprof work: the
# plugin lands in GStreamer's plugin folder when the prefix is /usr, the
# installed files find libgstgpuprof-1.0 without the build tree, and the
# installed tracer and tool run.
#
# The install goes to a temporary root (meson install --destdir), which is
# not the real prefix: GStreamer and the dynamic loader do not look there,
# so the runs below point GST_PLUGIN_PATH and LD_LIBRARY_PATH into it. That
# the real prefix needs neither is checked apart: the plugin folder against
# GStreamer's pluginsdir, and libdir against the loader's search path
# (prefix /usr) or the RPATH (any other prefix).
# usage: test-install.sh BUILD PREFIX LIBDIR_OPT LIBDIR PLUGINDIR BINDIR
#        GST_PLUGINSDIR HAVE_TOOL(yes|no) PARAMETERS_MD
set -u
build=$1 prefix=$2 libdir_opt=$3 libdir=$4 plugindir=$5 bindir=$6
gst_pluginsdir=$7 have_tool=$8 params_md=$9
. "$(dirname "$0")/../common/check-lib.sh"
tmp=$out
root=$tmp/root

# the build is there already: copy it, build nothing
meson install -C "$build" --no-rebuild --quiet --destdir "$root" \
  >"$tmp/install.log" 2>&1
check "meson install --destdir" "[ \$? -eq 0 ]" || cat "$tmp/install.log"
plugin=$root$plugindir/libgstgpuproftracer.so
lib=$root$libdir/libgstgpuprof-1.0.so.0
tool=$root$bindir/gst-gpuprof
check "tracer plugin in $plugindir" "[ -f '$plugin' ]"
check "libgstgpuprof-1.0 in $libdir" "[ -f '$lib' ]"
[ "$have_tool" = yes ] && check "gst-gpuprof in $bindir" "[ -x '$tool' ]"

# --prefix=/usr puts the plugin where GStreamer looks by itself
case $libdir_opt in
  /*) echo "skip: libdir $libdir_opt is absolute" ;;
  *) check "--prefix=/usr installs into GStreamer's $gst_pluginsdir" \
       "[ /usr/$libdir_opt/gstreamer-1.0 = '$gst_pluginsdir' ]"
     # and its libdir is a search path of the dynamic loader (glibc >= 2.33
     # lists them in ld.so --help)
     interp=$(readelf -l "$(command -v gst-launch-1.0)" |
       sed -n 's/.*interpreter: \(.*\)]/\1/p')
     if "$interp" --help >"$tmp/ldso" 2>/dev/null; then
       check "/usr/$libdir_opt is searched by $interp" \
         "grep -q '^ */usr/$libdir_opt (system search path)' $tmp/ldso"
     else
       echo "skip: $interp --help lists no search path"
     fi ;;
esac

# no installed file points back into the build tree; outside /usr the
# RPATH is libdir
for f in "$plugin" "$tool"; do
  [ -f "$f" ] || continue
  rpath=$(readelf -d "$f" | sed -n 's/.*(R[UN]*PATH).*\[\(.*\)\]/\1/p')
  check "$(basename "$f"): no RPATH into the build tree" \
    "case '$rpath' in *'$build'*) false ;; *) true ;; esac"
  if [ "$prefix" != /usr ]; then
    check "$(basename "$f"): RPATH $libdir (prefix $prefix)" \
      "[ '$rpath' = '$libdir' ]"
  fi
done

# run what was installed, and nothing from the build tree. GStreamer's own
# libraries may come from LD_LIBRARY_PATH (a GStreamer in a prefix, or
# sid's 1.28 in tools/run-chroot-tests.sh): those entries stay.
build_abs=$(cd "$build" && pwd -P)
gst_libs=$(printf '%s' "${LD_LIBRARY_PATH:-}" | tr ':' '\n' \
  | grep -v -e '^$' -e "^$build" -e "^$build_abs" | paste -sd: -)
run() {
  env -u GST_PLUGIN_PATH_1_0 GST_PLUGIN_PATH="$root$plugindir" \
    LD_LIBRARY_PATH="$root$libdir${gst_libs:+:$gst_libs}" \
    GST_REGISTRY_1_0="$tmp/registry.bin" "$@"
}
run ldd "$plugin" >"$tmp/ldd" 2>&1
check "plugin loads the installed libgstgpuprof-1.0" \
  "grep -q 'libgstgpuprof-1.0.so.0 => $lib' $tmp/ldd"
run gst-inspect-1.0 gpuprof >"$tmp/inspect" 2>&1
check "gst-inspect-1.0 finds the installed tracer" \
  "grep -q 'Filename *$plugin' $tmp/inspect"
# the line a start of GPU attribution would print (gpuprof: GPU attribution
# off: ...), not any text: gst-inspect >= 1.24 prints the properties' docs
check "gst-inspect-1.0 starts no GPU attribution" \
  "! grep -q '^gpuprof: GPU attribution off' $tmp/inspect"

run env GST_TRACERS="gpuprof(stats=$tmp/sum.json)" gst-launch-1.0 -q \
  fakesrc num-buffers=50 ! identity ! fakesink >"$tmp/out" 2>"$tmp/err"
check "GST_TRACERS=gpuprof gst-launch-1.0 runs" "[ \$? -eq 0 ]"
check "the installed tracer reports" "grep -q '^=== gpuprof report' $tmp/err"
check "and saves its summary" "[ -s $tmp/sum.json ]"

if [ "$have_tool" = yes ]; then
  run "$tool" report "$tmp/sum.json" >"$tmp/report" 2>&1
  check "installed gst-gpuprof report runs" "[ \$? -eq 0 ]"
  check "it prints the live report" "cmp -s $tmp/report $tmp/err"
  cmp -s "$tmp/report" "$tmp/err" || diff "$tmp/err" "$tmp/report"
  # 1.22's gst-inspect-1.0 lists no tracer properties: the tool does
  run "$tool" params >"$tmp/params" 2>&1
  sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p' "$tmp/params" >"$tmp/keys.tool"
  sed -n 's/^| `\([a-z-]*\)` |.*/\1/p' "$params_md" >"$tmp/keys.doc"
  check "gst-gpuprof params lists the keys of docs/parameters.md" \
    "[ -s $tmp/keys.doc ] && cmp -s $tmp/keys.tool $tmp/keys.doc"
fi

[ "$fails" -ne 0 ] && { echo "--- stderr of the run:"; cat "$tmp/err"; }
checks_done
