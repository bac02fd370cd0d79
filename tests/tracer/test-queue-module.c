/* gpuprof-queue.c on its own: the API the hooks call on a queue's pads,
 * driven without a profiler or a pipeline (no callback leads out of it).
 * Every buffer in is pushed, dropped, flushed, left or still inside. */
#include <gst/check/gstcheck.h>

#include "gpuprof-queue.h"

static const GpuprofQueueOutputs no_outputs = { NULL, FALSE };

typedef struct
{
  GpuprofElement element;
  GpuprofPad sink;
  GpuprofQueue *q;
  GpuprofThread *t;
  GstBuffer *buffers[8];
  GpuprofFrame frames[8];
} Fixture;

static void
fixture_init (Fixture * fx, gboolean leaky)
{
  guint i;

  memset (fx, 0, sizeof (*fx));
  fx->element.id = 1;
  fx->element.path = (gchar *) "pipeline0/q";
  fx->element.role = GPUPROF_ROLE_QUEUE;
  fx->element.queue = gpuprof_queue_element_new (&fx->element);
  fx->element.queue->has_overrun = TRUE;
  fx->sink.id = 1;
  fx->sink.name = (gchar *) "sink";
  fx->sink.element = &fx->element;
  fx->q = gpuprof_queue_for_pad (&fx->element, "sink");
  fx->element.queue->leaky = leaky;
  fx->sink.queue = fx->q;
  fx->t = gpuprof_thread_get ();
  for (i = 0; i < G_N_ELEMENTS (fx->buffers); i++) {
    fx->buffers[i] = gst_buffer_new_allocate (NULL, 100, NULL);
    GST_BUFFER_PTS (fx->buffers[i]) = i * GST_MSECOND;
  }
}

static void
fixture_clear (Fixture * fx)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (fx->buffers); i++)
    gst_buffer_unref (fx->buffers[i]);
  /* with its FIFO */
  gpuprof_queue_element_free (fx->element.queue);
}

/* buffer i enters: the chain call on the sink pad, then its return */
static void
chain (Fixture * fx, guint i, GstFlowReturn res, guint64 ts)
{
  GpuprofFrame *f = &fx->frames[i];

  f->kind = GPUPROF_FRAME_CHAIN;
  f->pad = &fx->sink;
  f->element = &fx->element;
  f->start = ts;
  f->n_buffers = 1;
  f->seq = i + 1;
  f->pts = GST_BUFFER_PTS (fx->buffers[i]);
  f->size = gst_buffer_get_size (fx->buffers[i]);
  f->key = fx->buffers[i];
  gpuprof_queue_chain_pre (fx->q, &no_outputs, fx->t, f, fx->buffers[i],
      NULL);
  gpuprof_queue_chain_post (fx->q, &no_outputs, f, 0, res, ts + 1);
}

/* buffers @first .. @first + @n - 1 enter, one every 1000 ns from @ts */
static void
chain_ok (Fixture * fx, guint first, guint n, guint64 ts)
{
  guint i;

  for (i = 0; i < n; i++)
    chain (fx, first + i, GST_FLOW_OK, ts + i * 1000);
}

static void
push (Fixture * fx, guint i, guint64 ts)
{
  gpuprof_queue_push_pre (fx->q, &no_outputs, fx->buffers[i], NULL, 1,
      gst_buffer_get_size (fx->buffers[i]), ts);
}

GST_START_TEST (test_fifo_in_order)
{
  Fixture fx;

  fixture_init (&fx, FALSE);
  chain_ok (&fx, 0, 3, 1000);
  fail_unless_equals_int (fx.q->len, 3);
  fail_unless_equals_int (fx.q->max_level_buffers, 3);
  fail_unless_equals_int (fx.q->max_level_bytes, 300);
  push (&fx, 0, 5000);
  push (&fx, 1, 7000);
  fail_unless_equals_int (fx.q->dequeued, 2);
  /* residency from each buffer's enqueue: 4000 and 5000 ns */
  fail_unless_equals_int (fx.q->residency.count, 2);
  fail_unless_equals_int (fx.q->residency.sum, 9000);
  /* the queue stops with one inside */
  gpuprof_queue_end_element (&fx.element, &no_outputs, 9000);
  fail_unless_equals_int (fx.q->left, 1);
  fail_unless_equals_int (fx.q->len, 0);
  fixture_clear (&fx);
}

GST_END_TEST;

GST_START_TEST (test_leaky_push_drops_the_older)
{
  Fixture fx;

  fixture_init (&fx, TRUE);
  chain_ok (&fx, 0, 4, 1000);
  /* leaky=downstream threw 0 and 1 away: the push of 2 says so */
  push (&fx, 2, 5000);
  fail_unless_equals_int (fx.q->dequeued, 1);
  fail_unless_equals_int (fx.q->drops, 2);
  fail_unless_equals_int (fx.q->len, 1);
  /* EOS after it: the rest was dropped too, downstream still took data */
  gpuprof_queue_eos (fx.q, &no_outputs, FALSE, 6000);
  fail_unless_equals_int (fx.q->drops, 3);
  fail_unless_equals_int (fx.q->len, 0);
  fixture_clear (&fx);
}

GST_END_TEST;

GST_START_TEST (test_failed_chain_and_refused_push)
{
  Fixture fx;

  fixture_init (&fx, FALSE);
  chain (&fx, 0, GST_FLOW_OK, 1000);
  /* the chain call failed (flushing): the queue did not keep it */
  chain (&fx, 1, GST_FLOW_FLUSHING, 2000);
  fail_unless_equals_int (fx.q->flushed, 1);
  fail_unless_equals_int (fx.q->len, 1);
  fail_unless_equals_int (fx.q->level_buffers, 1);
  /* its push was refused downstream (EOS): not out, left */
  push (&fx, 0, 3000);
  gpuprof_queue_take_back (fx.q, 1, FALSE);
  fail_unless_equals_int (fx.q->dequeued, 0);
  fail_unless_equals_int (fx.q->left, 1);
  /* a flush empties what came after */
  chain_ok (&fx, 2, 2, 4000);
  gpuprof_queue_flush (fx.q, &no_outputs, 6000);
  fail_unless_equals_int (fx.q->flushed, 3);
  fail_unless_equals_int (fx.q->len, 0);
  /* EOS of a queue that never leaks, downstream stopped: left, no drop */
  chain (&fx, 4, GST_FLOW_OK, 7000);
  gpuprof_queue_eos (fx.q, &no_outputs, TRUE, 8000);
  fail_unless_equals_int (fx.q->drops, 0);
  fail_unless_equals_int (fx.q->left, 2);
  fixture_clear (&fx);
}

GST_END_TEST;

/* Our mirror runs ahead of the queue (it pops before the src push we
 * see): a snapshot's level is never above what the queue itself said it
 * held. Here a real queue that holds nothing says 0 at each new maximum
 * the mirror reaches, so its most is the one buffer each chain call gave
 * it, while the mirror counts 3 inside. */
GST_START_TEST (test_level_never_above_the_queue_s)
{
  Fixture fx;
  GpuprofQueueFigures f;

  fixture_init (&fx, FALSE);
  fx.element.element = gst_element_factory_make ("queue", NULL);
  fail_unless (fx.element.element != NULL);
  chain_ok (&fx, 0, 3, 1000);
  fail_unless_equals_int (fx.q->level_buffers, 3);
  gpuprof_queue_figures (fx.q, &f);
  fail_unless_equals_int (f.max_level_buffers, 1);
  fail_unless_equals_int (f.max_level_bytes, 100);
  fail_unless_equals_int (f.level_buffers, 1);
  fail_unless_equals_int (f.level_bytes, 100);
  gst_object_unref (fx.element.element);
  fixture_clear (&fx);
}

GST_END_TEST;

static Suite *
queue_module_suite (void)
{
  Suite *s = suite_create ("gpuprof-queue-module");
  TCase *tc = tcase_create ("queue");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_fifo_in_order);
  tcase_add_test (tc, test_leaky_push_drops_the_older);
  tcase_add_test (tc, test_failed_chain_and_refused_push);
  tcase_add_test (tc, test_level_never_above_the_queue_s);
  return s;
}

GST_CHECK_MAIN (queue_module);
