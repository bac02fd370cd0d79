/* The work and output threads of analyticsinfer and analyticstracker. See
 * the header.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "analytics-async.h"

/* One buffer on its way from the chain to the push. epoch is the flush
 * generation it belongs to: a flush bumps the element's, so whatever a
 * thread still holds from before is dropped instead of pushed. */
typedef struct
{
  GstBuffer *buf;
  guint epoch;
  AnalyticsFrameLayout layout;
  gpointer data;
  gboolean ok;
} Job;

static void
job_free (AnalyticsAsync * a, Job * job)
{
  if (job->buf)
    gst_buffer_unref (job->buf);
  if (job->data && a->free_data)
    a->free_data (job->data);
  g_free (job);
}

/* Drops what is queued; lock held. */
static void
drop_queued (AnalyticsAsync * a)
{
  Job *job;

  while ((job = g_queue_pop_head (&a->in_q))
      || (job = g_queue_pop_head (&a->out_q)))
    job_free (a, job);
  a->in_flight = 0;
  g_cond_broadcast (&a->cond);
}

static gpointer
work_loop (gpointer data)
{
  AnalyticsAsync *a = data;

  g_mutex_lock (&a->lock);
  while (!a->stopping) {
    Job *job = g_queue_pop_head (&a->in_q);

    if (!job) {
      g_cond_wait (&a->cond, &a->lock);
      continue;
    }
    g_mutex_unlock (&a->lock);
    job->ok = a->work (a->element, job->buf, &job->layout, job->data);
    g_mutex_lock (&a->lock);
    if (job->epoch == a->epoch) {
      g_queue_push_tail (&a->out_q, job);
      g_cond_broadcast (&a->cond);
    } else {
      job_free (a, job);
    }
  }
  g_mutex_unlock (&a->lock);
  return NULL;
}

static gpointer
output_loop (gpointer data)
{
  AnalyticsAsync *a = data;
  GstPad *srcpad = GST_BASE_TRANSFORM_SRC_PAD (a->element);

  g_mutex_lock (&a->lock);
  while (!a->stopping) {
    Job *job = g_queue_pop_head (&a->out_q);
    GstFlowReturn ret = GST_FLOW_OK;
    gboolean current;

    if (!job) {
      g_cond_wait (&a->cond, &a->lock);
      continue;
    }
    g_mutex_unlock (&a->lock);

    g_mutex_lock (&a->push_lock);
    g_mutex_lock (&a->lock);
    current = job->epoch == a->epoch;
    g_mutex_unlock (&a->lock);
    /* under push_lock: a flush-stop waits, so the batches after it cannot
     * reuse what this one still reads (analyticsinfer's GPU slot) */
    if (current && job->ok && a->finish)
      job->ok = a->finish (a->element, job->buf, &job->layout, job->data);
    if (current && job->ok) {
      ret = gst_pad_push (srcpad, job->buf);
      job->buf = NULL;
    } else if (current) {
      ret = GST_FLOW_ERROR;
    }
    g_mutex_unlock (&a->push_lock);

    g_mutex_lock (&a->lock);
    if (current && job->epoch == a->epoch) {
      a->in_flight--;
      if (ret != GST_FLOW_OK)
        a->last_ret = ret;
      g_cond_broadcast (&a->cond);
    }
    job_free (a, job);
  }
  g_mutex_unlock (&a->lock);
  return NULL;
}

void
analytics_async_init (AnalyticsAsync * a, GstBaseTransform * element,
    const gchar * work_name, const gchar * output_name,
    AnalyticsAsyncWork work, GDestroyNotify free_data)
{
  memset (a, 0, sizeof (*a));
  a->element = element;
  a->work = work;
  a->free_data = free_data;
  a->work_name = work_name;
  a->output_name = output_name;
  g_mutex_init (&a->lock);
  g_mutex_init (&a->push_lock);
  g_cond_init (&a->cond);
  g_queue_init (&a->in_q);
  g_queue_init (&a->out_q);
}

void
analytics_async_set_finish (AnalyticsAsync * a, AnalyticsAsyncFinish finish)
{
  a->finish = finish;
}

void
analytics_async_clear (AnalyticsAsync * a)
{
  g_mutex_clear (&a->lock);
  g_mutex_clear (&a->push_lock);
  g_cond_clear (&a->cond);
}

void
analytics_async_start (AnalyticsAsync * a)
{
  g_mutex_lock (&a->lock);
  a->flushing = FALSE;
  a->stopping = FALSE;
  a->last_ret = GST_FLOW_OK;
  a->epoch++;
  g_mutex_unlock (&a->lock);
  a->work_thread = g_thread_new (a->work_name, work_loop, a);
  a->output_thread = g_thread_new (a->output_name, output_loop, a);
}

void
analytics_async_stop (AnalyticsAsync * a)
{
  g_mutex_lock (&a->lock);
  a->flushing = TRUE;
  a->stopping = TRUE;
  a->epoch++;
  drop_queued (a);
  g_mutex_unlock (&a->lock);
  if (a->work_thread)
    g_thread_join (a->work_thread);
  if (a->output_thread)
    g_thread_join (a->output_thread);
  a->work_thread = a->output_thread = NULL;
  g_mutex_lock (&a->lock);
  drop_queued (a);
  g_mutex_unlock (&a->lock);
}

GstFlowReturn
analytics_async_queue (AnalyticsAsync * a, GstBuffer * buf,
    const AnalyticsFrameLayout * layout, gpointer data, guint max_in_flight)
{
  Job *job = g_new0 (Job, 1);
  GstFlowReturn ret;

  /* the base transform drops its reference when we return DROPPED */
  job->buf = gst_buffer_ref (buf);
  job->layout = *layout;
  job->data = data;
  job->ok = TRUE;

  g_mutex_lock (&a->lock);
  while (!a->flushing && a->in_flight >= max_in_flight)
    g_cond_wait (&a->cond, &a->lock);
  ret = a->flushing ? GST_FLOW_FLUSHING : a->last_ret;
  if (ret != GST_FLOW_OK) {
    g_mutex_unlock (&a->lock);
    job_free (a, job);
    return ret;
  }
  job->epoch = a->epoch;
  g_queue_push_tail (&a->in_q, job);
  a->in_flight++;
  g_cond_broadcast (&a->cond);
  g_mutex_unlock (&a->lock);
  return GST_BASE_TRANSFORM_FLOW_DROPPED;
}

gboolean
analytics_async_sink_event (AnalyticsAsync * a, GstEvent * event,
    gboolean (*parent_sink_event) (GstBaseTransform *, GstEvent *))
{
  gboolean res;

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_FLUSH_START:
      g_mutex_lock (&a->lock);
      a->flushing = TRUE;
      a->epoch++;
      drop_queued (a);
      g_mutex_unlock (&a->lock);
      /* downstream flushing returns a push in progress */
      return parent_sink_event (a->element, event);
    case GST_EVENT_FLUSH_STOP:
      g_mutex_lock (&a->push_lock);
      g_mutex_lock (&a->lock);
      drop_queued (a);
      a->flushing = FALSE;
      a->epoch++;
      a->last_ret = GST_FLOW_OK;
      g_mutex_unlock (&a->lock);
      res = parent_sink_event (a->element, event);
      g_mutex_unlock (&a->push_lock);
      return res;
    default:
      break;
  }
  /* in order with the buffers: after every buffer before it is pushed */
  if (GST_EVENT_IS_SERIALIZED (event)) {
    g_mutex_lock (&a->lock);
    while (!a->flushing && a->in_flight > 0)
      g_cond_wait (&a->cond, &a->lock);
    g_mutex_unlock (&a->lock);
  }
  return parent_sink_event (a->element, event);
}
