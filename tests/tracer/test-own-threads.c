/* Elements that work on threads they start themselves, lazily, in a caps
 * event or their first calls (issue 22 item 1): x264enc threads=4,
 * avdec_h264 max-threads=4, videoconvert n-threads=4 (GLib pool threads of
 * a task runner), compositor (its aggregator's pool). Each element's work
 * on all its threads (the summary's elements.cpu_ns) is within 15 % of the
 * CPU of its threads read from /proc by the test in the same run: the
 * threads named like its streaming thread (a thread inherits its creator's
 * name) and, for a task runner, GLib's pool threads (those that ended on the
 * way too, through the process's CPU). The threads of each element are
 * counted, and the summary accounts for at least 95 % of the process's CPU
 * on rows with an owner. The real elements: tools/dev-setup.sh installs
 * them (gstreamer1.0-plugins-ugly, gstreamer1.0-libav); a machine without
 * them runs the other cases and exits 77 (skipped), naming them. */
#include <gst/check/gstcheck.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <time.h>

#include "gpuprof-summary-reader.h"
#include "gpuprof-test-core.h"
#include "gpuprof-test-threads.h"
#include "gpuprof-test-util.h"

static gchar *stats_path, *tmpdir;

/* the element's threads: its streaming thread's name, with GLib's pool */
typedef struct
{
  const gchar *task;
  gboolean pool;
  const gchar *own;             /* the prefix of names its threads give
                                 * themselves, or NULL */
} Mine;

static gboolean
mine (const gchar * comm, gpointer data)
{
  const Mine *m = data;

  return !strcmp (comm, m->task) || (m->pool && g_str_has_prefix (comm,
          "pool")) || (m->own && g_str_has_prefix (comm, m->own));
}

/* the real elements the cases need that this machine lacks (the case is
 * left out: the run then says so and exits 77) */
static GString *missing;

static gboolean
have (const gchar * factory, const gchar * package)
{
  GstElementFactory *f = gst_element_factory_find (factory);

  if (f) {
    gst_object_unref (f);
    return TRUE;
  }
  g_string_append_printf (missing, "%s%s (%s)", missing->len ? ", " : "",
      factory, package);
  return FALSE;
}

static const GpuprofElementRow *
row_of (const GpuprofSnapshot * s, GstElement * p, const gchar * name)
{
  gchar *path = gpuprof_test_path (p, name);
  const GpuprofElementRow *r = gpuprof_snapshot_find_element (s, path);

  fail_unless (r != NULL, "no row for %s", path);
  g_free (path);
  return r;
}

/* Plays @desc to EOS; @element's CPU on all its threads against the CPU of
 * the threads @m selects, read at EOS; at least @min_threads threads */
static void
check_own_threads (const gchar * desc, const gchar * element, Mine * m,
    guint min_threads)
{
  GstElement *p = gpuprof_test_parse (desc);
  GArray *before = gpuprof_test_tasks ();
  guint64 process0 = gpuprof_test_process_cpu_ns (), truth;
  const GpuprofElementRow *r;
  const GpuprofSnapshot *s;
  GpuprofRun *run;
  GError *err = NULL;

  gpuprof_test_play_to_eos (p);
  truth = gpuprof_test_threads_cpu (before, process0, mine, m);
  fail_unless_equals_int (gst_element_set_state (p, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  run = gpuprof_run_load (stats_path, &err);
  fail_unless (run != NULL, "%s", err ? err->message : "");
  s = g_ptr_array_index (run->snapshots, run->snapshots->len - 1);
  r = row_of (s, p, element);
  g_print ("%s: cpu %.1f ms (truth %.1f ms), %" G_GUINT64_FORMAT
      " threads, busy %.2f, core wait %.1f ms; process %.1f ms, %.1f %% "
      "attributed\n", element, r->cpu_ns / 1e6, truth / 1e6, r->threads,
      r->busy, r->wait_core_ns / 1e6, s->process_cpu_ns / 1e6,
      100.0 * s->attributed_cpu_ns / MAX (s->process_cpu_ns, 1));
  fail_unless (truth > 20 * GST_MSECOND, "%s did too little: %.1f ms",
      element, truth / 1e6);
  fail_unless (r->cpu_ns >= truth * 0.85 && r->cpu_ns <= truth * 1.15,
      "%s: work on its threads %.1f ms, its threads' CPU %.1f ms (15 %%)",
      element, r->cpu_ns / 1e6, truth / 1e6);
  fail_unless (r->threads >= min_threads, "%s: %" G_GUINT64_FORMAT
      " threads, expected >= %u", element, r->threads, min_threads);
  fail_unless (r->busy > 0 && r->busy <= 1.0);
  /* the report accounts for the process's CPU */
  fail_unless (s->process_cpu_ns > 0);
  fail_unless (s->attributed_cpu_ns >= s->process_cpu_ns * 0.95,
      "%.1f of %.1f ms attributed", s->attributed_cpu_ns / 1e6,
      s->process_cpu_ns / 1e6);
  gpuprof_run_free (run);
  g_array_unref (before);
  gst_object_unref (p);
}

GST_START_TEST (test_x264enc_threads)
{
  Mine m = { "xq:src", FALSE };

  check_own_threads ("videotestsrc num-buffers=60 ! video/x-raw,width=640,"
      "height=360 ! queue name=xq ! x264enc name=enc threads=4 "
      "speed-preset=faster ! fakesink sync=false", "enc", &m, 3);
}

GST_END_TEST;

/* A clip made for the test by another process: @name in the test's
 * folder, 1280x720 ball frames through @encoder into @muxer */
static gchar *
make_clip (const gchar * name, guint frames, const gchar * encoder,
    const gchar * muxer)
{
  gchar *path = g_build_filename (tmpdir, name, NULL);
  gchar *cmd = g_strdup_printf ("gst-launch-1.0 -q videotestsrc "
      "num-buffers=%u pattern=ball ! video/x-raw,width=1280,height=720 ! %s "
      "! %s ! filesink location=%s", frames, encoder, muxer, path);
  gchar **argv = NULL, **envp = g_environ_unsetenv (g_get_environ (),
      "GST_TRACERS");
  gint status = -1;

  if (!g_file_test (path, G_FILE_TEST_EXISTS)) {
    fail_unless (g_shell_parse_argv (cmd, NULL, &argv, NULL));
    fail_unless (g_spawn_sync (NULL, argv, envp, G_SPAWN_SEARCH_PATH, NULL,
            NULL, NULL, NULL, &status, NULL) && status == 0,
        "could not make %s: %s", path, cmd);
  }
  g_strfreev (argv);
  g_strfreev (envp);
  g_free (cmd);
  return path;
}

static gchar *
h264_clip (void)
{
  return make_clip ("clip.mp4", 120, "x264enc speed-preset=ultrafast",
      "mp4mux");
}

GST_START_TEST (test_avdec_h264_threads)
{
  /* Debian 13's FFmpeg (7, with GStreamer 1.26) names its frame threads
   * itself ("av:h264:df0"): no other thread has that name, so the call
   * window they appeared in settles them, not their creator's name */
  Mine m = { "dq:src", FALSE, "av:h264:" };
  gchar *clip, *desc;

  clip = h264_clip ();
  desc = g_strdup_printf ("filesrc location=%s ! qtdemux ! queue name=dq ! "
      "h264parse ! avdec_h264 name=dec max-threads=4 ! fakesink sync=false",
      clip);
  /* its streaming thread and at least one of libav's: Debian 13's libav
   * (GStreamer 1.26) started one worker here where Debian 12's started 3 */
  check_own_threads (desc, "dec", &m, 2);
  g_free (desc);
  g_free (clip);
}

GST_END_TEST;

GST_START_TEST (test_videoconvert_pool)
{
  Mine m = { "vq:src", TRUE };

  check_own_threads ("videotestsrc num-buffers=150 ! video/x-raw,width=1280,"
      "height=720,format=BGRx ! queue name=vq ! videoconvert name=vc "
      "n-threads=4 ! video/x-raw,format=I420 ! fakesink sync=false", "vc",
      &m, 2);
}

GST_END_TEST;

/* two inputs blended on the compositor's pool (1280x720: 4 threads) */
#define COMPOSITOR "compositor name=c ! video/x-raw,width=1280,height=720 " \
    "! fakesink sync=false videotestsrc num-buffers=100 ! " \
    "video/x-raw,width=1280,height=720,format=AYUV ! c. videotestsrc " \
    "num-buffers=100 ! video/x-raw,width=640,height=360,format=AYUV ! c."

GST_START_TEST (test_compositor_pool)
{
  Mine m = { "c:src", TRUE };

  check_own_threads (COMPOSITOR, "c", &m, 2);
}

GST_END_TEST;

static void
idle_job (gpointer data, gpointer unused)
{
  g_usleep (20 * 1000);
}

/* The compositor's pool (GstVideoAggregator's, made in its instance init,
 * where no hook tells whose it is) runs on threads GLib already had idle:
 * none appears in the compositor's calls for a window to settle, yet their
 * work is its own (it is a pool's maker from its first state change) */
GST_START_TEST (test_compositor_idle_pool)
{
  Mine m = { "c:src", TRUE };
  GstElement *first = gst_element_factory_make ("identity", NULL);
  GThreadPool *idle;
  guint i;

  /* a state change first: the threads there at the tracer's first look
   * are the application's; pool threads that appear later are the
   * process's. No streaming thread: no first-loop window left open */
  fail_unless (gst_element_set_state (first, GST_STATE_READY) ==
      GST_STATE_CHANGE_SUCCESS);
  gst_element_set_state (first, GST_STATE_NULL);
  gst_object_unref (first);
  /* four threads of GLib's shared pool, left idle before the pipeline */
  g_thread_pool_set_max_unused_threads (8);
  idle = g_thread_pool_new (idle_job, NULL, 4, FALSE, NULL);
  for (i = 0; i < 4; i++)
    g_thread_pool_push (idle, GUINT_TO_POINTER (1), NULL);
  g_thread_pool_free (idle, FALSE, TRUE);
  fail_unless (g_thread_pool_get_num_unused_threads () >= 1,
      "no idle thread in GLib's pool: the test did not test");
  check_own_threads (COMPOSITOR, "c", &m, 2);
}

GST_END_TEST;

/* a pool thread GLib's spawner made (GLib >= 2.80 makes them all there),
 * seen before it named itself: it carries the spawner's name from its
 * start, then its own pool name, and works for a pool's users */
static gpointer
spawned_pool_thread (gpointer data)
{
  GAsyncQueue *done = data;
  struct timespec ts;
  gint64 from, now;

  /* seen by the sampler (10 passes a second) and a scan under the
   * spawner's name */
  g_usleep (250 * 1000);
  prctl (PR_SET_NAME, "pool-test", 0, 0, 0);
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  from = ts.tv_sec * G_GINT64_CONSTANT (1000000000) + ts.tv_nsec;
  do {
    clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
    now = ts.tv_sec * G_GINT64_CONSTANT (1000000000) + ts.tv_nsec;
  } while (now - from < 400 * GST_MSECOND);
  g_async_queue_pop (done);
  return NULL;
}

/* a stand-in for GLib's spawner: named so (g_thread_new names it as it
 * starts), it makes the thread with pthread_create, which names nothing:
 * the new thread inherits the spawner's name, as GLib's pool threads do */
static gpointer
spawner (gpointer data)
{
  pthread_t t;

  fail_unless (pthread_create (&t, NULL, spawned_pool_thread, data) == 0);
  pthread_join (t, NULL);
  return NULL;
}

/* A pool thread first seen under the name of GLib's spawner (it had not
 * named itself yet: under load it waits for a core first) works for
 * videoconvert's pool: its CPU is the converter's, not the process's
 * (a loaded fresh check on 1.26: 14.4 ms of 113 ms stayed on a
 * "pool-spawner" row). The sampler reads such a thread's name again at
 * every pass, not once a second. */
GST_START_TEST (test_pool_thread_seen_as_spawner)
{
  Mine m = { "vq:src", TRUE };
  GstElement *first = gst_element_factory_make ("identity", NULL);
  GAsyncQueue *done = g_async_queue_new ();
  GThread *t;

  /* past the first scan: a thread that appears now is no application's */
  fail_unless (gst_element_set_state (first, GST_STATE_READY) ==
      GST_STATE_CHANGE_SUCCESS);
  gst_element_set_state (first, GST_STATE_NULL);
  gst_object_unref (first);
  t = g_thread_new ("pool-spawner", spawner, done);
  /* the converter has calls in every pass while the thread works (the
   * sampler gives a pool thread's CPU to the users with calls in the
   * pass) */
  check_own_threads ("videotestsrc num-buffers=600 ! "
      "video/x-raw,width=1280,height=720,format=BGRx ! "
      "queue name=vq ! videoconvert name=vc n-threads=2 ! "
      "video/x-raw,format=I420 ! fakesink sync=false", "vc", &m, 2);
  g_async_queue_push (done, GINT_TO_POINTER (1));
  g_thread_join (t);
  g_async_queue_unref (done);
}

GST_END_TEST;

/* The sums of one run: each thread's CPU counted once, at least 90 % of
 * the process's on the elements (but for the test's own thread and
 * gpuprof's) and 95 % on rows with an owner */
static void
check_counted_once (const GpuprofSnapshot * s, guint run, const gchar * desc)
{
  guint64 elements = 0, threads = 0, others = 0;
  guint64 tol = s->process_cpu_ns / 50 + 5 * GST_MSECOND;
  guint i;

  fail_unless (s->process_cpu_ns > 0);
  for (i = 0; i < s->elements->len; i++) {
    const GpuprofElementRow *r = &g_array_index (s->elements,
        GpuprofElementRow, i);

    elements += r->cpu_ns;
    if (r->async)
      g_print ("run %u: %s async: workers %.1f ms, cpu %.1f ms\n", run,
          r->path, r->worker_ns / 1e6, r->cpu_ns / 1e6);
    /* its workers are among its threads: a thread GLib's pool gave to
     * another element since is not its any more */
    if (r->async)
      fail_unless (r->worker_ns <= r->cpu_ns + tol, "run %u (%s): %s: "
          "workers %.1f ms, its CPU on all its threads %.1f ms", run, desc,
          r->path, r->worker_ns / 1e6, r->cpu_ns / 1e6);
  }
  for (i = 0; i < s->threads->len; i++) {
    const GpuprofThreadRow *r = &g_array_index (s->threads, GpuprofThreadRow,
        i);

    if (strcmp (r->name, "(rest of the process)"))
      threads += r->cpu_ns;
    /* the test's own thread (it writes the reports) and gpuprof's */
    if (g_str_has_prefix (r->name, "test-own-thread")
        || g_str_has_prefix (r->name, "gpuprof-"))
      others += r->cpu_ns;
  }
  g_print ("run %u: elements %.1f ms, threads %.1f ms, process %.1f ms\n",
      run, elements / 1e6, threads / 1e6, s->process_cpu_ns / 1e6);
  fail_unless (elements <= s->process_cpu_ns + tol, "run %u (%s): the "
      "elements' CPU %.1f ms, the process's %.1f ms", run, desc,
      elements / 1e6, s->process_cpu_ns / 1e6);
  fail_unless (threads <= s->process_cpu_ns + tol, "run %u (%s): the "
      "threads' CPU %.1f ms, the process's %.1f ms", run, desc,
      threads / 1e6, s->process_cpu_ns / 1e6);
  /* ... and once at least: the elements have the pool threads' CPU in
   * every run (not only where a pool thread appeared: a run that reuses
   * them), and the pool threads have rows */
  fail_unless (elements >= (s->process_cpu_ns - MIN (others,
              s->process_cpu_ns)) * 0.9, "run %u (%s): the elements' CPU "
      "%.1f ms of the process's %.1f ms (%.1f ms on the test's and "
      "gpuprof's threads)", run, desc, elements / 1e6,
      s->process_cpu_ns / 1e6, others / 1e6);
  fail_unless (s->attributed_cpu_ns >= s->process_cpu_ns * 0.95, "run %u "
      "(%s): %.1f of %.1f ms attributed", run, desc,
      s->attributed_cpu_ns / 1e6, s->process_cpu_ns / 1e6);
}

static void
link_to_queue (GstElement * demux, GstPad * pad, GstElement * pipeline)
{
  GstElement *q = gst_bin_get_by_name (GST_BIN (pipeline), "dq");
  GstPad *sink = gst_element_get_static_pad (q, "sink");

  fail_unless_equals_int (gst_pad_link (pad, sink), GST_PAD_LINK_OK);
  gst_object_unref (sink);
  gst_object_unref (q);
}

/* GLib's pool hands a thread from element to element and from run to run
 * in one process: qtdemux's task thread in one run is a queue's in the
 * next, or a videoconvert's pool worker. Each run, no thread's CPU is
 * counted twice: the elements' CPU and the thread rows sum to at most the
 * process's CPU in the run, and an asynchronous element's workers
 * (qtdemux) to at most its CPU on all its threads (issue 22: qtdemux's
 * worker_ns was the whole of queue0:src's, 182 % of the process) */
GST_START_TEST (test_pool_reuse_counted_once)
{
  gchar *clip = make_clip ("clip.mov", 60, "jpegenc", "qtmux");
  gchar *demux = g_strdup_printf ("filesrc location=%s ! qtdemux name=d "
      "queue name=dq ! jpegdec ! videoconvert n-threads=2 ! "
      "fakesink sync=false", clip);
  const gchar *convert = "videotestsrc num-buffers=40 ! video/x-raw,"
      "format=BGRx,width=1280,height=720 ! queue ! videoconvert n-threads=3 "
      "! video/x-raw,format=I420 ! queue ! fakesink sync=false";
  /* each played again and again: an element keeps its records from run to
   * run, while its threads go back to the pool and come out as others' */
  GstElement *p[2] = { gpuprof_test_parse (demux),
    gpuprof_test_parse (convert)
  };
  GstElement *d = gst_bin_get_by_name (GST_BIN (p[0]), "d");
  guint run;

  /* linked at every run (gst_parse_launch's delayed link is once) */
  g_signal_connect (d, "pad-added", G_CALLBACK (link_to_queue), p[0]);
  /* 8 runs of the demuxing one back to back (the pool's threads pass
   * between its queue and its demuxer), then both in turn for 16 */
  for (run = 0; run < 24; run++) {
    guint which = run < 8 ? 0 : run % 2;
    GpuprofRun *r;
    GError *err = NULL;

    gpuprof_test_play_to_eos (p[which]);
    /* qtdemux's task thread back in the pool first: the next run's queue
     * (started first, downstream to upstream) takes it */
    if (which == 0)
      fail_unless (gst_element_set_state (d, GST_STATE_READY) !=
          GST_STATE_CHANGE_FAILURE);
    fail_unless_equals_int (gst_element_set_state (p[which],
            GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
    r = gpuprof_run_load (stats_path, &err);
    fail_unless (r != NULL, "%s", err ? err->message : "");
    check_counted_once (g_ptr_array_index (r->snapshots,
            r->snapshots->len - 1), run, which ? convert : demux);
    gpuprof_run_free (r);
  }
  gst_object_unref (d);
  gst_object_unref (p[0]);
  gst_object_unref (p[1]);
  g_free (demux);
  g_free (clip);
}

GST_END_TEST;

static Suite *
own_threads_suite (void)
{
  Suite *s = suite_create ("gpuprof-own-threads");
  TCase *tc = tcase_create ("own-threads");
  gboolean x264 = have ("x264enc", "gstreamer1.0-plugins-ugly");

  suite_add_tcase (s, tc);
  if (x264)
    tcase_add_test (tc, test_x264enc_threads);
  /* the clip is made with x264enc */
  if (have ("avdec_h264", "gstreamer1.0-libav") && x264)
    tcase_add_test (tc, test_avdec_h264_threads);
  tcase_add_test (tc, test_videoconvert_pool);
  tcase_add_test (tc, test_compositor_pool);
  tcase_add_test (tc, test_compositor_idle_pool);
  tcase_add_test (tc, test_pool_thread_seen_as_spawner);
  tcase_add_test (tc, test_pool_reuse_counted_once);
  return s;
}

int
main (int argc, char **argv)
{
  gchar *tracers;
  gint ret;

  missing = g_string_new (NULL);
  tmpdir = gpuprof_test_tmpdir_new ("gpuprof-own-threads-XXXXXX");
  stats_path = g_build_filename (tmpdir, "run.json", NULL);
  tracers = g_strdup_printf ("gpuprof(stats=%s,report=stderr,nvtx=off)",
      stats_path);
  ret = gpuprof_test_main (&argc, &argv, tracers, own_threads_suite,
      "gpuprof-own-threads", __FILE__);
  g_free (tracers);
  g_free (stats_path);
  ret = gpuprof_test_tmpdir_done (tmpdir, ret);
  /* the cases that ran passed, but not all could run */
  if (ret == 0 && missing->len) {
    g_printerr ("SKIP: no %s: install them (tools/dev-setup.sh); the cases "
        "that need them did not run\n", missing->str);
    ret = 77;
  }
  g_string_free (missing, TRUE);
  return ret;
}
