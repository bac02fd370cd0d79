/* Buffer pools (docs/tracer.md#pools) against the pool's own counts, in
 * the same run. A sink proposes a pool of its own (TestPool: min = max =
 * 2 buffers) and holds each buffer a while, behind a queue: the source
 * runs out of buffers and waits in its acquires, which the pool times.
 *
 * On GStreamer >= 1.28 GstBufferPool itself dispatches the hooks
 * ("pool-buffer-queued/dequeued") and the tracer registered for them. On
 * older releases the tracer must not register them (the hook names are
 * unknown there: registering would hook every call), so TestPool is the
 * fake hook caller: it calls the tracer's exported hook functions
 * (gst_gpuprof_tracer_pool_buffer_*) with the tracer, the time, the pool
 * and the buffer, where 1.28's gstbufferpool.c dispatches them: after a
 * buffer leaves the free list in an acquire (not when one was allocated),
 * after a release put it back, and for each buffer freed as the pool
 * stops. Which of the two ran is printed. */
#include "gpuprof-test-util.h"
#include "gpuprof-clock.h"
#include "gpuprof-pools.h"

#include <gmodule.h>
#include <string.h>
#include <gst/base/gstbasesink.h>
#include <gst/video/video.h>

#define POOL_BUFFERS 2
#define HOLD_US 8000
#define N_BUFFERS 60

static GpuprofHookPoolBuffer fake_queued, fake_dequeued;

/* ---- TestPool: counts what it does; the fake hook caller before 1.28 */

typedef struct
{
  GstBufferPool parent;
  gboolean fake;                /* calls the hooks itself */
  gint allocs, dequeues, releases, acquires, out, out_max;
  guint64 acquire_ns;           /* wall time in acquire calls (waits) */
} TestPool;
typedef GstBufferPoolClass TestPoolClass;

GType test_pool_get_type (void);
G_DEFINE_TYPE (TestPool, test_pool, GST_TYPE_BUFFER_POOL);

static __thread gboolean allocated_here;

static guint64
tracer_ts (void)
{
  /* the ts GStreamer gives a hook: ns since gst_init */
  return gst_util_get_timestamp () - gpuprof_clock_start_monotonic ();
}

static void
fake_hook (TestPool * p, GpuprofHookPoolBuffer hook, GstBuffer * buffer)
{
  if (p->fake)
    hook (G_OBJECT (gpuprof_test_tracer ()), tracer_ts (),
        GST_BUFFER_POOL (p), buffer);
}

static GstFlowReturn
test_pool_alloc (GstBufferPool * pool, GstBuffer ** buffer,
    GstBufferPoolAcquireParams * params)
{
  allocated_here = TRUE;
  g_atomic_int_inc (&((TestPool *) pool)->allocs);
  return GST_BUFFER_POOL_CLASS (test_pool_parent_class)->alloc_buffer (pool,
      buffer, params);
}

static GstFlowReturn
test_pool_acquire (GstBufferPool * pool, GstBuffer ** buffer,
    GstBufferPoolAcquireParams * params)
{
  TestPool *p = (TestPool *) pool;
  guint64 t0 = gpuprof_clock_monotonic_ns ();
  GstFlowReturn ret;
  gint out;

  allocated_here = FALSE;
  ret = GST_BUFFER_POOL_CLASS (test_pool_parent_class)->acquire_buffer (pool,
      buffer, params);
  p->acquire_ns += gpuprof_clock_monotonic_ns () - t0;
  if (ret != GST_FLOW_OK)
    return ret;
  p->acquires++;
  out = g_atomic_int_add (&p->out, 1) + 1;
  p->out_max = MAX (p->out_max, out);
  if (!allocated_here) {
    g_atomic_int_inc (&p->dequeues);
    fake_hook (p, fake_dequeued, *buffer);
  }
  return ret;
}

static void
test_pool_release (GstBufferPool * pool, GstBuffer * buffer)
{
  TestPool *p = (TestPool *) pool;

  /* back before a waiting acquire can take it; the buffers made at
   * start are put on the list too, none out */
  if (g_atomic_int_get (&p->out) > 0)
    g_atomic_int_add (&p->out, -1);
  GST_BUFFER_POOL_CLASS (test_pool_parent_class)->release_buffer (pool,
      buffer);
  g_atomic_int_inc (&p->releases);
  fake_hook (p, fake_queued, buffer);
}

static void
test_pool_free (GstBufferPool * pool, GstBuffer * buffer)
{
  /* 1.28's default_stop dispatches "dequeued" for each buffer it frees */
  if (GST_BUFFER_POOL_IS_FLUSHING (pool))
    fake_hook ((TestPool *) pool, fake_dequeued, buffer);
  GST_BUFFER_POOL_CLASS (test_pool_parent_class)->free_buffer (pool, buffer);
}

static void
test_pool_class_init (TestPoolClass * klass)
{
  klass->alloc_buffer = test_pool_alloc;
  klass->acquire_buffer = test_pool_acquire;
  klass->release_buffer = test_pool_release;
  klass->free_buffer = test_pool_free;
}

static void
test_pool_init (TestPool * p)
{
}

/* ---- PoolSink: proposes a TestPool, holds each buffer HOLD_US */

typedef struct
{
  GstBaseSink parent;
  TestPool *pool;
} PoolSink;
typedef GstBaseSinkClass PoolSinkClass;

GType pool_sink_get_type (void);
G_DEFINE_TYPE (PoolSink, pool_sink, GST_TYPE_BASE_SINK);

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

static gboolean
pool_sink_propose_allocation (GstBaseSink * sink, GstQuery * query)
{
  PoolSink *self = (PoolSink *) sink;
  GstStructure *config;
  GstVideoInfo info;
  GstCaps *caps;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return FALSE;
  if (!self->pool) {
    self->pool = g_object_new (test_pool_get_type (), NULL);
    gst_object_ref_sink (self->pool);
    self->pool->fake = fake_queued != NULL;
  }
  config = gst_buffer_pool_get_config (GST_BUFFER_POOL (self->pool));
  gst_buffer_pool_config_set_params (config, caps, info.size, POOL_BUFFERS,
      POOL_BUFFERS);
  gst_buffer_pool_set_config (GST_BUFFER_POOL (self->pool), config);
  gst_query_add_allocation_pool (query, GST_BUFFER_POOL (self->pool),
      info.size, POOL_BUFFERS, POOL_BUFFERS);
  return TRUE;
}

static GstFlowReturn
pool_sink_render (GstBaseSink * sink, GstBuffer * buffer)
{
  g_usleep (HOLD_US);
  return GST_FLOW_OK;
}

static void
pool_sink_finalize (GObject * object)
{
  gst_clear_object (&((PoolSink *) object)->pool);
  G_OBJECT_CLASS (pool_sink_parent_class)->finalize (object);
}

static void
pool_sink_class_init (PoolSinkClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = pool_sink_finalize;
  gst_element_class_add_static_pad_template (GST_ELEMENT_CLASS (klass),
      &sink_template);
  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass),
      "poolsink", "Sink", "proposes a counting pool", "gpuprof");
  klass->propose_allocation = pool_sink_propose_allocation;
  klass->render = pool_sink_render;
}

static void
pool_sink_init (PoolSink * self)
{
  /* the last buffer is released at EOS, not held for last-sample */
  gst_base_sink_set_last_sample_enabled (GST_BASE_SINK (self), FALSE);
  gst_base_sink_set_sync (GST_BASE_SINK (self), FALSE);
}

/* ---- the tests */

static gboolean
hooks_dispatched (void)
{
  guint major, minor, micro, nano;

  gst_version (&major, &minor, &micro, &nano);
  return gpuprof_pools_hooks_supported (major, minor);
}

/* the pools rows of @pipeline's get-metrics (a copy) */
static GValue *
pools_rows (GstElement * pipeline)
{
  GstStructure *s = NULL;
  GValue *rows = g_new0 (GValue, 1);

  g_signal_emit_by_name (gpuprof_test_tracer (), "get-metrics",
      GST_OBJECT_NAME (pipeline), &s);
  fail_unless (s != NULL, "no get-metrics");
  fail_unless (gst_structure_has_field (s, "pools"), "no pools in %"
      GST_PTR_FORMAT, s);
  g_value_init (rows, G_VALUE_TYPE (gst_structure_get_value (s, "pools")));
  g_value_copy (gst_structure_get_value (s, "pools"), rows);
  gst_structure_free (s);
  return rows;
}

static const GstStructure *
pool_row (const GValue * rows, const gchar * pool)
{
  guint i;

  for (i = 0; i < gst_value_array_get_size (rows); i++) {
    const GstStructure *r =
        gst_value_get_structure (gst_value_array_get_value (rows, i));
    if (!g_strcmp0 (gst_structure_get_string (r, "pool"), pool))
      return r;
  }
  return NULL;
}

static void
rows_free (GValue * rows)
{
  g_value_unset (rows);
  g_free (rows);
}

GST_START_TEST (test_gate)
{
  /* 1.28.0 brought the hooks; a 1.26 build runs on 1.28 (the chroot) */
  fail_if (gpuprof_pools_hooks_supported (1, 22));
  fail_if (gpuprof_pools_hooks_supported (1, 26));
  fail_if (gpuprof_pools_hooks_supported (1, 27));
  fail_unless (gpuprof_pools_hooks_supported (1, 28));
  fail_unless (gpuprof_pools_hooks_supported (2, 0));
}

GST_END_TEST;

/* A source's own pool (videotestsrc's, from GstBaseSrc) has a row on a
 * GStreamer with the hooks and none before: the tracer registered the
 * hooks there only, and the pipeline ran (an unknown hook name registered
 * would have hooked every call) */
GST_START_TEST (test_real_pool_only_with_hooks)
{
  GstElement *pipeline = gpuprof_test_parse ("videotestsrc name=src "
      "num-buffers=40 ! video/x-raw,width=64,height=48 ! queue ! fakesink");
  gchar *src = gpuprof_test_path (pipeline, "src"), *version;
  GValue *rows;
  guint i, n, mine = 0;

  gpuprof_test_play_to_eos (pipeline);
  rows = pools_rows (pipeline);
  n = gst_value_array_get_size (rows);
  for (i = 0; i < n; i++) {
    const GstStructure *r =
        gst_value_get_structure (gst_value_array_get_value (rows, i));
    if (!g_strcmp0 (gst_structure_get_string (r, "element"), src)) {
      mine++;
      /* each of its 40 buffers was taken from the list or allocated */
      fail_unless (gpuprof_test_get_u64 (r, "acquired")
          + gpuprof_test_get_u64 (r, "buffers") >= 40, "%" GST_PTR_FORMAT, r);
      fail_unless (gpuprof_test_get_u64 (r, "acquired") <= 40);
    }
  }
  version = gst_version_string ();
  g_print ("%s: %u pool rows, %u of %s\n", version, n, mine, src);
  g_free (version);
  if (hooks_dispatched ()) {
    fail_unless_equals_int (mine, 1);
  } else {
    fail_unless_equals_int (n, 0);
  }
  rows_free (rows);
  g_free (src);
  gpuprof_test_stop (pipeline);
}

GST_END_TEST;

GST_START_TEST (test_starved_pool)
{
  GstElement *pipeline = gst_pipeline_new (NULL);
  GstElement *src = gst_element_factory_make ("videotestsrc", "src");
  GstElement *caps = gst_element_factory_make ("capsfilter", NULL);
  GstElement *q = gst_element_factory_make ("queue", NULL);
  GstElement *sink = g_object_new (pool_sink_get_type (), "name", "sink",
      NULL);
  gchar *src_path;
  GValue *rows;
  const GstStructure *r;
  TestPool *pool;
  gchar *name, *text, *version, *report, *line;
  GstCaps *filter;
  guint64 t0, wall, empty_ns;

  g_object_set (src, "num-buffers", N_BUFFERS, NULL);
  filter = gst_caps_from_string ("video/x-raw,format=GRAY8,width=64,"
      "height=48");
  g_object_set (caps, "caps", filter, NULL);
  gst_caps_unref (filter);
  gst_bin_add_many (GST_BIN (pipeline), src, caps, q, sink, NULL);
  fail_unless (gst_element_link_many (src, caps, q, sink, NULL));
  src_path = gpuprof_test_path (pipeline, "src");
  t0 = gpuprof_clock_monotonic_ns ();
  gpuprof_test_play_to_eos (pipeline);
  wall = gpuprof_clock_monotonic_ns () - t0;
  pool = ((PoolSink *) sink)->pool;
  fail_unless (pool != NULL, "the source did not take the sink's pool");
  version = gst_version_string ();
  g_print ("%s: %s; the pool: %d acquires (%d from its list, "
      "%d allocated), %d releases, at most %d out, %.1f ms in acquires\n",
      version, pool->fake ? "the fake hook caller" :
      "GstBufferPool's own hooks", pool->acquires, pool->dequeues,
      pool->allocs, pool->releases, pool->out_max, pool->acquire_ns / 1e6);
  g_free (version);
  fail_unless_equals_int (pool->acquires, N_BUFFERS);

  rows = pools_rows (pipeline);
  name = gst_object_get_name (GST_OBJECT (pool));
  r = pool_row (rows, name);
  fail_unless (r != NULL, "no row of %s", name);
  text = gst_structure_to_string (r);
  g_print ("%s\n", text);
  g_free (text);
  fail_unless_equals_string (gst_structure_get_string (r, "element"),
      src_path);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (r, "pools"), 1);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (r, "acquired"),
      pool->dequeues);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (r, "returned"),
      pool->releases);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (r, "buffers"),
      pool->allocs);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (r, "outstanding_max"),
      pool->out_max);
  /* after EOS every buffer is back */
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (r, "outstanding"), 0);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (r, "free"), pool->allocs);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (r, "min_buffers"),
      POOL_BUFFERS);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (r, "max_buffers"),
      POOL_BUFFERS);
  /* the source waited in its acquires (the sink holds a buffer HOLD_US,
   * the queue the other): each wait lies in a time the list was empty */
  empty_ns = gpuprof_test_get_u64 (r, "empty_ns");
  fail_unless (pool->acquire_ns > (N_BUFFERS - 2 * POOL_BUFFERS) * HOLD_US
      * 500, "the source hardly waited: %.1f ms", pool->acquire_ns / 1e6);
  fail_unless (empty_ns >= pool->acquire_ns * 9 / 10,
      "empty %.1f ms < the waits %.1f ms", empty_ns / 1e6,
      pool->acquire_ns / 1e6);
  fail_unless (empty_ns <= wall, "empty %.1f ms > the run's %.1f ms",
      empty_ns / 1e6, wall / 1e6);
  fail_unless (gpuprof_test_get_u64 (r, "empties") > 0);
  fail_unless (gpuprof_test_get_u64 (r, "empty_max_ns") <= empty_ns);
  fail_unless (gpuprof_test_get_u64 (r, "empty_max_ns") >= HOLD_US * 500);
  /* the report's table, and the line naming who waited */
  report = gpuprof_test_live_report (pipeline);
  line = g_strdup_printf ("%s: all %d buffers of %s were out for ", src_path,
      POOL_BUFFERS, name);
  fail_unless (strstr (report, "Buffer pools") && strstr (report, line),
      "no '%s' in the report", line);
  g_free (line);
  g_free (report);
  rows_free (rows);
  g_free (name);
  g_free (src_path);
  gpuprof_test_stop (pipeline);
}

GST_END_TEST;

/* Cameras with a pool each, added and removed while the pipeline plays:
 * each destroyed pool keeps its row till the run ends, up to GONE_ROWS,
 * the last ones; the oldest beyond are summed into one "(destroyed)" row.
 * Nothing is lost: the rows' acquires add up to the pools' own. Each row
 * names the camera's source, whose record is freed before its pool */
#define CAMERAS 20
#define GONE_ROWS 16

GST_START_TEST (test_destroyed_pools_bounded)
{
  GstElement *pipeline = gpuprof_test_parse ("videotestsrc is-live=true "
      "name=keeper ! video/x-raw,width=32,height=24,framerate=100/1 ! "
      "fakesink sync=false");
  GValue *rows;
  GstBus *bus = gst_element_get_bus (pipeline);
  gchar *names[CAMERAS], *sources[CAMERAS];
  GstMessage *msg;
  guint i, n, gone_rows = 0;
  guint64 truth = 0, sum = 0, folded = 0;

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  for (i = 0; i < CAMERAS; i++) {
    GstElement *cam = gst_parse_bin_from_description ("videotestsrc "
        "num-buffers=6 ! video/x-raw,format=GRAY8,width=32,height=24 ! "
        "queue", TRUE, NULL);
    GstElement *sink = g_object_new (pool_sink_get_type (), NULL);
    TestPool *pool;

    gint64 until = g_get_monotonic_time () + 30 * G_TIME_SPAN_SECOND;

    gst_bin_add_many (GST_BIN (pipeline), cam, sink, NULL);
    fail_unless (gst_element_link (cam, sink));
    /* locked, and started by hand: the pipeline's own state changes (its
     * state lost and regained as cameras come and go) must not leave a
     * camera paused (seen under ASan beside burners: a camera's tasks
     * paused, its sink waiting for buffers forever) */
    gst_element_set_locked_state (cam, TRUE);
    gst_element_set_locked_state (sink, TRUE);
    fail_unless (gst_element_set_state (sink, GST_STATE_PLAYING) !=
        GST_STATE_CHANGE_FAILURE);
    fail_unless (gst_element_set_state (cam, GST_STATE_PLAYING) !=
        GST_STATE_CHANGE_FAILURE);
    /* the camera's 6 buffers acquired and rendered */
    while ((!((PoolSink *) sink)->pool
            || g_atomic_int_get (&((PoolSink *) sink)->pool->releases) < 6 + 2)
        && g_get_monotonic_time () < until)
      g_usleep (1000);
    fail_unless (((PoolSink *) sink)->pool
        && g_atomic_int_get (&((PoolSink *) sink)->pool->releases) >= 6 + 2,
        "camera %u: its buffers did not all come back in 30 s", i);
    pool = ((PoolSink *) sink)->pool;
    names[i] = gst_object_get_name (GST_OBJECT (pool));
    sources[i] = g_strdup_printf ("%s/%s/", GST_OBJECT_NAME (pipeline),
        GST_OBJECT_NAME (cam));
    gst_element_set_state (cam, GST_STATE_NULL);
    gst_element_set_state (sink, GST_STATE_NULL);
    truth += g_atomic_int_get (&pool->dequeues);
    gst_bin_remove_many (GST_BIN (pipeline), cam, sink, NULL);
    /* as an application's bus watch would: the messages hold the
     * elements (and so the pool) */
    while ((msg = gst_bus_pop (bus)))
      gst_message_unref (msg);
  }
  gst_object_unref (bus);
  rows = pools_rows (pipeline);
  n = gst_value_array_get_size (rows);
  for (i = 0; i < n; i++) {
    const GstStructure *r =
        gst_value_get_structure (gst_value_array_get_value (rows, i));
    const gchar *name = gst_structure_get_string (r, "pool");
    if (g_str_has_prefix (name, "testpool")) {
      guint k;
      for (k = 0; k < CAMERAS && g_strcmp0 (names[k], name); k++);
      fail_unless (k >= CAMERAS - GONE_ROWS && k < CAMERAS,
          "%s (camera %u) kept a row, not one of the last %u", name, k,
          GONE_ROWS);
      fail_unless (g_str_has_prefix (gst_structure_get_string (r, "element"),
              sources[k]), "%s acquired by '%s', not %s...", name,
          gst_structure_get_string (r, "element"), sources[k]);
      gone_rows++;
      sum += gpuprof_test_get_u64 (r, "acquired");
    } else if (!g_strcmp0 (name, "(destroyed)")) {
      folded = gpuprof_test_get_u64 (r, "pools");
      sum += gpuprof_test_get_u64 (r, "acquired");
    }
  }
  g_print ("%u cameras' pools: %u rows of their own, %" G_GUINT64_FORMAT
      " in (destroyed); acquired %" G_GUINT64_FORMAT " (the pools': %"
      G_GUINT64_FORMAT ")\n", CAMERAS, gone_rows, folded, sum, truth);
  fail_unless_equals_int (gone_rows, GONE_ROWS);
  fail_unless_equals_uint64 (folded, CAMERAS - GONE_ROWS);
  fail_unless_equals_uint64 (sum, truth);
  for (i = 0; i < CAMERAS; i++) {
    g_free (names[i]);
    g_free (sources[i]);
  }
  rows_free (rows);
  gpuprof_test_stop (pipeline);
}

GST_END_TEST;

static Suite *
pools_suite (void)
{
  Suite *s = suite_create ("gpuprof-pools");
  TCase *tc = tcase_create ("pools");

  /* the tracer's exported hooks: called by TestPool where GstBufferPool
   * does not dispatch them */
  if (!hooks_dispatched ()) {
    GstPlugin *plugin = gst_plugin_load_by_name ("gpuproftracer");
    GModule *module;

    /* outside a test: g_error, not fail_unless */
    if (!plugin)
      g_error ("no gpuproftracer plugin");
    module = g_module_open (gst_plugin_get_filename (plugin),
        G_MODULE_BIND_LOCAL);
    if (!module || !g_module_symbol (module,
            "gst_gpuprof_tracer_pool_buffer_queued", (gpointer *) & fake_queued)
        || !g_module_symbol (module, "gst_gpuprof_tracer_pool_buffer_dequeued",
            (gpointer *) & fake_dequeued))
      g_error ("the tracer's pool hooks are not exported: %s",
          g_module_error ());
    gst_object_unref (plugin);
  }
  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_gate);
  tcase_add_test (tc, test_real_pool_only_with_hooks);
  tcase_add_test (tc, test_starved_pool);
  tcase_add_test (tc, test_destroyed_pools_bounded);
  return s;
}

GPUPROF_TEST_MAIN (pools, "gpuprof-pools", "gpuprof(report=off)");
