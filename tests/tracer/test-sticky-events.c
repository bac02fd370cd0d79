/* An EOS or segment is counted once, however often GStreamer runs the
 * event hooks for it. From 1.26.0 it also runs them for the sticky events
 * it pushes itself (check_sticky() in gstpad.c): nested in
 * gst_pad_push_event() of the same event, and again before the next buffer
 * after a relink. The hook bodies are called here in those orders (1.22
 * never calls them so: the suite's runs on 1.26 and 1.28 see the real
 * ones) and the trace must hold one mark per event. */
#include <gst/check/gstcheck.h>
#include <glib/gstdio.h>

#include "gpuprof-hooks.h"
#include "gpuprof-profiler.h"

static guint
count (const gchar * text, const gchar * needle)
{
  guint n = 0;

  while ((text = strstr (text, needle))) {
    n++;
    text += strlen (needle);
  }
  return n;
}

GST_START_TEST (test_sticky_events_marked_once)
{
  gchar *dir = g_dir_make_tmp ("gpuprof-sticky-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "run.json", NULL), *text = NULL;
  GstElement *p = gst_parse_launch ("fakesrc name=src ! fakesink", NULL);
  GstElement *src = gst_bin_get_by_name (GST_BIN (p), "src");
  GstPad *pad = gst_element_get_static_pad (src, "src");
  GpuprofParams params;
  GpuprofProfiler *prof;
  GstEvent *seg, *eos, *seg2;
  GstBuffer *buf = gst_buffer_new ();
  GstSegment s;
  guint64 ts = 0;

  gpuprof_params_init (&params);
  params.report = GPUPROF_REPORT_OFF;
  params.trace_path = g_strdup (path);
  prof = gpuprof_profiler_new (&params);
  gpuprof_params_clear (&params);
  gst_segment_init (&s, GST_FORMAT_TIME);
  seg = gst_event_new_segment (&s);
  seg2 = gst_event_new_segment (&s);
  eos = gst_event_new_eos ();

  /* gst_pad_push_event (segment): the hooks, and nested the same again */
  gpuprof_hooks_event_pre (gpuprof_profiler_get_measure (prof), ++ts, pad, seg);
  gpuprof_hooks_event_pre (gpuprof_profiler_get_measure (prof), ++ts, pad, seg);
  gpuprof_hooks_event_post (gpuprof_profiler_get_measure (prof), ++ts, pad);
  gpuprof_hooks_event_post (gpuprof_profiler_get_measure (prof), ++ts, pad);
  /* relinked: sent again before the next buffer, inside the push */
  gpuprof_hooks_push_pre (gpuprof_profiler_get_measure (prof), ++ts, pad, buf, NULL);
  gpuprof_hooks_event_pre (gpuprof_profiler_get_measure (prof), ++ts, pad, seg);
  gpuprof_hooks_event_post (gpuprof_profiler_get_measure (prof), ++ts, pad);
  gpuprof_hooks_push_post (gpuprof_profiler_get_measure (prof), ++ts, pad, GST_FLOW_OK);
  /* a new segment is another event: marked */
  gpuprof_hooks_event_pre (gpuprof_profiler_get_measure (prof), ++ts, pad, seg2);
  gpuprof_hooks_event_post (gpuprof_profiler_get_measure (prof), ++ts, pad);
  /* EOS, nested */
  gpuprof_hooks_event_pre (gpuprof_profiler_get_measure (prof), ++ts, pad, eos);
  gpuprof_hooks_event_pre (gpuprof_profiler_get_measure (prof), ++ts, pad, eos);
  gpuprof_hooks_event_post (gpuprof_profiler_get_measure (prof), ++ts, pad);
  gpuprof_hooks_event_post (gpuprof_profiler_get_measure (prof), ++ts, pad);
  gpuprof_profiler_free (prof);  /* writes the trace */

  fail_unless (g_file_get_contents (path, &text, NULL, NULL));
  fail_unless_equals_int (count (text, "\"name\":\"segment\""), 2);
  fail_unless_equals_int (count (text, "\"name\":\"EOS\""), 1);

  g_free (text);
  gst_buffer_unref (buf);
  gst_event_unref (seg);
  gst_event_unref (seg2);
  gst_event_unref (eos);
  gst_object_unref (pad);
  gst_object_unref (src);
  gst_object_unref (p);
  g_unlink (path);
  g_rmdir (dir);
  g_free (path);
  g_free (dir);
}

GST_END_TEST;

static Suite *
sticky_suite (void)
{
  Suite *s = suite_create ("gpuprof-sticky-events");
  TCase *tc = tcase_create ("sticky");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_sticky_events_marked_once);
  return s;
}

GST_CHECK_MAIN (sticky);
