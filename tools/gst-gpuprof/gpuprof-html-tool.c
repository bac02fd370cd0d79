/* gst-gpuprof html FILE [--live JSONL] -o OUT: one self-contained HTML
 * page (gst/outputs/gpuprof-html.c) of a run — a summary (stats=) or a
 * trace (trace=) — or of a sweep's JSON (gst-gpuprof sweep -o). The "over
 * time" plots come from the summary's live JSON Lines (interval=; found
 * beside it or named by --live) or from the trace's events. */
#include "gpuprof-html-tool.h"
#include "gpuprof-outfile.h"
#include "gpuprof-html.h"
#include "gpuprof-live.h"
#include "gpuprof-series.h"
#include "gpuprof-summary-reader.h"

#include <string.h>

/* exit statuses of gst-gpuprof */
#define EXIT_USAGE 1
#define EXIT_BAD_INPUT 2

/* a sweep's JSON, checked and written back compact; NULL when @path holds
 * something else (a run): err stays unset then */
static gchar *
load_sweep (const gchar * path, GError ** err)
{
  JsonParser *parser = json_parser_new ();
  JsonNode *root;
  JsonObject *obj;
  gchar *text = NULL;

  if (!json_parser_load_from_file (parser, path, NULL))
    goto out;
  root = json_parser_get_root (parser);
  if (!root || !JSON_NODE_HOLDS_OBJECT (root))
    goto out;
  obj = json_node_get_object (root);
  if (g_strcmp0 (json_object_get_string_member_with_default (obj, "schema",
              ""), "gpuprof-sweep") != 0)
    goto out;
  if (!json_object_has_member (obj, "points")
      || !JSON_NODE_HOLDS_ARRAY (json_object_get_member (obj, "points"))) {
    g_set_error (err, GPUPROF_LOAD_ERROR, 0, "%s: a gpuprof-sweep without "
        "\"points\"", path);
    goto out;
  }
  text = json_to_string (root, FALSE);
out:
  g_object_unref (parser);
  return text;
}

/* the time series of @run: --live @live, else <in>-live.jsonl beside a
 * summary when there is one, else the trace's own; NULL when none. A
 * --live file that cannot be used is an error. */
static gchar *
run_series (const gchar * in, const gchar * live, GpuprofRun * run,
    const GpuprofSnapshot * snap, GError ** err)
{
  gchar *beside, *series = NULL;
  GError *e = NULL;

  if (live)
    return gpuprof_series_from_live (live, snap->pipeline, err);
  if (run->series_json)
    return g_strdup (run->series_json);
  beside = gpuprof_live_path (in, "jsonl");
  if (g_file_test (beside, G_FILE_TEST_EXISTS)) {
    series = gpuprof_series_from_live (beside, snap->pipeline, &e);
    if (!series) {
      /* the page still comes, saying how to get a series */
      g_printerr ("gst-gpuprof: no time series: %s\n", e->message);
      g_error_free (e);
    }
  }
  g_free (beside);
  return series;
}

gint
gpuprof_html_command (gint argc, gchar ** argv)
{
  const gchar *in = NULL, *out = NULL, *live = NULL;
  GError *err = NULL;
  gchar *page = NULL, *sweep;
  gint i;

  for (i = 0; i < argc; i++) {
    if (!strcmp (argv[i], "-o") && i + 1 < argc)
      out = argv[++i];
    else if (!strcmp (argv[i], "--live") && i + 1 < argc)
      live = argv[++i];
    else if (argv[i][0] == '-' && argv[i][1]) {
      g_printerr ("gst-gpuprof: html: unknown option '%s' (-o OUT, "
          "--live FILE)\n"
          "Try 'gst-gpuprof --help'.\n", argv[i]);
      return EXIT_USAGE;
    } else if (!in)
      in = argv[i];
    else {
      g_printerr ("gst-gpuprof: html takes one FILE, got also '%s'\n"
          "Try 'gst-gpuprof --help'.\n", argv[i]);
      return EXIT_USAGE;
    }
  }
  if (!in || !out) {
    g_printerr ("gst-gpuprof: html needs FILE and -o OUT\n"
        "Try 'gst-gpuprof --help'.\n");
    return EXIT_USAGE;
  }
  sweep = load_sweep (in, &err);
  if (sweep) {
    page = gpuprof_html_page (sweep);
    g_free (sweep);
  } else if (!err) {
    GpuprofRun *run = gpuprof_run_load (in, &err);

    if (run) {
      const GpuprofSnapshot *snap = g_ptr_array_index (run->snapshots, 0);
      gchar *series;

      if (run->snapshots->len > 1)
        g_printerr ("gst-gpuprof: %s holds %u pipeline summaries; the page "
            "shows the first\n", in, run->snapshots->len);
      series = run_series (in, live, run, snap, &err);
      if (series || !err)
        page = gpuprof_html_format_with_series (snap, series);
      g_free (series);
      gpuprof_run_free (run);
    }
  }
  if (!page) {
    g_printerr ("gst-gpuprof: %s\n", err->message);
    g_error_free (err);
    return EXIT_BAD_INPUT;
  }
  /* the rules of the tracer's files: -o /dev/stdout or a link is written
   * into, not replaced; a failure is one line naming the file */
  if (!gpuprof_outfile_replace ("html file", out, page, strlen (page))) {
    g_free (page);
    return EXIT_BAD_INPUT;
  }
  g_free (page);
  return 0;
}
