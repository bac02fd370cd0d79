/* gst-gpuprof: offline analysis of gpuprof runs.
 *
 *   gst-gpuprof report FILE          the end-of-run report, from a summary
 *                                    (stats=) or a trace (trace=)
 *   gst-gpuprof diff BEFORE AFTER    before/after figures and their ratios
 *   gst-gpuprof dot [-Tsvg] FILE     the pipeline graph, heat-mapped
 *   gst-gpuprof html FILE -o OUT     one self-contained HTML report of a
 *                                    run or a sweep (docs/html.md)
 *   gst-gpuprof params               the tracer's parameters
 *   gst-gpuprof sweep [OPTIONS] -- TEMPLATE
 *                                    run a pipeline template at many
 *                                    settings, find the plateau batch or
 *                                    the most streams (docs/sweep.md)
 *
 * Exit status: 0 done, 1 usage error, 2 a file is missing, unreadable,
 * malformed or not a gpuprof summary or trace.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <string.h>

#include "gpuprof-diff.h"
#include "gpuprof-dot.h"
#include "gpuprof-html-tool.h"
#include "gpuprof-summary-reader.h"
#include "gpuprof-params.h"
#include "gpuprof-report.h"
#include "gpuprof-sweep-run.h"

enum
{
  EXIT_OK = 0,
  EXIT_USAGE = 1,
  EXIT_BAD_INPUT = 2,
};

static const gchar usage_text[] =
    "Usage: gst-gpuprof COMMAND [ARGUMENTS]\n"
    "\n"
    "Offline analysis of runs recorded by the gpuprof tracer.\n"
    "\n"
    "Commands:\n"
    "  report FILE          Print the end-of-run report (tables and verdict)\n"
    "                       from a summary (stats=FILE) or a trace\n"
    "                       (trace=FILE). A trace cut off before its summary\n"
    "                       (process killed) is reported from its events.\n"
    "  diff BEFORE AFTER    Print per element and per queue the before and\n"
    "                       after figures and their ratio (after/before), and\n"
    "                       the overall throughput ratio; then, for every\n"
    "                       table of the summary (GPU and batch tables too),\n"
    "                       each numeric value that changed.\n"
    "  dot [-Tsvg] FILE     Print the pipeline graph (Graphviz DOT, or SVG\n"
    "                       through Graphviz's dot with -Tsvg): elements\n"
    "                       coloured by busy %, queues by time full, edges\n"
    "                       labelled with buffers and rate (docs/html.md).\n"
    "  html FILE [--live JSONL] -o OUT\n"
    "                       Write one self-contained HTML report of a run\n"
    "                       (summary or trace) or of a sweep (its JSON).\n"
    "                       Over time: the summary's -live.jsonl beside it\n"
    "                       (interval=) or --live, or the trace's events.\n"
    "  params               List the tracer's parameters (GST_TRACERS=\n"
    "                       \"gpuprof(key=value,...)\"): values, defaults.\n"
    "  sweep [OPTIONS] -- TEMPLATE\n"
    "                       Run a pipeline template at many settings under\n"
    "                       the tracer: fps, latency, limiting stage per\n"
    "                       point; plateau batch, most streams\n"
    "                       ('gst-gpuprof sweep --help').\n"
    "\n"
    "Options:\n"
    "  -h, --help           Show this help\n"
    "  --version            Show the version\n"
    "\n"
    "Exit status: 0 done; 1 usage error; 2 a file is missing, unreadable,\n"
    "malformed (the message names the file, line and column) or not a\n"
    "gpuprof summary or trace.\n";

static gint
usage_error (const gchar * fmt, const gchar * arg)
{
  g_printerr ("gst-gpuprof: ");
  g_printerr (fmt, arg);
  g_printerr ("\nTry 'gst-gpuprof --help'.\n");
  return EXIT_USAGE;
}

static GpuprofRun *
load (const gchar * path)
{
  GError *err = NULL;
  GpuprofRun *run = gpuprof_run_load (path, &err);

  if (run == NULL) {
    g_printerr ("gst-gpuprof: %s\n", err->message);
    g_error_free (err);
    return NULL;
  }
  /* notes go to stderr: stdout stays exactly the report */
  if (run->rebuilt)
    g_printerr ("gst-gpuprof: %s: no run summary in the trace (the process "
        "was killed?); figures rebuilt from %" G_GUINT64_FORMAT " chain "
        "events: self times, queues and threads only\n", path,
        run->chain_events);
  else if (run->truncated)
    g_printerr ("gst-gpuprof: %s: the trace has no closing bracket\n", path);
  if (run->trace_note)
    g_printerr ("gst-gpuprof: %s: %s\n", path, run->trace_note);
  return run;
}

static gint
cmd_report (gint argc, gchar ** argv)
{
  GpuprofRun *run;
  guint i;

  if (argc != 1)
    return usage_error ("report takes one FILE, got %s arguments",
        argc ? "several" : "no");
  run = load (argv[0]);
  if (run == NULL)
    return EXIT_BAD_INPUT;
  for (i = 0; i < run->snapshots->len; i++) {
    gchar *text = gpuprof_report_format (g_ptr_array_index (run->snapshots,
            i));

    fputs (text, stdout);
    g_free (text);
  }
  gpuprof_run_free (run);
  return EXIT_OK;
}

static const GpuprofSnapshot *
only_snapshot (GpuprofRun * run, const gchar * path)
{
  if (run->snapshots->len > 1)
    g_printerr ("gst-gpuprof: %s holds %u pipeline summaries; comparing the "
        "first\n", path, run->snapshots->len);
  return g_ptr_array_index (run->snapshots, 0);
}

static gint
cmd_diff (gint argc, gchar ** argv)
{
  GpuprofRun *before, *after = NULL;
  gint ret = EXIT_BAD_INPUT;

  if (argc != 2)
    return usage_error ("diff takes two files, BEFORE and AFTER%s", "");
  before = load (argv[0]);
  if (before)
    after = load (argv[1]);
  if (before && after) {
    gchar *text = gpuprof_diff_format (only_snapshot (before, argv[0]),
        only_snapshot (after, argv[1]));

    fputs (text, stdout);
    g_free (text);
    ret = EXIT_OK;
  }
  gpuprof_run_free (before);
  gpuprof_run_free (after);
  return ret;
}

/* the DOT text through Graphviz: -Tsvg */
static gboolean
render_svg (const gchar * dot, GError ** err)
{
  GSubprocess *proc = g_subprocess_new (G_SUBPROCESS_FLAGS_STDIN_PIPE |
      G_SUBPROCESS_FLAGS_STDOUT_PIPE, err, "dot", "-Tsvg", NULL);
  GBytes *in, *out = NULL;
  gboolean ok;

  if (!proc)
    return FALSE;
  in = g_bytes_new_static (dot, strlen (dot));
  ok = g_subprocess_communicate (proc, in, NULL, &out, NULL, err)
      && g_subprocess_wait_check (proc, NULL, err);
  if (ok)
    fwrite (g_bytes_get_data (out, NULL), 1, g_bytes_get_size (out), stdout);
  g_bytes_unref (in);
  if (out)
    g_bytes_unref (out);
  g_object_unref (proc);
  return ok;
}

static gint
cmd_dot (gint argc, gchar ** argv)
{
  const gchar *path = NULL;
  gboolean svg = FALSE;
  GpuprofRun *run;
  GError *err = NULL;
  gchar *text;
  gint i, ret = EXIT_OK;

  for (i = 0; i < argc; i++) {
    if (strcmp (argv[i], "-Tsvg") == 0)
      svg = TRUE;
    else if (strcmp (argv[i], "-Tdot") == 0)
      svg = FALSE;
    else if (argv[i][0] == '-' && argv[i][1])
      return usage_error ("dot: unknown option '%s' (-Tsvg, -Tdot)", argv[i]);
    else if (path)
      return usage_error ("dot takes one FILE, got also '%s'", argv[i]);
    else
      path = argv[i];
  }
  if (!path)
    return usage_error ("dot takes one FILE%s", "");
  run = load (path);
  if (run == NULL)
    return EXIT_BAD_INPUT;
  text = gpuprof_dot_format (only_snapshot (run, path));
  if (!svg) {
    fputs (text, stdout);
  } else if (!render_svg (text, &err)) {
    g_printerr ("gst-gpuprof: dot -Tsvg: %s (is Graphviz installed? "
        "apt-get install graphviz)\n", err->message);
    g_error_free (err);
    ret = EXIT_USAGE;
  }
  g_free (text);
  gpuprof_run_free (run);
  return ret;
}

int
main (int argc, char **argv)
{
  const gchar *cmd = argc > 1 ? argv[1] : NULL;
  gint i;

  /* sweep has options of its own (and a template that may hold anything) */
  if (cmd && strcmp (cmd, "sweep") == 0)
    return gpuprof_sweep_command (argc - 1, argv + 1);
  for (i = 1; i < argc; i++) {
    if (strcmp (argv[i], "-h") == 0 || strcmp (argv[i], "--help") == 0) {
      fputs (usage_text, stdout);
      return EXIT_OK;
    }
    if (strcmp (argv[i], "--version") == 0) {
      printf ("gst-gpuprof %s\n", VERSION);
      return EXIT_OK;
    }
  }
  if (cmd == NULL)
    return usage_error ("%s", "missing command (report, diff, dot, html, params or sweep)");
  if (strcmp (cmd, "report") == 0)
    return cmd_report (argc - 2, argv + 2);
  if (strcmp (cmd, "diff") == 0)
    return cmd_diff (argc - 2, argv + 2);
  if (strcmp (cmd, "dot") == 0)
    return cmd_dot (argc - 2, argv + 2);
  if (strcmp (cmd, "html") == 0)
    return gpuprof_html_command (argc - 2, argv + 2);
  if (strcmp (cmd, "params") == 0) {
    gchar *text = gpuprof_params_describe ();

    fputs (text, stdout);
    g_free (text);
    return EXIT_OK;
  }
  return usage_error ("unknown command '%s' (report, diff, dot, html, params or sweep)", cmd);
}
