/* gpuprof: the CPU sampler — every thread's CPU, the process's cores.
 *
 * One pass (at sample-hz on the session's sampler thread, and at each
 * snapshot, when a pipeline leaves NULL and before it stops its threads)
 * reads every thread of the process from /proc (gpuprof-cpu-threads.h:
 * schedstat every pass, stat about once a second and for new threads),
 * the process's CPU and its CPU limits (gpuprof-cpu-limits.h), and hands
 * each thread's CPU and run delay (time runnable, waiting for a core) since
 * the previous pass to its owners:
 *
 *   - the elements whose calls ran on the thread in between: each element's
 *     self time there since the previous pass (its stats slots) is its share
 *     of the thread's time in calls. The part of it read on the thread's
 *     CPU clock (loops, asynchronous chains) is CPU for sure; the rest
 *     (wall time) is taken as CPU plus its run delay first (in-call time is
 *     work unless the thread's CPU says otherwise) and shares what CPU is
 *     left, in proportion to that time. Run delay follows the CPU: each
 *     element's run delay is its CPU times the thread's run delay per CPU in
 *     the interval;
 *   - the rest of the thread's CPU and run delay (outside any call: its
 *     task's loop, a worker's own work) goes to the thread's owner
 *     (gpuprof-owners.h), split at the owner switches the thread itself
 *     logged with its CPU clock (a pool thread moving between tasks);
 *     the application's and the process's threads keep theirs on their
 *     rows only.
 *
 * Error: elements that share a thread share its CPU in proportion to their
 * wall time there, so an element that blocks in its calls (a lock, a wait
 * it does not tell) on a thread shared with one that computes gets part of
 * the other's CPU — at most the thread's off-CPU time in calls in that
 * interval; a thread that ended between passes loses what it did since the
 * last one (it is in the rest of the process). docs/tracer.md, "CPU,
 * waiting for a core, blocked".
 *
 * Per pipeline, figures are kept over its run window: from when it left
 * NULL to the snapshot. Threading: one lock; a pass, the fill of a
 * snapshot and the session's sweep of records take it (the pass reads the
 * elements' records). Never called from the buffer path.
 */
#pragma once

#include "gpuprof-api.h"

#include "gpuprof-measure.h"
#include "gpuprof-snapshot.h"

G_BEGIN_DECLS

typedef struct _GpuprofCpuSampler GpuprofCpuSampler;

/* A cpu interval is saturated when the process used at least this share
 * of the cores available, or its threads waited for a core at least this
 * share of their runnable time */
#define GPUPROF_CPU_SATURATED_USED 0.9
#define GPUPROF_CPU_SATURATED_WAIT 0.2

/* NULL when /proc/self/task cannot be read (why in @error) */
GPUPROF_API
GpuprofCpuSampler *gpuprof_cpu_sampler_new (GpuprofMeasure * m,
    GError ** error);
GPUPROF_API
void gpuprof_cpu_sampler_free (GpuprofCpuSampler * s);
/* a GpuprofTickFunc: one pass */
gboolean gpuprof_cpu_sampler_tick (gint64 now_us, gpointer sampler);
GPUPROF_API
void gpuprof_cpu_sampler_pass (GpuprofCpuSampler * s);
/* @pl leaves NULL: a pass, and its run window starts here */
void gpuprof_cpu_sampler_run_start (GpuprofCpuSampler * s,
    GpuprofPipeline * pl);
/* After a pass: the CPU columns of @snap, @pl's run so far: the elements'
 * cpu_ns, wait_core_ns, threads and busy (@elements: @pl's), their
 * wait_input_ns without their run delay, every thread's row, the row of the
 * rest of the process, the run's CPU fields and the cpu row of the
 * resources table */
void gpuprof_cpu_sampler_fill (GpuprofCpuSampler * s, GpuprofSnapshot * snap,
    GpuprofPipeline * pl, GPtrArray * elements);
/* the cpu row over @pl's run window, appended to @rows
 * (GpuprofResourceRow), as of the last pass */
GPUPROF_API
void gpuprof_cpu_sampler_fill_resources (GpuprofCpuSampler * s,
    GpuprofPipeline * pl, GArray * rows);
/* no pass runs while held: the session frees records under it */
void gpuprof_cpu_sampler_lock (GpuprofCpuSampler * s);
void gpuprof_cpu_sampler_unlock (GpuprofCpuSampler * s);
/* the sampler's own cost so far: passes, and their CPU on the threads
 * that made them */
GPUPROF_API
void gpuprof_cpu_sampler_cost (GpuprofCpuSampler * s, guint64 * passes,
    guint64 * cpu_ns);

G_END_DECLS
