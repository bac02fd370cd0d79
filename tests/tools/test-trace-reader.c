/* The trace reader (gst/outputs/gpuprof-trace-reader.c) parses events as JSON, not
 * as text: escaped names, members in any order and spacing, a key's text
 * inside a string; its rebuilt figures are the core histogram's over the
 * same values; and on a trace the writer cut off (no summary) it rebuilds
 * the self times the events carried. */
#include <gst/gst.h>
#include <stdlib.h>
#include <string.h>

#include "gpuprof-histogram.h"
#include "gpuprof-summary-reader.h"
#include "gpuprof-test-core.h"
#include "gpuprof-trace.h"

static gchar *tmpdir;

static GpuprofSnapshot *
no_summary (JsonNode * summary, const gchar * where, GError ** err)
{
  g_set_error (err, GPUPROF_LOAD_ERROR, GPUPROF_LOAD_ERROR_SCHEMA,
      "%s: unexpected summary", where);
  return NULL;
}

static GpuprofSnapshot *
read_one (const gchar * path, GpuprofTraceContents * c)
{
  FILE *f = fopen (path, "r");
  GError *err = NULL;

  g_assert_nonnull (f);
  if (!gpuprof_trace_read (f, path, no_summary, c, &err))
    g_error ("%s", err->message);
  fclose (f);
  g_assert_true (c->rebuilt);
  g_assert_cmpuint (c->snapshots->len, ==, 1);
  return g_ptr_array_index (c->snapshots, 0);
}

static const GpuprofElementRow *
element (GpuprofSnapshot * snap, const gchar * path)
{
  guint i;

  for (i = 0; i < snap->elements->len; i++) {
    const GpuprofElementRow *r = &g_array_index (snap->elements,
        GpuprofElementRow, i);
    if (!g_strcmp0 (r->path, path))
      return r;
  }
  g_error ("no row for %s", path);
  return NULL;
}

/* hand-written events as another JSON writer could write them */
static void
test_json_not_text (void)
{
  const gchar *self[] = { "1000", "3000", "2000", "500000" };
  GString *t = g_string_new ("[\n");
  gchar *path = g_build_filename (tmpdir, "hand.json", NULL);
  GpuprofHistogram truth = { 0 };
  GpuprofTraceContents c;
  GpuprofSnapshot *snap;
  const GpuprofElementRow *r;
  guint i;

  g_string_append (t, "{\"args\": {\"name\": \"pipe\\u00e9\"}, \"ph\": \"M\", "
      "\"name\": \"process_name\", \"pid\": 1, \"tid\": 0, \"ts\": 0},\n");
  g_string_append (t, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,"
      "\"tid\":3,\"ts\":0,\"args\":{\"name\":\"q:src\"}},\n");
  for (i = 0; i < G_N_ELEMENTS (self); i++) {
    /* args first, spaces after colons, and the element's name holding an
     * escaped quote and the text of another key */
    g_string_append_printf (t, "{\"args\": {\"pad\": \"sink\", \"self_ns\": "
        "%s}, \"ph\": \"X\", \"cat\": \"chain\", \"name\": "
        "\"p/a\\\"\\\"self_ns\\\":7\", \"pid\": 1, \"tid\": 3, "
        "\"ts\": %u.250, \"dur\": 600.000},\n", self[i], 1000 * (i + 1));
    gpuprof_histogram_record (&truth, g_ascii_strtoull (self[i], NULL, 10));
  }
  g_string_append (t, "{\"ph\":\"i\",\"cat\":\"mark\",\"name\":\"EOS\","
      "\"pid\":1,\"tid\":3,\"ts\":9000.000,\"s\":\"t\",\"args\":{\"seq\":0}}\n");
  g_string_append (t, "]\n");
  g_assert_true (g_file_set_contents (path, t->str, -1, NULL));

  snap = read_one (path, &c);
  g_assert_cmpstr (snap->pipeline, ==, "pipe\xc3\xa9");
  g_assert_cmpuint (c.chain_events, ==, G_N_ELEMENTS (self));
  r = element (snap, "p/a\"\"self_ns\":7");
  g_assert_cmpuint (r->calls, ==, G_N_ELEMENTS (self));
  g_assert_cmpuint (r->self_ns, ==, 1000 + 3000 + 2000 + 500000);
  g_assert_cmpuint (r->incl_ns, ==, 4 * 600000);
  g_assert_cmpstr (r->thread, ==, "q:src");
  /* the core's percentiles over the same values */
  g_assert_cmpuint (r->self_p50_ns, ==,
      gpuprof_histogram_percentile (&truth, 0.50));
  g_assert_cmpuint (r->self_p99_ns, ==,
      gpuprof_histogram_percentile (&truth, 0.99));
  g_assert_cmpuint (r->self_max_ns, ==, 500000);
  /* wall: first ts to last end, to the ns */
  g_assert_cmpuint (r->thread_wall_ns, ==, 4000250 + 600000 - 1000250);

  gpuprof_trace_contents_clear (&c);
  g_string_free (t, TRUE);
  g_free (path);
}

static gchar *
names_element (guint32 id, gpointer data)
{
  return g_strdup_printf ("pipeline0/e%u", id);
}

/* what the writer wrote, cut off before its summary */
static void
test_rebuilds_what_was_written (void)
{
  GpuprofTraceNames names = { NULL, names_element, NULL, NULL, NULL };
  gchar *path = g_build_filename (tmpdir, "written.json", NULL);
  GpuprofTrace *trace = gpuprof_test_trace_new (path, &names, 0, NULL, NULL);
  GpuprofRing *ring = gpuprof_test_trace_ring (trace, 1);
  guint64 sum[3] = { 0 }, calls[3] = { 0 };
  GpuprofTraceContents c;
  GpuprofSnapshot *snap;
  guint i;

  for (i = 0; i < 300; i++) {
    guint32 id = 1 + i % 3;
    guint64 self = 1000 + (i * 7919) % 5000;
    GpuprofEvent ev = { GPUPROF_EVENT_CHAIN, id, 0, 1, 1000000 + i * 10000,
      self + 100, i, G_MAXUINT64, 100, self, 0, 0
    };
    if (gpuprof_ring_push (ring, &ev)) {
      sum[id - 1] += self;
      calls[id - 1]++;
    }
  }
  gpuprof_trace_flush (trace);
  snap = read_one (path, &c);
  g_assert_true (c.truncated);
  for (i = 0; i < 3; i++) {
    gchar *name = names_element (i + 1, NULL);
    const GpuprofElementRow *r = element (snap, name);
    g_assert_cmpuint (r->calls, ==, calls[i]);
    g_assert_cmpuint (r->self_ns, ==, sum[i]);
    g_free (name);
  }
  gpuprof_trace_contents_clear (&c);
  gpuprof_test_trace_free (trace);
  g_free (path);
}

int
main (int argc, char **argv)
{
  tmpdir = gpuprof_test_core_init (&argc, &argv, "gpuprof-reader-XXXXXX");
  g_test_add_func ("/trace-reader/json-not-text", test_json_not_text);
  g_test_add_func ("/trace-reader/rebuilds-what-was-written",
      test_rebuilds_what_was_written);
  return gpuprof_test_tmpdir_done (tmpdir, g_test_run ());
}
