/* gpuprof-async.c on its own: arrivals matched to departures (same
 * pointer, else arrival order), residency from synthetic timestamps, the
 * count held, and the oldest batch inside as the GPU join asks for it
 * (gpuprof_batches_oldest_in_flight). No profiler, no pipeline, no NVTX. */
#include <gst/check/gstcheck.h>

#include "gpuprof-async.h"
#include "gpuprof-batch.h"

static gint keys[8];            /* distinct addresses standing for buffers */

static guint64
batch_of (guint64 num)
{
  return gpuprof_batch_id_make (7, num);
}

/* @e followed, @skip buffers inside it unrecorded (gpuprof_async_new) */
static void
follow (GpuprofElement * e, guint32 id, guint64 skip)
{
  e->id = id;
  e->async = gpuprof_async_new (e, skip);
}

/* keys[@k] arrives at @ts, in batch @num (its number as the payload) */
static void
arrive (GpuprofElement * e, guint k, guint64 num, guint64 ts)
{
  gpuprof_async_arrive (e->async, &keys[k], batch_of (num), NULL, num, ts);
}

/* keys[@k] leaves at @ts: it takes batch @num, or matches nothing (0) */
static void
departs (GpuprofElement * e, guint k, guint64 ts, guint64 num)
{
  guint64 batch = G_MAXUINT64;
  gboolean matched = gpuprof_async_depart (e->async, &keys[k], ts, &batch);

  fail_unless_equals_int (matched, num != 0);
  fail_unless_equals_uint64 (batch, num ? batch_of (num) : 0);
}

GST_START_TEST (test_pointer_then_order)
{
  GpuprofElement e = { 0 };
  GpuprofAsyncFigures f;

  follow (&e, 3, 0);
  fail_unless_equals_uint64 (gpuprof_batches_oldest_in_flight (&e), 0);
  arrive (&e, 0, 5, 100);
  gpuprof_async_hold (e.async, 1);
  arrive (&e, 1, 6, 200);
  gpuprof_async_hold (e.async, 1);
  arrive (&e, 2, 7, 300);
  gpuprof_async_hold (e.async, 1);
  /* the oldest inside: batch 5, as a number */
  fail_unless_equals_uint64 (gpuprof_batches_oldest_in_flight (&e), 5);

  /* the same pointer leaves: the one before it was dropped inside */
  departs (&e, 1, 1200, 6);
  gpuprof_async_hold (e.async, -1);
  fail_unless_equals_uint64 (gpuprof_batches_oldest_in_flight (&e), 7);
  /* a new buffer leaves: the oldest arrival's batch goes with it */
  departs (&e, 5, 1300, 7);
  gpuprof_async_hold (e.async, -1);
  fail_unless_equals_uint64 (gpuprof_batches_oldest_in_flight (&e), 0);
  /* nothing inside: a departure matches nothing */
  departs (&e, 6, 1400, 0);

  gpuprof_async_figures (e.async, &f);
  fail_unless_equals_uint64 (f.departed, 3);
  fail_unless_equals_uint64 (f.residency_mean, 1000);
  fail_unless (f.residency_p50 <= 1000 && f.residency_p50 >= 1000 * 31 / 32);
  fail_unless_equals_uint64 (f.in_flight_max, 3);
  gpuprof_async_free (e.async);
}

GST_END_TEST;

/* Buffers inside before it was followed: their departures are skipped,
 * then the arrivals recorded since match in order */
GST_START_TEST (test_skip_unrecorded)
{
  GpuprofElement e = { 0 };

  follow (&e, 4, 2);
  arrive (&e, 0, 9, 10);
  departs (&e, 3, 20, 0);
  departs (&e, 4, 30, 0);
  departs (&e, 5, 40, 9);
  gpuprof_async_free (e.async);
}

GST_END_TEST;

/* A flush: what was inside is gone, later arrivals match from scratch */
GST_START_TEST (test_drain)
{
  GpuprofElement e = { 0 };

  follow (&e, 5, 0);
  arrive (&e, 0, 1, 10);
  arrive (&e, 1, 2, 20);
  gpuprof_async_drain (e.async);
  fail_unless_equals_uint64 (gpuprof_batches_oldest_in_flight (&e), 0);
  arrive (&e, 2, 3, 30);
  departs (&e, 7, 40, 3);
  gpuprof_async_free (e.async);
}

GST_END_TEST;

static Suite *
async_module_suite (void)
{
  Suite *s = suite_create ("async-module");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_pointer_then_order);
  tcase_add_test (tc, test_skip_unrecorded);
  tcase_add_test (tc, test_drain);
  return s;
}

GST_CHECK_MAIN (async_module);
