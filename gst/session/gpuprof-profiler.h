/* gpuprof: the profiling session (gpuprof-profiler.c) and what each tracer
 * hook does (gpuprof-hooks.c).
 *
 * tracers/ turns hook arguments into these calls and nothing else. All of
 * them are O(1) on the buffer path: a TLS lookup, a per-thread cache
 * lookup, relaxed atomics; a lock only on the first sight of an object, in a
 * queue's own FIFO, and for reports.
 */
#pragma once

#include <gst/gst.h>

#include "gpuprof-params.h"
#include "gpuprof-snapshot.h"

G_BEGIN_DECLS

typedef struct _GpuprofProfiler GpuprofProfiler;

GpuprofProfiler *gpuprof_profiler_new (const GpuprofParams * params);
void gpuprof_profiler_free (GpuprofProfiler * p);
const GpuprofParams *gpuprof_profiler_get_params (GpuprofProfiler * p);

/* buffer path; 'list' is set instead of 'buffer' for the -list hooks */
void gpuprof_profiler_chain_pre (GpuprofProfiler * p, guint64 ts,
    GstPad * pad, GstBuffer * buffer, GstBufferList * list);
void gpuprof_profiler_chain_post (GpuprofProfiler * p, guint64 ts,
    GstPad * pad, GstFlowReturn res);
void gpuprof_profiler_push_pre (GpuprofProfiler * p, guint64 ts,
    GstPad * pad, GstBuffer * buffer, GstBufferList * list);
void gpuprof_profiler_push_post (GpuprofProfiler * p, guint64 ts,
    GstPad * pad, GstFlowReturn res);
void gpuprof_profiler_pull_pre (GpuprofProfiler * p, guint64 ts,
    GstPad * pad);
void gpuprof_profiler_pull_post (GpuprofProfiler * p, guint64 ts,
    GstPad * pad, GstBuffer * buffer, GstFlowReturn res);
/* events and queries: time spent downstream, not in the caller */
void gpuprof_profiler_event_pre (GpuprofProfiler * p, guint64 ts,
    GstPad * pad, GstEvent * event);
void gpuprof_profiler_event_post (GpuprofProfiler * p, guint64 ts,
    GstPad * pad);
void gpuprof_profiler_query_pre (GpuprofProfiler * p, guint64 ts,
    GstPad * pad);
void gpuprof_profiler_query_post (GpuprofProfiler * p, guint64 ts,
    GstPad * pad);

void gpuprof_profiler_state_change_pre (GpuprofProfiler * p,
    GstElement * element, GstStateChange transition);
void gpuprof_profiler_state_change (GpuprofProfiler * p, guint64 ts,
    GstElement * element, GstStateChange transition,
    GstStateChangeReturn result);
void gpuprof_profiler_message (GpuprofProfiler * p, guint64 ts,
    GstElement * element, GstMessage * message);
void gpuprof_profiler_object_destroyed (GpuprofProfiler * p, guint64 ts,
    GstObject * object);
/* gst_bin_add: the element (and what it holds) may be in a new pipeline */
void gpuprof_profiler_element_added (GpuprofProfiler * p, GstBin * bin,
    GstElement * element, gboolean result);
/* a queue element said it is full: the calling thread is about to block */
void gpuprof_profiler_queue_overrun (GpuprofProfiler * p,
    GstElement * queue);

/* reports and queries */
GpuprofSnapshot *gpuprof_profiler_snapshot (GpuprofProfiler * p,
    const gchar * pipeline);
/* the same with the GPU tables when GPU attribution is on (get-metrics) */
GpuprofSnapshot *gpuprof_profiler_metrics_snapshot (GpuprofProfiler * p,
    const gchar * pipeline);
gchar *gpuprof_profiler_last_report (GpuprofProfiler * p);
/* records kept for live objects and unreported runs (tests, benchmarks) */
void gpuprof_profiler_count_records (GpuprofProfiler * p, guint * elements,
    guint * pads, guint * pipelines);
void gpuprof_profiler_report_unreported (GpuprofProfiler * p);
void gpuprof_profiler_shutdown (GpuprofProfiler * p);

G_END_DECLS
