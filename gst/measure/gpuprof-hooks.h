/* gpuprof: what each tracer hook does, on a GpuprofMeasure
 * (gpuprof-measure.h).
 *
 * tracers/ turns hook arguments into these calls and nothing else. All of
 * them are O(1) on the buffer path: a TLS lookup, a per-thread cache
 * lookup, relaxed atomics; a lock only on the first sight of an object, in a
 * queue's own FIFO, and for reports. Both halves of each hook pair are
 * here; what the session must hear of goes through the GpuprofMeasureFuncs
 * it installed.
 */
#pragma once

#include "gpuprof-api.h"

#include <gst/gst.h>

#include "gpuprof-measure.h"

G_BEGIN_DECLS

/* once per process, before the first hook (gpuprof_profiler_new()) */
GPUPROF_API
void gpuprof_hooks_init (void);

/* buffer path; 'list' is set instead of 'buffer' for the -list hooks */
GPUPROF_API
void gpuprof_hooks_chain_pre (GpuprofMeasure * m, guint64 ts, GstPad * pad,
    GstBuffer * buffer, GstBufferList * list);
GPUPROF_API
void gpuprof_hooks_chain_post (GpuprofMeasure * m, guint64 ts, GstPad * pad,
    GstFlowReturn res);
GPUPROF_API
void gpuprof_hooks_push_pre (GpuprofMeasure * m, guint64 ts, GstPad * pad,
    GstBuffer * buffer, GstBufferList * list);
GPUPROF_API
void gpuprof_hooks_push_post (GpuprofMeasure * m, guint64 ts, GstPad * pad,
    GstFlowReturn res);
GPUPROF_API
void gpuprof_hooks_pull_pre (GpuprofMeasure * m, guint64 ts, GstPad * pad);
GPUPROF_API
void gpuprof_hooks_pull_post (GpuprofMeasure * m, guint64 ts, GstPad * pad,
    GstBuffer * buffer, GstFlowReturn res);
/* events and queries: time spent downstream, not in the caller */
GPUPROF_API
void gpuprof_hooks_event_pre (GpuprofMeasure * m, guint64 ts, GstPad * pad,
    GstEvent * event);
GPUPROF_API
void gpuprof_hooks_event_post (GpuprofMeasure * m, guint64 ts, GstPad * pad);
GPUPROF_API
void gpuprof_hooks_query_pre (GpuprofMeasure * m, guint64 ts, GstPad * pad);
GPUPROF_API
void gpuprof_hooks_query_post (GpuprofMeasure * m, guint64 ts, GstPad * pad);

GPUPROF_API
void gpuprof_hooks_state_change_pre (GpuprofMeasure * m,
    GstElement * element, GstStateChange transition);
GPUPROF_API
void gpuprof_hooks_state_change (GpuprofMeasure * m, guint64 ts,
    GstElement * element, GstStateChange transition,
    GstStateChangeReturn result);
GPUPROF_API
void gpuprof_hooks_message (GpuprofMeasure * m, guint64 ts,
    GstElement * element, GstMessage * message);
GPUPROF_API
void gpuprof_hooks_object_destroyed (GpuprofMeasure * m, guint64 ts,
    GstObject * object);
/* object-created: a task runner's pool (GstSharedTaskPool) made in an
 * element's call marks that element as a user of GLib's pool threads
 * (their CPU goes to it: gpuprof-cpu-sampler.h); anything else returns at
 * one type check */
GPUPROF_API
void gpuprof_hooks_object_created (GpuprofMeasure * m, GstObject * object);
/* a bin's "element-removed" signal (not the bin-remove hooks: their names
 * would slow every object ref, tracers/gstgpuproftracer.c): the element
 * taken out (and all it holds) gets its new path and pipeline; taken out
 * of a running pipeline, what it measured there is folded into its
 * removed totals (docs/tracer.md#removed) */
GPUPROF_API
void gpuprof_hooks_element_removed (GpuprofMeasure * m, GstBin * bin,
    GstElement * element);
/* gst_bin_add: the element (and what it holds) may be in a new pipeline */
GPUPROF_API
void gpuprof_hooks_element_added (GpuprofMeasure * m, GstBin * bin,
    GstElement * element, gboolean result);

G_END_DECLS
