/* The data-path hooks never take a GStreamer lock (docs/tracer.md, "What
 * the hooks read"). GStreamer 1.26.0-1.26.3 run the event hooks of sticky
 * events holding the pad's object lock; a hook that takes it again (or
 * another object's lock under it) hangs the pipeline. Here every pad,
 * element and bin of the pipelines is locked, and the hook bodies run on
 * first sight of each object (records made then) through every path that
 * reads GStreamer state: buffers through a queue and a ghost pad, EOS
 * leaving a queue (also nested, as ≥ 1.26 fire it for sticky events),
 * flush-start into a queue, queries, pulls out of and into bins, a
 * stream-status message, an element added to a bin and one taken out of
 * the playing pipeline (docs/tracer.md#removed); with the GPU channel
 * on, so the handler lookups run too. Once with the locks held by the
 * calling thread (as 1.26.0-1.26.3 do: a lock taken again never returns),
 * once by another thread. Any lock taken blocks: the test fails after 20 s
 * instead of hanging. */
#include <gst/check/gstcheck.h>

#include "gpuprof-gpu.h"
#include "gpuprof-hooks.h"
#include "gpuprof-profiler.h"

#define WAIT_S 20

typedef struct
{
  GstElement *pipeline;
  GPtrArray *objects;           /* every pad, element and bin: locked */
  GpuprofProfiler *prof;
  guint64 ts;
} Fixture;

static void
add_pads (GPtrArray * objects, GstElement * element)
{
  GstIterator *it = gst_element_iterate_pads (element);
  GValue v = G_VALUE_INIT;

  while (gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
    GstPad *pad = g_value_get_object (&v);
    g_ptr_array_add (objects, gst_object_ref (pad));
    /* a ghost pad's internal pad is a pad of its own */
    if (GST_IS_GHOST_PAD (pad)) {
      GstProxyPad *internal = gst_proxy_pad_get_internal (GST_PROXY_PAD (pad));
      g_ptr_array_add (objects, internal);
    }
    g_value_reset (&v);
  }
  g_value_unset (&v);
  gst_iterator_free (it);
}

/* the pipeline, its bins, elements and pads: listed before any is locked
 * (the iterators lock them) */
static GPtrArray *
all_objects (GstElement * pipeline)
{
  GPtrArray *objects = g_ptr_array_new_with_free_func (gst_object_unref);
  GstIterator *it = gst_bin_iterate_recurse (GST_BIN (pipeline));
  GValue v = G_VALUE_INIT;

  g_ptr_array_add (objects, gst_object_ref (pipeline));
  add_pads (objects, pipeline);
  while (gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
    GstElement *e = g_value_get_object (&v);
    g_ptr_array_add (objects, gst_object_ref (e));
    add_pads (objects, e);
    g_value_reset (&v);
  }
  g_value_unset (&v);
  gst_iterator_free (it);
  return objects;
}

static void
lock_all (GPtrArray * objects, gboolean lock)
{
  guint i;

  for (i = 0; i < objects->len; i++) {
    if (lock)
      GST_OBJECT_LOCK (g_ptr_array_index (objects, i));
    else
      GST_OBJECT_UNLOCK (g_ptr_array_index (objects, i));
  }
}

static GstElement *
by_name (Fixture * f, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (f->pipeline), name);

  fail_unless (e != NULL, "no element %s", name);
  gst_object_unref (e);         /* the pipeline keeps it */
  return e;
}

static GstPad *
pad_of (Fixture * f, const gchar * element, const gchar * name)
{
  GstPad *pad = gst_element_get_static_pad (by_name (f, element), name);

  fail_unless (pad != NULL, "no pad %s:%s", element, name);
  gst_object_unref (pad);
  return pad;
}

/* the ghost pad gst_parse_launch gave a bin */
static GstPad *
ghost_of (Fixture * f, const gchar * bin)
{
  GstElement *b = by_name (f, bin);
  GstPad *pad;

  fail_unless (b->numpads == 1, "%s has %d pads", bin, b->numpads);
  pad = b->pads->data;
  fail_unless (GST_IS_GHOST_PAD (pad));
  return pad;
}

static GstPad *
internal_of (GstPad * ghost)
{
  GstProxyPad *internal = gst_proxy_pad_get_internal (GST_PROXY_PAD (ghost));

  gst_object_unref (internal);
  return GST_PAD_CAST (internal);
}

/* what the hooks are given, nested as GStreamer calls them */
static void
buffer_across (Fixture * f, GstPad * src, GstPad * sink)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 64, NULL);

  gpuprof_hooks_push_pre (gpuprof_profiler_get_measure (f->prof), ++f->ts, src, buf, NULL);
  gpuprof_hooks_chain_pre (gpuprof_profiler_get_measure (f->prof), ++f->ts, sink, buf, NULL);
  gpuprof_hooks_chain_post (gpuprof_profiler_get_measure (f->prof), ++f->ts, sink, GST_FLOW_OK);
  gpuprof_hooks_push_post (gpuprof_profiler_get_measure (f->prof), ++f->ts, src, GST_FLOW_OK);
  gst_buffer_unref (buf);
}

static void
event_on (Fixture * f, GstPad * pad, GstEvent * event, gboolean nested)
{
  gpuprof_hooks_event_pre (gpuprof_profiler_get_measure (f->prof), ++f->ts, pad, event);
  /* ≥ 1.26: the sticky event again, pushed from check_sticky() */
  if (nested) {
    gpuprof_hooks_event_pre (gpuprof_profiler_get_measure (f->prof), ++f->ts, pad, event);
    gpuprof_hooks_event_post (gpuprof_profiler_get_measure (f->prof), ++f->ts, pad);
  }
  gpuprof_hooks_event_post (gpuprof_profiler_get_measure (f->prof), ++f->ts, pad);
  gst_event_unref (event);
}

static void
no_work (gpointer data)
{
}

static void
stream_status (Fixture * f, GstPad * pad, GstElement * owner)
{
  GstTask *task = gst_task_new (no_work, NULL, NULL);
  GValue v = G_VALUE_INIT;
  GstMessage *m = gst_message_new_stream_status (GST_OBJECT (pad),
      GST_STREAM_STATUS_TYPE_ENTER, owner);

  gst_object_set_name (GST_OBJECT (task), "fresh:src");
  g_value_init (&v, GST_TYPE_TASK);
  g_value_set_object (&v, task);
  gst_message_set_stream_status_object (m, &v);
  g_value_unset (&v);
  gpuprof_hooks_message (gpuprof_profiler_get_measure (f->prof), ++f->ts, owner, m);
  gst_message_unref (m);
  gst_object_unref (task);
}

/* the pads and elements the hooks are given: found before the locks are
 * taken (gst_bin_get_by_name locks the bins) */
typedef struct
{
  GstPad *src, *qsink, *qsrc, *idsink, *idsrc, *bsink_in, *sink;
  GstPad *pull_sink, *pb_in, *pull_in, *fresh_src;
  GstElement *fresh, *b, *gone;
} Pads;

static void
find_pads (Fixture * f, Pads * p)
{
  p->src = pad_of (f, "src", "src");
  p->qsink = pad_of (f, "q", "sink");
  p->qsrc = pad_of (f, "q", "src");
  p->idsink = pad_of (f, "id", "sink");
  p->idsrc = pad_of (f, "id", "src");
  p->bsink_in = internal_of (ghost_of (f, "b"));
  p->sink = pad_of (f, "sink", "sink");
  p->pull_sink = pad_of (f, "psink", "sink");
  p->pb_in = internal_of (ghost_of (f, "pb"));
  p->pull_in = pad_of (f, "pin", "sink");
  p->fresh_src = pad_of (f, "fresh", "src");
  p->fresh = by_name (f, "fresh");
  p->b = by_name (f, "b");
  p->gone = by_name (f, "gone");
}

/* Before the locks: "gone" measures a buffer, then is taken out of the
 * pipeline while it plays (its target state set as a playing one's); the
 * removal's handler runs under the locks (run_hooks) */
static void
take_out (Fixture * f, const Pads * p)
{
  GstPad *in = gst_element_get_static_pad (p->gone, "sink");
  GstPad *from = gst_pad_get_peer (in);

  /* as the pad of an element that plays: not flushing */
  GST_OBJECT_FLAG_UNSET (in, GST_PAD_FLAG_FLUSHING);
  buffer_across (f, from, in);
  GST_OBJECT_FLAG_SET (in, GST_PAD_FLAG_FLUSHING);
  gst_object_unref (from);
  gst_object_unref (in);
  GST_STATE_TARGET (f->pipeline) = GST_STATE_PLAYING;
  fail_unless (gst_bin_remove (GST_BIN (f->pipeline), p->gone));
}

/* Every data-path hook, each object first seen here (its record made with
 * the locks held) */
static void
run_hooks (Fixture * f, const Pads * p)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 64, NULL);
  GstSegment seg;

  gst_segment_init (&seg, GST_FORMAT_TIME);
  event_on (f, p->src, gst_event_new_stream_start ("s"), TRUE);
  event_on (f, p->src, gst_event_new_segment (&seg), TRUE);
  buffer_across (f, p->src, p->qsink);
  buffer_across (f, p->qsrc, p->idsink);
  /* into a bin: the ghost pad forwards to the sink inside */
  gpuprof_hooks_push_pre (gpuprof_profiler_get_measure (f->prof), ++f->ts, p->idsrc, buf, NULL);
  buffer_across (f, p->bsink_in, p->sink);
  gpuprof_hooks_push_post (gpuprof_profiler_get_measure (f->prof), ++f->ts, p->idsrc, GST_FLOW_OK);
  /* a second buffer stays inside the queue until EOS */
  buffer_across (f, p->src, p->qsink);
  event_on (f, p->qsrc, gst_event_new_eos (), TRUE);
  event_on (f, p->src, gst_event_new_flush_start (), FALSE);
  event_on (f, p->qsrc, gst_event_new_flush_stop (TRUE), FALSE);
  gpuprof_hooks_query_pre (gpuprof_profiler_get_measure (f->prof), ++f->ts, p->sink);
  gpuprof_hooks_query_pre (gpuprof_profiler_get_measure (f->prof), ++f->ts, p->idsrc);
  gpuprof_hooks_query_post (gpuprof_profiler_get_measure (f->prof), ++f->ts, p->idsrc);
  gpuprof_hooks_query_post (gpuprof_profiler_get_measure (f->prof), ++f->ts, p->sink);
  /* a pull into a bin, placed when its ghost pad forwards it */
  gpuprof_hooks_pull_pre (gpuprof_profiler_get_measure (f->prof), ++f->ts, p->pull_sink);
  gpuprof_hooks_pull_pre (gpuprof_profiler_get_measure (f->prof), ++f->ts, p->pb_in);
  gpuprof_hooks_pull_post (gpuprof_profiler_get_measure (f->prof), ++f->ts, p->pb_in, buf, GST_FLOW_OK);
  gpuprof_hooks_pull_post (gpuprof_profiler_get_measure (f->prof), ++f->ts, p->pull_sink, buf,
      GST_FLOW_OK);
  /* a pull out of a bin, through its ghost sink pad */
  gpuprof_hooks_pull_pre (gpuprof_profiler_get_measure (f->prof), ++f->ts, p->pull_in);
  gpuprof_hooks_pull_post (gpuprof_profiler_get_measure (f->prof), ++f->ts, p->pull_in, buf,
      GST_FLOW_OK);
  stream_status (f, p->fresh_src, p->fresh);
  gpuprof_hooks_element_added (gpuprof_profiler_get_measure (f->prof), GST_BIN (f->pipeline), p->b,
      TRUE);
  /* an element taken out of the playing pipeline leaves it (its path and
   * parents read, its figures and its pipeline's target state looked at) */
  gpuprof_hooks_element_removed (gpuprof_profiler_get_measure (f->prof),
      GST_BIN (f->pipeline), p->gone);
  gst_buffer_unref (buf);
}

typedef struct
{
  Fixture *f;
  Pads pads;
  gboolean lock_here;
  GMutex lock;
  GCond cond;
  gboolean locked, done;
} Run;

static gpointer
hooks_thread (gpointer data)
{
  Run *r = data;

  if (r->lock_here)
    lock_all (r->f->objects, TRUE);
  run_hooks (r->f, &r->pads);
  if (r->lock_here)
    lock_all (r->f->objects, FALSE);
  g_mutex_lock (&r->lock);
  r->done = TRUE;
  g_cond_signal (&r->cond);
  g_mutex_unlock (&r->lock);
  return NULL;
}

/* the hooks run on a thread of their own; @lock_here: it holds the locks
 * itself, else this thread holds them. Fails if they do not end. */
static void
check_hooks_lock_free (gboolean lock_here)
{
  GpuprofParams params;
  GpuprofGpuBackend backend = { NULL, NULL };
  Fixture f = { NULL };
  Run r = { &f };
  gint64 until;
  GThread *th;

  gpuprof_params_init (&params);
  params.report = GPUPROF_REPORT_OFF;
  f.prof = gpuprof_profiler_new (&params);
  gpuprof_params_clear (&params);
  /* GPU attribution on: the hooks look up the element handling an event
   * or a query */
  gpuprof_gpu_set_backend (&backend);
  gpuprof_gpu_enable_channel (GPUPROF_GPU_CHANNEL_TRACER, TRUE);
  fail_unless (gpuprof_gpu_channel_enabled (GPUPROF_GPU_CHANNEL_TRACER));

  f.pipeline = gst_parse_launch ("fakesrc name=src ! queue name=q ! "
      "identity name=id ! bin.( name=b fakesink name=sink ) "
      "bin.( name=pb fakesrc name=psrc ) ! fakesink name=psink "
      "fakesrc name=pout ! bin.( name=ib fakesink name=pin ) "
      "fakesrc name=fresh ! fakesink fakesrc name=gsrc ! identity name=gone "
      "! fakesink", NULL);
  fail_unless (f.pipeline != NULL);
  f.objects = all_objects (f.pipeline);
  find_pads (&f, &r.pads);
  take_out (&f, &r.pads);
  r.lock_here = lock_here;
  g_mutex_init (&r.lock);
  g_cond_init (&r.cond);
  if (!lock_here)
    lock_all (f.objects, TRUE);
  th = g_thread_new ("hooks", hooks_thread, &r);
  until = g_get_monotonic_time () + WAIT_S * G_TIME_SPAN_SECOND;
  g_mutex_lock (&r.lock);
  while (!r.done && g_cond_wait_until (&r.cond, &r.lock, until));
  g_mutex_unlock (&r.lock);
  /* a hook stuck on a lock cannot be freed: the process ends with the
   * failure (check runs each test in a child) */
  fail_unless (r.done, "a hook took a GStreamer lock: still blocked after "
      "%d s with every pad, element and bin locked (by %s)", WAIT_S,
      lock_here ? "its own thread, as GStreamer 1.26.0-1.26.3 do" :
      "another thread");
  g_thread_join (th);
  if (!lock_here)
    lock_all (f.objects, FALSE);
  fail_unless (gpuprof_objects_element_peek (r.pads.gone)->left != NULL,
      "the element taken out did not leave its pipeline's run");
  GST_STATE_TARGET (f.pipeline) = GST_STATE_NULL;
  /* no tracer tells the profiler of destroyed objects: it goes first */
  gpuprof_profiler_free (f.prof);
  gpuprof_gpu_enable_channel (GPUPROF_GPU_CHANNEL_TRACER, FALSE);
  gpuprof_gpu_set_backend (NULL);
  g_ptr_array_unref (f.objects);
  gst_object_unref (f.pipeline);
  g_mutex_clear (&r.lock);
  g_cond_clear (&r.cond);
}

GST_START_TEST (test_hooks_under_own_locks)
{
  check_hooks_lock_free (TRUE);
}

GST_END_TEST;

GST_START_TEST (test_hooks_under_other_threads_locks)
{
  check_hooks_lock_free (FALSE);
}

GST_END_TEST;

static Suite *
hook_locks_suite (void)
{
  Suite *s = suite_create ("gpuprof-hook-locks");
  TCase *tc = tcase_create ("locks");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_hooks_under_own_locks);
  tcase_add_test (tc, test_hooks_under_other_threads_locks);
  return s;
}

GST_CHECK_MAIN (hook_locks);
