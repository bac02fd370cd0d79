/* The GPU engine's parts that the correlation tests do not reach: the one
 * listener registry (op and settled functions, removal while a call runs),
 * the default ring of recent buffers (the documented size is the real one),
 * and the two id encodings that used to share one (GPU external ids, batch
 * ids). Each test runs in its own process. */
#include <gst/check/gstcheck.h>

#include "fake-activity.h"
#include "gpuprof-batch.h"

#define TR GPUPROF_GPU_CHANNEL_TRACER
#define ME GPUPROF_GPU_CHANNEL_METER

static FakeSource src;

static void
setup (void)
{
  /* no gpuprof_gpu_configure(): the defaults are under test */
  fake_source_setup (&src, TRUE);
}

static void
teardown (void)
{
  fake_source_teardown (&src);
}

/* one kernel of @ns inside a chain call of (@element, @seq) on @channel */
static void
launch_in_call (GpuprofGpuChannel channel, guint32 element, guint64 seq,
    guint64 start, guint64 ns)
{
  gpuprof_gpu_channel_enter (channel, element, seq);
  fake_launch (&src, GPUPROF_GPU_OP_KERNEL, "k", 0, start, start + ns, 0);
  gpuprof_gpu_channel_exit (channel);
}

/* hands every record launched so far to the engine, in launch order, once */
static void
deliver_new (void)
{
  guint i;

  for (i = 0; i < src.records->len; i++)
    fake_deliver (&src, i);
  g_array_set_size (src.records, 0);
}

/* deliver_new(), then a settle at @now of what has joined */
static void
deliver_and_settle (guint64 now)
{
  deliver_new ();
  gpuprof_gpu_settle (now, GPUPROF_GPU_SETTLE_JOINED);
}

/* ---- listeners ---- */

typedef struct
{
  GpuprofGpuChannel channel;
  guint ops, wrong_channel;
  guint64 op_ns;
  guint settled;
  guint64 records_seen;         /* totals.records queried from settled */
} Counts;

static void
count_op (const GpuprofGpuSettledOp * so, gpointer user_data)
{
  Counts *c = user_data;

  c->ops++;
  c->op_ns += so->op->end - so->op->start;
  if (so->channel != c->channel)
    c->wrong_channel++;
}

static void
count_settled (gpointer user_data)
{
  Counts *c = user_data;
  GpuprofGpuTotals t;

  c->settled++;
  /* called without the engine lock: a query here must not deadlock */
  gpuprof_gpu_get_totals (c->channel, &t);
  c->records_seen = t.records;
}

/* One registry: a listener with both functions and one with only op, on
 * different channels, each get exactly their own. */
GST_START_TEST (test_listeners_one_registry)
{
  static const GpuprofGpuListener both = { count_op, count_settled };
  static const GpuprofGpuListener op_only = { count_op, NULL };
  static const GpuprofGpuListener settled_only = { NULL, count_settled };
  Counts tr = { .channel = TR }, me = { .channel = ME }, st = { .channel = TR };
  guint id_tr, id_me, id_st;
  guint64 seq;

  id_tr = gpuprof_gpu_add_listener (TR, &both, &tr);
  id_me = gpuprof_gpu_add_listener (ME, &op_only, &me);
  id_st = gpuprof_gpu_add_listener (TR, &settled_only, &st);
  fail_unless (id_tr && id_me && id_st);
  fail_unless (id_tr != id_me && id_me != id_st && id_tr != id_st);

  /* 5 kernels in tracer calls, 3 in meter calls */
  for (seq = 0; seq < 5; seq++)
    launch_in_call (TR, 4, seq, 1000 + seq * 100, 10);
  for (seq = 0; seq < 3; seq++)
    launch_in_call (ME, 9, seq, 5000 + seq * 100, 20);
  deliver_and_settle (1);

  /* every channel used gets every op: the tracer channel sees the meter's
   * 3 kernels too (unattributed there), and the other way round */
  fail_unless_equals_int (tr.ops, 8);
  fail_unless_equals_int (me.ops, 8);
  fail_unless_equals_int (tr.wrong_channel, 0);
  fail_unless_equals_int (me.wrong_channel, 0);
  fail_unless_equals_uint64 (tr.op_ns, 5 * 10 + 3 * 20);
  fail_unless_equals_int (tr.settled, 1);
  fail_unless_equals_int (me.settled, 0);
  fail_unless_equals_int (st.settled, 1);
  fail_unless_equals_int (st.ops, 0);
  fail_unless_equals_uint64 (tr.records_seen, 8);

  /* removed: called no more; the others still are */
  gpuprof_gpu_remove_listener (id_tr);
  launch_in_call (TR, 4, 5, 9000, 10);
  deliver_and_settle (2);
  fail_unless_equals_int (tr.ops, 8);
  fail_unless_equals_int (tr.settled, 1);
  fail_unless_equals_int (me.ops, 9);
  fail_unless_equals_int (st.settled, 2);

  gpuprof_gpu_remove_listener (id_me);
  gpuprof_gpu_remove_listener (id_st);
  gpuprof_gpu_remove_listener (id_st);  /* unknown id: nothing */
  gpuprof_gpu_settle (3, GPUPROF_GPU_SETTLE_JOINED);
  fail_unless_equals_int (st.settled, 2);
}

GST_END_TEST;

typedef struct
{
  GMutex lock;
  GCond cond;
  gboolean inside;              /* the settled call is running */
  gboolean release;             /* let it return */
  gboolean removed;             /* gpuprof_gpu_remove_listener() returned */
  gboolean removed_while_inside;
  guint calls;
  guint id;
} Blocker;

static void
blocking_settled (gpointer user_data)
{
  Blocker *b = user_data;

  g_mutex_lock (&b->lock);
  b->calls++;
  b->inside = TRUE;
  g_cond_broadcast (&b->cond);
  while (!b->release)
    g_cond_wait (&b->cond, &b->lock);
  if (b->removed)
    b->removed_while_inside = TRUE;
  b->inside = FALSE;
  g_mutex_unlock (&b->lock);
}

static gpointer
settle_thread (gpointer data)
{
  gpuprof_gpu_settle (1, GPUPROF_GPU_SETTLE_NORMAL);
  return NULL;
}

static gpointer
remove_thread (gpointer data)
{
  Blocker *b = data;

  gpuprof_gpu_remove_listener (b->id);
  g_mutex_lock (&b->lock);
  b->removed = TRUE;
  g_cond_broadcast (&b->cond);
  g_mutex_unlock (&b->lock);
  return NULL;
}

/* Removal waits for a settled call in progress on another thread: once it
 * returns, the listener's data may be freed. */
GST_START_TEST (test_remove_waits_for_settled_call)
{
  static const GpuprofGpuListener funcs = { NULL, blocking_settled };
  Blocker b = { 0, };
  GThread *settler, *remover;

  g_mutex_init (&b.lock);
  g_cond_init (&b.cond);
  b.id = gpuprof_gpu_add_listener (TR, &funcs, &b);

  settler = g_thread_new ("settle", settle_thread, NULL);
  g_mutex_lock (&b.lock);
  while (!b.inside)
    g_cond_wait (&b.cond, &b.lock);
  g_mutex_unlock (&b.lock);

  remover = g_thread_new ("remove", remove_thread, &b);
  /* give the remover time to return early if it were going to; a loaded
   * machine may not run it at all in this time, which cannot fail the test */
  g_usleep (100 * 1000);
  g_mutex_lock (&b.lock);
  fail_if (b.removed, "removal returned while the listener was running");
  b.release = TRUE;
  g_cond_broadcast (&b.cond);
  g_mutex_unlock (&b.lock);

  g_thread_join (settler);
  g_thread_join (remover);
  fail_unless (b.removed);
  fail_if (b.removed_while_inside);

  gpuprof_gpu_settle (2, GPUPROF_GPU_SETTLE_NORMAL);
  fail_unless_equals_int (b.calls, 1);
  g_mutex_clear (&b.lock);
  g_cond_clear (&b.cond);
}

GST_END_TEST;

typedef struct
{
  guint id;
  guint calls;
} SelfRemover;

static void
remove_self (gpointer user_data)
{
  SelfRemover *r = user_data;

  r->calls++;
  gpuprof_gpu_remove_listener (r->id);
}

/* A settled function may remove its own listener (gpuprofmeter stops from
 * its streaming thread, which may be the one settling). */
GST_START_TEST (test_remove_from_own_settled)
{
  static const GpuprofGpuListener funcs = { NULL, remove_self };
  SelfRemover r = { 0, };

  r.id = gpuprof_gpu_add_listener (ME, &funcs, &r);
  gpuprof_gpu_settle (1, GPUPROF_GPU_SETTLE_NORMAL);
  gpuprof_gpu_settle (2, GPUPROF_GPU_SETTLE_NORMAL);
  fail_unless_equals_int (r.calls, 1);
}

GST_END_TEST;

/* ---- per-thread state, meter channel alone ---- */

typedef struct
{
  const gchar *name;            /* gpuprof_gpu_set_thread_name(), or NULL */
  guint32 element;              /* chain call before the launch, 0: none */
  guint32 tid;
} Launcher;

static gpointer
launcher_thread (gpointer data)
{
  Launcher *l = data;

  l->tid = gpuprof_gpu_current_thread_id ();
  if (l->name)
    gpuprof_gpu_set_thread_name (l->name);
  if (l->element)
    launch_in_call (ME, l->element, 1, 1000, 30);
  /* outside any chain call: only the thread's state can attribute it */
  fake_launch (&src, GPUPROF_GPU_OP_KERNEL, "loop", 0, 2000, 2007, 0);
  return NULL;
}

/* What gpuprofmeter relies on without the tracer: each thread's last
 * element and name, kept by the thread and read by tid when its records
 * settle on another thread. */
GST_START_TEST (test_thread_state_meter_only)
{
  Launcher a = { "worker-a", 11, 0 }, b = { "worker-b", 0, 0 };
  GpuprofGpuElementStats e;
  GpuprofGpuTotals t;
  GArray *un;
  GThread *th;

  gpuprof_gpu_enable_channel (TR, FALSE);
  th = g_thread_new ("a", launcher_thread, &a);
  g_thread_join (th);
  th = g_thread_new ("b", launcher_thread, &b);
  g_thread_join (th);
  fail_unless (a.tid != 0 && b.tid != 0 && a.tid != b.tid);
  deliver_and_settle (1);

  fail_unless (gpuprof_gpu_get_element (ME, 11, &e));
  fail_unless_equals_uint64 (e.cost.kernel_ns, 30 + 7);
  fail_unless_equals_uint64 (e.by_thread_ns, 7);
  gpuprof_gpu_get_totals (ME, &t);
  fail_unless_equals_uint64 (t.external_ns, 30);
  fail_unless_equals_uint64 (t.thread_ns, 7);
  fail_unless_equals_uint64 (t.unattributed_ns, 7);
  un = gpuprof_gpu_get_unattributed (ME);
  fail_unless_equals_int (un->len, 1);
  fail_unless_equals_int (g_array_index (un, GpuprofGpuThreadStats,
          0).thread_id, b.tid);
  fail_unless_equals_string (g_array_index (un, GpuprofGpuThreadStats,
          0).name, "worker-b");
  g_array_unref (un);

  /* reset forgets the threads' last elements, not only the records */
  gpuprof_gpu_channel_enter (ME, 12, 1);
  gpuprof_gpu_channel_exit (ME);
  gpuprof_gpu_reset ();
  fake_launch (&src, GPUPROF_GPU_OP_KERNEL, "loop", 0, 3000, 3005, 0);
  deliver_and_settle (2);
  fail_if (gpuprof_gpu_get_element (ME, 12, &e));
  gpuprof_gpu_get_totals (ME, &t);
  fail_unless_equals_uint64 (t.thread_ns, 0);
  fail_unless_equals_uint64 (t.unattributed_ns, 5);
}

GST_END_TEST;

/* ---- the ring of recent buffers, default size ---- */

/* GpuprofGpuConfig documents GPUPROF_GPU_DEFAULT_RING_SIZE: with no
 * configuration, exactly that many most recent buffers are found. */
GST_START_TEST (test_ring_default_size)
{
  const guint64 n = GPUPROF_GPU_DEFAULT_RING_SIZE + 1;
  GpuprofGpuElementStats e;
  GpuprofGpuCost c;
  guint64 seq;

  fail_unless_equals_int (GPUPROF_GPU_DEFAULT_RING_SIZE, 8192);
  for (seq = 0; seq < n; seq++)
    launch_in_call (TR, 3, seq, 1000 + seq * 100, 50);
  deliver_new ();
  /* settled in launch order, so the ring keeps the last ones */
  gpuprof_gpu_settle (1, GPUPROF_GPU_SETTLE_ALL);

  fail_unless (gpuprof_gpu_get_element (TR, 3, &e));
  fail_unless_equals_uint64 (e.buffers, n);
  fail_if (gpuprof_gpu_get_buffer_cost (TR, 3, 0, &c),
      "the oldest buffer should have left a ring of %d",
      GPUPROF_GPU_DEFAULT_RING_SIZE);
  fail_unless_equals_uint64 (c.kernels, 0);
  fail_unless (gpuprof_gpu_get_buffer_cost (TR, 3, 1, &c),
      "a ring of %d should hold the %d most recent buffers",
      GPUPROF_GPU_DEFAULT_RING_SIZE, GPUPROF_GPU_DEFAULT_RING_SIZE);
  fail_unless_equals_uint64 (c.kernels, 1);
  fail_unless_equals_uint64 (c.kernel_ns, 50);
  fail_unless (gpuprof_gpu_get_buffer_cost (TR, 3, n - 1, &c));
}

GST_END_TEST;

/* The ring against a plain model: three elements whose buffers come
 * mostly in order, sometimes back to one still in the ring or long gone, in
 * a ring of 37 (its index has collisions and wraps): every buffer's cost is
 * found exactly while in the ring, and gone after; buffers counted per
 * element. The engine's fast paths (the last buffer, a sequence never seen)
 * and its own index must give what a lookup of every key would. */
#define MODEL_RING 37

typedef struct
{
  guint32 element;
  guint64 seq;
  guint64 kernels, ns;
} ModelSlot;

GST_START_TEST (test_ring_model)
{
  GpuprofGpuConfig cfg = { 0, 0, MODEL_RING };
  ModelSlot ring[MODEL_RING];
  guint n = 0, next = 0, i, j, op;
  guint64 buffers[4] = { 0, }, top[4] = { 0, };
  GRand *rand = g_rand_new_with_seed (11);
  GpuprofGpuElementStats e;
  GpuprofGpuCost c;

  gpuprof_gpu_configure (&cfg);
  for (op = 0; op < 3000; op++) {
    guint32 el = 1 + g_rand_int_range (rand, 0, 3);
    guint r = g_rand_int_range (rand, 0, 10);
    guint64 seq, ns = 1 + g_rand_int_range (rand, 0, 100);

    /* same buffer again, the next one, an older one */
    if (r < 4 && top[el])
      seq = top[el];
    else if (r < 8 || !top[el])
      seq = ++top[el];
    else
      seq = 1 + g_rand_int_range (rand, 0, top[el]);
    launch_in_call (TR, el, seq, 1000 + op * 200, ns);
    for (i = 0; i < n; i++)
      if (ring[i].element == el && ring[i].seq == seq)
        break;
    if (i == n) {
      /* a new slot, the oldest one given back */
      if (n < MODEL_RING) {
        i = n++;
      } else {
        i = next;
        next = (next + 1) % MODEL_RING;
      }
      ring[i] = (ModelSlot) {
      el, seq, 0, 0};
      buffers[el]++;
    }
    ring[i].kernels++;
    ring[i].ns += ns;
    /* settled as they come: later ops see the earlier ones in the ring */
    deliver_new ();
    gpuprof_gpu_settle (op, GPUPROF_GPU_SETTLE_ALL);
  }

  for (i = 1; i <= 3; i++) {
    fail_unless (gpuprof_gpu_get_element (TR, i, &e));
    fail_unless_equals_uint64 (e.buffers, buffers[i]);
    for (j = 1; j <= top[i]; j++) {
      guint k;
      for (k = 0; k < n; k++)
        if (ring[k].element == i && ring[k].seq == j)
          break;
      if (k == n) {
        fail_if (gpuprof_gpu_get_buffer_cost (TR, i, j, &c),
            "element %u buffer %u should have left the ring", i, j);
        continue;
      }
      fail_unless (gpuprof_gpu_get_buffer_cost (TR, i, j, &c),
          "element %u buffer %u should be in the ring", i, j);
      fail_unless_equals_uint64 (c.kernels, ring[k].kernels);
      fail_unless_equals_uint64 (c.kernel_ns, ring[k].ns);
    }
  }

  /* a sequence past 40 bits (the meter's PTS after 18 min) is its low
   * bits: the same buffer as those, not a new one */
  launch_in_call (TR, 9, 5, 900000000, 7);
  launch_in_call (TR, 9, 6, 900000500, 1);
  launch_in_call (TR, 9, (G_GUINT64_CONSTANT (1) << 40) + 5, 900001000, 8);
  deliver_new ();
  gpuprof_gpu_settle (op, GPUPROF_GPU_SETTLE_ALL);
  fail_unless (gpuprof_gpu_get_element (TR, 9, &e));
  fail_unless_equals_uint64 (e.buffers, 2);
  fail_unless (gpuprof_gpu_get_buffer_cost (TR, 9, 5, &c));
  fail_unless_equals_uint64 (c.kernels, 2);
  fail_unless_equals_uint64 (c.kernel_ns, 15);
  g_rand_free (rand);
}

GST_END_TEST;

/* The device's busy time against a plain union: intervals mostly after the
 * last one, some overlapping it, inside it, reaching back over several, or
 * wholly before it. */
static gint
interval_cmp (gconstpointer a, gconstpointer b)
{
  const guint64 *x = a, *y = b;
  return x[0] < y[0] ? -1 : x[0] > y[0];
}

GST_START_TEST (test_device_union_model)
{
  guint64 iv[2000][2], t = 100000, busy = 0, end = 0;
  GRand *rand = g_rand_new_with_seed (5);
  GArray *devs;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (iv); i++) {
    guint r = g_rand_int_range (rand, 0, 10);
    guint64 len = 1 + g_rand_int_range (rand, 0, 300);

    t += g_rand_int_range (rand, 0, 200);
    /* after, overlapping or inside the last; back over several; before */
    iv[i][0] = r < 6 ? t : r < 8 ? t - g_rand_int_range (rand, 0, 2000) :
        t - 3000 - g_rand_int_range (rand, 0, 500);
    iv[i][1] = iv[i][0] + len;
    fake_launch (&src, GPUPROF_GPU_OP_KERNEL, "k", 0, iv[i][0], iv[i][1], 0);
  }
  deliver_new ();
  gpuprof_gpu_settle (1, GPUPROF_GPU_SETTLE_ALL);

  qsort (iv, G_N_ELEMENTS (iv), sizeof (iv[0]), interval_cmp);
  for (i = 0; i < G_N_ELEMENTS (iv); i++) {
    guint64 a = MAX (iv[i][0], end);
    if (iv[i][1] > a)
      busy += iv[i][1] - a;
    end = MAX (end, iv[i][1]);
  }
  devs = gpuprof_gpu_get_devices (0, 0);
  fail_unless_equals_int (devs->len, 1);
  fail_unless_equals_uint64 (g_array_index (devs, GpuprofGpuDeviceStats,
          0).busy_ns, busy);
  g_array_unref (devs);
  g_rand_free (rand);
}

GST_END_TEST;

/* The per-op caches in front of the tables are keyed right: elements 1 and
 * 65 share a cache entry, and kernel names "a" and "b" come, one record at
 * a time, at the same address (the fake reuses its record): each (name,
 * element) is counted on its own. */
GST_START_TEST (test_cache_keys)
{
  GArray *k;
  guint i, found = 0;

  for (i = 0; i < 40; i++) {
    gpuprof_gpu_channel_enter (TR, i % 4 < 2 ? 1 : 65, i);
    fake_launch (&src, GPUPROF_GPU_OP_KERNEL, i % 2 ? "b" : "a", 0,
        1000 + i * 100, 1000 + i * 100 + 10 + i % 4, 0);
    gpuprof_gpu_channel_exit (TR);
    deliver_new ();
    gpuprof_gpu_settle (i, GPUPROF_GPU_SETTLE_ALL);
  }
  k = gpuprof_gpu_get_top_kernels (TR, 0);
  for (i = 0; i < k->len; i++) {
    const GpuprofGpuKernelStats *ks = &g_array_index (k,
        GpuprofGpuKernelStats, i);
    /* element 1: a (i%4 == 0, 10 ns), b (1, 11 ns); 65: a (2, 12), b (3, 13) */
    guint expect = 10 + (ks->element_id == 65 ? 2 : 0) +
        (!strcmp (ks->name, "b") ? 1 : 0);
    fail_unless_equals_uint64 (ks->count, 10);
    fail_unless_equals_uint64 (ks->ns, 10 * expect);
    found++;
  }
  fail_unless_equals_int (found, 4);
  g_array_unref (k);
}

GST_END_TEST;

/* ---- id encodings ---- */

GST_START_TEST (test_external_ids)
{
  GpuprofGpuExternalId id = gpuprof_gpu_encode_id (12345, 678);

  fail_unless_equals_int (gpuprof_gpu_id_element (id), 12345);
  fail_unless_equals_uint64 (gpuprof_gpu_id_seq (id), 678);
  id = gpuprof_gpu_encode_id (GPUPROF_GPU_ELEMENT_MAX, GPUPROF_GPU_SEQ_NONE);
  fail_unless_equals_int (gpuprof_gpu_id_element (id), GPUPROF_GPU_ELEMENT_MAX);
  fail_unless_equals_uint64 (gpuprof_gpu_id_seq (id), GPUPROF_GPU_SEQ_NONE);
  /* a sequence wider than 40 bits keeps its low bits, never the element's */
  id = gpuprof_gpu_encode_id (5, (G_GUINT64_CONSTANT (1) << 40) + 7);
  fail_unless_equals_int (gpuprof_gpu_id_element (id), 5);
  fail_unless_equals_uint64 (gpuprof_gpu_id_seq (id), 7);
}

GST_END_TEST;

GST_START_TEST (test_batch_ids)
{
  GpuprofBatchId id = gpuprof_batch_id_make (42, 1);

  fail_unless (id != 0, "batch 1 of an aggregator is not 'no batch'");
  fail_unless_equals_int (gpuprof_batch_id_aggregator (id), 42);
  fail_unless_equals_uint64 (gpuprof_batch_id_num (id), 1);
  id = gpuprof_batch_id_make (GPUPROF_BATCH_AGGREGATOR_MAX,
      GPUPROF_BATCH_NUM_MASK);
  fail_unless_equals_int (gpuprof_batch_id_aggregator (id),
      GPUPROF_BATCH_AGGREGATOR_MAX);
  fail_unless_equals_uint64 (gpuprof_batch_id_num (id),
      GPUPROF_BATCH_NUM_MASK);
  id = gpuprof_batch_id_make (7, GPUPROF_BATCH_NUM_MASK + 3);
  fail_unless_equals_int (gpuprof_batch_id_aggregator (id), 7);
  fail_unless_equals_uint64 (gpuprof_batch_id_num (id), 2);
}

GST_END_TEST;

static Suite *
gpu_engine_suite (void)
{
  Suite *s = suite_create ("gpu-engine");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test_listeners_one_registry);
  tcase_add_test (tc, test_remove_waits_for_settled_call);
  tcase_add_test (tc, test_remove_from_own_settled);
  tcase_add_test (tc, test_thread_state_meter_only);
  tcase_add_test (tc, test_ring_default_size);
  tcase_add_test (tc, test_ring_model);
  tcase_add_test (tc, test_device_union_model);
  tcase_add_test (tc, test_cache_keys);
  tcase_add_test (tc, test_external_ids);
  tcase_add_test (tc, test_batch_ids);
  return s;
}

GST_CHECK_MAIN (gpu_engine);
