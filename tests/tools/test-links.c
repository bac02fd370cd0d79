/* The links table: the pipeline's topology, read from the pads at snapshot
 * time. Every linked src pad has its row, ghost pads are followed to the
 * element inside the bin, and the buffers of each link equal what a pad
 * probe on that src pad counted in the same run. */
#include <gst/check/gstcheck.h>
#include <glib/gstdio.h>

#include "gpuprof-summary-reader.h"
#include "gpuprof-test-core.h"
#include "gpuprof-test-util.h"

static gchar *stats_path;

static GstPadProbeReturn
count_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  g_atomic_int_add ((gint *) user_data, gpuprof_test_probe_buffers (info));
  return GST_PAD_PROBE_OK;
}

static void
probe_src (GstElement * pipeline, const gchar * name, gint * count)
{
  GstElement *e = gst_bin_get_by_name_recurse_up (GST_BIN (pipeline), name);
  GstPad *pad;

  fail_unless (e != NULL, "no %s", name);
  pad = gst_element_get_static_pad (e, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_BUFFER_LIST, count_probe, count, NULL);
  gst_object_unref (pad);
  gst_object_unref (e);
}

static const GpuprofLinkRow *
find_link (const GpuprofSnapshot * s, const gchar * src_suffix,
    const gchar * src_pad)
{
  guint i;

  for (i = 0; i < s->links->len; i++) {
    const GpuprofLinkRow *r = &g_array_index (s->links, GpuprofLinkRow, i);
    if (g_str_has_suffix (r->src, src_suffix)
        && !g_strcmp0 (r->src_pad, src_pad))
      return r;
  }
  return NULL;
}

GST_START_TEST (test_links)
{
  GstElement *p = gpuprof_test_parse ("videotestsrc name=src num-buffers=40 "
      "! video/x-raw,width=32,height=24 ! tee name=t "
      "t. ! queue name=q1 ! ( identity name=inner ) ! fakesink name=s1 "
      "t. ! queue name=q2 ! valve name=v ! fakesink name=s2");
  gint n_src = 0, n_inner = 0, n_q2 = 0;
  GpuprofRun *run;
  GError *err = NULL;
  const GpuprofSnapshot *s;
  const GpuprofLinkRow *l;
  gchar *sink;

  probe_src (p, "src", &n_src);
  probe_src (p, "inner", &n_inner);
  probe_src (p, "q2", &n_q2);
  gpuprof_test_play_to_eos (p);
  sink = gpuprof_test_path (p, "s1");
  gpuprof_test_stop (p);

  run = gpuprof_run_load (stats_path, &err);
  fail_unless (run != NULL, "%s", err ? err->message : "");
  s = g_ptr_array_index (run->snapshots, run->snapshots->len - 1);
  /* src ! capsfilter ! tee: 2 links, tee: 2, q1 -> identity (ghost), identity
   * -> s1 (ghost), q2 -> valve, valve -> s2 */
  fail_unless_equals_int (s->links->len, 8);

  l = find_link (s, "/src", "src");
  fail_unless (l != NULL);
  fail_unless (g_str_has_prefix (l->sink_pad, "sink"));
  fail_unless_equals_uint64 (l->buffers, g_atomic_int_get (&n_src));
  fail_unless (n_src > 0);

  /* through the bin's src ghost pad to the fakesink */
  l = find_link (s, "/inner", "src");
  fail_unless (l != NULL);
  fail_unless_equals_string (l->sink, sink);
  fail_unless_equals_string (l->sink_pad, "sink");
  fail_unless_equals_uint64 (l->buffers, g_atomic_int_get (&n_inner));

  /* into the bin: q1's peer is the ghost pad, the row names identity */
  l = find_link (s, "/q1", "src");
  fail_unless (l != NULL);
  fail_unless (g_str_has_suffix (l->sink, "/inner"), "%s", l->sink);

  l = find_link (s, "/q2", "src");
  fail_unless (l != NULL);
  fail_unless (g_str_has_suffix (l->sink, "/v"));
  fail_unless_equals_uint64 (l->buffers, g_atomic_int_get (&n_q2));

  g_free (sink);
  gpuprof_run_free (run);
}

GST_END_TEST;

static Suite *
links_suite (void)
{
  Suite *s = suite_create ("links");
  TCase *tc = tcase_create ("links");

  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_links);
  suite_add_tcase (s, tc);
  return s;
}

int
main (int argc, char **argv)
{
  gchar *dir = gpuprof_test_tmpdir_new ("gpuprof-links-XXXXXX");
  gchar *tracers;
  gint ret;

  stats_path = g_build_filename (dir, "run.json", NULL);
  tracers = g_strdup_printf ("gpuprof(stats=%s,report=off)", stats_path);
  ret = gpuprof_test_main (&argc, &argv, tracers, links_suite, "links",
      __FILE__);
  g_free (tracers);
  g_free (stats_path);
  /* the summary and its CSV files */
  return gpuprof_test_tmpdir_done (dir, ret);
}
