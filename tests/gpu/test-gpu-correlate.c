/* Correlation of GPU records to (element, buffer): synthetic records from a
 * fake activity source, delivered out of order, late, nested, from unknown
 * threads, never joined, dropped — attribution checked exactly. */
#include <gst/check/gstcheck.h>

#include "fake-activity.h"
#include "gpuprof-gpu-tables.h"
#include "gpuprof-report.h"

#define TR GPUPROF_GPU_CHANNEL_TRACER
#define ME GPUPROF_GPU_CHANNEL_METER

static FakeSource src;

static void
setup (void)
{
  GpuprofGpuConfig defaults = { GPUPROF_GPU_DEFAULT_RETAIN_NS,
    GPUPROF_GPU_DEFAULT_MAX_PENDING, GPUPROF_GPU_DEFAULT_RING_SIZE
  };

  gpuprof_gpu_configure (&defaults);
  fake_source_setup (&src, FALSE);
}

static void
teardown (void)
{
  fake_source_teardown (&src);
}

static void
check_totals_add_up (GpuprofGpuChannel ch)
{
  GpuprofGpuTotals t;
  GArray *els = gpuprof_gpu_get_elements (ch);
  GArray *un = gpuprof_gpu_get_unattributed (ch);
  guint64 sum = 0;
  guint i;

  gpuprof_gpu_get_totals (ch, &t);
  fail_unless_equals_uint64 (t.external_ns + t.thread_ns + t.unattributed_ns,
      t.total_ns);
  for (i = 0; i < els->len; i++)
    sum += gpuprof_gpu_cost_ns (&g_array_index (els, GpuprofGpuElementStats,
            i).cost);
  for (i = 0; i < un->len; i++)
    sum += gpuprof_gpu_cost_ns (&g_array_index (un, GpuprofGpuThreadStats,
            i).cost);
  fail_unless_equals_uint64 (sum, t.total_ns);
  g_array_unref (els);
  g_array_unref (un);
}

/* GPU records first, API records in a later buffer, external records later
 * still: the one-settle grace keeps the join exact. */
GST_START_TEST (test_out_of_order_and_late_external)
{
  GpuprofGpuElementStats e;
  GpuprofGpuTotals t;
  GpuprofGpuCost c;
  guint64 seq, base = 1000000;

  for (seq = 0; seq < 10; seq++) {
    guint64 t0 = base + seq * 10000;
    gpuprof_gpu_chain_enter (7, seq);
    fake_launch (&src, GPUPROF_GPU_OP_KERNEL, "convert", 0, t0, t0 + 1000, 0);
    fake_launch (&src, GPUPROF_GPU_OP_KERNEL, "scale", 0, t0 + 1000,
        t0 + 1500, 0);
    fake_launch (&src, GPUPROF_GPU_OP_MEMCPY, NULL, 0, t0 + 1500, t0 + 1700,
        4096);
    gpuprof_gpu_chain_exit ();
  }
  fail_unless_equals_int (src.pushes, 10);
  fail_unless_equals_int (src.pops, 10);

  fake_deliver_type (&src, FAKE_OP);
  gpuprof_gpu_settle (1, GPUPROF_GPU_SETTLE_NORMAL);
  fake_deliver_type (&src, FAKE_API);
  gpuprof_gpu_settle (2, GPUPROF_GPU_SETTLE_NORMAL);
  gpuprof_gpu_get_totals (TR, &t);
  fail_unless_equals_uint64 (t.pending, 30);    /* joined, in its grace */
  fail_unless_equals_uint64 (t.records, 0);
  fake_deliver_type (&src, FAKE_EXT);
  gpuprof_gpu_settle (3, GPUPROF_GPU_SETTLE_NORMAL);

  gpuprof_gpu_get_totals (TR, &t);
  fail_unless_equals_uint64 (t.pending, 0);
  fail_unless_equals_uint64 (t.pending_ids, 0);  /* joins reclaimed */
  fail_unless_equals_uint64 (t.records, 30);
  fail_unless_equals_uint64 (t.total_ns, 10 * 1700);
  fail_unless_equals_uint64 (t.external_ns, 10 * 1700);
  fail_unless_equals_uint64 (t.thread_ns, 0);
  fail_unless_equals_uint64 (t.unattributed_ns, 0);
  fail_unless_equals_uint64 (t.unjoined, 0);

  fail_unless (gpuprof_gpu_get_element (TR, 7, &e));
  fail_unless_equals_uint64 (e.cost.kernel_ns, 10 * 1500);
  fail_unless_equals_uint64 (e.cost.kernels, 20);
  fail_unless_equals_uint64 (e.cost.copy_ns, 10 * 200);
  fail_unless_equals_uint64 (e.cost.copies, 10);
  fail_unless_equals_uint64 (e.cost.copy_bytes, 10 * 4096);
  fail_unless_equals_uint64 (e.buffers, 10);

  fail_unless (gpuprof_gpu_get_buffer_cost (TR, 7, 3, &c));
  fail_unless_equals_uint64 (c.kernels, 2);
  fail_unless_equals_uint64 (c.kernel_ns, 1500);
  fail_unless_equals_uint64 (c.copy_bytes, 4096);
  fail_if (gpuprof_gpu_get_buffer_cost (TR, 7, 10, &c));
  check_totals_add_up (TR);
}

GST_END_TEST;

/* Nested chain calls: the innermost id wins, the outer one is back after
 * the inner call returns. Everything delivered in reverse order. */
GST_START_TEST (test_nested)
{
  GpuprofGpuElementStats e;
  GpuprofGpuCost c;

  gpuprof_gpu_chain_enter (1, 0);
  fake_launch (&src, GPUPROF_GPU_OP_KERNEL, "k1", 0, 100, 200, 0);
  gpuprof_gpu_chain_enter (2, 5);
  fake_launch (&src, GPUPROF_GPU_OP_KERNEL, "k2", 0, 200, 400, 0);
  fake_launch (&src, GPUPROF_GPU_OP_MEMSET, NULL, 0, 400, 410, 64);
  gpuprof_gpu_chain_exit ();
  fake_launch (&src, GPUPROF_GPU_OP_KERNEL, "k3", 0, 500, 900, 0);
  gpuprof_gpu_chain_exit ();

  fake_deliver_all_reversed (&src);
  gpuprof_gpu_settle (1, GPUPROF_GPU_SETTLE_NORMAL);
  gpuprof_gpu_settle (2, GPUPROF_GPU_SETTLE_NORMAL);

  fail_unless (gpuprof_gpu_get_element (TR, 1, &e));
  fail_unless_equals_uint64 (e.cost.kernels, 2);
  fail_unless_equals_uint64 (e.cost.kernel_ns, 500);
  fail_unless_equals_uint64 (e.cost.memsets, 0);
  fail_unless (gpuprof_gpu_get_element (TR, 2, &e));
  fail_unless_equals_uint64 (e.cost.kernels, 1);
  fail_unless_equals_uint64 (e.cost.kernel_ns, 200);
  fail_unless_equals_uint64 (e.cost.memsets, 1);
  fail_unless_equals_uint64 (e.cost.memset_ns, 10);
  fail_unless_equals_uint64 (e.cost.memset_bytes, 64);
  fail_unless (gpuprof_gpu_get_buffer_cost (TR, 2, 5, &c));
  fail_unless_equals_uint64 (c.kernel_ns, 200);
  fail_unless (gpuprof_gpu_get_buffer_cost (TR, 1, 0, &c));
  fail_unless_equals_uint64 (c.kernel_ns, 500);
  check_totals_add_up (TR);
}

GST_END_TEST;

/* Work launched outside any chain call: the thread's last active element,
 * or the element that owns the thread. */
static gpointer
fallback_thread (gpointer data)
{
  gpuprof_gpu_chain_enter (3, 0);
  gpuprof_gpu_chain_exit ();
  fake_launch (&src, GPUPROF_GPU_OP_KERNEL, "late", 0, 0, 1000, 0);
  fake_deliver_type (&src, FAKE_OP);
  fake_deliver_type (&src, FAKE_API);
  gpuprof_gpu_settle (1, GPUPROF_GPU_SETTLE_JOINED);
  g_array_set_size (src.records, 0);

  gpuprof_gpu_set_thread_element (TR, 9);
  fake_launch (&src, GPUPROF_GPU_OP_KERNEL, "loop", 0, 2000, 2300, 0);
  gpuprof_gpu_chain_enter (4, 1);
  gpuprof_gpu_chain_exit ();    /* back to the owner, not 4 */
  fake_launch (&src, GPUPROF_GPU_OP_KERNEL, "loop", 0, 3000, 3050, 0);
  fake_deliver_type (&src, FAKE_API);
  fake_deliver_type (&src, FAKE_OP);
  gpuprof_gpu_settle (2, GPUPROF_GPU_SETTLE_JOINED);
  return NULL;
}

GST_START_TEST (test_thread_fallback)
{
  GpuprofGpuElementStats e;
  GpuprofGpuTotals t;

  g_thread_join (g_thread_new ("fallback", fallback_thread, NULL));

  fail_unless (gpuprof_gpu_get_element (TR, 3, &e));
  fail_unless_equals_uint64 (e.cost.kernel_ns, 1000);
  fail_unless_equals_uint64 (e.by_thread_ns, 1000);
  fail_unless_equals_uint64 (e.buffers, 0);
  fail_unless (gpuprof_gpu_get_element (TR, 9, &e));
  fail_unless_equals_uint64 (e.cost.kernel_ns, 350);
  fail_unless_equals_uint64 (e.cost.kernels, 2);
  fail_unless_equals_uint64 (e.by_thread_ns, 350);
  fail_if (gpuprof_gpu_get_element (TR, 4, &e));
  gpuprof_gpu_get_totals (TR, &t);
  fail_unless_equals_uint64 (t.thread_ns, 1350);
  fail_unless_equals_uint64 (t.external_ns, 0);
  check_totals_add_up (TR);
}

GST_END_TEST;

/* Threads that never ran a chain call: named by gpuprof, named by the OS,
 * and records whose API record never comes. */
static gpointer
named_thread (gpointer data)
{
  gpuprof_gpu_set_thread_name ("worker-x");
  fake_launch (&src, GPUPROF_GPU_OP_KERNEL, "w", 0, 0, 700, 0);
  return NULL;
}

static gpointer
private_thread (gpointer data)
{
  /* no gpuprof call at all: the OS name, read while the thread lives */
  fake_launch (&src, GPUPROF_GPU_OP_MEMCPY, NULL, 0, 1000, 1040, 128);
  fake_deliver_all_reversed (&src);
  gpuprof_gpu_settle (1, GPUPROF_GPU_SETTLE_JOINED);
  return NULL;
}

static const GpuprofGpuThreadStats *
find_thread (GArray * un, const gchar * prefix)
{
  guint i;

  for (i = 0; i < un->len; i++) {
    const GpuprofGpuThreadStats *s =
        &g_array_index (un, GpuprofGpuThreadStats, i);
    if (g_str_has_prefix (s->name, prefix))
      return s;
  }
  return NULL;
}

GST_START_TEST (test_unattributed_threads)
{
  GpuprofGpuOp orphan = { GPUPROF_GPU_OP_KERNEL, 999, 0, 0, 0, 0, 5000, 5090,
    0, 0, "orphan"
  };
  const GpuprofGpuThreadStats *s;
  GpuprofGpuTotals t;
  GArray *un;

  g_thread_join (g_thread_new ("named", named_thread, NULL));
  g_thread_join (g_thread_new ("gpu-private", private_thread, NULL));
  gpuprof_gpu_add_op (&orphan);
  gpuprof_gpu_settle (2, GPUPROF_GPU_SETTLE_NORMAL);
  gpuprof_gpu_get_totals (TR, &t);
  fail_unless_equals_uint64 (t.pending, 1);     /* waits for its API record */
  gpuprof_gpu_settle (3, GPUPROF_GPU_SETTLE_ALL);

  un = gpuprof_gpu_get_unattributed (TR);
  fail_unless_equals_int (un->len, 3);
  s = find_thread (un, "worker-x");
  fail_unless (s != NULL);
  fail_unless_equals_uint64 (s->cost.kernel_ns, 700);
  s = find_thread (un, "gpu-private");
  fail_unless (s != NULL, "OS thread name not used");
  fail_unless_equals_uint64 (s->cost.copy_bytes, 128);
  fail_unless_equals_uint64 (s->cost.copy_ns, 40);
  s = find_thread (un, "unknown");
  fail_unless (s != NULL);
  fail_unless_equals_int (s->thread_id, 0);
  fail_unless_equals_uint64 (s->cost.kernel_ns, 90);
  g_array_unref (un);

  gpuprof_gpu_get_totals (TR, &t);
  fail_unless_equals_uint64 (t.unattributed_ns, 830);
  fail_unless_equals_uint64 (t.total_ns, 830);
  fail_unless_equals_uint64 (t.unjoined, 1);
  fail_unless_equals_uint64 (t.pending, 0);
  check_totals_add_up (TR);
}

GST_END_TEST;

/* Bounded memory: records that never join are settled after retain_ns, or
 * when max_pending ids are held; host-only records are freed. */
GST_START_TEST (test_expiry_and_bounds)
{
  GpuprofGpuConfig cfg = { 1000, 8, 0 };
  GpuprofGpuTotals t;
  guint32 i;

  gpuprof_gpu_configure (&cfg);
  gpuprof_gpu_settle (0, GPUPROF_GPU_SETTLE_NORMAL);
  for (i = 1; i <= 20; i++) {
    gpuprof_gpu_add_api (i, 1, 0, 0, 0);
    gpuprof_gpu_get_totals (TR, &t);
    fail_unless (t.pending_ids <= 8);
  }
  for (i = 100; i < 120; i++) {
    GpuprofGpuOp op = { GPUPROF_GPU_OP_KERNEL, i, 0, 0, 0, 0, i * 10,
      i * 10 + 5, 0, 0, "lost"
    };
    gpuprof_gpu_add_op (&op);
  }
  gpuprof_gpu_get_totals (TR, &t);
  fail_unless_equals_uint64 (t.pending_ids, 8);
  fail_unless_equals_uint64 (t.records, 12);    /* evicted, not dropped */
  fail_unless_equals_uint64 (t.unjoined, 12);
  fail_unless_equals_uint64 (t.pending, 8);

  gpuprof_gpu_settle (500, GPUPROF_GPU_SETTLE_NORMAL);  /* arrival */
  gpuprof_gpu_settle (1499, GPUPROF_GPU_SETTLE_NORMAL);
  gpuprof_gpu_get_totals (TR, &t);
  fail_unless_equals_uint64 (t.pending, 8);     /* not yet retain_ns */
  gpuprof_gpu_settle (1500, GPUPROF_GPU_SETTLE_NORMAL);
  gpuprof_gpu_get_totals (TR, &t);
  fail_unless_equals_uint64 (t.pending, 0);
  fail_unless_equals_uint64 (t.pending_ids, 0);
  fail_unless_equals_uint64 (t.records, 20);
  fail_unless_equals_uint64 (t.unjoined, 20);
  fail_unless_equals_uint64 (t.unattributed_ns, 20 * 5);
  check_totals_add_up (TR);
}

GST_END_TEST;

/* A graph launch: several records under one correlation id, some late. */
GST_START_TEST (test_graph_launch)
{
  GpuprofGpuElementStats e;
  GpuprofGpuTotals t;
  FakeRecord *op;
  GpuprofGpuOp second;

  gpuprof_gpu_chain_enter (11, 2);
  fake_launch (&src, GPUPROF_GPU_OP_KERNEL, "node0", 0, 0, 100, 0);
  gpuprof_gpu_chain_exit ();
  op = &g_array_index (src.records, FakeRecord, 0);
  op->op.graph_id = 5;
  second = op->op;
  second.start = 100;
  second.end = 350;
  second.name = "node1";

  fake_deliver_all_reversed (&src);
  gpuprof_gpu_settle (1, GPUPROF_GPU_SETTLE_JOINED);
  gpuprof_gpu_add_op (&second);
  gpuprof_gpu_settle (2, GPUPROF_GPU_SETTLE_JOINED);

  fail_unless (gpuprof_gpu_get_element (TR, 11, &e));
  fail_unless_equals_uint64 (e.cost.kernels, 2);
  fail_unless_equals_uint64 (e.cost.kernel_ns, 350);
  gpuprof_gpu_get_totals (TR, &t);
  fail_unless_equals_uint64 (t.graph_records, 2);
  fail_unless_equals_uint64 (t.unjoined, 0);
}

GST_END_TEST;

/* Union of intervals per device, idle gaps, out-of-order arrival. */
GST_START_TEST (test_devices)
{
  GpuprofGpuDeviceStats *d;
  GArray *devs;

  gpuprof_gpu_chain_enter (1, 0);
  fake_launch (&src, GPUPROF_GPU_OP_KERNEL, "c", 0, 1300, 1400, 0);
  fake_launch (&src, GPUPROF_GPU_OP_KERNEL, "a", 0, 1000, 1100, 0);
  fake_launch (&src, GPUPROF_GPU_OP_KERNEL, "b", 0, 1050, 1150, 0);
  fake_launch (&src, GPUPROF_GPU_OP_KERNEL, "d", 1, 0, 10, 0);
  gpuprof_gpu_chain_exit ();
  fake_deliver_all_reversed (&src);
  gpuprof_gpu_settle (1, GPUPROF_GPU_SETTLE_ALL);

  devs = gpuprof_gpu_get_devices (0, 0);
  fail_unless_equals_int (devs->len, 2);
  d = &g_array_index (devs, GpuprofGpuDeviceStats, 0);
  if (d->device_id != 0)
    d = &g_array_index (devs, GpuprofGpuDeviceStats, 1);
  fail_unless_equals_uint64 (d->busy_ns, 250);  /* not the sum, 300 */
  fail_unless_equals_uint64 (d->first_ns, 1000);
  fail_unless_equals_uint64 (d->last_ns, 1400);
  fail_unless_equals_int (d->n_gaps, 1);
  fail_unless_equals_uint64 (d->gaps[0].start, 1150);
  fail_unless_equals_uint64 (d->gaps[0].duration, 150);
  fail_unless (fabs (d->busy_fraction - 250.0 / 400.0) < 1e-9);
  g_array_unref (devs);

  devs = gpuprof_gpu_get_devices (900, 1600);
  d = &g_array_index (devs, GpuprofGpuDeviceStats, 0);
  if (d->device_id != 0)
    d = &g_array_index (devs, GpuprofGpuDeviceStats, 1);
  fail_unless (fabs (d->busy_fraction - 250.0 / 700.0) < 1e-9);
  fail_unless_equals_int (d->n_gaps, 3);
  fail_unless_equals_uint64 (d->gaps[0].duration, 200);
  fail_unless_equals_uint64 (d->gaps[1].duration, 150);
  fail_unless_equals_uint64 (d->gaps[2].duration, 100);
  g_array_unref (devs);

  /* a run from 1120 to 1380: idle time is counted inside it only (the gap
   * 1150-1300 is whole inside; the edges are clipped to the window) */
  devs = gpuprof_gpu_get_devices (1120, 1380);
  d = &g_array_index (devs, GpuprofGpuDeviceStats, 0);
  if (d->device_id != 0)
    d = &g_array_index (devs, GpuprofGpuDeviceStats, 1);
  fail_unless_equals_int (d->n_gaps, 1);
  fail_unless_equals_uint64 (d->gaps[0].start, 1150);
  fail_unless_equals_uint64 (d->gaps[0].duration, 150);
  g_array_unref (devs);

  /* a run that starts after the device's idle gap ended */
  devs = gpuprof_gpu_get_devices (1310, 1380);
  d = &g_array_index (devs, GpuprofGpuDeviceStats, 0);
  if (d->device_id != 0)
    d = &g_array_index (devs, GpuprofGpuDeviceStats, 1);
  fail_unless_equals_int (d->n_gaps, 0);
  g_array_unref (devs);
}

GST_END_TEST;

/* The tracer and a meter at once: one kernel, attributed on both channels. */
GST_START_TEST (test_two_channels)
{
  GpuprofGpuElementStats e;
  GpuprofGpuCost c;

  gpuprof_gpu_enable_channel (ME, TRUE);
  gpuprof_gpu_channel_enter (ME, 100, 777);
  gpuprof_gpu_chain_enter (5, 1);
  fake_launch (&src, GPUPROF_GPU_OP_KERNEL, "k", 0, 0, 64, 0);
  gpuprof_gpu_chain_exit ();
  gpuprof_gpu_channel_exit (ME);
  fake_deliver_all_reversed (&src);
  gpuprof_gpu_settle (1, GPUPROF_GPU_SETTLE_JOINED);

  fail_unless (gpuprof_gpu_get_element (TR, 5, &e));
  fail_unless_equals_uint64 (e.cost.kernel_ns, 64);
  fail_if (gpuprof_gpu_get_element (TR, 100, &e));
  fail_unless (gpuprof_gpu_get_buffer_cost (ME, 100, 777, &c));
  fail_unless_equals_uint64 (c.kernel_ns, 64);
  fail_if (gpuprof_gpu_get_element (ME, 5, &e));
}

GST_END_TEST;

/* Off: no backend or channel disabled -> nothing pushed, nothing kept. */
GST_START_TEST (test_hot_path_off)
{
  gpuprof_gpu_set_backend (NULL);
  gpuprof_gpu_chain_enter (1, 1);
  gpuprof_gpu_chain_exit ();
  fail_unless_equals_int (_gpuprof_gpu_channels_on, 0);
  fail_unless_equals_int (src.pushes, 0);

  fake_source_uninstall (&src);
  fake_source_install (&src);
  gpuprof_gpu_enable_channel (TR, FALSE);
  gpuprof_gpu_chain_enter (1, 1);
  gpuprof_gpu_chain_exit ();
  fail_unless_equals_int (src.pushes, 0);
  fail_if (gpuprof_gpu_channel_enabled (TR));

  gpuprof_gpu_enable_channel (TR, TRUE);
  gpuprof_gpu_chain_enter (1, 1);
  gpuprof_gpu_chain_exit ();
  fail_unless_equals_int (src.pushes, 1);
  fail_unless_equals_int (src.pops, 1);
}

GST_END_TEST;

static gchar *
path_of (guint32 id, gpointer data)
{
  return id == 7 ? g_strdup ("pipeline0/conv") : NULL;
}

GST_START_TEST (test_report)
{
  GpuprofSnapshot *snap;
  gchar *report;

  gpuprof_gpu_chain_enter (7, 0);
  fake_launch (&src, GPUPROF_GPU_OP_KERNEL, "convert_kernel", 0, 0, 2000000,
      0);
  gpuprof_gpu_chain_exit ();
  fake_deliver_all_reversed (&src);
  gpuprof_gpu_add_dropped (5);
  gpuprof_gpu_settle (1, GPUPROF_GPU_SETTLE_ALL);
  {
    GpuprofGpuOp orphan = { GPUPROF_GPU_OP_KERNEL, 999, 0, 0, 0, 0, 10, 20,
      0, 0, "orphan"
    };
    gpuprof_gpu_add_op (&orphan);
    gpuprof_gpu_settle (2, GPUPROF_GPU_SETTLE_ALL);
  }

  snap = gpuprof_snapshot_new ("pipeline0");
  gpuprof_gpu_tables_fill (snap, TR, path_of, NULL, 0, 0);
  report = gpuprof_report_format (snap);
  gpuprof_snapshot_free (snap);
  GST_INFO ("\n%s", report);
  fail_unless (strstr (report, "5 dropped by CUPTI") != NULL, "%s", report);
  fail_unless (strstr (report, "pipeline0/conv") != NULL, "%s", report);
  fail_unless (strstr (report, "unattributed (thread unknown)") != NULL,
      "%s", report);
  fail_unless (strstr (report, "convert_kernel") != NULL, "%s", report);
  fail_unless (strstr (report, "GPU ms") != NULL, "%s", report);
  fail_unless (strstr (report, "busy %") != NULL, "%s", report);
  g_free (report);
}

GST_END_TEST;

static Suite *
gpu_correlate_suite (void)
{
  Suite *s = suite_create ("gpu-correlate");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_out_of_order_and_late_external);
  tcase_add_test (tc, test_nested);
  tcase_add_test (tc, test_thread_fallback);
  tcase_add_test (tc, test_unattributed_threads);
  tcase_add_test (tc, test_expiry_and_bounds);
  tcase_add_test (tc, test_graph_launch);
  tcase_add_test (tc, test_devices);
  tcase_add_test (tc, test_two_channels);
  tcase_add_test (tc, test_hot_path_off);
  tcase_add_test (tc, test_report);
  return s;
}

GST_CHECK_MAIN (gpu_correlate);
