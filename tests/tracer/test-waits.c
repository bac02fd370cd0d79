/* Waiting is not work (issue 9): a source that waits for its data (appsrc
 * fed by the application, udpsrc on a socket) is not busy, the pipeline is
 * said to be input-bound, and the element after it is charged what it
 * measured itself in the same run. */
#include "gpuprof-test-util.h"

#include <gio/gio.h>
#include <gst/app/gstappsrc.h>
#include <string.h>
#include <sys/prctl.h>

#define N_BUFFERS 50
#define INTERVAL_US 10000

/* "limit: input PATH " and "limit: stage PATH " in the report */
static gboolean
report_says (const gchar * report, const gchar * what, const gchar * path)
{
  gchar *needle = g_strdup_printf ("%s %s ", what, path);
  gboolean found = strstr (report, needle) != NULL;

  g_free (needle);
  return found;
}

/* appsrc's need-data: its streaming thread found the queue empty and is
 * about to wait for the application */
typedef struct
{
  GMutex lock;
  GCond cond;
  guint needs;
  gint64 last_need_us;
} Feed;

static void
feed_need_data (GstAppSrc * src, guint length, gpointer data)
{
  Feed *f = data;

  g_mutex_lock (&f->lock);
  f->needs++;
  f->last_need_us = g_get_monotonic_time ();
  g_cond_broadcast (&f->cond);
  g_mutex_unlock (&f->lock);
}

GST_START_TEST (test_appsrc_fed_every_10ms)
{
  GstElement *p = gpuprof_test_parse ("appsrc name=src ! "
      "gpuprofwork name=work work-us=2000 ! fakesink sync=false");
  GstElement *src = gst_bin_get_by_name (GST_BIN (p), "src");
  gchar *src_path = gpuprof_test_path (p, "src");
  gchar *work_path = gpuprof_test_path (p, "work");
  GstAppSrcCallbacks callbacks = { feed_need_data, NULL, NULL };
  GstStructure *s, *w;
  GpuprofTestTruth work;
  Feed feed = { 0 };
  guint64 idle_ns = 0, wait, wall;
  gchar *report;
  guint i;

  g_mutex_init (&feed.lock);
  g_cond_init (&feed.cond);
  gst_app_src_set_callbacks (GST_APP_SRC (src), &callbacks, &feed, NULL);
  fail_unless (gst_element_set_state (p, GST_STATE_PLAYING)
      != GST_STATE_CHANGE_FAILURE);
  /* the application: each buffer 10 ms after the source asked for it (its
   * thread had pushed the one before and found nothing more), so the
   * source has nothing to do for those 10 ms however slow the machine;
   * feeding on a fixed clock let a source that started late find a
   * backlog and never wait (ASan beside two burners: "src waited
   * 122102659 ns of 449605261") */
  for (i = 0; i < N_BUFFERS; i++) {
    gint64 asked, end = g_get_monotonic_time () + 60 * G_TIME_SPAN_SECOND;

    g_mutex_lock (&feed.lock);
    while (feed.needs <= i && g_cond_wait_until (&feed.cond, &feed.lock,
            end));
    fail_unless (feed.needs > i, "appsrc asked for %u buffers in 60 s, not "
        "%u", feed.needs, i + 1);
    asked = feed.last_need_us;
    g_mutex_unlock (&feed.lock);
    g_usleep (INTERVAL_US);
    /* (before the first buffer the thread has not been seen yet) */
    if (i > 0)
      idle_ns += (g_get_monotonic_time () - asked) * 1000;
    fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src),
            gst_buffer_new_allocate (NULL, 64, NULL)), GST_FLOW_OK);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  fail_unless_equals_int (gpuprof_test_play (p, 60 * GST_SECOND, NULL),
      GST_MESSAGE_EOS);

  s = gpuprof_test_element_stats (src_path);
  w = gpuprof_test_element_stats (work_path);
  work = gpuprof_test_truth (p, "work");
  report = gpuprof_test_live_report (p);
  GST_INFO ("%s", report);
  fail_unless_equals_uint64 (work.calls, N_BUFFERS);
  /* the source waited for the application: not busy, not the bottleneck;
   * at least the time it had nothing to do (timed here), at most its
   * thread's time outside the calls it pushed into (timed by them) */
  fail_unless (gpuprof_test_get_double (s, "busy") <= 0.20,
      "src busy %.2f", gpuprof_test_get_double (s, "busy"));
  wait = gpuprof_test_get_u64 (s, "wait_input_ns");
  wall = gpuprof_test_get_u64 (s, "thread_wall_ns");
  if (wait < idle_ns)
    gpuprof_test_assert_truth ("src wait (it had nothing to do)", wait,
        idle_ns, N_BUFFERS);
  if (wait + work.incl_ns > wall)
    gpuprof_test_assert_truth ("src wait + the calls it pushed into",
        wait + work.incl_ns, wall, N_BUFFERS);
  fail_unless (report_says (report, "limit: input", src_path),
      "not input-bound on %s:\n%s", src_path, gpuprof_test_said (report));
  fail_if (report_says (report, "limit: stage", src_path), "%s",
      gpuprof_test_said (report));
  /* the work element: what it measured itself */
  gpuprof_test_assert_truth ("work self", gpuprof_test_get_u64 (w, "self_ns"),
      work.self_ns, work.calls);
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (w, "wait_input_ns"), 0);

  g_free (report);
  gst_structure_free (s);
  gst_structure_free (w);
  g_free (src_path);
  g_free (work_path);
  gst_object_unref (src);
  gpuprof_test_stop (p);
  g_mutex_clear (&feed.lock);
  g_cond_clear (&feed.cond);
}

GST_END_TEST;

static GstPadProbeReturn
count_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  g_atomic_int_inc ((gint *) data);
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_udpsrc_loopback_not_busy)
{
  GInetAddress *lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  GSocketAddress *any = g_inet_socket_address_new (lo, 0), *bound;
  GSocket *rx = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_DATAGRAM,
      G_SOCKET_PROTOCOL_UDP, NULL);
  GSocket *tx = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_DATAGRAM,
      G_SOCKET_PROTOCOL_UDP, NULL);
  GstElement *p, *udp, *id;
  GstPad *id_sink;
  GstStructure *s;
  gint received = 0;
  gint64 end;
  gchar *path, *report, payload[200] = { 0 };
  guint i;

  /* the receiving socket is bound here: its port is known, no race */
  fail_unless (rx && tx);
  fail_unless (g_socket_bind (rx, any, TRUE, NULL));
  bound = g_socket_get_local_address (rx, NULL);
  p = gpuprof_test_parse ("udpsrc name=udp ! identity name=id ! "
      "fakesink sync=false");
  udp = gst_bin_get_by_name (GST_BIN (p), "udp");
  g_object_set (udp, "socket", rx, "close-socket", FALSE, NULL);
  path = gpuprof_test_path (p, "udp");
  id = gst_bin_get_by_name (GST_BIN (p), "id");
  id_sink = gst_element_get_static_pad (id, "sink");
  gst_pad_add_probe (id_sink, GST_PAD_PROBE_TYPE_BUFFER, count_probe,
      &received, NULL);
  fail_unless (gst_element_set_state (p, GST_STATE_PLAYING)
      != GST_STATE_CHANGE_FAILURE);
  /* the socket is bound: datagrams sent before udpsrc reads wait there
   * (the state change completes only with the first one) */
  /* the sender: each datagram 10 ms after the one before reached identity,
   * so udpsrc has nothing to read for those 10 ms however slow the machine
   * (on a fixed clock, a late reader finds a backlog and never waits) */
  end = g_get_monotonic_time () + 60 * G_TIME_SPAN_SECOND;
  for (i = 0; i < N_BUFFERS; i++) {
    while (i && g_atomic_int_get (&received) < (gint) i
        && g_get_monotonic_time () < end)
      g_usleep (200);
    g_usleep (INTERVAL_US);
    fail_unless (g_socket_send_to (tx, bound, payload, sizeof (payload),
            NULL, NULL) == sizeof (payload));
  }
  while (g_atomic_int_get (&received) < N_BUFFERS
      && g_get_monotonic_time () < end)
    g_usleep (1000);
  fail_unless_equals_int (g_atomic_int_get (&received), N_BUFFERS);

  s = gpuprof_test_element_stats (path);
  report = gpuprof_test_live_report (p);
  GST_INFO ("%s", report);
  fail_unless (gpuprof_test_get_u64 (s, "buffers_out") > 0);
  fail_unless (gpuprof_test_get_double (s, "busy") <= 0.20,
      "udpsrc busy %.2f", gpuprof_test_get_double (s, "busy"));
  fail_unless (gpuprof_test_get_u64 (s, "wait_input_ns") * 2 >
      gpuprof_test_get_u64 (s, "thread_wall_ns"));
  fail_unless (report_says (report, "limit: input", path), "%s",
      gpuprof_test_said (report));

  g_free (report);
  gst_structure_free (s);
  g_free (path);
  gst_object_unref (udp);
  gpuprof_test_stop (p);
  gst_object_unref (id_sink);
  gst_object_unref (id);
  g_object_unref (bound);
  g_object_unref (any);
  g_object_unref (lo);
  g_object_unref (tx);
  g_object_unref (rx);
}

GST_END_TEST;

/* waitsworker: shaped like nvinfer's output side. The chain only queues;
 * a private thread, started in READY->PAUSED, spends work-us of CPU on
 * each buffer (measured on its own thread CPU clock), then waits wait-us
 * for a "device" (off the CPU) and pushes. Its cost per buffer is the CPU
 * it measured, not the wall time between its pushes. */
typedef struct
{
  GstElement parent;
  GstPad *sinkpad, *srcpad;
  GAsyncQueue *queue;           /* GstMiniObject*, or &stop_token */
  GThread *thread;
  guint work_us, wait_us;
  guint64 cpu_ns, buffers;      /* the truth, written by the worker */
} WaitsWorker;

typedef struct
{
  GstElementClass parent_class;
} WaitsWorkerClass;

static gint stop_token;

GType waits_worker_get_type (void);
G_DEFINE_TYPE (WaitsWorker, waits_worker, GST_TYPE_ELEMENT);

static gpointer
waits_worker_loop (gpointer data)
{
  WaitsWorker *w = data;
  gpointer item;

  while ((item = g_async_queue_pop (w->queue)) != &stop_token) {
    if (GST_IS_BUFFER (item)) {
      guint64 start = gpuprof_test_thread_cpu_ns ();
      guint64 target = start + (guint64) w->work_us * 1000;
      guint64 now;

      /* burn CPU until the thread's own clock advanced work-us */
      do
        now = gpuprof_test_thread_cpu_ns ();
      while (now < target);
      w->cpu_ns += now - start;
      w->buffers++;
      g_usleep (w->wait_us);
      gst_pad_push (w->srcpad, GST_BUFFER (item));
    } else {
      gst_pad_push_event (w->srcpad, GST_EVENT (item));
    }
  }
  return NULL;
}

static GstFlowReturn
waits_worker_chain (GstPad * pad, GstObject * parent, GstBuffer * buf)
{
  g_async_queue_push (((WaitsWorker *) parent)->queue, buf);
  return GST_FLOW_OK;
}

static gboolean
waits_worker_event (GstPad * pad, GstObject * parent, GstEvent * event)
{
  /* serialized events keep their place behind the buffers */
  if (GST_EVENT_IS_SERIALIZED (event) && GST_EVENT_TYPE (event) != GST_EVENT_CAPS
      && GST_EVENT_TYPE (event) != GST_EVENT_STREAM_START
      && GST_EVENT_TYPE (event) != GST_EVENT_SEGMENT) {
    g_async_queue_push (((WaitsWorker *) parent)->queue, event);
    return TRUE;
  }
  return gst_pad_event_default (pad, parent, event);
}

static GstStateChangeReturn
waits_worker_change_state (GstElement * element, GstStateChange transition)
{
  WaitsWorker *w = (WaitsWorker *) element;
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED)
    w->thread = g_thread_new ("waits-worker", waits_worker_loop, w);
  ret = GST_ELEMENT_CLASS (waits_worker_parent_class)->change_state (element,
      transition);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY && w->thread) {
    g_async_queue_push_front (w->queue, &stop_token);
    g_thread_join (w->thread);
    w->thread = NULL;
  }
  return ret;
}

static void
waits_worker_finalize (GObject * object)
{
  WaitsWorker *w = (WaitsWorker *) object;
  gpointer item;

  while ((item = g_async_queue_try_pop (w->queue)))
    if (item != &stop_token)
      gst_mini_object_unref (item);
  g_async_queue_unref (w->queue);
  G_OBJECT_CLASS (waits_worker_parent_class)->finalize (object);
}

static void
waits_worker_class_init (WaitsWorkerClass * klass)
{
  GstElementClass *ec = GST_ELEMENT_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = waits_worker_finalize;
  ec->change_state = waits_worker_change_state;
  gpuprof_test_filter_class_init (ec, "waits worker",
      "chain queues, a private thread works and pushes");
}

static void
waits_worker_init (WaitsWorker * w)
{
  gpuprof_test_filter_add_pads (GST_ELEMENT (w), waits_worker_chain,
      &w->sinkpad, &w->srcpad);
  gst_pad_set_event_function (w->sinkpad, waits_worker_event);
  w->queue = g_async_queue_new ();
}

/* the report's Threads row of @thread has @owner and @kind */
static gboolean
thread_row_says (const gchar * report, const gchar * thread,
    const gchar * owner, const gchar * kind)
{
  gchar **row = gpuprof_test_thread_row (report, thread);
  guint n = row ? g_strv_length (row) : 0;
  gboolean found = n && !g_strcmp0 (row[n - 1], kind)
      && !g_strcmp0 (row[n - 2], owner);

  g_strfreev (row);
  return found;
}

GST_START_TEST (test_worker_thread_cpu_is_work)
{
  GstElement *p;
  WaitsWorker *w;
  gchar *path;
  GstStructure *s;
  guint64 out, self;
  gchar *report, *src_owner;

  fail_unless (gst_element_register (NULL, "waitsworker", GST_RANK_NONE,
          waits_worker_get_type ()));
  p = gpuprof_test_parse ("fakesrc num-buffers=50 "
      "sizetype=fixed sizemax=64 ! waitsworker name=ww ! "
      "fakesink sync=false");
  w = (WaitsWorker *) gst_bin_get_by_name (GST_BIN (p), "ww");
  path = gpuprof_test_path (p, "ww");

  w->work_us = 2000;
  w->wait_us = 2000;
  gpuprof_test_play_to_eos (p);
  s = gpuprof_test_element_stats (path);
  out = gpuprof_test_get_u64 (s, "buffers_out");
  self = gpuprof_test_get_u64 (s, "self_ns");
  fail_unless_equals_uint64 (out, 50);
  fail_unless_equals_uint64 (w->buffers, 50);
  /* cost per buffer: the CPU its thread measured, within 10 % */
  gpuprof_test_assert_near ("worker cost per buffer", (gdouble) self / out,
      (gdouble) w->cpu_ns / w->buffers, 0.10);
  /* the threads table: the worker is ww's output thread, the source's
   * pad task its streaming thread */
  report = gpuprof_test_live_report (p);
  src_owner = gpuprof_test_path (p, "fakesrc0");
  fail_unless (thread_row_says (report, "waits-worker", path, "output"),
      "%s", gpuprof_test_said (report));
  fail_unless (thread_row_says (report, "fakesrc0:src", src_owner,
          "streaming"), "%s", gpuprof_test_said (report));
  g_free (src_owner);
  g_free (report);
  gst_structure_free (s);
  g_free (path);
  gst_object_unref (w);
  gpuprof_test_stop (p);
}

GST_END_TEST;

/* A muxer's task waiting for busy sources is not an input-bound pipeline:
 * the sources work (planted CPU), they wait for nothing; only a source
 * that waits for data makes the pipeline input-bound */
GST_START_TEST (test_mux_waiting_for_busy_sources)
{
  GstElement *p = gpuprof_test_parse ("videotestsrc num-buffers=30 ! "
      "video/x-raw,width=64,height=48 ! gpuprofwork name=a work-us=3000 "
      "spin=true ! mux.sink_0 videotestsrc num-buffers=30 ! "
      "video/x-raw,width=64,height=48 ! gpuprofwork name=b work-us=3000 "
      "spin=true ! mux.sink_1 compositor name=mux ! fakesink sync=false");
  gchar *report, *mux = gpuprof_test_path (p, "mux");
  gchar *a = gpuprof_test_path (p, "a"), *b = gpuprof_test_path (p, "b");
  GstStructure *m;

  gpuprof_test_play_to_eos (p);
  m = gpuprof_test_element_stats (mux);
  report = gpuprof_test_live_report (p);
  /* the muxer's task did wait for its inputs (what made it look
   * input-bound), yet the verdict names a working source */
  fail_unless (gpuprof_test_get_u64 (m, "wait_input_ns") * 2 >
      gpuprof_test_get_u64 (m, "thread_wall_ns"), "%s",
          gpuprof_test_said (report));
  fail_if (strstr (report, "limit: input") != NULL, "%s",
      gpuprof_test_said (report));
  /* a working source's stage; or, beside other load that holds the
   * cores (its threads waiting for one at least as long as they ran), the
   * CPUs */
  fail_unless (report_says (report, "limit: stage", a)
      || report_says (report, "limit: stage", b)
      || strstr (report, "\nlimit: cpu cpus") != NULL, "%s",
          gpuprof_test_said (report));
  g_free (a);
  g_free (b);
  gst_structure_free (m);
  g_free (report);
  g_free (mux);
  gpuprof_test_stop (p);
}

GST_END_TEST;

static Suite *
waits_suite (void)
{
  Suite *s = suite_create ("gpuprof-waits");
  TCase *tc = tcase_create ("waits");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_appsrc_fed_every_10ms);
  tcase_add_test (tc, test_udpsrc_loopback_not_busy);
  tcase_add_test (tc, test_worker_thread_cpu_is_work);
  tcase_add_test (tc, test_mux_waiting_for_busy_sources);
  return s;
}

int
main (int argc, char **argv)
{
  prctl (PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  return gpuprof_test_main (&argc, &argv, "gpuprof(report=off)",
      waits_suite, "gpuprof-waits", __FILE__);
}
