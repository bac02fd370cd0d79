/* pool-hooks-cost: the tracer's cost per buffer of GStreamer 1.28's pool
 * hooks (docs/tracer.md#pools): its exported hook functions called as
 * GstBufferPool calls them, an acquire's "dequeued" then a release's
 * "queued" per buffer, on a live pool of 8 buffers, N times; on one thread
 * (acquire and release on the same), then on two (a source acquires, a
 * sink's thread releases: the record's lock shared). Prints ns per buffer
 * (the pair) and the hooks alone: no pool work is timed.
 *
 *   GST_TRACERS='gpuprof(report=off)' pool-hooks-cost [N]
 */
#include <gmodule.h>
#include <gst/gst.h>
#include <stdlib.h>
#include <time.h>

#define BUFFERS 8

typedef void (*Hook) (GObject * self, GstClockTime ts, GstBufferPool * pool,
    GstBuffer * buffer);

static Hook queued, dequeued;
static GObject *tracer;
static GstBufferPool *pool;
static GstBuffer *buffers[BUFFERS];
static GAsyncQueue *handover;
static guint64 n;

static guint64
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (guint64) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static gboolean hooks_on;
static volatile guint64 sink;

static gpointer
releaser (gpointer data)
{
  guint64 i;

  for (i = 0; i < n; i++) {
    GstBuffer *b = g_async_queue_pop (handover);
    if (hooks_on)
      queued (tracer, now_ns (), pool, b);
    else
      sink += now_ns ();
  }
  return NULL;
}

/* ns per buffer over @n: with the hooks, or the same loop without them
 * (clock reads and the hand-over kept) */
static guint64
run (gboolean threads, gboolean hooks)
{
  GThread *thread = NULL;
  guint64 i, t0 = now_ns ();

  hooks_on = hooks;
  if (threads)
    thread = g_thread_new ("releaser", releaser, NULL);
  for (i = 0; i < n; i++) {
    GstBuffer *b = buffers[i % BUFFERS];
    if (hooks)
      dequeued (tracer, now_ns (), pool, b);
    else
      sink += now_ns ();
    if (threads)
      g_async_queue_push (handover, b);
    else if (hooks)
      queued (tracer, now_ns (), pool, b);
    else
      sink += now_ns ();
  }
  if (thread)
    g_thread_join (thread);
  return now_ns () - t0;
}

int
main (int argc, char **argv)
{
  GstPlugin *plugin;
  GModule *module;
  GList *l;
  GstStructure *config;
  guint64 i;
  gint64 one, two;

  gst_init (&argc, &argv);
  n = argc > 1 ? g_ascii_strtoull (argv[1], NULL, 10) : 2000000;
  for (l = gst_tracing_get_active_tracers (); l; l = l->next)
    if (!g_strcmp0 (G_OBJECT_TYPE_NAME (l->data), "GstGpuprofTracer"))
      tracer = l->data;
  plugin = gst_plugin_load_by_name ("gpuproftracer");
  if (!tracer || !plugin) {
    g_printerr ("no gpuprof tracer: GST_TRACERS='gpuprof(report=off)' and "
        "GST_PLUGIN_PATH=BUILD/tracers\n");
    return 1;
  }
  module = g_module_open (gst_plugin_get_filename (plugin), 0);
  if (!module || !g_module_symbol (module,
          "gst_gpuprof_tracer_pool_buffer_queued", (gpointer *) & queued)
      || !g_module_symbol (module, "gst_gpuprof_tracer_pool_buffer_dequeued",
          (gpointer *) & dequeued)) {
    g_printerr ("the tracer exports no pool hooks\n");
    return 1;
  }
  /* active: not flushing (a stopping pool's "dequeued" is a free) */
  pool = gst_buffer_pool_new ();
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, NULL, 64, BUFFERS, BUFFERS);
  gst_buffer_pool_set_config (pool, config);
  gst_buffer_pool_set_active (pool, TRUE);
  for (i = 0; i < BUFFERS; i++) {
    buffers[i] = gst_buffer_new ();
    queued (tracer, now_ns (), pool, buffers[i]);
  }

  handover = g_async_queue_new ();
  one = run (FALSE, TRUE) - run (FALSE, FALSE);
  two = run (TRUE, TRUE) - run (TRUE, FALSE);
  g_print ("%" G_GUINT64_FORMAT " buffers, the hooks' own cost per buffer "
      "(dequeued + queued, over the same loop without them): one thread "
      "%.1f ns, two threads (acquire on one, release on the other) %.1f "
      "ns\n", n, (gdouble) one / n, (gdouble) two / n);
  return 0;
}
