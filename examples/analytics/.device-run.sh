#!/bin/bash
# scratch: not committed. Runs on the device machine.
cd "$(dirname "$0")/../.."
B=$PWD/build-ana
OUT=${OUT:-/tmp/out}
nvidia-smi -L
ldd --version | head -1
echo "== bench fp32 512"; $B/examples/analytics/analytics-infer-bench --size 512 --iters 100
echo "== bench fp16 512"; $B/examples/analytics/analytics-infer-bench --size 512 --fp16 --iters 100 --no-cpu
echo "== bench fp32 2048 x 8"; $B/examples/analytics/analytics-infer-bench --size 2048 --layers 8 --iters 50 --no-cpu
BUN=$B/gstbundle
export LD_LIBRARY_PATH=$BUN/lib:$B/gst
export PATH=$BUN/bin:$PATH
export GST_PLUGIN_SYSTEM_PATH_1_0=$BUN/plugins
export GST_PLUGIN_SCANNER_1_0=$BUN/bin/gst-plugin-scanner
gst-inspect-1.0 --version || exit 0
gst-inspect-1.0 openh264dec | head -3
export GST_REGISTRY_1_0=/tmp/reg.bin
export GST_PLUGIN_PATH_1_0=$B/examples/analytics
GST_DEBUG=analyticsinfer:4 gst-launch-1.0 -q videotestsrc num-buffers=2 ! analyticsmux.sink_0 analyticsmux name=analyticsmux ! analyticsinfer device=gpu ! fakesink 2>&1 | grep -iE "inference on|error|GPU" | cut -c 1-300
for t in mux infer tracker osd; do GST_DEBUG=check:4 $B/tests/analytics/test-analytics-$t 2>&1 | grep -E "Checks|:F:|:E:|ran on" | cut -c 1-300; done
unset GST_PLUGIN_PATH_1_0
echo "== infer self time per batch of 16 frames vs infer batch-size (16 streams 640x360, mux batch 16, queues, no osd)"
for dev in gpu cpu; do for size in 512 2048; do for ib in 1 2 4 8 16; do
  [ $dev = cpu ] && [ $size = 2048 ] && continue
  GST_TRACERS="gpuprof(report=/tmp/r.txt)" examples/analytics/pipeline.sh -b $B -n 16 -f 100 -m 16 -i $ib --osd off --queues on --infer-size $size --device $dev --src-size 640x360 --size 640x360 -- -q >/tmp/log.txt 2>&1 || { tail -5 /tmp/log.txt; }
  echo "$dev size=$size ib=$ib $(grep analyticsinfer0 /tmp/r.txt | awk '{print "buf_in="$4, "self_per_batch_us="$7, "p50="$8}')"
done; done; done
echo "== end-to-end fps, gpu, default knobs vs tuned, 1/4/16 streams"
for n in 1 4 16; do
  s=$(date +%s%N); examples/analytics/pipeline.sh -b $B -n $n -f 300 -- -q; e=$(date +%s%N)
  echo "streams=$n default fps=$(awk -v n=$((n*300)) -v t=$((e-s)) 'BEGIN{printf "%.1f", n/(t/1e9)}')"
  s=$(date +%s%N); examples/analytics/pipeline.sh -b $B -n $n -f 300 -m $n -t 40000 -i $n --queues on -- -q; e=$(date +%s%N)
  echo "streams=$n tuned(batch=n,queues) fps=$(awk -v n=$((n*300)) -v t=$((e-s)) 'BEGIN{printf "%.1f", n/(t/1e9)}')"
done
echo "== tune 4"; examples/analytics/tune.sh -b $B -n 4 -f 300 -o $OUT/tune4 2>/dev/null
echo "== tune 16"; examples/analytics/tune.sh -b $B -n 16 -f 300 -o $OUT/tune16 2>/dev/null
