/* pipeline-churn: creates, runs and destroys N pipelines one after another
 * in one process, as a service does per request, and prints the resident
 * memory after the first pipeline and after the last, and the records the
 * tracer keeps (get-records) when it is active.
 *
 *   pipeline-churn [N] [PIPELINE-DESCRIPTION]
 */
#include <gst/gst.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpuprof-test-tracer.h"

/* 11 elements, two of them set up before they are linked */
#define DEFAULT_DESC "videotestsrc num-buffers=10 ! " \
  "capsfilter caps=video/x-raw,width=64,height=48 ! tee name=t " \
  "t. ! queue ! identity ! identity ! fakesink " \
  "t. ! queue ! identity ! valve drop=false ! fakesink"

static long
rss_kb (void)
{
  FILE *f = fopen ("/proc/self/status", "r");
  char line[256];
  long kb = -1;

  while (f && fgets (line, sizeof (line), f))
    if (sscanf (line, "VmRSS: %ld", &kb) == 1)
      break;
  if (f)
    fclose (f);
  return kb;
}

/* heap in use: tells a leak from memory malloc keeps for reuse */
static double
heap_mb (void)
{
  return mallinfo2 ().uordblks / 1048576.0;
}

static void
print_records (const gchar * when)
{
  GstTracer *tracer = gpuprof_test_find_tracer ();
  GstStructure *s = NULL;
  gchar *text;

  if (tracer && g_signal_lookup ("get-records", G_OBJECT_TYPE (tracer)))
    g_signal_emit_by_name (tracer, "get-records", &s);
  if (!s)
    return;
  text = gst_structure_to_string (s);
  printf ("%s: %s\n", when, text);
  g_free (text);
  gst_structure_free (s);
}

static void
run_one (const gchar * desc)
{
  GError *err = NULL;
  GstElement *p = gst_parse_launch (desc, &err);
  GstBus *bus;
  GstMessage *msg;

  if (!p) {
    g_printerr ("cannot parse: %s\n", err->message);
    exit (1);
  }
  bus = gst_element_get_bus (p);
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gst_message_parse_error (msg, &err, NULL);
    g_printerr ("pipeline error: %s\n", err->message);
    exit (1);
  }
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

int
main (int argc, char **argv)
{
  int n = argc > 1 ? atoi (argv[1]) : 400, i;
  const gchar *desc = argc > 2 ? argv[2] : DEFAULT_DESC;
  long first;

  gst_init (&argc, &argv);
  /* the first pipeline loads plugins and sets up threads: measure after */
  run_one (desc);
  first = rss_kb ();
  printf ("RSS after 1 pipeline: %.1f MB (heap in use %.1f MB)\n",
      first / 1024.0, heap_mb ());
  print_records ("records after 1 pipeline");
  for (i = 1; i < n; i++)
    run_one (desc);
  printf ("RSS after %d pipelines: %.1f MB (%+.1f KiB per pipeline; heap in "
      "use %.1f MB)\n", n, rss_kb () / 1024.0,
      (double) (rss_kb () - first) / MAX (n - 1, 1), heap_mb ());
  print_records ("records at the end");
  if (g_getenv ("CHURN_MALLOC_INFO"))
    malloc_info (0, stderr);
  return 0;
}
