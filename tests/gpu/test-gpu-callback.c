/* The callback collection path (cupti-path=callback, issue 11) through the
 * real loader and the fake libcupti: only launch/copy/memset callbacks and GPU
 * activity kinds on, no API or external correlation records, exact
 * attribution by the launching thread's state at API entry; the activity path
 * still selectable with the same results; work on a thread owned by an
 * element (gpuprof_gpu_set_thread_owner()) goes to the owner on both. Each
 * test runs in its own process (check forks): the loader state is per
 * process. */
#include <gst/check/gstcheck.h>
#include <cupti.h>

#include "gpuprof-gpu.h"
#include "gpuprof-test-cupti.h"

static GpuprofTestLaunch launch;

/* whether the fake has activity kind @kind on */
static gboolean
kind_on (gint kind)
{
  return gpuprof_test_fake_cupti_int ("fake_cupti_kind_enabled", kind);
}

/* how many callback ids of @domain (0 driver, 1 runtime) the fake has on */
static gint
callbacks_on (gint domain)
{
  return gpuprof_test_fake_cupti_int ("fake_cupti_callbacks_enabled", domain);
}

static guint64
fake_callbacks (void)
{
  guint64 (*f) (void) =
      gpuprof_test_fake_cupti_symbol ("fake_cupti_callbacks");

  return f ();
}

GST_START_TEST (test_callback_path)
{
  GpuprofGpuTotals t;

  if (!gpuprof_test_fake_cupti_start (GPUPROF_CUPTI_PATH_CALLBACK))
    return;
  /* GPU work only; launch/copy/memset callbacks only (the fake names 4
   * driver ids and 1 runtime id that launch, the others not) */
  fail_unless (kind_on (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  fail_unless (kind_on (CUPTI_ACTIVITY_KIND_MEMCPY));
  fail_unless (kind_on (CUPTI_ACTIVITY_KIND_MEMSET));
  fail_if (kind_on (CUPTI_ACTIVITY_KIND_DRIVER));
  fail_if (kind_on (CUPTI_ACTIVITY_KIND_RUNTIME));
  fail_if (kind_on (CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION));
  fail_unless_equals_int (callbacks_on (0), 4);
  fail_unless_equals_int (callbacks_on (1), 1);

  gpuprof_test_fake_cupti_pattern (NULL, NULL);
  /* entry and exit of each launch */
  fail_unless_equals_uint64 (fake_callbacks (), 8);
  gpuprof_cupti_flush (TRUE);
  gpuprof_test_fake_cupti_check_pattern ();
  gpuprof_gpu_get_totals (GPUPROF_GPU_CHANNEL_TRACER, &t);
  fail_unless_equals_uint64 (t.api_records, 0);
  fail_unless_equals_uint64 (t.external_records, 0);
  fail_unless_equals_uint64 (t.pending_ids, 0);
  gpuprof_test_fake_cupti_stop ();
  /* unsubscribed: no more callbacks */
  fail_unless_equals_int (callbacks_on (0), 0);
}

GST_END_TEST;

/* the old path, selected: same attribution, from API and external records */
GST_START_TEST (test_activity_path)
{
  GpuprofGpuTotals t;

  if (!gpuprof_test_fake_cupti_start (GPUPROF_CUPTI_PATH_ACTIVITY))
    return;
  fail_unless (kind_on (CUPTI_ACTIVITY_KIND_DRIVER));
  fail_unless (kind_on (CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION));
  fail_unless_equals_int (callbacks_on (0), 0);
  gpuprof_test_fake_cupti_pattern (NULL, NULL);
  fail_unless_equals_uint64 (fake_callbacks (), 0);
  gpuprof_cupti_flush (TRUE);
  gpuprof_test_fake_cupti_check_pattern ();
  gpuprof_gpu_get_totals (GPUPROF_GPU_CHANNEL_TRACER, &t);
  fail_unless_equals_uint64 (t.api_records, 4);
  fail_unless_equals_uint64 (t.external_records, 3);
  gpuprof_test_fake_cupti_stop ();
}

GST_END_TEST;

/* A record whose launch was not seen (callbacks had nothing to store: the
 * channel was off) is counted, unjoined and unattributed; dropped records
 * are reported; attributed + unattributed = total. */
GST_START_TEST (test_callback_unseen_and_dropped)
{
  GpuprofGpuTotals t;
  GArray *un;

  g_setenv ("FAKE_CUPTI_DROPPED", "3", TRUE);
  if (!gpuprof_test_fake_cupti_start (GPUPROF_CUPTI_PATH_CALLBACK))
    return;
  launch = gpuprof_test_fake_cupti_launch ();
  gpuprof_gpu_enable_channel (GPUPROF_GPU_CHANNEL_TRACER, FALSE);
  launch (0, "unseen", 40, 0);
  gpuprof_gpu_enable_channel (GPUPROF_GPU_CHANNEL_TRACER, TRUE);
  gpuprof_gpu_chain_enter (5, 1);
  launch (0, "seen", 60, 0);
  gpuprof_gpu_chain_exit ();
  gpuprof_cupti_flush (TRUE);

  gpuprof_gpu_get_totals (GPUPROF_GPU_CHANNEL_TRACER, &t);
  fail_unless_equals_uint64 (t.records, 2);
  fail_unless_equals_uint64 (t.unjoined, 1);
  fail_unless_equals_uint64 (t.external_ns, 60);
  fail_unless_equals_uint64 (t.unattributed_ns, 40);
  fail_unless_equals_uint64 (t.external_ns + t.thread_ns + t.unattributed_ns,
      t.total_ns);
  fail_unless_equals_uint64 (t.dropped, 3);
  fail_unless_equals_uint64 (gpuprof_cupti_dropped (), 3);
  un = gpuprof_gpu_get_unattributed (GPUPROF_GPU_CHANNEL_TRACER);
  fail_unless_equals_int (un->len, 1);
  fail_unless_equals_uint64 (g_array_index (un, GpuprofGpuThreadStats,
          0).cost.kernels, 1);
  g_array_unref (un);
  gpuprof_test_fake_cupti_stop ();
}

GST_END_TEST;

/* ---- a private thread owned by an element ---- */

typedef struct
{
  GMutex lock;
  GCond cond;
  guint32 tid;
  gboolean owned, done;
} Private;

static gpointer
private_main (gpointer data)
{
  Private *p = data;

  g_mutex_lock (&p->lock);
  p->tid = gpuprof_gpu_current_thread_id ();
  g_cond_broadcast (&p->cond);
  while (!p->owned)
    g_cond_wait (&p->cond, &p->lock);
  g_mutex_unlock (&p->lock);
  /* no chain call on this thread, ever: only its owner explains it */
  launch (0, "worker", 700, 0);
  launch (1, NULL, 30, 256);
  return NULL;
}

static void
run_owned_thread (GpuprofCuptiPath path)
{
  Private p = { 0, };
  GpuprofGpuElementStats e;
  GpuprofGpuTotals t;
  GThread *th;

  if (!gpuprof_test_fake_cupti_start (path))
    return;
  launch = gpuprof_test_fake_cupti_launch ();
  g_mutex_init (&p.lock);
  g_cond_init (&p.cond);
  th = g_thread_new ("private", private_main, &p);
  g_mutex_lock (&p.lock);
  while (!p.tid)
    g_cond_wait (&p.cond, &p.lock);
  /* told from this thread, as the waits part learns it */
  gpuprof_gpu_set_thread_owner (p.tid, 12);
  p.owned = TRUE;
  g_cond_broadcast (&p.cond);
  g_mutex_unlock (&p.lock);
  g_thread_join (th);

  /* the streaming thread's own work stays its element's */
  gpuprof_gpu_chain_enter (7, 1);
  launch (0, "chain", 100, 0);
  gpuprof_gpu_chain_exit ();
  gpuprof_cupti_flush (TRUE);

  gpuprof_gpu_get_totals (GPUPROF_GPU_CHANNEL_TRACER, &t);
  fail_unless_equals_uint64 (t.records, 3);
  fail_unless_equals_uint64 (t.unattributed_ns, 0);
  fail_unless (gpuprof_gpu_get_element (GPUPROF_GPU_CHANNEL_TRACER, 12, &e));
  fail_unless_equals_uint64 (e.cost.kernels, 1);
  fail_unless_equals_uint64 (e.cost.kernel_ns, 700);
  fail_unless_equals_uint64 (e.cost.copies, 1);
  fail_unless_equals_uint64 (e.by_thread_ns, 730);
  fail_unless (gpuprof_gpu_get_element (GPUPROF_GPU_CHANNEL_TRACER, 7, &e));
  fail_unless_equals_uint64 (e.cost.kernels, 1);
  fail_unless_equals_uint64 (e.cost.kernel_ns, 100);
  g_mutex_clear (&p.lock);
  g_cond_clear (&p.cond);
  gpuprof_test_fake_cupti_stop ();
}

GST_START_TEST (test_owned_thread_callback)
{
  run_owned_thread (GPUPROF_CUPTI_PATH_CALLBACK);
}

GST_END_TEST;

GST_START_TEST (test_owned_thread_activity)
{
  run_owned_thread (GPUPROF_CUPTI_PATH_ACTIVITY);
}

GST_END_TEST;

static Suite *
gpu_callback_suite (void)
{
  Suite *s = suite_create ("gpu-callback");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_callback_path);
  tcase_add_test (tc, test_activity_path);
  tcase_add_test (tc, test_callback_unseen_and_dropped);
  tcase_add_test (tc, test_owned_thread_callback);
  tcase_add_test (tc, test_owned_thread_activity);
  return s;
}

GST_CHECK_MAIN (gpu_callback);
