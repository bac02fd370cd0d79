/* The threads of the in-place stand-ins that work like DeepStream's
 * nvinfer and nvtracker: the chain queues the buffer, a work thread does
 * the element's work on it (or launches it: GPU work), an output thread
 * finishes it (waits for the GPU work, attaches the results) and pushes
 * the buffers in order.
 * The chain blocks while max-in-flight buffers are queued, worked on or
 * waiting to be pushed. Serialized events wait until every buffer before
 * them is pushed; a flush drops what is queued.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/base/gstbasetransform.h>

#include "analytics-frames.h"

G_BEGIN_DECLS

/* The element's work on one buffer, on the work thread; @data is what the
 * chain queued with it. FALSE: an error (post it), the buffer is dropped
 * and the chain returns GST_FLOW_ERROR from then on. */
typedef gboolean (*AnalyticsAsyncWork) (GstBaseTransform * element,
    GstBuffer * buf, const AnalyticsFrameLayout * layout, gpointer data);
/* The same on the output thread before the push, for a buffer whose work
 * succeeded and that is not flushed: until it returns, no flush-stop (and
 * so no buffer after a flush) can come. */
typedef AnalyticsAsyncWork AnalyticsAsyncFinish;

typedef struct
{
  GstBaseTransform *element;
  AnalyticsAsyncWork work;
  AnalyticsAsyncFinish finish;  /* nullable */
  GDestroyNotify free_data;
  const gchar *work_name, *output_name;

  GMutex lock;                  /* guards all below */
  GCond cond;
  GQueue in_q;                  /* jobs for the work thread */
  GQueue out_q;                 /* jobs for the output thread */
  guint in_flight;              /* buffers chained, not yet pushed */
  guint epoch;                  /* flush generation */
  gboolean flushing, stopping;
  GstFlowReturn last_ret;       /* of the output thread's last push */
  GThread *work_thread, *output_thread;
  /* held by the output thread across a push, by flush-stop across its
   * reset: nothing from before a flush is pushed after it */
  GMutex push_lock;
} AnalyticsAsync;

/* Thread names: the kernel keeps 15 characters. */
void analytics_async_init (AnalyticsAsync * a, GstBaseTransform * element,
    const gchar * work_name, const gchar * output_name,
    AnalyticsAsyncWork work, GDestroyNotify free_data);
/* After init, for an element that finishes its buffers on the output
 * thread (none by default). */
void analytics_async_set_finish (AnalyticsAsync * a,
    AnalyticsAsyncFinish finish);
void analytics_async_clear (AnalyticsAsync * a);

/* From the base transform's start () and stop (). stop () runs when the
 * sink pad is deactivated, before it waits for the stream lock: a chain
 * waiting for room is freed there; the src pad is inactive already, so a
 * push in progress returns. */
void analytics_async_start (AnalyticsAsync * a);
void analytics_async_stop (AnalyticsAsync * a);

/* The chain: queues @buf (a reference is taken) with @data (freed with
 * free_data), waiting while @max_in_flight are in flight. Returns
 * GST_BASE_TRANSFORM_FLOW_DROPPED when queued (the output thread pushes
 * it), else the flow to return. */
GstFlowReturn analytics_async_queue (AnalyticsAsync * a, GstBuffer * buf,
    const AnalyticsFrameLayout * layout, gpointer data, guint max_in_flight);

/* The base transform's sink_event: flushes, and serialized events after
 * the buffers before them; then @parent_sink_event. */
gboolean analytics_async_sink_event (AnalyticsAsync * a, GstEvent * event,
    gboolean (*parent_sink_event) (GstBaseTransform *, GstEvent *));

G_END_DECLS
