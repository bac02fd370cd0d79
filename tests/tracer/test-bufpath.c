/* Buffer counts on the buffer path, compared with pad probes of the same
 * run: pulls across ghost pads, buffer lists split by GStreamer's default
 * chain-list function, buffers a pad refuses (EOS, flushing seeks),
 * pull-only pipelines and chains deeper than the per-thread frames kept
 * inline. */
#include "gpuprof-test-util.h"

#include <sys/prctl.h>

/* ------------------------------------------------------------ helpers */

/* buffers seen by a probe: a list counts its buffers */
static GstPadProbeReturn
count_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  guint64 *count = user_data;

  __atomic_fetch_add (count, gpuprof_test_probe_buffers (info), __ATOMIC_RELAXED);
  return GST_PAD_PROBE_OK;
}

/* Counts what crosses element 'name's pad 'pad_name' (probe 'type') */
static void
count_on (GstElement * pipeline, const gchar * name, const gchar * pad_name,
    GstPadProbeType type, guint64 * count)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);
  GstPad *pad;

  fail_unless (e != NULL, "no element %s", name);
  pad = gst_element_get_static_pad (e, pad_name);
  fail_unless (pad != NULL, "no pad %s:%s", name, pad_name);
  gst_pad_add_probe (pad, type, count_probe, count, NULL);
  gst_object_unref (pad);
  gst_object_unref (e);
}

static GstElement *
parse (const gchar * description)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch (description, &err);

  fail_unless (p != NULL, "cannot parse '%s': %s", description,
      err ? err->message : "?");
  return p;
}

/* statistics of 'pipeline/path' */
static GstStructure *
stats_of (GstElement * pipeline, const gchar * path)
{
  gchar *name = gst_object_get_name (GST_OBJECT (pipeline));
  gchar *full = g_strdup_printf ("%s/%s", name, path);
  GstStructure *s = gpuprof_test_element_stats (full);

  g_free (full);
  g_free (name);
  return s;
}

static void
assert_count (GstElement * pipeline, const gchar * path, const gchar * field,
    guint64 truth)
{
  GstStructure *s = stats_of (pipeline, path);
  guint64 v = gpuprof_test_get_u64 (s, field);

  fail_unless (v == truth, "%s %s = %" G_GUINT64_FORMAT ", the probes saw %"
      G_GUINT64_FORMAT, path, field, v, truth);
  gst_structure_free (s);
}

/* the buffers into and out of a filter, against what the probes saw */
static void
assert_through (GstElement * pipeline, const gchar * path, guint64 in,
    guint64 out)
{
  assert_count (pipeline, path, "buffers_in", in);
  assert_count (pipeline, path, "buffers_out", out);
}

/* After EOS a streaming thread may still be returning from its last push:
 * READY joins the threads (the statistics stay until NULL). */
static void
settle (GstElement * pipeline)
{
  fail_unless (gst_element_set_state (pipeline, GST_STATE_READY) ==
      GST_STATE_CHANGE_SUCCESS);
}

/* The link from 'up' to 'down': out of one is in of the other, and within
 * 2 of the probes' count */
static void
assert_link (GstElement * pipeline, const gchar * up, guint64 truth,
    const gchar * down)
{
  GstStructure *u = stats_of (pipeline, up), *d = stats_of (pipeline, down);
  guint64 out = gpuprof_test_get_u64 (u, "buffers_out");
  guint64 in = gpuprof_test_get_u64 (d, "buffers_in");

  fail_unless (out == in, "%s out %" G_GUINT64_FORMAT " != %s in %"
      G_GUINT64_FORMAT, up, out, down, in);
  fail_unless (in + 2 >= truth && in <= truth + 2, "%s -> %s: %"
      G_GUINT64_FORMAT " buffers, the probes saw %" G_GUINT64_FORMAT, up,
      down, in, truth);
  gst_structure_free (u);
  gst_structure_free (d);
}

/* ------------------------------------------------------ ghost-pad pulls */

/* The pulls of fakesink "sink" in @desc reach the fakesrc at @src_path (its
 * row, its out) and the sink at @sink_path (its in) */
static void
check_pulls (const gchar * desc, const gchar * src_path,
    const gchar * sink_path)
{
  GstElement *p = parse (desc);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  guint64 pulled = 0;

  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_PULL | GST_PAD_PROBE_TYPE_BUFFER,
      count_probe, &pulled, NULL);
  gpuprof_test_play_to_eos (p);
  fail_unless_equals_int (GST_PAD_MODE (pad), GST_PAD_MODE_PULL);
  settle (p);
  fail_unless (pulled > 0);
  assert_count (p, src_path, "buffers_out", pulled);
  assert_count (p, sink_path, "buffers_in", pulled);
  gst_object_unref (pad);
  gst_object_unref (sink);
  gpuprof_test_stop (p);
}

/* A sink in a bin pulls through the bin's ghost pad */
GST_START_TEST (test_pull_across_ghost_pad)
{
  check_pulls ("fakesrc name=src num-buffers=40 can-activate-pull=true ! "
      "bin.( name=b fakesink name=sink can-activate-pull=true )", "src",
      "b/sink");
}

GST_END_TEST;

/* A sink pulls from a source inside two bins, through their ghost src
 * pads: the way in is found without the pads' locks, when each ghost pad
 * forwards the pull to its internal pad (gpuprof-hooks.c, pull_pre) */
GST_START_TEST (test_pull_into_bins_through_ghost_pads)
{
  check_pulls ("bin.( name=b bin.( name=c fakesrc name=src num-buffers=40 "
      "can-activate-pull=true ) ) ! fakesink name=sink "
      "can-activate-pull=true", "b/c/src", "sink");
}

GST_END_TEST;

/* A demuxer in a bin pulls the file through the bin's ghost pad, as in
 * decodebin (needs the clip) */
GST_START_TEST (test_demuxer_pulls_across_ghost_pad)
{
  const gchar *clip = gpuprof_test_clip ();
  GstElement *p;
  gchar *desc;
  guint64 pulled = 0;

  if (!clip) {
    GST_INFO ("no test clip (GPUPROF_TEST_CLIP): skipped");
    return;
  }
  desc = g_strdup_printf ("filesrc name=src location=\"%s\" ! "
      "bin.( name=b qtdemux name=demux ! fakesink sync=false )", clip);
  p = parse (desc);
  g_free (desc);
  {
    GstElement *b = gst_bin_get_by_name (GST_BIN (p), "b");
    count_on (b, "demux", "sink",
        GST_PAD_PROBE_TYPE_PULL | GST_PAD_PROBE_TYPE_BUFFER, &pulled);
    gst_object_unref (b);
  }
  gpuprof_test_play_to_eos (p);
  settle (p);
  fail_unless (pulled > 0);
  assert_count (p, "src", "buffers_out", pulled);
  assert_count (p, "b/demux", "buffers_in", pulled);
  gpuprof_test_stop (p);
}

GST_END_TEST;

/* ---------------------------------------------------------- buffer lists */

#define N_LISTS 20
#define LIST_LEN 7

static void
push_lists (GstElement * appsrc)
{
  GstFlowReturn ret;
  guint i, j;

  for (i = 0; i < N_LISTS; i++) {
    GstBufferList *list = gst_buffer_list_new ();
    for (j = 0; j < LIST_LEN; j++)
      gst_buffer_list_add (list, gst_buffer_new_allocate (NULL, 16, NULL));
    g_signal_emit_by_name (appsrc, "push-buffer-list", list, &ret);
    gst_buffer_list_unref (list);
    fail_unless_equals_int (ret, GST_FLOW_OK);
  }
  g_signal_emit_by_name (appsrc, "end-of-stream", &ret);
}

/* A queue takes a list whole (its chain-list function) and pushes it on;
 * identity has none: GStreamer chains the list's buffers one by one, each
 * with its own hooks, inside the chain-list hooks. */
GST_START_TEST (test_lists_counted_once)
{
  GstElement *p = parse ("appsrc name=src format=time ! queue name=q ! "
      "identity name=id ! fakesink name=sink sync=false");
  GstElement *src = gst_bin_get_by_name (GST_BIN (p), "src");
  guint64 src_out = 0, q_in = 0, q_out = 0, id_in = 0, sink_in = 0;
  GstStructure *s;

  count_on (p, "src", "src", GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_BUFFER_LIST, &src_out);
  count_on (p, "q", "sink", GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_BUFFER_LIST, &q_in);
  count_on (p, "q", "src", GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_BUFFER_LIST, &q_out);
  /* buffers only: the chain calls the default function makes */
  count_on (p, "id", "sink", GST_PAD_PROBE_TYPE_BUFFER, &id_in);
  count_on (p, "sink", "sink", GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_BUFFER_LIST, &sink_in);
  fail_unless (gst_element_set_state (p, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  push_lists (src);
  gst_object_unref (src);
  gpuprof_test_play_to_eos (p);
  settle (p);

  fail_unless_equals_uint64 (src_out, N_LISTS * LIST_LEN);
  fail_unless_equals_uint64 (id_in, q_out);
  assert_count (p, "src", "buffers_out", src_out);
  assert_through (p, "q", q_in, q_out);
  assert_through (p, "id", id_in, sink_in);
  assert_count (p, "sink", "buffers_in", sink_in);
  /* one timed call per buffer identity got, none for the list around them
   * (its time would be counted twice) */
  s = stats_of (p, "id");
  fail_unless_equals_uint64 (gpuprof_test_get_u64 (s, "calls"), id_in);
  fail_unless (gpuprof_test_get_u64 (s, "incl_ns") >=
      gpuprof_test_get_u64 (s, "self_ns"));
  gst_structure_free (s);
  gpuprof_test_stop (p);
}

GST_END_TEST;

/* ------------------------------------------------------ refused buffers */

#define REFUSE_AT 5

typedef struct
{
  guint64 seen;
  GstPad *target;               /* gets EOS before buffer REFUSE_AT */
  gboolean push;                /* push EOS from target (a src pad), else
                                 * send it to target (a sink pad) */
} RefuseCtx;

static GstPadProbeReturn
eos_before_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  RefuseCtx *c = user_data;

  if (++c->seen == REFUSE_AT) {
    if (c->push)
      gst_pad_push_event (c->target, gst_event_new_eos ());
    else
      gst_pad_send_event (c->target, gst_event_new_eos ());
  }
  return GST_PAD_PROBE_OK;
}

static void
wait_task_paused (GstElement * pipeline, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);
  GstPad *pad = gst_element_get_static_pad (e, "src");
  gint64 end = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

  while (gst_pad_get_task_state (pad) == GST_TASK_STARTED
      && g_get_monotonic_time () < end)
    g_usleep (1000);
  fail_if (gst_pad_get_task_state (pad) == GST_TASK_STARTED,
      "%s's task still running 60 s after EOS", name);
  gst_object_unref (pad);
  gst_object_unref (e);
}

/* fakesrc ! identity a ! identity b ! fakesink: before a's 5th buffer
 * leaves, EOS reaches b's sink pad (refused there: the chain-pre hook runs
 * before the pad's check) or a's own src pad (refused before any chain).
 * The refused buffer is neither a's out nor b's in. */
static void
check_refused (gboolean at_src)
{
  GstElement *p = parse ("fakesrc name=src num-buffers=20 ! identity name=a "
      "! identity name=b ! fakesink name=sink sync=false");
  GstElement *a = gst_bin_get_by_name (GST_BIN (p), "a");
  GstElement *b = gst_bin_get_by_name (GST_BIN (p), "b");
  GstPad *a_sink = gst_element_get_static_pad (a, "sink");
  GstPad *a_src = gst_element_get_static_pad (a, "src");
  RefuseCtx c = { 0 };
  guint64 a_in = 0, b_in = 0;

  if (at_src) {
    /* a's chain runs after this probe, then pushes on an EOS pad */
    c.target = gst_object_ref (a_src);
    c.push = TRUE;
    gst_pad_add_probe (a_sink, GST_PAD_PROBE_TYPE_BUFFER, eos_before_probe,
        &c, NULL);
  } else {
    c.target = gst_element_get_static_pad (b, "sink");
    gst_pad_add_probe (a_src, GST_PAD_PROBE_TYPE_BUFFER, eos_before_probe,
        &c, NULL);
  }
  count_on (p, "a", "sink", GST_PAD_PROBE_TYPE_BUFFER, &a_in);
  count_on (p, "b", "sink", GST_PAD_PROBE_TYPE_BUFFER, &b_in);
  gpuprof_test_play_to_eos (p);
  /* The sink posts EOS while the streaming thread is still inside the probe
   * that sent it: stopping now would flush the sink under that EOS, which
   * then never marks b's pad, and buffer 5 would reach b (seen 3 runs in
   * 135 with four copies of the test at once). Stop once the source's task
   * has paused on the refused push. */
  wait_task_paused (p, "src");
  settle (p);

  fail_unless_equals_uint64 (b_in, REFUSE_AT - 1);
  assert_count (p, "src", "buffers_out", a_in);
  assert_through (p, "a", a_in, b_in);
  assert_through (p, "b", b_in, b_in);
  assert_count (p, "sink", "buffers_in", b_in);
  gst_object_unref (c.target);
  gst_object_unref (a_sink);
  gst_object_unref (a_src);
  gst_object_unref (a);
  gst_object_unref (b);
  gpuprof_test_stop (p);
}

GST_START_TEST (test_refused_by_receiver)
{
  check_refused (FALSE);
}

GST_END_TEST;

GST_START_TEST (test_refused_by_own_src_pad)
{
  check_refused (TRUE);
}

GST_END_TEST;

/* An element returning an error took the buffer: it counts on both sides */
GST_START_TEST (test_error_after_crossing)
{
  GstElement *p = parse ("fakesrc name=src num-buffers=20 ! identity name=a "
      "! identity name=b error-after=3 ! fakesink sync=false");
  GstBus *bus = gst_element_get_bus (p);
  GstMessage *msg;
  guint64 b_in = 0;

  count_on (p, "b", "sink", GST_PAD_PROBE_TYPE_BUFFER, &b_in);
  fail_unless (gst_element_set_state (p, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "identity error-after=3 posted no error");
  gst_message_unref (msg);
  gst_object_unref (bus);
  settle (p);
  fail_unless_equals_uint64 (b_in, 3);
  assert_count (p, "a", "buffers_out", b_in);
  assert_count (p, "b", "buffers_in", b_in);
  gpuprof_test_stop (p);
}

GST_END_TEST;

/* Flushing seeks while the source pushes: a push that meets the flush
 * before the next pad (flushing src or sink pad) is no buffer out or in.
 * One case stays open: a flush that reaches a sink pad between
 * pad-chain-pre and the pad's own check (a few instructions apart) is
 * counted on both sides of that pad, so the counts may differ from the
 * probes by one now and then; without the fix they differ by about one per
 * seek. Out of one element and in of the next always agree. */
GST_START_TEST (test_flushing_seeks)
{
  GstElement *p = parse ("videotestsrc name=src ! "
      "video/x-raw,width=160,height=120 ! identity name=a ! "
      "identity name=b ! fakesink name=sink sync=false");
  GstBus *bus = gst_element_get_bus (p);
  GstMessage *msg;
  guint64 caps_in = 0, a_in = 0, b_in = 0, sink_in = 0;
  guint i;

  count_on (p, "capsfilter0", "sink", GST_PAD_PROBE_TYPE_BUFFER, &caps_in);
  count_on (p, "a", "sink", GST_PAD_PROBE_TYPE_BUFFER, &a_in);
  count_on (p, "b", "sink", GST_PAD_PROBE_TYPE_BUFFER, &b_in);
  count_on (p, "sink", "sink", GST_PAD_PROBE_TYPE_BUFFER, &sink_in);
  fail_unless (gst_element_set_state (p, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_get_state (p, NULL, NULL, GST_CLOCK_TIME_NONE) ==
      GST_STATE_CHANGE_SUCCESS);
  fail_unless (gst_element_set_state (p, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  for (i = 0; i < 20; i++) {
    g_usleep (5000);
    fail_unless (gst_element_seek_simple (p, GST_FORMAT_TIME,
            GST_SEEK_FLAG_FLUSH, 0));
    /* the sink prerolls again: EOS sent before the pipeline is back in
     * PLAYING can deadlock in basesrc (state lock vs. stream lock) */
    fail_unless (gst_element_get_state (p, NULL, NULL,
            GST_CLOCK_TIME_NONE) == GST_STATE_CHANGE_SUCCESS);
  }
  gst_element_send_event (p, gst_event_new_eos ());
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_object_unref (bus);
  settle (p);

  fail_unless (sink_in > 0);
  assert_link (p, "src", caps_in, "capsfilter0");
  assert_link (p, "capsfilter0", a_in, "a");
  assert_link (p, "a", b_in, "b");
  assert_link (p, "b", sink_in, "sink");
  gpuprof_test_stop (p);
}

GST_END_TEST;

/* ---------------------------------------------------- pull-only threads */

/* The sink's task only pulls: its thread has a row, the run a wall time */
GST_START_TEST (test_pull_only_pipeline)
{
  GstElement *p = parse ("fakesrc name=src num-buffers=200 "
      "can-activate-pull=true ! fakesink name=sink can-activate-pull=true");
  gchar *name = gst_object_get_name (GST_OBJECT (p));
  gchar *text = NULL, *threads, *row;
  guint64 pulled = 0;

  count_on (p, "sink", "sink", GST_PAD_PROBE_TYPE_PULL |
      GST_PAD_PROBE_TYPE_BUFFER, &pulled);
  gpuprof_test_play_to_eos (p);
  settle (p);
  fail_unless_equals_uint64 (pulled, 200);
  assert_count (p, "src", "buffers_out", pulled);
  assert_count (p, "sink", "buffers_in", pulled);

  g_signal_emit_by_name (gpuprof_test_tracer (), "get-report", name, &text);
  fail_unless (text != NULL);
  threads = strstr (text, "\nThreads\n");
  fail_unless (threads != NULL, "no Threads table in:\n%s", text);
  /* "  sink:sink   0.259 ..." : the sink's task, with a wall time */
  row = strstr (threads, "\n  sink:sink ");
  fail_unless (row != NULL, "the sink's thread is not in the Threads "
      "table:\n%s", text);
  fail_unless (g_ascii_strtod (row + strlen ("\n  sink:sink "), NULL) > 0,
      "the sink's thread has no wall time:\n%s", text);
  g_free (text);
  g_free (name);
  gpuprof_test_stop (p);
}

GST_END_TEST;

/* ------------------------------------------------------ deep one thread */

#define DEPTH 80

/* 80 identities on one thread: every one is counted and timed, and the
 * sink too (the per-thread stack grows past its inline frames) */
GST_START_TEST (test_deep_chain)
{
  GString *desc = g_string_new ("fakesrc num-buffers=25 ! identity name=i0");
  GstElement *p;
  guint64 truth = 0;
  guint i;

  for (i = 1; i < DEPTH; i++)
    g_string_append_printf (desc, " ! identity name=i%u", i);
  g_string_append (desc, " ! fakesink name=sink sync=false");
  p = parse (desc->str);
  g_string_free (desc, TRUE);
  count_on (p, "sink", "sink", GST_PAD_PROBE_TYPE_BUFFER, &truth);
  gpuprof_test_play_to_eos (p);
  settle (p);
  fail_unless_equals_uint64 (truth, 25);

  for (i = 0; i < DEPTH; i++) {
    gchar *path = g_strdup_printf ("i%u", i);
    assert_through (p, path, truth, truth);
    assert_count (p, path, "calls", truth);
    g_free (path);
  }
  assert_count (p, "sink", "buffers_in", truth);
  assert_count (p, "sink", "calls", truth);
  gpuprof_test_stop (p);
}

GST_END_TEST;

static Suite *
bufpath_suite (void)
{
  Suite *s = suite_create ("gpuprof-bufpath");
  TCase *tc = tcase_create ("bufpath");

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_pull_across_ghost_pad);
  tcase_add_test (tc, test_pull_into_bins_through_ghost_pads);
  tcase_add_test (tc, test_demuxer_pulls_across_ghost_pad);
  tcase_add_test (tc, test_lists_counted_once);
  tcase_add_test (tc, test_refused_by_receiver);
  tcase_add_test (tc, test_refused_by_own_src_pad);
  tcase_add_test (tc, test_error_after_crossing);
  tcase_add_test (tc, test_flushing_seeks);
  tcase_add_test (tc, test_pull_only_pipeline);
  tcase_add_test (tc, test_deep_chain);
  return s;
}

int
main (int argc, char **argv)
{
  prctl (PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  return gpuprof_test_main (&argc, &argv, "gpuprof(report=off,cupti=off)",
      bufpath_suite, "gpuprof-bufpath", __FILE__);
}
