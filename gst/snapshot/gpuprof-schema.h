/* gpuprof: the one definition of every output table.
 *
 * Each table is an X-macro list of its columns, F (member, TYPE, description).
 * From these lists come the row structs (gpuprof-snapshot.h), the JSON, CSV
 * and GstTracerRecord writers (gpuprof-summary.c), the action-signal
 * structures, the reader in tools/ and `gst-gpuprof diff`. A new column is
 * one line here; docs/summary-schema.md describes the tables.
 *
 * TYPE is STRING (gchar *, may be NULL), U64 (guint64), DOUBLE (gdouble) or
 * BOOLEAN (gboolean). Times are ns, sizes bytes, fractions 0..1.
 */
#pragma once

#include "gpuprof-api.h"

#include <glib.h>

G_BEGIN_DECLS

#define GPUPROF_SCHEMA_CTYPE_STRING gchar *
#define GPUPROF_SCHEMA_CTYPE_U64 guint64
#define GPUPROF_SCHEMA_CTYPE_DOUBLE gdouble
#define GPUPROF_SCHEMA_CTYPE_BOOLEAN gboolean

/* expands a column list into struct members */
#define GPUPROF_SCHEMA_MEMBER(member, type, desc) \
  GPUPROF_SCHEMA_CTYPE_##type member;

/* One row: the run itself (members of GpuprofSnapshot). The verdict is
 * rank 1 of the limits table (limit_*), then the runner-up (next_*); the
 * bottleneck_* fields are the busiest stage, whether it limits or not. */
#define GPUPROF_SCHEMA_RUN(F) \
  F (pipeline, STRING, "pipeline name") \
  F (wall_ns, U64, "first to last activity, ns") \
  F (bottleneck, STRING, "busiest stage: element whose thread is busiest (it limits only where limit_kind is \"stage\"); null when none") \
  F (bottleneck_thread, STRING, "that thread") \
  F (bottleneck_busy, DOUBLE, "its occupancy: the share of that thread's wall time in the bottleneck's work (its thread_self_ns / thread_wall_ns: on a CPU, waiting for a core or blocked in its calls; start-up apart, a source's wait for a core added), 0..1") \
  F (bottleneck_ns_per_buffer, U64, "self time per buffer of the bottleneck, ns") \
  F (input_bound, BOOLEAN, "the pipeline mostly waits for a source: 'input_source' waited for data over half its thread's wall time") \
  F (input_source, STRING, "source that waited longest for input; null when none waited") \
  F (input_wait_ns, U64, "time that source waited for input, ns") \
  F (cpu_used, DOUBLE, "cores the process used on average in the run: its CPU time (getrusage) over the sampler's wall time; 0 without the sampler (sample-hz=0)") \
  F (cpu_available, DOUBLE, "cores it may use: the fewest of the CPUs online, its affinity mask and its cgroup's CPU quota (docs/resources.md)") \
  F (cpu_limited_by, STRING, "which limit gives cpu_available: online, affinity or quota; null without the sampler") \
  F (cpu_throttled_ns, U64, "time the cgroup whose quota binds held the process's threads in the run (cpu.stat), ns; 0 without a quota") \
  F (cpu_wait_core_ns, U64, "time the process's threads were runnable but waited for a core in the run (schedstat run_delay, summed over its threads), ns") \
  F (process_cpu_ns, U64, "CPU time of the whole process in the run (getrusage: user + system, ended threads included), ns") \
  F (attributed_cpu_ns, U64, "the part of process_cpu_ns on rows of the threads table with an owner: an element, the application or the process's helpers (not the unattributed rows), ns") \
  F (tracer_overhead_ns, U64, "estimated CPU time of gpuprof's own buffer-path hooks (push, chain; docs/metrics.md#overhead): mean of the sampled pushes times the buffers pushed, ns") \
  F (tracer_overhead_samples, U64, "pushes sampled for it (1 in 1024 per thread); 0: no estimate") \
  F (checkpoint, BOOLEAN, "a checkpoint: the run so far, written while it went on (checkpoint=); false: the end of the run") \
  F (taken_ns, U64, "when the figures were taken, ns on the tracer clock (the trace's): they cover the run up to then") \
  F (taken_utc, STRING, "the same moment, UTC, ISO 8601") \
  F (limit_kind, STRING, "what limits the run (rank 1 of the limits table): stage, cpu, gpu, input or clock; null when nothing was measured") \
  F (limit_what, STRING, "which: element path, \"cpus\", \"GPU 0 NVDEC\", source path, sink path") \
  F (limit_utilisation, DOUBLE, "its utilisation, 0..1 (a pacer's: the busiest stage's)") \
  F (limit_headroom, DOUBLE, "how much faster the pipeline could go before something else limits: 1 for a saturated stage or resource; a pacer's: 1 / the busiest stage's utilisation; 0 unknown") \
  F (limit_rate, DOUBLE, "buffers per second through what limits (a pacer's rate), 0 unknown") \
  F (next_kind, STRING, "the runner-up (rank 2): its kind; null when none") \
  F (next_what, STRING, "the runner-up: which") \
  F (next_utilisation, DOUBLE, "the runner-up's utilisation, 0..1") \
  F (drops, U64, "buffers dropped on the way (leaky queues), all queues") \
  F (drops_where, STRING, "where they were dropped: the queue that dropped most, null when none") \
  F (window_start_ns, U64, "window=: when the measurement window opened, ns on the tracer clock; 0: no window (the whole run)") \
  F (window_end_ns, U64, "when it closed; 0: open to the end") \
  F (window_profiler, STRING, "what the CUDA profiler API said at its edges: cuProfilerStart/Stop on which contexts, or why not; empty without a window")

#define GPUPROF_SCHEMA_ELEMENTS(F) \
  F (path, STRING, "element path, e.g. pipeline0/infer") \
  F (factory, STRING, "element factory name") \
  F (role, STRING, "source, filter, queue, aggregator or sink") \
  F (thread, STRING, "thread where the element spent most self time") \
  F (buffers_in, U64, "buffers received on its sink pads") \
  F (buffers_out, U64, "buffers pushed from its src pads") \
  F (calls, U64, "chain calls, or source loop iterations") \
  F (self_ns, U64, "total self time, ns") \
  F (incl_ns, U64, "total inclusive time of its calls, ns") \
  F (self_p50_ns, U64, "median self time per call, ns") \
  F (self_p95_ns, U64, "95th percentile self time per call, ns") \
  F (self_p99_ns, U64, "99th percentile self time per call, ns") \
  F (self_max_ns, U64, "largest self time of one call, ns") \
  F (thread_self_ns, U64, "self time on 'thread' in the steady state (its start-up there, first_ns, left out), ns") \
  F (thread_wall_ns, U64, "wall time of 'thread' during the run (the window), less its first call's when that ran there, ns") \
  F (busy, DOUBLE, "on-CPU work over wall: its CPU on its busiest thread / that thread's wall time in the run, 0..1 (the sampler's; without it, sample-hz=0: thread_self_ns / thread_wall_ns)") \
  F (cpu_ns, U64, "its work on a CPU, on all its threads: its share of the CPU of the threads its calls ran on and the CPU of the threads it owns outside its calls (workers it started, its task's loop), from the sampler, ns") \
  F (wait_core_ns, U64, "time its threads were runnable but waiting for a core while in its work (run delay, apportioned like the CPU), ns") \
  F (threads, U64, "threads its work ran on, its own included (the sampler's)") \
  F (blocked_ns, U64, "time upstream threads waited inside its chain calls (full queue, a muxer's hand-over), ns") \
  F (waits_on_clock, BOOLEAN, "synced sink or live source: times include clock waits") \
  F (wait_input_ns, U64, "its loop off the CPU between pushes: waiting for data (appsrc, socket, clock), ns; its run delay there (waiting for a core, the sampler's) is not in it") \
  F (gpu_wait_ns, U64, "time its threads waited on the GPU (CUDA synchronize, event waits; CUPTI on), inside its calls or on a thread it owns; not in self_ns nor busy, ns") \
  F (async, BOOLEAN, "asynchronous: its buffers leave on a thread it owns, outside its chain calls; self_ns is then its work on all its threads") \
  F (worker_ns, U64, "CPU time of its worker threads, part of self_ns (asynchronous elements), ns") \
  F (residency_p50_ns, U64, "median time a buffer spent inside it, chain arrival -> push out (asynchronous elements), ns") \
  F (residency_p99_ns, U64, "99th percentile of that residency, ns") \
  F (residency_mean_ns, U64, "mean residency, ns") \
  F (in_flight_mean, DOUBLE, "buffers inside it on average: total residency / time from its first arrival to its last push") \
  F (in_flight_max, U64, "most buffers it held at once: its chain call returned, the push taking it out had not") \
  F (clock_wait_ns, U64, "time it waited on the clock (a synced sink, identity/clocksync sync=true, a live source's wait for its next frame): not in self_ns nor busy, ns") \
  F (first_ns, U64, "its start-up: self time of its first call (a decoder's or engine's creation) and, with window=, of every call before the window opened; part of self_ns and cpu_ns, not in the percentiles, thread_self_ns, busy nor the verdict, ns") \
  F (first_calls, U64, "the calls of first_ns")

#define GPUPROF_SCHEMA_QUEUES(F) \
  F (path, STRING, "queue path") \
  F (buffers, U64, "buffers dequeued (pushed out)") \
  F (residency_p50_ns, U64, "median time a buffer spent queued, ns") \
  F (residency_p99_ns, U64, "99th percentile residency, ns") \
  F (residency_max_ns, U64, "largest residency, ns") \
  F (residency_mean_ns, U64, "mean residency, ns") \
  F (max_level_buffers, U64, "most buffers queued at once") \
  F (level_buffers, U64, "buffers queued at the snapshot (0 at the end of a run: the queue was emptied)") \
  F (level_bytes, U64, "bytes queued at the snapshot") \
  F (max_level_bytes, U64, "most bytes queued at once") \
  F (max_level_time_ns, U64, "most buffer duration queued at once, ns") \
  F (backpressure_ns, U64, "time the upstream thread was blocked on the full queue, ns") \
  F (upstream_wall_ns, U64, "wall time of the upstream thread, ns") \
  F (drops, U64, "buffers dropped by a leaky queue") \
  F (flushed, U64, "buffers discarded by flushes") \
  F (left, U64, "buffers never pushed: downstream stopped, or inside when the run ended")

#define GPUPROF_SCHEMA_THREADS(F) \
  F (name, STRING, "thread name, from its GstTask, else the kernel's") \
  F (wall_ns, U64, "wall time of the thread during the run (a worker: first seen to last read alive), ns") \
  F (busy_ns, U64, "its work: the sum of element self time on the thread (its GPU waits inside calls taken out); a worker's (runs no element call): its CPU time on its thread CPU clock, ns") \
  F (top_element, STRING, "element with the most self time on the thread; a worker's: its owner") \
  F (owner, STRING, "element that owns the thread (its pad task, created by it in a state change or one of its first calls, or pushing on its src pad outside a chain call); empty: the application or the process") \
  F (kind, STRING, "streaming, worker, output, application, process (GLib's and GStreamer's helpers, GLib's pool threads between tasks, gpuprof's own) or unattributed (no owner told; the row \"(rest of the process)\": process CPU on no row)") \
  F (cpu_ns, U64, "its time on a CPU in the run (schedstat), ns") \
  F (run_delay_ns, U64, "its time runnable but waiting for a core in the run (schedstat run_delay), ns") \
  F (off_cpu_ns, U64, "the rest of its time in the run: blocked, waiting for input, on the clock or the GPU (the sampler's wall for it - cpu_ns - run_delay_ns), ns") \
  F (tid, U64, "the kernel's thread id; 0 for the row of the rest of the process")

/* the pipeline's topology: one row per linked src pad, read from the pads
 * at snapshot time (no hook cost); ghost pads are followed to the element */
#define GPUPROF_SCHEMA_LINKS(F) \
  F (src, STRING, "upstream element path") \
  F (src_pad, STRING, "its src pad") \
  F (sink, STRING, "downstream element path, through ghost pads") \
  F (sink_pad, STRING, "its sink pad") \
  F (buffers, U64, "buffers pushed through the link in the run")

#define GPUPROF_SCHEMA_BATCHES(F) \
  F (path, STRING, "aggregator path") \
  F (factory, STRING, "aggregator factory name") \
  F (batches, U64, "buffers pushed, one per batch") \
  F (frames, U64, "input buffers taken into the batches") \
  F (frames_mean, DOUBLE, "frames per batch") \
  F (frames_p99, U64, "99th percentile frames per batch") \
  F (batch_size, U64, "its batch-size property, 0 when none") \
  F (fill, DOUBLE, "frames_mean / batch_size, 0..1; 0 when no batch-size") \
  F (inputs, U64, "sink pads that delivered frames (live inputs)") \
  F (inputs_mean, DOUBLE, "distinct inputs per batch") \
  F (wait_p50_ns, U64, "median formation wait (first input -> push), ns") \
  F (wait_p99_ns, U64, "99th percentile formation wait, ns") \
  F (full, U64, "pushes with batch-size frames") \
  F (timeout, U64, "partial pushes before the end (timeout)") \
  F (eos, U64, "partial last push at EOS") \
  F (interval_ns, U64, "mean time between pushes, ns") \
  F (frame_interval_ns, U64, "frame interval of the inputs, ns; 0 unknown") \
  F (latency_p50_ns, U64, "median push -> sink, ns; 0 when no sink saw it") \
  F (latency_p99_ns, U64, "99th percentile push -> sink, ns")

#define GPUPROF_SCHEMA_STAGES(F) \
  F (path, STRING, "stage (element) path") \
  F (factory, STRING, "factory name") \
  F (aggregator, STRING, "aggregator whose batches it processed") \
  F (thread, STRING, "thread where it spent most self time") \
  F (batches, U64, "batches processed") \
  F (frames, U64, "frames in those batches") \
  F (self_ns, U64, "self time spent on batches, ns") \
  F (ns_per_batch, U64, "self time per batch, ns") \
  F (ns_per_frame, U64, "self time per frame, ns") \
  F (gpu_ns, U64, "GPU time attributed (CUPTI), ns; 0 when off") \
  F (gpu_ns_per_batch, U64, "GPU time per batch, ns") \
  F (batch_size, U64, "its own batch-size property, 0 when none") \
  F (interval, U64, "its interval property + 1, 0 when none") \
  F (fill_lo_frames, U64, "smallest fill seen in >= 4 batches") \
  F (fill_lo_ns_per_frame, U64, "self time per frame at that fill, ns") \
  F (fill_hi_frames, U64, "largest fill seen in >= 4 batches") \
  F (fill_hi_ns_per_frame, U64, "self time per frame at that fill, ns") \
  F (waits_on_clock, BOOLEAN, "synced sink: time includes clock waits") \
  F (span_ns, U64, "first batch's push (aggregator: first input) to the end of its last batch, ns") \
  F (util, DOUBLE, "self_ns / span_ns: busy share of the time it had batches, 0..1") \
  F (limiting, BOOLEAN, "the stage that limits throughput")

/* per source (docs/summary-schema.md#streams): its frames followed to the
 * sinks, through a batching mux by the frames each batch took */
#define GPUPROF_SCHEMA_STREAMS(F) \
  F (source, STRING, "source element path") \
  F (source_id, U64, "index of the batching mux's sink pad its frames enter (DeepStream's source_id); without one, numbered after the mux inputs in path order") \
  F (mux_pad, STRING, "that mux input, e.g. pipeline0/mux:sink_2; empty when none") \
  F (frames, U64, "frames the source pushed") \
  F (active_ns, U64, "its first push to its last, ns") \
  F (fps, DOUBLE, "frames per second over its own active time: (frames - 1) / active_ns") \
  F (fps_recent, DOUBLE, "frames per second over the last 4 whole seconds (fewer just after its start); 0 once it stopped pushing") \
  F (delivered, U64, "frames that reached a sink, alone or in a batch") \
  F (drops, U64, "frames older than the newest delivered one that reached no sink (leaky queue, mux or QoS drops, or not followed)") \
  F (latency_p50_ns, U64, "median source push -> a sink receives the frame or its batch, ns") \
  F (latency_p99_ns, U64, "99th percentile of that latency, ns") \
  F (latency_max_ns, U64, "largest latency, ns")

/* elements that left a pipeline while its run went on (removed from it,
 * or destroyed in it: a camera taken out of a service), folded per
 * factory: bounded however many come and go (docs/tracer.md#removed) */
#define GPUPROF_SCHEMA_REMOVED(F) \
  F (factory, STRING, "factory of the elements folded in this row") \
  F (role, STRING, "their role: source, filter, queue, aggregator or sink") \
  F (elements, U64, "elements of this factory that left the pipeline while its run went on, with figures of the run: folded here, with no row of their own in the other tables") \
  F (buffers_in, U64, "buffers they received (their elements.buffers_in summed)") \
  F (buffers_out, U64, "buffers they pushed (elements.buffers_out)") \
  F (calls, U64, "their calls (elements.calls)") \
  F (self_ns, U64, "their self time (elements.self_ns), ns") \
  F (blocked_ns, U64, "time upstream threads waited inside their chain calls (elements.blocked_ns), ns") \
  F (wait_input_ns, U64, "their loops' wait for input (elements.wait_input_ns), ns") \
  F (frames, U64, "frames those of them that were sources pushed (streams.frames)") \
  F (delivered, U64, "of those frames, the ones that reached a sink (streams.delivered)") \
  F (drops, U64, "their streams' drops (streams.drops)") \
  F (queue_drops, U64, "buffers those of them that were leaky queues dropped (queues.drops)") \
  F (last, STRING, "path of the last of them that left")

/* per buffer pool (GStreamer >= 1.28's pool hooks, docs/tracer.md#pools):
 * empty before 1.28. Pools destroyed in the run are folded into one row,
 * "(destroyed)": bounded however many come and go */
#define GPUPROF_SCHEMA_POOLS(F) \
  F (pool, STRING, "the pool's name (videobufferpool0), or \"(destroyed)\": the pools destroyed in the run, summed") \
  F (element, STRING, "the element that acquires from it: whose call (or source loop) ran on the thread of its latest acquire; empty when none did") \
  F (pools, U64, "pools in this row: 1, or the destroyed ones") \
  F (acquired, U64, "buffers taken from its free list by acquires (pool-buffer-dequeued): acquires that allocated a new buffer are not seen") \
  F (returned, U64, "buffers put back on its free list (pool-buffer-queued): releases, and the buffers it made at its start") \
  F (buffers, U64, "distinct buffers seen on its free list: those it holds, free or out") \
  F (free, U64, "buffers on its free list at the snapshot") \
  F (outstanding, U64, "buffers out (acquired, not returned) at the snapshot: buffers - free") \
  F (outstanding_max, U64, "most buffers out at once, seen at an acquire") \
  F (min_buffers, U64, "its configured min-buffers (read from its config at the snapshot; the last read once destroyed)") \
  F (max_buffers, U64, "its configured max-buffers; 0: no maximum (an acquire on an empty free list allocates)") \
  F (empties, U64, "times its free list ran empty at an acquire: every buffer out") \
  F (empty_ns, U64, "time its free list was empty, up to the snapshot, ns: with buffers = max_buffers an acquire in that time waits for a release (the hooks do not say whether one did: an upper bound of the waits)") \
  F (empty_max_ns, U64, "longest time it stayed empty, ns")

/* distributions as cumulative counts on a fixed ladder of doubling upper
 * bounds (Prometheus histograms, docs/metrics.md#histograms): copies of
 * the in-memory histograms taken at the snapshot. The ladder's edges are
 * powers of two of the recorded unit (ns, frames), bucket edges of the
 * log-linear histograms, so the counts are exact */
#define GPUPROF_SCHEMA_HISTOGRAMS(F) \
  F (name, STRING, "batch_latency (push -> sink, s), batch_frames (frames per batch), stream_latency (source push -> sink, s) or element_self (self time per call, s)") \
  F (owner, STRING, "aggregator, source or element path") \
  F (count, U64, "samples: the sum of the buckets read") \
  F (sum, DOUBLE, "sum of the samples, in the histogram's unit (seconds or frames)") \
  F (le_first, DOUBLE, "upper bound of le_00 in that unit (2^19 ns = 0.000524288 s, or 1 frame); le_k's is le_first * 2^k") \
  F (le_00, U64, "samples <= le_first * 2^0, cumulative") \
  F (le_01, U64, "samples <= le_first * 2^1, cumulative") \
  F (le_02, U64, "samples <= le_first * 2^2, cumulative") \
  F (le_03, U64, "samples <= le_first * 2^3, cumulative") \
  F (le_04, U64, "samples <= le_first * 2^4, cumulative") \
  F (le_05, U64, "samples <= le_first * 2^5, cumulative") \
  F (le_06, U64, "samples <= le_first * 2^6, cumulative") \
  F (le_07, U64, "samples <= le_first * 2^7, cumulative") \
  F (le_08, U64, "samples <= le_first * 2^8, cumulative") \
  F (le_09, U64, "samples <= le_first * 2^9, cumulative") \
  F (le_10, U64, "samples <= le_first * 2^10, cumulative") \
  F (le_11, U64, "samples <= le_first * 2^11, cumulative") \
  F (le_12, U64, "samples <= le_first * 2^12, cumulative") \
  F (le_13, U64, "samples <= le_first * 2^13, cumulative") \
  F (le_14, U64, "samples <= le_first * 2^14, cumulative") \
  F (le_15, U64, "samples <= le_first * 2^15, cumulative") \
  F (le_inf, U64, "samples above le_15's bound: count - le_15")

#define GPUPROF_SCHEMA_ADVICE(F) \
  F (rule, STRING, "mux-batch, mux-timeout, infer-batch, queue, interval or drop-osd") \
  F (stage, STRING, "element whose knob it is") \
  F (setting, STRING, "the knob and its value, e.g. batch-size=8") \
  F (reason, STRING, "why, with the numbers")

/* GPU (CUPTI) tables, empty without GPU attribution (docs/gpu.md) */

/* per element, then one row per thread whose launches found no element */
#define GPUPROF_SCHEMA_GPU_ELEMENTS(F) \
  F (path, STRING, "element path, or \"unattributed (thread NAME)\"") \
  F (thread, STRING, "launching thread of an unattributed row, else empty") \
  F (gpu_ns, U64, "GPU time: kernels + copies + memsets, ns") \
  F (kernel_ns, U64, "kernel time, ns") \
  F (copy_ns, U64, "memcpy time, ns") \
  F (memset_ns, U64, "memset time, ns") \
  F (kernels, U64, "kernels launched") \
  F (copies, U64, "memcpys") \
  F (memsets, U64, "memsets") \
  F (copy_bytes, U64, "bytes copied") \
  F (memset_bytes, U64, "bytes set") \
  F (by_thread_ns, U64, "part of gpu_ns attributed by the launching thread's last element, ns") \
  F (buffers, U64, "buffers (or batches) that carried GPU work; 0 for unattributed rows") \
  F (ns_per_buffer, DOUBLE, "gpu_ns / buffers, ns; 0 when no buffers") \
  F (wait_ns, U64, "unattributed rows: time the thread waited on the GPU (synchronize calls) outside any element, ns; element rows: its gpu_wait_ns")

/* the most expensive kernels, per (name, element), at most 10 */
#define GPUPROF_SCHEMA_GPU_KERNELS(F) \
  F (name, STRING, "kernel name") \
  F (element, STRING, "element it is attributed to, or \"unattributed\"") \
  F (calls, U64, "launches") \
  F (ns, U64, "total time, ns")

#define GPUPROF_SCHEMA_GPU_DEVICES(F) \
  F (device, U64, "CUDA device id") \
  F (busy_ns, U64, "union of its record intervals, ns") \
  F (span_ns, U64, "the window busy is measured over: the run, else first to last record, ns") \
  F (busy, DOUBLE, "busy_ns / span_ns, 0..1") \
  F (first_ns, U64, "start of its first record, monotonic ns") \
  F (last_ns, U64, "end of its last record, monotonic ns") \
  F (gaps, U64, "idle gaps listed below (at most 5)") \
  F (gap1_ns, U64, "longest idle gap, ns") \
  F (gap2_ns, U64, "second longest idle gap, ns") \
  F (gap3_ns, U64, "third longest idle gap, ns") \
  F (gap4_ns, U64, "fourth longest idle gap, ns") \
  F (gap5_ns, U64, "fifth longest idle gap, ns")

/* one row when GPU attribution was on, none otherwise */
#define GPUPROF_SCHEMA_GPU(F) \
  F (records, U64, "GPU records settled (kernels, copies, memsets)") \
  F (dropped, U64, "records CUPTI dropped (buffers full): in no figure") \
  F (unjoined, U64, "records settled without their API record") \
  F (pending, U64, "records delivered but not settled at the report") \
  F (total_ns, U64, "GPU time of every settled record, ns") \
  F (path, STRING, "how calls were seen: \"callback\" (at launch) or \"activity\" (external correlation records)") \
  F (external_ns, U64, "attributed to the element whose call ran on the launching thread (read at launch, or by external id), ns") \
  F (thread_ns, U64, "attributed to the launching thread's owner or last element, ns") \
  F (unattributed_ns, U64, "neither, ns") \
  F (untimed, U64, "records without timestamps (counted, 0 ns)") \
  F (graph_records, U64, "records launched by a CUDA graph") \
  F (early, U64, "records starting before their API call (clock mismatch; 0 expected)") \
  F (ncu, STRING, "the Nsight Compute command that profiles the top kernels of the stage with the most kernel time, inside the window (docs/resources.md); empty when no kernel was listed")

/* Shared resources (docs/summary-schema.md#resources): one row per
 * resource, filled by the samplers (the CPUs; GPU engines from NVML),
 * read by the verdict. */
#define GPUPROF_SCHEMA_RESOURCES(F) \
  F (kind, STRING, "cpu, gpu-sm, gpu-nvdec, gpu-nvenc, gpu-copy, gpu-memory or gpu-clock") \
  F (name, STRING, "\"cpus\", or the GPU: \"GPU 0 NVIDIA H100 80GB HBM3\"") \
  F (device, STRING, "the GPU's UUID; empty for cpu") \
  F (utilisation, DOUBLE, "mean over the run window, 0..1 (cpu: cores used / cores available)") \
  F (peak, DOUBLE, "highest sampled value, 0..1") \
  F (saturated, DOUBLE, "share of the samples at or above the kind's saturation threshold, 0..1") \
  F (samples, U64, "samples read") \
  F (detail, STRING, "short evidence, e.g. \"1.97 of 2 cores (affinity 2 of 2, no quota)\"")

/* The ranked verdict (docs/tracer.md#report-and-verdict): what limits the
 * run, then the candidates behind it, from gpuprof_limits_rank()
 * (gpuprof-limits.h) */
#define GPUPROF_SCHEMA_LIMITS(F) \
  F (rank, U64, "1 = what limits the run, 2 = the runner-up, ...") \
  F (kind, STRING, "stage, cpu, gpu, input or clock") \
  F (what, STRING, "element path, \"cpus\", \"GPU 0 NVDEC\", source path, sink path") \
  F (utilisation, DOUBLE, "how busy it is, 0..1 (a pacer's: the busiest stage's)") \
  F (headroom, DOUBLE, "how much faster the pipeline could go before this limits: 1 / utilisation; a pacer's: 1 / the busiest stage's utilisation; 0 unknown") \
  F (rate, DOUBLE, "buffers per second through it, 0 unknown") \
  F (evidence, STRING, "the figures it is judged on") \
  F (advice, STRING, "what to do about it; empty when nothing")

/* the GPU's engines from NVML over the run (docs/resources.md): one row
 * per device the pipeline uses, empty without NVML (nvml=off, no GPU) */
#define GPUPROF_SCHEMA_GPU_RESOURCES(F) \
  F (device, STRING, "the GPU's UUID, GPU-..., as NVML gives it") \
  F (name, STRING, "GPU N and its product: GPU 0 NVIDIA H100 80GB HBM3 (N: NVML's index)") \
  F (used_by, STRING, "how the pipeline was found to use it: CUDA device 0 (CUPTI), an element's property, or all devices when neither told") \
  F (readings, U64, "NVML readings in the run (its window)") \
  F (span_ns, U64, "first to last of those readings, ns") \
  F (sm, DOUBLE, "mean SM utilisation: share of NVML's sample period in which a kernel ran (nvidia-smi dmon's sm), 0..1") \
  F (sm_peak, DOUBLE, "highest SM reading, 0..1") \
  F (sm_saturated, DOUBLE, "share of readings with SM at or above 90 %, 0..1") \
  F (mem, DOUBLE, "mean memory utilisation: share of the period device memory was read or written (dmon's mem), 0..1") \
  F (mem_peak, DOUBLE, "highest memory reading, 0..1") \
  F (mem_saturated, DOUBLE, "share of readings with memory at or above 90 %, 0..1") \
  F (dec, DOUBLE, "mean NVDEC utilisation (dmon's dec), 0..1") \
  F (dec_peak, DOUBLE, "highest NVDEC reading, 0..1") \
  F (dec_saturated, DOUBLE, "share of readings with NVDEC at or above 90 %, 0..1") \
  F (enc, DOUBLE, "mean NVENC utilisation (dmon's enc), 0..1") \
  F (enc_peak, DOUBLE, "highest NVENC reading, 0..1") \
  F (enc_saturated, DOUBLE, "share of readings with NVENC at or above 90 %, 0..1") \
  F (mem_used_peak, U64, "most device memory in use, all processes, bytes") \
  F (mem_total, U64, "device memory, bytes") \
  F (clock_mhz, DOUBLE, "mean SM clock, MHz") \
  F (clock_max_mhz, U64, "its maximum, MHz") \
  F (throttled, DOUBLE, "share of readings whose clocks were held down by power, heat or a hardware slowdown (not idle), 0..1") \
  F (power_capped, DOUBLE, "share of readings with sw_power_cap or hw_power_brake, 0..1") \
  F (thermal, DOUBLE, "share of readings with sw_thermal or hw_thermal, 0..1") \
  F (hw_slowdown, DOUBLE, "share of readings with hw_slowdown, 0..1") \
  F (reasons, STRING, "every clock event reason seen and its share of the readings: sw_power_cap 40%, gpu_idle 5%; empty when none") \
  F (self_known, BOOLEAN, "NVML gave per-process samples: the self_ shares below are known") \
  F (self_sm, DOUBLE, "this process's share of the device's SM time (its samples over all processes'), 0..1") \
  F (self_dec, DOUBLE, "this process's share of the NVDEC time, 0..1") \
  F (self_enc, DOUBLE, "this process's share of the NVENC time, 0..1") \
  F (processes, U64, "most processes NVML saw using the GPU between two readings") \
  F (last_sm, DOUBLE, "the newest reading's SM utilisation, 0..1") \
  F (last_mem, DOUBLE, "the newest reading's memory utilisation, 0..1") \
  F (last_dec, DOUBLE, "the newest reading's NVDEC utilisation, 0..1") \
  F (last_enc, DOUBLE, "the newest reading's NVENC utilisation, 0..1") \
  F (last_reasons, STRING, "the newest reading's clock event reasons; none") \
  F (last_mem_used, U64, "the newest reading's device memory in use, all processes, bytes") \
  F (read_period_ns, U64, "NVML was read every this often: 1 / nvml-hz, longer when a reading cost more than 1 % of a core, ns") \
  F (read_cpu_ns, U64, "mean CPU time of one reading of all devices on the sampler thread, ns") \
  F (read_wall_ns, U64, "mean wall time of one reading, ns") \
  F (missing, STRING, "NVML calls this driver lacks (their fields stay 0); empty when none")

/* Live tables (interval=, docs/live.md): the figures of one interval, the
 * differences between two snapshots of a run. They are the "interval"
 * object of the JSON Lines, the interval columns of the live CSV files and
 * the "gpuprof-interval-*" tracer records; not tables of the summary. */
#define GPUPROF_SCHEMA_INTERVAL_ELEMENTS(F) \
  F (path, STRING, "element path") \
  F (buffers, U64, "buffers in the interval: a sink's received, otherwise pushed") \
  F (self_ns, U64, "self time in the interval, ns") \
  F (blocked_ns, U64, "time upstream threads waited inside its chain calls in the interval, ns") \
  F (wait_input_ns, U64, "its loop's wait for input in the interval, ns") \
  F (fps, DOUBLE, "buffers / interval_s")

#define GPUPROF_SCHEMA_INTERVAL_QUEUES(F) \
  F (path, STRING, "queue path") \
  F (level_buffers, U64, "buffers queued at the snapshot") \
  F (level_bytes, U64, "bytes queued at the snapshot") \
  F (buffers, U64, "buffers dequeued in the interval")

/* per source, row for row with the streams table */
#define GPUPROF_SCHEMA_INTERVAL_STREAMS(F) \
  F (source, STRING, "source element path") \
  F (source_id, U64, "its source_id, as in the streams table") \
  F (frames, U64, "frames the source pushed in the interval") \
  F (fps, DOUBLE, "frames / interval_s") \
  F (delivered, U64, "frames of the stream that reached a sink in the interval") \
  F (drops, U64, "frames newly counted as dropped in the interval") \
  F (latency_p50_ns, U64, "median source push -> sink latency so far (cumulative: the snapshot keeps no per-interval percentile), ns")

/* per GPU, row for row with the gpu_resources table: NVML's figures of
 * the readings in the interval (NVDEC % over time beside fps) */
#define GPUPROF_SCHEMA_INTERVAL_GPUS(F) \
  F (device, STRING, "the GPU's UUID, as in the gpu_resources table") \
  F (name, STRING, "GPU N and its product") \
  F (readings, U64, "NVML readings in the interval") \
  F (sm, DOUBLE, "mean SM utilisation of those readings, 0..1") \
  F (mem, DOUBLE, "mean memory utilisation, 0..1") \
  F (dec, DOUBLE, "mean NVDEC utilisation, 0..1") \
  F (enc, DOUBLE, "mean NVENC utilisation, 0..1") \
  F (clock_mhz, DOUBLE, "mean SM clock, MHz") \
  F (throttled, DOUBLE, "share of those readings with clocks held down, 0..1")

typedef enum
{
  GPUPROF_FIELD_STRING,         /* gchar *, may be NULL */
  GPUPROF_FIELD_U64,            /* guint64 */
  GPUPROF_FIELD_DOUBLE,         /* gdouble */
  GPUPROF_FIELD_BOOLEAN,        /* gboolean */
} GpuprofFieldType;

/**
 * GpuprofSummaryField:
 * @name: key in JSON, column in CSV, field in the tracer record and in the
 *   action signals' structures (one key style: snake_case)
 * @type: C type of the member
 * @offset: offset of the member in the row struct
 * @description: meaning and unit, for the tracer record and the docs
 */
typedef struct
{
  const gchar *name;
  GpuprofFieldType type;
  gsize offset;
  const gchar *description;
} GpuprofSummaryField;

/**
 * GpuprofSummaryTable:
 * @name: JSON key and CSV file suffix ("elements", "gpu_kernels", ...)
 * @record: singular name: the tracer record "gpuprof-@record" and the
 *   action-signal structure of the same name
 * @row_size: sizeof the row struct
 * @fields: the row's fields, in output order
 * @n_fields: length of @fields
 * @n_key: leading fields that name a row (diff matches rows by them)
 * @single: at most one row: JSON writes an object (or null), not an array
 *
 * One table of the snapshot.
 */
typedef struct
{
  const gchar *name;
  const gchar *record;
  gsize row_size;
  const GpuprofSummaryField *fields;
  guint n_fields;
  guint n_key;
  gboolean single;
} GpuprofSummaryTable;

/* T (ID, name, record, key columns, single) in output order; the row type
 * and column list of each follow from ID (see gpuprof-schema.c) */
#define GPUPROF_SCHEMA_TABLES(T) \
  T (RUN, run, run, 1, TRUE) \
  T (ELEMENTS, elements, element, 1, FALSE) \
  T (QUEUES, queues, queue, 1, FALSE) \
  T (THREADS, threads, thread, 1, FALSE) \
  T (LINKS, links, link, 2, FALSE) \
  T (BATCHES, batches, batch, 1, FALSE) \
  T (STAGES, stages, stage, 1, FALSE) \
  T (ADVICE, advice, advice, 2, FALSE) \
  T (STREAMS, streams, stream, 1, FALSE) \
  T (REMOVED, removed, removed, 1, FALSE) \
  T (POOLS, pools, pool, 1, FALSE) \
  T (HISTOGRAMS, histograms, histogram, 2, FALSE) \
  T (GPU_ELEMENTS, gpu_elements, gpu-element, 1, FALSE) \
  T (GPU_KERNELS, gpu_kernels, gpu-kernel, 2, FALSE) \
  T (GPU_DEVICES, gpu_devices, gpu-device, 1, FALSE) \
  T (GPU, gpu, gpu, 0, TRUE) \
  T (RESOURCES, resources, resource, 2, FALSE) \
  T (LIMITS, limits, limit, 1, FALSE) \
  T (GPU_RESOURCES, gpu_resources, gpu-resource, 1, FALSE)

#define GPUPROF_SCHEMA_ENUM(ID, name, record, n_key, single) \
  GPUPROF_SUMMARY_##ID,

typedef enum
{
  GPUPROF_SCHEMA_TABLES (GPUPROF_SCHEMA_ENUM)
  GPUPROF_SUMMARY_N_TABLES
} GpuprofSummaryTableId;

GPUPROF_API
const GpuprofSummaryTable *gpuprof_summary_table (GpuprofSummaryTableId id);

/* the live tables, as GPUPROF_SCHEMA_TABLES: name is the key in the JSON
 * Lines "interval" object */
#define GPUPROF_SCHEMA_LIVE_TABLES(T) \
  T (INTERVAL_ELEMENTS, elements, interval-element, 1, FALSE) \
  T (INTERVAL_QUEUES, queues, interval-queue, 1, FALSE) \
  T (INTERVAL_STREAMS, streams, interval-stream, 1, FALSE) \
  T (INTERVAL_GPUS, gpus, interval-gpu, 1, FALSE)

#define GPUPROF_SCHEMA_LIVE_ENUM(ID, name, record, n_key, single) \
  GPUPROF_LIVE_##ID,

typedef enum
{
  GPUPROF_SCHEMA_LIVE_TABLES (GPUPROF_SCHEMA_LIVE_ENUM)
  GPUPROF_LIVE_N_TABLES
} GpuprofLiveTableId;

const GpuprofSummaryTable *gpuprof_live_table (GpuprofLiveTableId id);

G_END_DECLS
