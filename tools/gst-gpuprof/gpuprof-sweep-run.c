/* gst-gpuprof sweep: the command — options, running each point under the
 * tracer in a process of its own, progress, Ctrl-C, the outputs.
 * docs/sweep.md describes it for users.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gpuprof-outfile.h"
#include "gpuprof-sweep-run.h"
#include "gpuprof-summary-reader.h"
#include "gpuprof-sweep.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <glib/gstdio.h>

static volatile sig_atomic_t interrupted;

static void
on_sigint (int sig)
{
  interrupted = 1;
}

typedef struct
{
  gchar *dir;                   /* summaries, reports and logs of the points */
  gchar *tracer_params;         /* added to the tracer's parameters */
  gdouble duration;             /* stop each run after this (normal end) */
  gdouble timeout;              /* a run still going after this failed */
  guint estimate;
  guint n;
  gdouble spent;                /* seconds of the points so far */
} Runner;

static gchar *
point_label (GpuprofSweep * s, GpuprofSweepPoint * pt)
{
  GString *out = g_string_new (NULL);
  guint i;

  for (i = 0; i < s->vars->len; i++)
    g_string_append_printf (out, "%s%s=%s", i ? " " : "",
        ((GpuprofSweepVar *) g_ptr_array_index (s->vars, i))->name,
        pt->values[i]);
  return g_string_free (out, FALSE);
}

/* waits for @pid; stops it (SIGINT: gst-launch -e ends the stream, the
 * summary is written) at the duration, fails it at the timeout */
static gint
wait_child (Runner * r, GPid pid, gboolean * timed_out, gboolean * stopped)
{
  gint64 start = g_get_monotonic_time ();
  gint64 sent_int = 0;
  gint status = 0;

  *timed_out = *stopped = FALSE;
  while (TRUE) {
    pid_t w = waitpid (pid, &status, WNOHANG);
    gdouble t = (g_get_monotonic_time () - start) / 1e6;

    if (w == pid)
      return status;
    if (w < 0 && errno != EINTR)
      return -1;
    if (!sent_int && (interrupted || (r->duration > 0 && t >= r->duration)
            || (r->timeout > 0 && t >= r->timeout))) {
      if (!interrupted) {
        if (r->timeout > 0 && t >= r->timeout)
          *timed_out = TRUE;
        else
          *stopped = TRUE;
      }
      kill (pid, SIGINT);
      sent_int = g_get_monotonic_time ();
    }
    /* 10 s to end the stream and write the summary, then it is killed */
    if (sent_int && g_get_monotonic_time () - sent_int > 10 * G_USEC_PER_SEC) {
      kill (pid, SIGKILL);
      sent_int = G_MAXINT64 / 2;
    }
    g_usleep (20000);
  }
}

static gchar **
child_argv (GpuprofSweep * s, const gchar * text, GError ** err)
{
  gchar **argv = NULL, **parsed;
  const gchar *launch = g_getenv ("GST_LAUNCH");
  GPtrArray *a;
  guint i;

  if (s->command) {
    argv = g_new0 (gchar *, 4);
    argv[0] = g_strdup ("/bin/sh");
    argv[1] = g_strdup ("-c");
    argv[2] = g_strdup (text);
    return argv;
  }
  if (!g_shell_parse_argv (text, NULL, &parsed, err))
    return NULL;
  a = g_ptr_array_new ();
  g_ptr_array_add (a, g_strdup (launch && *launch ? launch :
          "gst-launch-1.0"));
  g_ptr_array_add (a, g_strdup ("-q"));
  /* SIGINT (duration, timeout, Ctrl-C) ends the stream with EOS */
  g_ptr_array_add (a, g_strdup ("-e"));
  for (i = 0; parsed[i]; i++)
    g_ptr_array_add (a, g_strdup (parsed[i]));
  g_ptr_array_add (a, NULL);
  g_strfreev (parsed);
  return (gchar **) g_ptr_array_free (a, FALSE);
}

static void
read_figures (GpuprofSweep * s, GpuprofSweepPoint * pt)
{
  GError *err = NULL;
  GpuprofRun *run = gpuprof_run_load (pt->summary, &err);
  gint si = gpuprof_sweep_var_index (s, s->streams_var);
  guint64 streams = 0;

  if (!run) {
    pt->error = g_strdup_printf ("no summary: %s", err->message);
    g_error_free (err);
    return;
  }
  if (si >= 0 && !g_ascii_string_to_unsigned (pt->values[si], 10, 1,
          G_MAXUINT32, &streams, NULL))
    streams = 0;
  if (run->snapshots->len == 0) {
    pt->error = g_strdup ("the summary holds no pipeline");
  } else {
    gpuprof_sweep_point_measure (pt, g_ptr_array_index (run->snapshots, 0),
        streams);
    pt->done = TRUE;
  }
  gpuprof_run_free (run);
}

static gboolean
measure_point (GpuprofSweep * s, GpuprofSweepPoint * pt, gpointer data)
{
  Runner *r = data;
  GError *err = NULL;
  gchar *text = gpuprof_sweep_expand (s->template, s,
      (const gchar * const *) pt->values, &err);
  gchar **argv = NULL, **envp, *tracers, *log, *report, *label;
  gint fd, status;
  GPid pid;
  gboolean timed_out, stopped;
  gint64 t0;
  guint k = ++r->n;

  label = point_label (s, pt);
  pt->summary = g_strdup_printf ("%s/point-%03u.json", r->dir, k);
  log = g_strdup_printf ("%s/point-%03u.log", r->dir, k);
  report = g_strdup_printf ("%s/point-%03u.txt", r->dir, k);
  if (text)
    argv = child_argv (s, text, &err);
  if (!argv) {
    pt->error = g_strdup (err->message);
    g_clear_error (&err);
    goto done;
  }
  tracers = g_strdup_printf ("gpuprof(stats=%s,report=%s%s%s)", pt->summary,
      report, r->tracer_params ? "," : "", r->tracer_params ?
      r->tracer_params : "");
  envp = g_environ_setenv (g_get_environ (), "GST_TRACERS", tracers, TRUE);
  g_free (tracers);
  fd = g_open (log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  t0 = g_get_monotonic_time ();
  if (fd < 0 || !g_spawn_async_with_fds (NULL, argv, envp,
          G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_SEARCH_PATH, NULL, NULL, &pid,
          -1, fd, fd, &err)) {
    pt->error = g_strdup_printf ("cannot start %s: %s", argv[0], err ?
        err->message : g_strerror (errno));
    g_clear_error (&err);
    if (fd >= 0)
      close (fd);
    g_strfreev (envp);
    goto done;
  }
  close (fd);
  g_strfreev (envp);
  status = wait_child (r, pid, &timed_out, &stopped);
  g_spawn_close_pid (pid);
  pt->seconds = (g_get_monotonic_time () - t0) / 1e6;
  if (interrupted)
    goto done;
  if (timed_out) {
    pt->error = g_strdup_printf ("still running after --timeout %g s (log: "
        "%s)", r->timeout, log);
  } else if (!stopped && !(WIFEXITED (status) && WEXITSTATUS (status) == 0)) {
    pt->error = WIFEXITED (status) ?
        g_strdup_printf ("exit status %d (log: %s)", WEXITSTATUS (status), log)
        : g_strdup_printf ("killed by signal %d (log: %s)",
        WIFSIGNALED (status) ? WTERMSIG (status) : 0, log);
  } else {
    read_figures (s, pt);
  }

done:
  if (!interrupted) {
    gdouble left;

    r->spent += pt->seconds;
    left = r->estimate > k ? r->spent / k * (r->estimate - k) : 0;
    if (pt->done)
      g_printerr ("sweep: [%u/<=%u] %s: %.1f fps (%.2f per stream), limit: "
          "%s %s %.2fx; %.1f s (at most %.0f s left)\n", k, r->estimate,
          label, pt->fps, pt->fps_per_stream, pt->limit_kind ?
          pt->limit_kind : "-", pt->limit_what ? pt->limit_what : "",
          pt->limit_headroom, pt->seconds, left);
    else
      g_printerr ("sweep: [%u/<=%u] %s: failed: %s\n", k, r->estimate, label,
          pt->error ? pt->error : "?");
  }
  g_free (label);
  g_free (text);
  g_free (log);
  g_free (report);
  g_strfreev (argv);
  return !interrupted;
}

/* the rules of the tracer's files (gpuprof-outfile.h): a link or
 * /dev/stdout is written into; a failure is one line naming the file */
static gboolean
write_text (const gchar * path, const gchar * text)
{
  return gpuprof_outfile_replace ("sweep file", path, text, strlen (text));
}

static const gchar sweep_summary[] =
    "Runs a pipeline template at each setting under GST_TRACERS=gpuprof and\n"
    "prints per point: fps (total, per stream), batch latency p50/p99, GPU ms\n"
    "per batch and per frame, batch fill, what limits the run (stage, cpu,\n"
    "gpu, input or clock) with its headroom, and the first\n"
    "advice. The template is a gst-launch-1.0 description (or with --command\n"
    "a shell command that honours GST_TRACERS) with placeholders {NAME} for\n"
    "the --set variables and {for i in NAME: TEXT} to repeat TEXT NAME times\n"
    "({i} = 0, 1, ...), e.g. one source per stream.\n"
    "\n"
    "Modes:\n"
    "  grid         every combination of the --set values\n"
    "  plateau      per combination of the other variables, the batch after\n"
    "               which the next value gives less than --threshold more fps\n"
    "  max-streams  per combination of the other variables, the most streams\n"
    "               that each keep --fps-floor (doubling, then bisection)\n"
    "\n"
    "Exit status: 0 done (failed points are listed); 1 usage error; 2 bad\n"
    "template or output file; 130 interrupted (finished points are kept and\n"
    "written).";

/**
 * gpuprof_sweep_command:
 *
 * `gst-gpuprof sweep [OPTIONS] -- TEMPLATE...`
 *
 * Returns: the exit status
 */
gint
gpuprof_sweep_command (gint argc, gchar ** argv)
{
  gchar **sets = NULL, **rest = NULL, *mode = NULL, *json = NULL, *csv = NULL;
  gchar *batch_var = NULL, *streams_var = NULL, *dir = NULL, *params = NULL;
  gboolean command = FALSE;
  gdouble threshold = 5, floor_fps = 0, duration = 0, timeout = 0;
  gint max_streams = 64;
  GOptionEntry entries[] = {
    {"set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets,
        "Values of placeholder {NAME}: V1,V2,... or A..B (A, 2A, 4A ... B); "
          "repeat for each variable", "NAME=VALUES"},
    {"mode", 'm', 0, G_OPTION_ARG_STRING, &mode,
        "grid (default), plateau or max-streams", "MODE"},
    {"command", 'c', 0, G_OPTION_ARG_NONE, &command,
        "The template is a shell command, not a gst-launch-1.0 description",
          NULL},
    {"batch-var", 0, 0, G_OPTION_ARG_STRING, &batch_var,
        "Variable plateau searches (batch)", "NAME"},
    {"streams-var", 0, 0, G_OPTION_ARG_STRING, &streams_var,
          "Variable max-streams searches; also divides fps per stream "
          "(streams)", "NAME"},
    {"threshold", 't', 0, G_OPTION_ARG_DOUBLE, &threshold,
        "plateau: the next batch must give more than this many % fps (5)",
          "PCT"},
    {"fps-floor", 'f', 0, G_OPTION_ARG_DOUBLE, &floor_fps,
        "max-streams: fps each stream must keep", "FPS"},
    {"max-streams", 0, 0, G_OPTION_ARG_INT, &max_streams,
        "max-streams: where doubling stops (64)", "N"},
    {"duration", 'd', 0, G_OPTION_ARG_DOUBLE, &duration,
          "Stop each run after this many seconds (SIGINT, EOS) and use its "
          "figures: for pipelines that do not end", "S"},
    {"timeout", 0, 0, G_OPTION_ARG_DOUBLE, &timeout,
        "A run still going after this many seconds failed (stopped)", "S"},
    {"tracer-params", 'p', 0, G_OPTION_ARG_STRING, &params,
        "More gpuprof parameters for every run, e.g. cupti=on", "K=V,..."},
    {"json", 'o', 0, G_OPTION_ARG_FILENAME, &json,
        "Write the sweep as JSON (docs/sweep.md)", "FILE"},
    {"csv", 0, 0, G_OPTION_ARG_FILENAME, &csv,
        "Write one CSV row per point", "FILE"},
    {"dir", 0, 0, G_OPTION_ARG_FILENAME, &dir,
          "Folder for each run's summary, report and log (default: a new "
          "one under $TMPDIR)", "DIR"},
    {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &rest, NULL,
        "TEMPLATE"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("[--] TEMPLATE... - tune a "
      "pipeline in one command");
  GpuprofSweep *s = gpuprof_sweep_new ();
  GError *err = NULL;
  Runner r = { 0 };
  struct sigaction sa = { 0 }, old_sa;
  gint ret = 0;
  gchar *text;
  guint i;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx, sweep_summary);
  /* argv[0] is "sweep": GOption skips it like a program name */
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("gst-gpuprof sweep: %s\nTry 'gst-gpuprof sweep --help'.\n",
        err->message);
    ret = 1;
    goto out;
  }
  if (!rest || !rest[0]) {
    g_printerr ("gst-gpuprof sweep: no pipeline template\nTry 'gst-gpuprof "
        "sweep --help'.\n");
    ret = 1;
    goto out;
  }
  s->template = g_strjoinv (" ", rest);
  s->command = command;
  if (!mode || strcmp (mode, "grid") == 0)
    s->mode = GPUPROF_SWEEP_GRID;
  else if (strcmp (mode, "plateau") == 0)
    s->mode = GPUPROF_SWEEP_PLATEAU;
  else if (strcmp (mode, "max-streams") == 0)
    s->mode = GPUPROF_SWEEP_MAX_STREAMS;
  else {
    g_printerr ("gst-gpuprof sweep: unknown --mode '%s' (grid, plateau or "
        "max-streams)\n", mode);
    ret = 1;
    goto out;
  }
  if (threshold < 0 || max_streams < 1 || duration < 0 || timeout < 0) {
    g_printerr ("gst-gpuprof sweep: --threshold, --duration and --timeout "
        "must be >= 0, --max-streams >= 1\n");
    ret = 1;
    goto out;
  }
  if (batch_var) {
    g_free (s->batch_var);
    s->batch_var = g_strdup (batch_var);
  }
  if (streams_var) {
    g_free (s->streams_var);
    s->streams_var = g_strdup (streams_var);
  }
  s->threshold = threshold / 100;
  s->fps_floor = floor_fps;
  s->max_streams = max_streams;
  for (i = 0; sets && sets[i]; i++) {
    if (!gpuprof_sweep_add_var (s, sets[i], &err)) {
      g_printerr ("gst-gpuprof sweep: %s\n", err->message);
      ret = 1;
      goto out;
    }
  }
  if (!gpuprof_sweep_check (s, &err)) {
    g_printerr ("gst-gpuprof sweep: %s\n", err->message);
    ret = 2;
    goto out;
  }

  if (dir) {
    if (g_mkdir_with_parents (dir, 0755) != 0) {
      g_printerr ("gst-gpuprof sweep: cannot create --dir %s: %s\n", dir,
          g_strerror (errno));
      ret = 2;
      goto out;
    }
    r.dir = g_strdup (dir);
  } else {
    r.dir = g_dir_make_tmp ("gpuprof-sweep-XXXXXX", &err);
    if (!r.dir) {
      g_printerr ("gst-gpuprof sweep: %s\n", err->message);
      ret = 2;
      goto out;
    }
  }
  r.tracer_params = params;
  r.duration = duration;
  r.timeout = timeout;
  r.estimate = gpuprof_sweep_estimate_points (s);
  g_printerr ("sweep: %s, at most %u runs; summaries and logs in %s\n",
      mode ? mode : "grid", r.estimate, r.dir);

  sa.sa_handler = on_sigint;
  sigemptyset (&sa.sa_mask);
  sigaction (SIGINT, &sa, &old_sa);
  gpuprof_sweep_run (s, measure_point, &r);
  sigaction (SIGINT, &old_sa, NULL);

  text = gpuprof_sweep_format_table (s);
  fputs (text, stdout);
  g_free (text);
  if (json) {
    text = gpuprof_sweep_to_json (s);
    if (!write_text (json, text))
      ret = 2;
    g_free (text);
  }
  if (csv) {
    text = gpuprof_sweep_to_csv (s);
    if (!write_text (csv, text))
      ret = 2;
    g_free (text);
  }
  if (s->interrupted)
    ret = 130;

out:
  g_clear_error (&err);
  g_option_context_free (ctx);
  gpuprof_sweep_free (s);
  g_strfreev (sets);
  g_strfreev (rest);
  g_free (mode);
  g_free (json);
  g_free (csv);
  g_free (batch_var);
  g_free (streams_var);
  g_free (dir);
  g_free (params);
  g_free (r.dir);
  return ret;
}
