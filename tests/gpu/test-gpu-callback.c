/* The callback collection path (cupti-path=callback, issue 11) through the
 * real loader and the fake libcupti: only launch/copy/memset callbacks and GPU
 * activity kinds on, no API or external correlation records, exact
 * attribution by the launching thread's state at API entry; the activity path
 * still selectable with the same results; work on a thread owned by an
 * element (gpuprof_gpu_set_thread_owner()) goes to the owner and to its
 * oldest batch in flight (gpuprof_gpu_set_owner_batch_func()) on both, work
 * on a thread nobody owns is listed by the thread's name. Each
 * test runs in its own process (check forks): the loader state is per
 * process. */
#include <gst/check/gstcheck.h>
#include <cupti.h>

#include "gpuprof-gpu.h"
#include "gpuprof-test-cupti.h"
#include "gpuprof-gpu-tables.h"
#include "gpuprof-report.h"
#include "gpuprof-test-gate.h"

static GpuprofTestLaunch launch;

/* synchronizing calls with callbacks on both paths (gpuprof-cupti.c):
 * cuCtxSynchronize(_v2), cuStreamSynchronize(_ptsz), cuEventSynchronize;
 * cudaDevice-, cudaThread-, cudaStream- (and _ptsz), cudaEventSynchronize */
#define N_SYNC_DRIVER 5
#define N_SYNC_RUNTIME 5
/* event records (a batch's end on an owned thread), both paths:
 * cuEventRecord(WithFlags)(_ptsz), cudaEventRecord(WithFlags)(_ptsz) */
#define N_RECORD_DRIVER 4
#define N_RECORD_RUNTIME 4

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

/* The report names how calls were seen on @path: the callback path reads
 * the launching thread's call at API entry, it has no external id */
static void
check_report_label (const gchar * path, const gchar * label)
{
  GpuprofSnapshot *snap = gpuprof_snapshot_new ("pipeline0");
  gchar *report, *line;

  gpuprof_gpu_tables_fill (snap, GPUPROF_GPU_CHANNEL_TRACER, NULL, NULL, 0, 0);
  fail_unless_equals_int (snap->gpu->len, 1);
  fail_unless_equals_string (g_array_index (snap->gpu, GpuprofGpuRow,
          0).path, path);
  report = gpuprof_report_format (snap);
  line = g_strdup_printf ("   = 0.001 %s + 0.000 by thread + 0.000 "
      "unattributed\n", label);
  fail_unless (strstr (report, line) != NULL, "no '%s' in:\n%s", line, report);
  g_free (line);
  g_free (report);
  gpuprof_snapshot_free (snap);
}

GST_START_TEST (test_callback_path)
{
  GpuprofGpuTotals t;

  if (!gpuprof_test_fake_cupti_start (GPUPROF_CUPTI_PATH_CALLBACK))
    return;
  /* GPU work only; launch/copy/memset callbacks (the fake names 4 driver
   * ids and 1 runtime id that launch, the others not), the 5 + 5
   * synchronizing ids (gpu_wait_ns) and the 4 + 4 event records */
  fail_unless (kind_on (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  fail_unless (kind_on (CUPTI_ACTIVITY_KIND_MEMCPY));
  fail_unless (kind_on (CUPTI_ACTIVITY_KIND_MEMSET));
  fail_if (kind_on (CUPTI_ACTIVITY_KIND_DRIVER));
  fail_if (kind_on (CUPTI_ACTIVITY_KIND_RUNTIME));
  fail_if (kind_on (CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION));
  fail_unless_equals_int (callbacks_on (0), 4 + N_SYNC_DRIVER +
      N_RECORD_DRIVER);
  fail_unless_equals_int (callbacks_on (1), 1 + N_SYNC_RUNTIME +
      N_RECORD_RUNTIME);

  gpuprof_test_fake_cupti_pattern (NULL, NULL);
  /* entry and exit of each launch */
  fail_unless_equals_uint64 (fake_callbacks (), 8);
  gpuprof_cupti_flush (TRUE);
  gpuprof_test_fake_cupti_check_pattern ();
  check_report_label ("callback", "in calls at launch");
  gpuprof_gpu_get_totals (GPUPROF_GPU_CHANNEL_TRACER, &t);
  fail_unless_equals_uint64 (t.launch_records, 4);
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
  /* the synchronizing calls' (gpu_wait_ns) and the event records' only */
  fail_unless_equals_int (callbacks_on (0), N_SYNC_DRIVER + N_RECORD_DRIVER);
  fail_unless_equals_int (callbacks_on (1), N_SYNC_RUNTIME +
      N_RECORD_RUNTIME);
  gpuprof_test_fake_cupti_pattern (NULL, NULL);
  fail_unless_equals_uint64 (fake_callbacks (), 0);
  gpuprof_cupti_flush (TRUE);
  gpuprof_test_fake_cupti_check_pattern ();
  check_report_label ("activity", "by external id");
  gpuprof_gpu_get_totals (GPUPROF_GPU_CHANNEL_TRACER, &t);
  fail_unless_equals_uint64 (t.launch_records, 0);
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

/* ---- private threads: one owned by an element, one by nobody ---- */

/* on a thread of its own, never in a chain call: only its owner explains
 * its work */
static void
launch_private (gpointer kernel)
{
  launch (0, kernel, 700, 0);
  launch (1, NULL, 30, 256);
}

/* the element's batches in flight, oldest first (the stand-in for
 * gpuprof_batches_oldest_in_flight(), gst/measure/gpuprof-batch.h) */
static guint64 in_flight[16];
static guint n_in_flight;
static gint owner_batch_calls;

static guint64
oldest_in_flight (guint32 element_id, guint64 after, gpointer user_data)
{
  guint i;

  g_atomic_int_inc (&owner_batch_calls);
  fail_unless_equals_pointer (user_data, &in_flight);
  for (i = 0; element_id == 12 && i < n_in_flight; i++)
    if (in_flight[i] > after)
      return in_flight[i];
  return 0;
}

static void
run_owned_thread (GpuprofCuptiPath path)
{
  GpuprofTestGate owned, nobody;
  GpuprofGpuElementStats e;
  GpuprofGpuTotals t;
  GpuprofGpuCost c;
  GArray *un;
  const GpuprofGpuThreadStats *u;
  gchar *name;

  if (!gpuprof_test_fake_cupti_start (path))
    return;
  launch = gpuprof_test_fake_cupti_launch ();
  gpuprof_gpu_set_owner_batch_func (oldest_in_flight, &in_flight);
  /* element 12 has batches 5 and 6 in flight */
  in_flight[0] = 5;
  in_flight[1] = 6;
  n_in_flight = 2;
  gpuprof_test_gate_start (&owned, "owned", launch_private, "worker");
  gpuprof_test_gate_start (&nobody, "nobody", launch_private, "stray");
  /* told from this thread, as the tracer learns it, before it launches */
  gpuprof_gpu_set_thread_owner (owned.tid, 12);
  gpuprof_test_gate_run (&owned);
  gpuprof_test_gate_run (&nobody);
  /* on the callback path batch 5 is read at launch: its completion before
   * the records arrive changes nothing (the activity path reads it when
   * the record is settled, docs/gpu.md) */
  if (path == GPUPROF_CUPTI_PATH_CALLBACK) {
    in_flight[0] = 6;
    n_in_flight = 1;
  }

  /* the streaming thread's own work stays its element's */
  gpuprof_gpu_chain_enter (7, 1);
  launch (0, "chain", 100, 0);
  gpuprof_gpu_chain_exit ();
  gpuprof_cupti_flush (TRUE);

  gpuprof_gpu_get_totals (GPUPROF_GPU_CHANNEL_TRACER, &t);
  fail_unless_equals_uint64 (t.records, 5);
  fail_unless (gpuprof_gpu_get_element (GPUPROF_GPU_CHANNEL_TRACER, 12, &e));
  fail_unless_equals_uint64 (e.cost.kernels, 1);
  fail_unless_equals_uint64 (e.cost.kernel_ns, 700);
  fail_unless_equals_uint64 (e.cost.copies, 1);
  fail_unless_equals_uint64 (e.by_thread_ns, 730);
  /* ... and to its oldest batch in flight, not the next one */
  fail_unless_equals_uint64 (e.buffers, 1);
  fail_unless (gpuprof_gpu_get_buffer_cost (GPUPROF_GPU_CHANNEL_TRACER, 12, 5,
          &c));
  fail_unless_equals_uint64 (c.kernels, 1);
  fail_unless_equals_uint64 (c.kernel_ns, 700);
  fail_unless_equals_uint64 (c.copies, 1);
  fail_unless_equals_uint64 (c.copy_bytes, 256);
  fail_if (gpuprof_gpu_get_buffer_cost (GPUPROF_GPU_CHANNEL_TRACER, 12, 6,
          &c));
  fail_unless (owner_batch_calls > 0);
  fail_unless (gpuprof_gpu_get_element (GPUPROF_GPU_CHANNEL_TRACER, 7, &e));
  fail_unless_equals_uint64 (e.cost.kernels, 1);
  fail_unless_equals_uint64 (e.cost.kernel_ns, 100);

  /* the thread nobody owns: unattributed, listed by its name */
  fail_unless_equals_uint64 (t.unattributed_ns, 730);
  fail_unless_equals_uint64 (t.external_ns + t.thread_ns + t.unattributed_ns,
      t.total_ns);
  un = gpuprof_gpu_get_unattributed (GPUPROF_GPU_CHANNEL_TRACER);
  fail_unless_equals_int (un->len, 1);
  u = &g_array_index (un, GpuprofGpuThreadStats, 0);
  fail_unless_equals_uint64 (u->thread_id, nobody.tid);
  fail_unless_equals_uint64 (u->cost.kernels, 1);
  name = g_strdup_printf ("nobody, tid %u", nobody.tid);
  fail_unless_equals_string (u->name, name);
  g_free (name);
  g_array_unref (un);

  gpuprof_test_gate_end (&owned);
  gpuprof_test_gate_end (&nobody);
  gpuprof_gpu_set_owner_batch_func (NULL, NULL);
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

/* every event record id the tracer enables, driver and runtime (whose
 * driver record nests inside, in the fake as in CUDA) */
static const struct
{
  gint domain;
  guint32 cbid;
} record_ids[] = {
  {0, CUPTI_DRIVER_TRACE_CBID_cuEventRecord},
  {0, CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz},
  {0, CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags},
  {0, CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags_ptsz},
  {1, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020},
  {1, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_ptsz_v7000},
  {1, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_v11010},
  {1, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_ptsz_v11010},
};

/* an input thread that never waits: a kernel per batch (100 + i ns), then
 * an event record, with each id in turn */
static void
launch_and_record (gpointer data)
{
  GpuprofTestEventRecord record = gpuprof_test_fake_cupti_event_record ();
  guint i;

  for (i = 0; i <= G_N_ELEMENTS (record_ids); i++) {
    launch (0, "per_batch", 100 + i, 0);
    if (i < G_N_ELEMENTS (record_ids))
      record (record_ids[i].domain, record_ids[i].cbid);
  }
}

/* An event record closes an owned thread's batch: its next launch goes to
 * the next batch in flight, though the thread never waited (issue 9,
 * nvinfer's input thread). Batches 5..13 in flight, none leaves: each
 * must have exactly its kernel (all would go to batch 5 without). */
GST_START_TEST (test_event_record_closes_batch)
{
  GpuprofTestGate input;
  guint i;

  if (!gpuprof_test_fake_cupti_start (GPUPROF_CUPTI_PATH_CALLBACK))
    return;
  launch = gpuprof_test_fake_cupti_launch ();
  gpuprof_gpu_set_owner_batch_func (oldest_in_flight, &in_flight);
  for (n_in_flight = 0; n_in_flight <= G_N_ELEMENTS (record_ids);
      n_in_flight++)
    in_flight[n_in_flight] = 5 + n_in_flight;
  gpuprof_test_gate_start (&input, "input", launch_and_record, NULL);
  gpuprof_gpu_set_thread_owner (input.tid, 12);
  gpuprof_test_gate_run (&input);
  gpuprof_cupti_flush (TRUE);

  for (i = 0; i <= G_N_ELEMENTS (record_ids); i++) {
    GpuprofGpuCost c;

    fail_unless (gpuprof_gpu_get_buffer_cost (GPUPROF_GPU_CHANNEL_TRACER, 12,
            5 + i, &c), "batch %u has no GPU cost", 5 + i);
    fail_unless_equals_uint64 (c.kernels, 1);
    fail_unless_equals_uint64 (c.kernel_ns, 100 + i);
  }
  gpuprof_test_gate_end (&input);
  gpuprof_gpu_set_owner_batch_func (NULL, NULL);
  gpuprof_test_fake_cupti_stop ();
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
  tcase_add_test (tc, test_event_record_closes_batch);
  return s;
}

GST_CHECK_MAIN (gpu_callback);
