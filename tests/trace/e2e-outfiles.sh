#!/bin/sh
# Outputs write INTO what the user named (docs/outputs.md#files), through
# real gst-launch-1.0 runs:
# - FIFOs with readers for stats=, html=, report= and trace=: each reader
#   gets its file, the FIFOs stay FIFOs, no CSV file is made beside the
#   summary's FIFO and one line says so;
# - symbolic links for the four: the links stay links, their targets get
#   the files, the CSV files go beside the link;
# - a full file system (a 64 KiB tmpfs in a mount namespace of its own, or
#   a file size limit where it cannot mount): one line naming each file
#   that failed (summary, page, report, trace, live file) and the reason;
#   the pipeline runs to its end and the report reaches stderr;
# - character devices (nodes of the test's own, as root): written into,
#   never replaced; /dev/full's ENOSPC said;
# - a link to /proc/self/fd/1 with stdout sent to a file: the JSON lands
#   in that file after what was there, the CSV files only with stats-dir=.
. "$(dirname "$0")/e2e-lib.sh"
skip_unless_wired

pipeline="fakesrc num-buffers=300 sizetype=fixed sizemax=64 ! identity name=a
  ! queue ! fakesink"

# reader FILE OUT: reads FILE (a FIFO) to its end into OUT; returns once
# the FIFO is open, so a writer finds a reader (poll() on a FIFO says
# nothing before a writer came). Gives up after 60 s without a writer (the
# FIFO was replaced by a file: a hang guard, not a timing bound).
reader() {
  python3 -c '
import os, select, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
open(sys.argv[2] + ".ready", "w").close()
out = open(sys.argv[2], "wb")
p = select.poll(); p.register(fd, select.POLLIN)
end = time.monotonic() + 60
while time.monotonic() < end:
    if not p.poll(1000):
        continue
    b = os.read(fd, 65536)
    if not b:
        break
    out.write(b)
' "$1" "$2" &
  while [ ! -e "$2.ready" ]; do sleep 0.05; done
}

# ------------------------------------------------------------ FIFOs
mkdir "$dir/fifo"
for f in stats html report trace; do
  mkfifo "$dir/fifo/$f"
  reader "$dir/fifo/$f" "$dir/fifo-$f.got"
done
GST_TRACERS="gpuprof(stats=$dir/fifo/stats,html=$dir/fifo/html,report=$dir/fifo/report,trace=$dir/fifo/trace)" \
  gst-launch-1.0 -q $pipeline > "$dir/fifo.log" 2>&1
status=$?
wait
[ $status -eq 0 ] && ok "FIFOs: pipeline ran to the end" || bad "FIFOs: exit $status"
for f in stats html report trace; do
  [ -p "$dir/fifo/$f" ] && ok "FIFOs: $f= still a FIFO" || bad "FIFOs: $f= replaced"
done
json_is "$dir/fifo-stats.got" \
  '.schema == "gpuprof-summary" and .run.checkpoint == false' && ok "FIFOs: the reader got the summary" ||
  bad "FIFOs: no summary through the FIFO: $(head -c 300 "$dir/fifo-stats.got")"
grep -q "<html" "$dir/fifo-html.got" && ok "FIFOs: the reader got the page" ||
  bad "FIFOs: no page through the FIFO"
grep -q "^limit: " "$dir/fifo-report.got" && ok "FIFOs: the reader got the report" ||
  bad "FIFOs: no report through the FIFO"
check_trace "$dir/fifo-trace.got"
n=$(ls "$dir/fifo" | grep -c csv)
[ "$n" -eq 0 ] && ok "FIFOs: no CSV file beside the FIFO" || bad "FIFOs: $n CSV files in $dir/fifo"
n=$(grep -c "stats=$dir/fifo/stats is not a regular file" "$dir/fifo.log")
[ "$n" -eq 1 ] && ok "FIFOs: said once that the CSV files are not written" ||
  { bad "FIFOs: $n lines about the CSV files:"; cat "$dir/fifo.log"; }

# ------------------------------------------------------------ symlinks
mkdir "$dir/links" "$dir/real"
for f in stats.json page.html report.txt trace.json; do
  echo old > "$dir/real/$f"
  ln -s "../real/$f" "$dir/links/$f"
done
GST_TRACERS="gpuprof(stats=$dir/links/stats.json,html=$dir/links/page.html,report=$dir/links/report.txt,trace=$dir/links/trace.json)" \
  gst-launch-1.0 -q $pipeline > "$dir/links.log" 2>&1 ||
  bad "links: gst-launch-1.0 failed: $(cat "$dir/links.log")"
for f in stats.json page.html report.txt trace.json; do
  [ -L "$dir/links/$f" ] && ok "links: $f still a link" || bad "links: $f replaced"
  [ "$(cat "$dir/real/$f")" != old ] && ok "links: its target got the file" ||
    bad "links: the target of $f kept its old content"
done
json_is "$dir/real/stats.json" '.schema == "gpuprof-summary"' ||
  bad "links: the target is no summary"
[ -f "$dir/links/stats-elements.csv" ] && ok "links: the CSV files beside the link" ||
  bad "links: no stats-elements.csv beside the link: $(ls "$dir/links")"
ls -a "$dir/real" "$dir/links" | grep -q gpuprof- && bad "links: a temporary file was left"

# ------------------------------------------------------- full file system
mkdir "$dir/full"
cat > "$dir/full-run.sh" <<EOF
#!/bin/sh
# in its own mount namespace: a tmpfs filled up; else a file size limit
if mount -t tmpfs -o size=64k tmpfs "$dir/full" 2>/dev/null; then
  dd if=/dev/zero of="$dir/full/filler" bs=4k 2>/dev/null
  echo "No space left on device" > "$dir/full-reason"
  limit=
else
  echo "File too large" > "$dir/full-reason"
  limit="ulimit -f 1"
fi
trap '' XFSZ
( \$limit; exec env GST_TRACERS="gpuprof(stats=$dir/full/run.json,html=$dir/full/run.html,report=$dir/full/report.txt,trace=$dir/full/trace.json,interval=0.1)" \
  gst-launch-1.0 -q videotestsrc is-live=true num-buffers=12 \
    ! video/x-raw,width=32,height=32,framerate=10/1 ! fakesink ) 2>&1 | cat
[ -n "\$limit" ] || umount "$dir/full"
EOF
if command -v unshare && unshare -m true 2>/dev/null; then
  unshare -m sh "$dir/full-run.sh" > "$dir/full.log" 2>&1
else
  sh "$dir/full-run.sh" > "$dir/full.log" 2>&1
fi
reason=$(cat "$dir/full-reason")
say "full: $reason"
for f in run.json run.html report.txt trace.json run-live.jsonl; do
  n=$(grep -c "cannot .*'$dir/full/$f'.*: $reason" "$dir/full.log")
  [ "$n" -eq 1 ] && ok "full: one line naming $f and the reason" ||
    { bad "full: $n lines naming $f:"; cat "$dir/full.log"; }
done
grep -q "^limit: " "$dir/full.log" && ok "full: the report reached stderr" ||
  bad "full: the report was lost"

# ------------------------------------------------------ character devices
if mknod "$dir/null" c 1 3 2>/dev/null && mknod "$dir/fulldev" c 1 7 2>/dev/null &&
    echo x > "$dir/null" 2>/dev/null; then
  GST_TRACERS="gpuprof(stats=$dir/null,html=$dir/fulldev,report=off)" \
    gst-launch-1.0 -q $pipeline > "$dir/dev.log" 2>&1 ||
    bad "devices: gst-launch-1.0 failed"
  [ -c "$dir/null" ] && [ -c "$dir/fulldev" ] && ok "devices: still character devices" ||
    bad "devices: replaced: $(ls -l "$dir/null" "$dir/fulldev")"
  ls "$dir" | grep -q "^null-" && bad "devices: CSV files beside the device"
  n=$(grep -c "cannot write html file '$dir/fulldev': No space left on device" "$dir/dev.log")
  [ "$n" -eq 1 ] && ok "devices: ENOSPC of the full device said once" ||
    { bad "devices: $n lines:"; cat "$dir/dev.log"; }
else
  say "SKIP devices: cannot make device nodes here (not root, or nodev)"
fi

# ------------------------------------------------- the process' own stdout
mkdir "$dir/std" "$dir/std/csv"
ln -s /proc/self/fd/1 "$dir/std/out.json"
echo "before" > "$dir/std/stdout.txt"
GST_TRACERS="gpuprof(stats=$dir/std/out.json,stats-dir=$dir/std/csv,report=off)" \
  gst-launch-1.0 -q $pipeline >> "$dir/std/stdout.txt" 2> "$dir/std.log"
[ -L "$dir/std/out.json" ] && ok "stdout: the link stays" || bad "stdout: the link was replaced"
[ "$(head -1 "$dir/std/stdout.txt")" = before ] &&
  tail -n +2 "$dir/std/stdout.txt" | json_is - '.schema == "gpuprof-summary"' &&
  ok "stdout: the summary follows what stdout held" ||
  bad "stdout: $(head -c 300 "$dir/std/stdout.txt")"
[ -f "$dir/std/csv/out-elements.csv" ] && ok "stdout: the CSV files in stats-dir=" ||
  bad "stdout: no CSV in stats-dir: $(ls "$dir/std/csv")"
exit $fail
