/* Pushes refused or cut short (shapes the long fuzz runs miscounted):
 * - a buffer list GStreamer's default chain-list splits, whose third chain
 *   call fails: the rest of the list never crosses, so the pusher's out
 *   (and a queue's "buffers") counts only the calls made;
 * - a queue whose push a flushing downstream pad refuses: the queue table's
 *   "buffers" (pushed out) does not count it, like the element's out;
 * - a source's push a flushing pad refuses (a camera stopping while it
 *   pushes): its stream's frames do not count it, like its out;
 * - a flush that reaches the receiving pad while the tracer's chain-pre
 *   hook runs (after its first look at the pad): the pad's own check
 *   refuses the buffer, which counts on neither side.
 * Every count is compared with pad probes of the same run. */
#include "gpuprof-test-util.h"

#include <gst/app/gstappsrc.h>
#ifdef GPUPROF_TEST_NVTXREC
#include <nvtxrec.h>
#endif

/* buffers seen by a probe: a list counts its buffers */
static GstPadProbeReturn
count_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  gint *count = user_data;

  g_atomic_int_add (count, gpuprof_test_probe_buffers (info));
  return GST_PAD_PROBE_OK;
}

static GstPad *
pad_of (GstElement * pipeline, const gchar * name, const gchar * pad_name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);
  GstPad *pad;

  fail_unless (e != NULL, "no element %s", name);
  pad = gst_element_get_static_pad (e, pad_name);
  fail_unless (pad != NULL, "no pad %s:%s", name, pad_name);
  gst_object_unref (e);
  return pad;
}

static void
count_on (GstElement * pipeline, const gchar * name, GstPadProbeType type,
    gint * count)
{
  GstPad *pad = pad_of (pipeline, name, "sink");

  gst_pad_add_probe (pad, type, count_probe, count, NULL);
  gst_object_unref (pad);
}

static GstElement *
parse (const gchar * name, const gchar * description)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch (description, &err);

  fail_unless (p != NULL, "cannot parse '%s': %s", description,
      err ? err->message : "?");
  gst_element_set_name (p, name);
  return p;
}

static guint64
stat (const gchar * pipeline, const gchar * name, const gchar * field,
    gboolean queue)
{
  gchar *path = g_strdup_printf ("%s/%s", pipeline, name);
  GstStructure *s = queue ? gpuprof_test_queue_stats (path) :
      gpuprof_test_element_stats (path);
  guint64 v = gpuprof_test_get_u64 (s, field);

  gst_structure_free (s);
  g_free (path);
  return v;
}

static GstBuffer *
small_buffer (guint i)
{
  GstBuffer *b = gst_buffer_new_allocate (NULL, 16, NULL);

  GST_BUFFER_PTS (b) = i * GST_MSECOND;
  GST_BUFFER_DURATION (b) = GST_MSECOND;
  return b;
}

/* waits (no time limit of ours: CK_DEFAULT_TIMEOUT ends a hang) */
static void
wait_for (gint * count, gint value)
{
  while (g_atomic_int_get (count) < value)
    g_usleep (1000);
}

static void
wait_flow (GstPad * pad, GstFlowReturn flow)
{
  while (gst_pad_get_last_flow_return (pad) != flow)
    g_usleep (1000);
}

static void
stop (GstElement * p)
{
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

/* ----------------------------------------------- a split list cut short */

/* A list of 8 into identity (no chain-list function: GStreamer chains its
 * buffers one by one); the identity after it fails on its 3rd buffer, so
 * the split stops after 3 calls and 5 buffers never cross. */
GST_START_TEST (test_split_list_cut_short)
{
  GstElement *p = parse ("cut", "appsrc name=src format=time ! queue name=q "
      "! identity name=split ! identity name=fail error-after=3 ! "
      "fakesink name=sink async=false");
  GstElement *src = gst_bin_get_by_name (GST_BIN (p), "src");
  GstPad *qsrc = pad_of (p, "q", "src");
  GstBufferList *list = gst_buffer_list_new ();
  gint calls = 0, lists = 0, failed_in = 0;
  guint i;

  /* the split's chain calls, and the lists a pad saw whole */
  count_on (p, "split", GST_PAD_PROBE_TYPE_BUFFER, &calls);
  count_on (p, "split", GST_PAD_PROBE_TYPE_BUFFER_LIST, &lists);
  count_on (p, "fail", GST_PAD_PROBE_TYPE_BUFFER, &failed_in);
  for (i = 0; i < 8; i++)
    gst_buffer_list_add (list, small_buffer (i));
  fail_unless (gst_element_set_state (p, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless_equals_int (gst_app_src_push_buffer_list (GST_APP_SRC (src),
          list), GST_FLOW_OK);
  wait_flow (qsrc, GST_FLOW_ERROR);
  /* READY joins the queue's thread; the statistics stay until NULL */
  gst_element_set_state (p, GST_STATE_READY);

  fail_unless_equals_int (g_atomic_int_get (&lists), 8);
  fail_unless (calls == 3 && failed_in == 3, "the split made %d calls, the "
      "failing identity took %d: the test did not test", calls, failed_in);
  fail_unless_equals_int (stat ("cut", "split", "buffers_in", FALSE), calls);
  fail_unless_equals_int (stat ("cut", "q", "buffers_out", FALSE), calls);
  fail_unless_equals_int (stat ("cut", "q", "buffers", TRUE), calls);
  fail_unless_equals_int (stat ("cut", "fail", "buffers_in", FALSE),
      failed_in);

  gst_object_unref (qsrc);
  gst_object_unref (src);
  stop (p);
}

GST_END_TEST;

/* -------------------------------------- a queue push a flushing pad refuses */

GST_START_TEST (test_queue_push_refused)
{
  GstElement *p = parse ("refused", "appsrc name=src format=time ! "
      "queue name=q ! fakesink name=sink async=false");
  GstElement *src = gst_bin_get_by_name (GST_BIN (p), "src");
  GstPad *qsrc = pad_of (p, "q", "src"), *sinkpad = pad_of (p, "sink",
      "sink");
  gint in_sink = 0;

  count_on (p, "sink", GST_PAD_PROBE_TYPE_BUFFER, &in_sink);
  fail_unless (gst_element_set_state (p, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src),
          small_buffer (0)), GST_FLOW_OK);
  wait_for (&in_sink, 1);
  /* the sink's pad flushes: the queue's next push is refused there */
  fail_unless (gst_pad_send_event (sinkpad, gst_event_new_flush_start ()));
  fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src),
          small_buffer (1)), GST_FLOW_OK);
  wait_flow (qsrc, GST_FLOW_FLUSHING);
  gst_element_set_state (p, GST_STATE_READY);

  fail_unless_equals_int (g_atomic_int_get (&in_sink), 1);
  fail_unless_equals_int (stat ("refused", "q", "buffers_in", FALSE), 2);
  fail_unless_equals_int (stat ("refused", "q", "buffers_out", FALSE),
      in_sink);
  fail_unless_equals_int (stat ("refused", "q", "buffers", TRUE), in_sink);
  fail_unless_equals_int (stat ("refused", "q", "flushed", TRUE), 1);
  fail_unless_equals_int (stat ("refused", "sink", "buffers_in", FALSE),
      in_sink);

  gst_object_unref (sinkpad);
  gst_object_unref (qsrc);
  gst_object_unref (src);
  stop (p);
}

GST_END_TEST;

/* ------------------------------- a source's push refused: its stream frames */

/* the streams row of @source (a path) in @pipeline's get-metrics */
static guint64
stream_frames (const gchar * pipeline, const gchar * source)
{
  GstStructure *s = NULL;
  const GValue *rows;
  guint64 frames = G_MAXUINT64;
  guint i;

  g_signal_emit_by_name (gpuprof_test_tracer (), "get-metrics", pipeline,
      &s);
  fail_unless (s != NULL, "no get-metrics");
  rows = gst_structure_get_value (s, "streams");
  for (i = 0; rows && i < gst_value_array_get_size (rows); i++) {
    const GstStructure *r =
        gst_value_get_structure (gst_value_array_get_value (rows, i));
    if (!g_strcmp0 (gst_structure_get_string (r, "source"), source))
      frames = gpuprof_test_get_u64 (r, "frames");
  }
  gst_structure_free (s);
  fail_unless (frames != G_MAXUINT64, "no stream of %s", source);
  return frames;
}

/* Two sources (so frames are followed per source) on a funnel; the
 * funnel's input of the first flushes, and that source's next push is
 * refused there: its stream counts the frames that crossed */
GST_START_TEST (test_source_push_refused)
{
  GstElement *p = parse ("srcref", "appsrc name=a format=time ! "
      "funnel name=f ! fakesink name=sink async=false "
      "appsrc name=b format=time ! f.");
  GstElement *a = gst_bin_get_by_name (GST_BIN (p), "a");
  GstElement *b = gst_bin_get_by_name (GST_BIN (p), "b");
  GstPad *asrc = pad_of (p, "a", "src");
  GstPad *fin = gst_pad_get_peer (asrc);
  gint crossed = 0, in_sink = 0;

  gst_pad_add_probe (fin, GST_PAD_PROBE_TYPE_BUFFER, count_probe, &crossed,
      NULL);
  count_on (p, "sink", GST_PAD_PROBE_TYPE_BUFFER, &in_sink);
  fail_unless (gst_element_set_state (p, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (a),
          small_buffer (0)), GST_FLOW_OK);
  fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (b),
          small_buffer (0)), GST_FLOW_OK);
  wait_for (&in_sink, 2);
  fail_unless (gst_pad_send_event (fin, gst_event_new_flush_start ()));
  fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (a),
          small_buffer (1)), GST_FLOW_OK);
  wait_flow (asrc, GST_FLOW_FLUSHING);
  gst_element_set_state (p, GST_STATE_READY);

  fail_unless_equals_int (g_atomic_int_get (&crossed), 1);
  fail_unless_equals_int (stat ("srcref", "a", "buffers_out", FALSE),
      crossed);
  fail_unless_equals_int (stream_frames ("srcref", "srcref/a"), crossed);
  fail_unless_equals_int (stream_frames ("srcref", "srcref/b"), 1);

  gst_object_unref (fin);
  gst_object_unref (asrc);
  gst_object_unref (a);
  gst_object_unref (b);
  stop (p);
}

GST_END_TEST;

/* ------------------------- a flush inside the chain-pre hook: refused late */

#ifdef GPUPROF_TEST_NVTXREC
typedef struct
{
  GstPad *pad;                  /* the receiving pad */
  gint at;                      /* its chain call that flushes it, from 0 */
  gint chains;                  /* its chain ranges so far */
  gint flushed;
} LateFlush;

/* The recorder calls this inside the tracer's chain-pre hook, where the
 * hook pushes the call's NVTX range ("id:sink"): the pad flushes there,
 * between the hook's first look at the pad and the pad's own check */
static void
flush_in_hook (const char *message, void *data)
{
  LateFlush *lf = data;

  if (g_strcmp0 (message, "id:sink")
      || g_atomic_int_add (&lf->chains, 1) != lf->at)
    return;
  gst_pad_send_event (lf->pad, gst_event_new_flush_start ());
  g_atomic_int_set (&lf->flushed, 1);
}

/* appsrc ! identity ! fakesink; identity's sink pad flushes inside the
 * hook of its chain call AT: the buffers one by one, or one LIST of 8
 * that GStreamer splits into chain calls (identity has no chain-list) */
static void
flush_inside_hook (const gchar * name, gint at, gboolean list)
{
  GstElement *p = parse (name, "appsrc name=src format=time ! "
      "identity name=id ! fakesink name=sink async=false");
  GstElement *src = gst_bin_get_by_name (GST_BIN (p), "src");
  GstPad *srcpad = pad_of (p, "src", "src");
  LateFlush lf = { pad_of (p, "id", "sink"), at, 0, 0 };
  gint in_id = 0, i;

  count_on (p, "id", GST_PAD_PROBE_TYPE_BUFFER, &in_id);
  nvtxrec_set_push_func (flush_in_hook, &lf);
  fail_unless (gst_element_set_state (p, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  if (list) {
    GstBufferList *l = gst_buffer_list_new ();

    for (i = 0; i < 8; i++)
      gst_buffer_list_add (l, small_buffer (i));
    fail_unless_equals_int (gst_app_src_push_buffer_list (GST_APP_SRC (src),
            l), GST_FLOW_OK);
  } else {
    for (i = 0; i <= at; i++) {
      fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src),
              small_buffer (i)), GST_FLOW_OK);
      if (i < at)
        wait_for (&in_id, i + 1);
    }
  }
  wait_flow (srcpad, GST_FLOW_FLUSHING);
  nvtxrec_set_push_func (NULL, NULL);
  gst_element_set_state (p, GST_STATE_READY);

  fail_unless (nvtxrec_is_attached (), "the NVTX recorder was not loaded");
  fail_unless (g_atomic_int_get (&lf.flushed), "no flush inside the hook: "
      "the test did not test (%d chain ranges)", lf.chains);
  fail_unless_equals_int (g_atomic_int_get (&in_id), at);
  fail_unless_equals_int (stat (name, "id", "buffers_in", FALSE), in_id);
  fail_unless_equals_int (stat (name, "src", "buffers_out", FALSE), in_id);

  gst_object_unref (lf.pad);
  gst_object_unref (srcpad);
  gst_object_unref (src);
  stop (p);
}

GST_START_TEST (test_flush_inside_hook)
{
  flush_inside_hook ("late", 1, FALSE);
}

GST_END_TEST;

/* the split stops at the refused call: the push takes back the rest and
 * that one (the calls that got through crossed) */
GST_START_TEST (test_flush_inside_hook_split)
{
  flush_inside_hook ("latesplit", 2, TRUE);
}

GST_END_TEST;
#endif

static Suite *
takeback_suite (void)
{
  Suite *s = suite_create ("gpuprof-takeback");
  TCase *tc = tcase_create ("takeback");

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_split_list_cut_short);
  tcase_add_test (tc, test_queue_push_refused);
  tcase_add_test (tc, test_source_push_refused);
#ifdef GPUPROF_TEST_NVTXREC
  tcase_add_test (tc, test_flush_inside_hook);
  tcase_add_test (tc, test_flush_inside_hook_split);
#endif
  return s;
}

GPUPROF_TEST_MAIN (takeback, "gpuprof-takeback",
    "gpuprof(report=off,cupti=off)");
