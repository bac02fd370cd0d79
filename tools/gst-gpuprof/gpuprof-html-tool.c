/* gst-gpuprof html FILE -o OUT: one self-contained HTML page
 * (gst/outputs/gpuprof-html.c) of a run — a summary (stats=) or a trace
 * (trace=) — or of a sweep's JSON (gst-gpuprof sweep -o). */
#include "gpuprof-html-tool.h"
#include "gpuprof-html.h"
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

gint
gpuprof_html_command (gint argc, gchar ** argv)
{
  const gchar *in = NULL, *out = NULL;
  GError *err = NULL;
  gchar *page = NULL, *sweep;
  gint i;

  for (i = 0; i < argc; i++) {
    if (!strcmp (argv[i], "-o") && i + 1 < argc)
      out = argv[++i];
    else if (argv[i][0] == '-' && argv[i][1]) {
      g_printerr ("gst-gpuprof: html: unknown option '%s' (-o OUT)\n"
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
      if (run->snapshots->len > 1)
        g_printerr ("gst-gpuprof: %s holds %u pipeline summaries; the page "
            "shows the first\n", in, run->snapshots->len);
      page = gpuprof_html_format (g_ptr_array_index (run->snapshots, 0));
      gpuprof_run_free (run);
    }
  }
  if (!page) {
    g_printerr ("gst-gpuprof: %s\n", err->message);
    g_error_free (err);
    return EXIT_BAD_INPUT;
  }
  if (!g_file_set_contents (out, page, -1, &err)) {
    g_printerr ("gst-gpuprof: %s\n", err->message);
    g_error_free (err);
    g_free (page);
    return EXIT_BAD_INPUT;
  }
  g_free (page);
  return 0;
}
