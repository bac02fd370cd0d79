/* What limits a run, on real pipelines (docs/tracer.md, "Report and
 * verdict"): every truth is measured in the same run — the planted
 * stages' own clocks (gpuprofwork), pad probes, the test's own pushes —
 * and a verdict is causal: the stage it names, made faster, speeds up the
 * pipeline run without the tracer, and a stage it does not name does not.
 *
 *   clock     sync=true at 30 fps, a cheap stage and one at 60 % of the
 *             frame: paced by the clock, headroom within 20 % of the frame
 *             interval / the stage's own time per frame
 *   identity  identity sync=true mid-pipeline: ~0 work, its wait on the
 *             clock (pad probes: arrival to departure)
 *   input     appsrc fed by the test every 10 ms, and a live videotestsrc
 *             into a synced sink: input-paced, the rate and headroom
 *   drops     a live 100 fps source, a leaky queue, a 20 ms stage: the
 *             stage and the drops are named, no input verdict
 *   causal    two slow stages behind queues: the first named, headroom
 *             about first / second; untraced, the named stage made faster
 *             speeds the pipeline up, the other does not
 *   camera    H.264 over RTP/UDP from a live 30 fps sender (another
 *             process) into udpsrc ! rtpjitterbuffer ! depay ! avdec_h264
 *             ! a synced sink: input-paced by udpsrc, which is not busy
 *   cpus      the process pinned to one core, two CPU-bound 720p branches
 *             (videotestsrc ! videoconvert): CPU-bound, both converters
 *             named, the threads' wait for a core the schedstat truth
 *
 * The planted stages spin on the wall clock, so their cost holds on a
 * loaded machine; tolerances are for the few elements around them. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE             /* sched_setaffinity */
#endif
#include "gpuprof-test-util.h"

#include <gio/gio.h>
#include <gst/app/gstappsrc.h>
#include <errno.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the pipeline's run row (limit_*, next_*, drops) and ranked limits, from
 * get-metrics */
static GstStructure *
metrics_of (GstElement * pipeline)
{
  GstStructure *m = NULL;

  g_signal_emit_by_name (gpuprof_test_tracer (), "get-metrics",
      GST_OBJECT_NAME (pipeline), &m);
  fail_unless (m != NULL, "no metrics for %s", GST_OBJECT_NAME (pipeline));
  return m;
}

static const GstStructure *
run_of (const GstStructure * m)
{
  const GValue *v = gst_structure_get_value (m, "run");

  fail_unless (v && GST_VALUE_HOLDS_STRUCTURE (v));
  return gst_value_get_structure (v);
}

static const gchar *
run_str (const GstStructure * m, const gchar * field)
{
  return gst_structure_get_string (run_of (m), field);
}

static gdouble
run_double (const GstStructure * m, const gchar * field)
{
  return gpuprof_test_get_double (run_of (m), field);
}

/* the verdict's kind and what, or a failure that prints the report */
static void
assert_limit (GstElement * p, const GstStructure * m, const gchar * kind,
    const gchar * name)
{
  gchar *path = gpuprof_test_path (p, name);
  gchar *report = gpuprof_test_live_report (p);

  fail_unless (!g_strcmp0 (run_str (m, "limit_kind"), kind)
      && !g_strcmp0 (run_str (m, "limit_what"), path),
      "limit %s %s, expected %s %s:\n%s", run_str (m, "limit_kind"),
      run_str (m, "limit_what"), kind, path, gpuprof_test_said (report));
  g_free (report);
  g_free (path);
}

static void
assert_within (const gchar * what, gdouble value, gdouble truth,
    gdouble tolerance)
{
  GST_INFO ("%s %.3f, truth %.3f", what, value, truth);
  fail_unless (ABS (value - truth) <= tolerance * truth,
      "%s %.3f, truth %.3f (more than %.0f %% apart)", what, value, truth,
      tolerance * 100);
}

/* ------------------------------------------------------------- clock */

/* 30 fps into a synced sink, one stage of @work_us: paced by the clock,
 * its headroom the frame interval over the stage's own time per frame.
 * Only while the stage keeps up: on a machine loaded past that (its own
 * clock says it took 85 % of the frame or more) the clock did not pace,
 * and the run is made again, three times at most. */
static void
clock_paced (guint work_us)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=45 ! "
      "video/x-raw,width=64,height=48,framerate=30/1 ! gpuprofwork name=work "
      "work-us=%u spin=true ! fakesink name=sink sync=true", work_us);
  gdouble per_frame_ns = 0, truth;
  GstElement *p = NULL;
  GpuprofTestTruth work;
  GstStructure *m;
  gchar *report;
  guint attempt;

  for (attempt = 0; attempt < 3; attempt++) {
    if (p)
      gpuprof_test_stop (p);
    p = gpuprof_test_parse (desc);
    gpuprof_test_play_to_eos (p);
    work = gpuprof_test_truth (p, "work");
    per_frame_ns = (gdouble) work.self_ns / work.calls;
    if (per_frame_ns < 0.85 * (1e9 / 30))
      break;
    GST_INFO ("the %u µs stage took %.1f ms per frame: run again",
        work_us, per_frame_ns / 1e6);
  }
  fail_unless (attempt < 3, "the machine is too loaded: the %u µs stage "
      "took %.1f ms per frame of 33.3 ms", work_us, per_frame_ns / 1e6);
  m = metrics_of (p);
  assert_limit (p, m, "clock", "sink");
  truth = (1e9 / 30) / per_frame_ns;
  assert_within ("headroom", run_double (m, "limit_headroom"), truth, 0.20);
  assert_within ("rate", run_double (m, "limit_rate"), 30.0, 0.10);
  report = gpuprof_test_live_report (p);
  fail_unless (strstr (report, "\n  not limited: ") != NULL, "%s",
      gpuprof_test_said (report));
  g_free (report);
  gst_structure_free (m);
  gpuprof_test_stop (p);
  g_free (desc);
}

GST_START_TEST (test_clock_cheap_stage)
{
  clock_paced (3000);
}

GST_END_TEST;

GST_START_TEST (test_clock_stage_at_60_percent)
{
  clock_paced (20000);
}

GST_END_TEST;

/* ---------------------------------------------------------- identity */

typedef struct
{
  guint64 in_ns;                /* when the buffer in flight arrived */
  guint64 inside_ns;            /* arrival -> departure, summed */
} Passage;

static GstPadProbeReturn
arrive (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  ((Passage *) data)->in_ns = gpuprof_test_now_ns ();
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
depart (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Passage *ps = data;

  ps->inside_ns += gpuprof_test_now_ns () - ps->in_ns;
  return GST_PAD_PROBE_OK;
}

/* identity sync=true mid-pipeline waits on the clock for each buffer:
 * that is no work, and it paces the run */
GST_START_TEST (test_identity_sync_is_no_work)
{
  GstElement *p = gpuprof_test_parse ("videotestsrc num-buffers=30 ! "
      "video/x-raw,width=64,height=48,framerate=30/1 ! identity name=id "
      "sync=true ! fakesink sync=false");
  GstElement *id = gst_bin_get_by_name (GST_BIN (p), "id");
  GstPad *sink = gst_element_get_static_pad (id, "sink");
  GstPad *src = gst_element_get_static_pad (id, "src");
  gchar *path = gpuprof_test_path (p, "id");
  Passage ps = { 0 };
  GstStructure *s, *m;

  gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_BUFFER, arrive, &ps, NULL);
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, depart, &ps, NULL);
  gpuprof_test_play_to_eos (p);
  s = gpuprof_test_element_stats (path);
  m = metrics_of (p);
  /* its time inside, arrival to departure, is its wait on the clock */
  fail_unless (gpuprof_test_get_double (s, "busy") < 0.03, "identity "
      "sync=true %.1f %% busy", 100 * gpuprof_test_get_double (s, "busy"));
  fail_unless (gpuprof_test_get_u64 (s, "self_ns") < ps.inside_ns / 20,
      "self %" G_GUINT64_FORMAT " ns of %" G_GUINT64_FORMAT " ns inside",
      gpuprof_test_get_u64 (s, "self_ns"), ps.inside_ns);
  assert_within ("clock wait", gpuprof_test_get_u64 (s, "clock_wait_ns"),
      ps.inside_ns, 0.10);
  assert_limit (p, m, "clock", "id");
  gst_structure_free (m);
  gst_structure_free (s);
  gst_object_unref (sink);
  gst_object_unref (src);
  gst_object_unref (id);
  g_free (path);
  gpuprof_test_stop (p);
}

GST_END_TEST;

/* ------------------------------------------------------------- input */

#define APP_BUFFERS 60
#define APP_INTERVAL_US 10000

/* the application feeds appsrc every 10 ms; a 2 ms stage: input-paced at
 * the rate it fed, headroom the interval over the stage's time */
GST_START_TEST (test_appsrc_fed_at_a_rate)
{
  GstElement *p = gpuprof_test_parse ("appsrc name=src ! "
      "gpuprofwork name=work work-us=2000 spin=true ! fakesink sync=false");
  GstElement *src = gst_bin_get_by_name (GST_BIN (p), "src");
  guint64 first = 0, last = 0;
  GpuprofTestTruth work;
  GstStructure *m;
  gdouble interval_ns;
  gboolean input_bound = FALSE;
  guint i;

  fail_unless (gst_element_set_state (p, GST_STATE_PLAYING)
      != GST_STATE_CHANGE_FAILURE);
  for (i = 0; i < APP_BUFFERS; i++) {
    g_usleep (APP_INTERVAL_US);
    last = gpuprof_test_now_ns ();
    if (!first)
      first = last;
    fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src),
            gst_buffer_new_allocate (NULL, 64, NULL)), GST_FLOW_OK);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  fail_unless_equals_int (gpuprof_test_play (p, 60 * GST_SECOND, NULL),
      GST_MESSAGE_EOS);
  work = gpuprof_test_truth (p, "work");
  m = metrics_of (p);
  assert_limit (p, m, "input", "src");
  interval_ns = (gdouble) (last - first) / (APP_BUFFERS - 1);
  assert_within ("rate", run_double (m, "limit_rate"), 1e9 / interval_ns,
      0.20);
  assert_within ("headroom", run_double (m, "limit_headroom"),
      interval_ns / ((gdouble) work.self_ns / work.calls), 0.20);
  fail_unless (gst_structure_get_boolean (run_of (m), "input_bound",
          &input_bound) && input_bound);
  gst_structure_free (m);
  gst_object_unref (src);
  gpuprof_test_stop (p);
}

GST_END_TEST;

/* a live source into a synced sink: the sink waits for the live frames'
 * times, the source never does; still the input paces */
GST_START_TEST (test_live_source_into_synced_sink)
{
  GstElement *p = gpuprof_test_parse ("videotestsrc name=cam is-live=true "
      "num-buffers=30 ! video/x-raw,width=64,height=48,framerate=30/1 ! "
      "fakesink name=sink sync=true");
  GstStructure *m;
  gchar *report, *line;

  gpuprof_test_play_to_eos (p);
  m = metrics_of (p);
  assert_limit (p, m, "input", "cam");
  assert_within ("rate", run_double (m, "limit_rate"), 30.0, 0.10);
  fail_unless_equals_string (run_str (m, "next_kind"), "clock");
  report = gpuprof_test_live_report (p);
  line = g_strdup_printf ("limit: input %s/cam — live source",
      GST_OBJECT_NAME (p));
  fail_unless (strstr (report, line) != NULL, "%s", gpuprof_test_said (report));
  g_free (line);
  g_free (report);
  gst_structure_free (m);
  gpuprof_test_stop (p);
}

GST_END_TEST;

/* ------------------------------------------------------------- drops */

typedef struct
{
  gint in, out;
} Counts;

static GstPadProbeReturn
count_in (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  g_atomic_int_inc (&((Counts *) data)->in);
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
count_out (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  g_atomic_int_inc (&((Counts *) data)->out);
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_leaky_queue_drops)
{
  GstElement *p = gpuprof_test_parse ("videotestsrc name=cam is-live=true "
      "num-buffers=200 ! video/x-raw,width=64,height=48,framerate=100/1 ! "
      "queue name=q leaky=downstream max-size-buffers=1 max-size-bytes=0 "
      "max-size-time=0 ! gpuprofwork name=work work-us=20000 spin=true ! "
      "fakesink sync=false");
  GstElement *q = gst_bin_get_by_name (GST_BIN (p), "q");
  GstPad *qsink = gst_element_get_static_pad (q, "sink");
  GstPad *qsrc = gst_element_get_static_pad (q, "src");
  gchar *qpath = gpuprof_test_path (p, "q"), *report, *line;
  Counts c = { 0 };
  GstStructure *m;
  guint64 drops;
  gboolean input_bound = FALSE;

  gst_pad_add_probe (qsink, GST_PAD_PROBE_TYPE_BUFFER, count_in, &c, NULL);
  gst_pad_add_probe (qsrc, GST_PAD_PROBE_TYPE_BUFFER, count_out, &c, NULL);
  gpuprof_test_play_to_eos (p);
  m = metrics_of (p);
  report = gpuprof_test_live_report (p);
  GST_INFO ("%s", report);
  /* the stage that could not keep up, not the input */
  assert_limit (p, m, "stage", "work");
  fail_if (strstr (report, "limit: input") != NULL, "%s",
      gpuprof_test_said (report));
  fail_if (gst_structure_get_boolean (run_of (m), "input_bound",
          &input_bound) && input_bound, "input_bound:\n%s",
              gpuprof_test_said (report));
  /* the drops, as the queue's pads saw them */
  fail_unless (c.in > c.out + 50, "only %d in, %d out", c.in, c.out);
  drops = gpuprof_test_get_u64 (run_of (m), "drops");
  fail_unless_equals_uint64 (drops, (guint64) (c.in - c.out));
  fail_unless_equals_string (run_str (m, "drops_where"), qpath);
  line = g_strdup_printf ("buffers dropped before it at %s (leaky)", qpath);
  fail_unless (strstr (report, line) != NULL, "%s", gpuprof_test_said (report));
  g_free (line);
  g_free (report);
  gst_structure_free (m);
  gst_object_unref (qsink);
  gst_object_unref (qsrc);
  gst_object_unref (q);
  g_free (qpath);
  gpuprof_test_stop (p);
}

GST_END_TEST;

/* ------------------------------------------- threads and their cores */

/* every thread of the process on @set at @nice (a thread inherits its
 * creator's mask and nice value: the pipeline's threads, made later, get
 * them too) */
static void
pin_all_threads (const cpu_set_t * set, gint nice)
{
  GDir *dir = g_dir_open ("/proc/self/task", 0, NULL);
  const gchar *name;

  fail_unless (dir != NULL);
  while ((name = g_dir_read_name (dir))) {
    fail_unless (sched_setaffinity (atoi (name), sizeof (*set), set) == 0
        || errno == ESRCH, "sched_setaffinity %s: %s", name,
        g_strerror (errno));
    /* where the test may not raise it (not root), the machine's load
     * decides: the run is made again, then the test fails saying so */
    setpriority (PRIO_PROCESS, atoi (name), nice);
  }
  g_dir_close (dir);
}

/* The nice value of the process's autogroup set to @nice: the old one, or
 * G_MININT where it cannot be set (no autogroups, not root). Meson's test
 * runner starts each test in a session of its own, and the kernel shares
 * the cores between sessions' groups before a thread's nice value counts
 * within one: a nice value on the test's threads alone is nothing against
 * a CPU burner started elsewhere. */
static gint
set_autogroup_nice (gint nice)
{
  gchar *text = NULL, *was;
  gint old = G_MININT;
  FILE *f;

  if (!g_file_get_contents ("/proc/self/autogroup", &text, NULL, NULL))
    return G_MININT;
  /* a /proc file: written in place, never through a temporary */
  was = strstr (text, " nice ");
  f = was ? fopen ("/proc/self/autogroup", "w") : NULL;
  if (f && fprintf (f, "%d", nice) > 0 && fclose (f) == 0)
    old = atoi (was + strlen (" nice "));
  else if (f)
    fclose (f);
  g_free (text);
  return old;
}

/* the threads' nice value and their autogroup's back as they were */
static void
restore_nice (const cpu_set_t * set, gint nice, gint group)
{
  pin_all_threads (set, nice);
  if (group != G_MININT)
    set_autogroup_nice (group);
}

/* the CPU time and run delay (schedstat: time on a core, time runnable
 * waiting for one) of each thread of the process, by tid */
static GHashTable *
run_delays (void)
{
  GHashTable *t = g_hash_table_new (g_direct_hash, g_direct_equal);
  GDir *dir = g_dir_open ("/proc/self/task", 0, NULL);
  const gchar *name;

  while ((name = g_dir_read_name (dir))) {
    gchar *path = g_strdup_printf ("/proc/self/task/%s/schedstat", name);
    gchar *text = NULL;
    guint64 cpu, delay;

    if (g_file_get_contents (path, &text, NULL, NULL)
        && sscanf (text, "%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT, &cpu,
            &delay) == 2) {
      guint64 both[2] = { cpu, delay };

      g_hash_table_insert (t, GINT_TO_POINTER (atoi (name)),
          g_memdup2 (both, sizeof (both)));
    }
    g_free (text);
    g_free (path);
  }
  g_dir_close (dir);
  return t;
}

static void
free_delays (GHashTable * t)
{
  GHashTableIter it;
  gpointer k, v;

  g_hash_table_iter_init (&it, t);
  while (g_hash_table_iter_next (&it, &k, &v))
    g_free (v);
  g_hash_table_unref (t);
}

/* the threads' run delay from @before to now, and their CPU time in
 * @cpu_ns where given; a thread born since counts whole */
static guint64
run_delay_since (GHashTable * before, guint64 * cpu_ns)
{
  GHashTable *now = run_delays ();
  GHashTableIter it;
  gpointer tid, v;
  guint64 sum[2] = { 0, 0 };
  guint i;

  g_hash_table_iter_init (&it, now);
  while (g_hash_table_iter_next (&it, &tid, &v)) {
    guint64 *was = g_hash_table_lookup (before, tid), *is = v;

    for (i = 0; i < 2; i++)
      sum[i] += was && was[i] <= is[i] ? is[i] - was[i] : was ? 0 : is[i];
  }
  free_delays (now);
  if (cpu_ns)
    *cpu_ns = sum[0];
  return sum[1];
}

/* ------------------------------------------------------------ causal */

#define CAUSAL "fakesrc num-buffers=60 ! gpuprofwork name=a work-us=%u " \
  "spin=true ! queue ! gpuprofwork name=b work-us=%u spin=true ! queue ! " \
  "fakesink sync=false"
#define A_US 12000
#define B_US 5000

static gchar *self_exe;

/* the wall time of the pipeline run untraced, in a process of its own
 * (this program, GST_TRACERS unset: see main); the shortest of three
 * runs, so that a moment of load does not count (two were not enough
 * beside a valgrind run and a parallel suite: 1.49x for 1.5x) */
static gdouble
untraced_seconds (guint a_us, guint b_us)
{
  gchar *desc = g_strdup_printf (CAUSAL, a_us, b_us);
  gchar *argv[] = { self_exe, (gchar *) "--untraced", desc, NULL };
  gchar **envp = g_environ_unsetenv (g_get_environ (), "GST_TRACERS");
  gdouble best = G_MAXDOUBLE;
  guint i;

  for (i = 0; i < 3; i++) {
    gchar *out = NULL, *err = NULL;
    gint status;

    fail_unless (g_spawn_sync (NULL, argv, envp, G_SPAWN_DEFAULT, NULL, NULL,
            &out, &err, &status, NULL));
    fail_unless (g_spawn_check_wait_status (status, NULL), "untraced run "
        "failed: %s", err);
    best = MIN (best, g_ascii_strtod (out, NULL));
    g_free (out);
    g_free (err);
  }
  GST_INFO ("untraced a=%u b=%u: %.3f s", a_us, b_us, best);
  g_strfreev (envp);
  g_free (desc);
  return best;
}

/* Two slow stages behind queues: the verdict names the slower; its
 * headroom — how much faster the run gets with it sped up until the other
 * limits — is the other's thread's wall over the other's own time (its
 * pad's first to last buffer, its own clock): first / second of their
 * times where nothing else costs. Run untraced, the named stage made 3x
 * faster speeds the pipeline up, and the runner-up made 3x faster does
 * not.
 *
 * The case is two slow stages, each with a core: the process and its
 * autogroup run at nice -20 so that other load (two CPU burners, a
 * parallel suite) leaves it its cores. Where its threads still waited for a core a fifth of their
 * runnable time or more (schedstat, the same run), the CPUs limit — the
 * tracer rightly says so — and the run is made again, three times at
 * most. */
GST_START_TEST (test_causal)
{
  gchar *desc = g_strdup_printf (CAUSAL, A_US, B_US), *report, *bp;
  GstElement *p = NULL;
  GpuprofTestSpan *span = NULL;
  GpuprofTestTruth a, b;
  GstStructure *m;
  GHashTable *before;
  cpu_set_t all;
  gdouble as_is, named, other, truth, wait = 0;
  guint64 waited, cpu_ns = 0;
  gint saved_nice, saved_group;
  guint attempt;

  fail_unless (sched_getaffinity (0, sizeof (all), &all) == 0);
  errno = 0;
  saved_nice = getpriority (PRIO_PROCESS, 0);
  saved_group = set_autogroup_nice (-20);
  pin_all_threads (&all, -20);
  for (attempt = 0; attempt < 3; attempt++) {
    if (p)
      gpuprof_test_stop (p);
    p = gpuprof_test_parse (desc);
    span = gpuprof_test_watch_span (p, "b", "src");
    gst_element_set_state (p, GST_STATE_PLAYING);
    /* GLib's shared pool gives its threads the scheduler settings it saw
     * first (in the test runner, before the fork), not their maker's */
    pin_all_threads (&all, -20);
    before = run_delays ();
    gpuprof_test_play_to_eos (p);
    waited = run_delay_since (before, &cpu_ns);
    free_delays (before);
    wait = waited + cpu_ns ? (gdouble) waited / (waited + cpu_ns) : 0;
    if (wait < 0.20)
      break;
    GST_INFO ("the threads waited %.0f %% of their runnable time for a "
        "core: run again", wait * 100);
  }
  /* under the sanitizers beside burners the process may not have its cores
   * even at nice -20: there the precondition is said and the case
   * skipped; the plain build fails */
  if (attempt == 3 && !gpuprof_test_timing ()) {
    g_printerr ("test_causal: skipped under the sanitizers: the threads "
        "waited %.0f %% of their runnable time for a core in 3 runs\n",
        wait * 100);
    gpuprof_test_stop (p);
    restore_nice (&all, saved_nice, saved_group);
    g_free (desc);
    return;
  }
  fail_unless (attempt < 3, "the machine is too loaded: the threads waited "
      "%.0f %% of their runnable time for a core", wait * 100);
  a = gpuprof_test_truth (p, "a");
  b = gpuprof_test_truth (p, "b");
  m = metrics_of (p);
  report = gpuprof_test_live_report (p);
  GST_INFO ("a %.3f ms, b %.3f ms per buffer, waited %.0f %% for a core:\n"
      "%s", a.self_ns / 1e6 / a.calls, b.self_ns / 1e6 / b.calls,
      wait * 100, report);
  assert_limit (p, m, "stage", "a");
  bp = gpuprof_test_path (p, "b");
  if (g_strcmp0 (run_str (m, "next_what"), bp))
    g_printerr ("%s", report);
  fail_unless (!g_strcmp0 (run_str (m, "next_what"), bp), "runner-up %s "
      "%s, expected stage %s", run_str (m, "next_kind"),
      run_str (m, "next_what"), bp);
  truth = (gdouble) (span->last_ns - span->first_ns) / b.self_ns;
  assert_within ("headroom", run_double (m, "limit_headroom"), truth, 0.20);
  g_free (bp);
  g_free (report);
  gst_structure_free (m);
  gpuprof_test_stop (p);
  g_free (desc);

  /* the untraced runs are child processes: they inherit the nice value */
  as_is = untraced_seconds (A_US, B_US);
  named = untraced_seconds (A_US / 3, B_US);
  other = untraced_seconds (A_US, B_US / 3);
  restore_nice (&all, saved_nice, saved_group);
  fail_unless (as_is / named >= 1.5, "speeding the named stage up: %.3f s "
      "-> %.3f s", as_is, named);
  /* the runner-up's speed-up gives back CPU to the named stage on a loaded
   * machine: a little, never what the named stage's gives */
  fail_unless (as_is / other < 1.3 && (as_is / named) > 1.5 * (as_is /
          other), "speeding the runner-up up: %.3f s -> %.3f s (the named "
      "stage: -> %.3f s)", as_is, other, named);
}

GST_END_TEST;

/* ------------------------------------------------------------ camera */

#define CAMERA_FRAMES 45

/* A camera over the network, as every RTSP camera sends: H.264 over
 * RTP/UDP at 30 fps from a live source in another process (untraced),
 * into udpsrc ! rtpjitterbuffer ! rtph264depay ! h264parse ! avdec_h264 !
 * fakesink sync=true. udpsrc waits on its socket: that is no work, and
 * the input paces the run. */
GST_START_TEST (test_rtp_camera_is_input_paced)
{
  GInetAddress *lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  GSocketAddress *any = g_inet_socket_address_new (lo, 0), *bound;
  GSocket *rx = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_DATAGRAM,
      G_SOCKET_PROTOCOL_UDP, NULL);
  GstElement *p, *udp, *sink;
  GstPad *sinkpad;
  GstStructure *s, *m;
  GPid sender;
  gint frames = 0, status = 0;
  gint64 end;
  gchar *udp_path, *report, *port, *desc;
  gchar **envp;
  const gchar *const needed[] = { "x264enc", "rtph264pay", "avdec_h264",
    "rtph264depay", NULL
  };
  guint i;

  /* the real elements (tools/dev-setup.sh installs them; sid's x264 and
   * libav plugins are left out of the 1.28 run where trixie lacks their
   * libraries): said, and the case skipped, where one is missing */
  for (i = 0; needed[i]; i++) {
    GstElementFactory *f = gst_element_factory_find (needed[i]);

    if (!f) {
      g_printerr ("test_rtp_camera_is_input_paced: skipped: no %s in this "
          "GStreamer (gstreamer1.0-plugins-ugly, gstreamer1.0-libav)\n",
          needed[i]);
      g_object_unref (rx);
      g_object_unref (any);
      g_object_unref (lo);
      return;
    }
    gst_object_unref (f);
  }
  envp = g_environ_unsetenv (g_get_environ (), "GST_TRACERS");

  /* the receiving socket bound here: its port is known, no race */
  fail_unless (g_socket_bind (rx, any, TRUE, NULL));
  bound = g_socket_get_local_address (rx, NULL);
  port = g_strdup_printf ("port=%u", g_inet_socket_address_get_port
      (G_INET_SOCKET_ADDRESS (bound)));
  p = gpuprof_test_parse ("udpsrc name=udp caps=\"application/x-rtp,"
      "media=video,encoding-name=H264,clock-rate=90000,payload=96\" ! "
      "rtpjitterbuffer latency=100 ! rtph264depay ! h264parse ! "
      "avdec_h264 ! fakesink name=sink sync=true");
  udp = gst_bin_get_by_name (GST_BIN (p), "udp");
  g_object_set (udp, "socket", rx, "close-socket", FALSE, NULL);
  sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  sinkpad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (sinkpad, GST_PAD_PROBE_TYPE_BUFFER, count_in, &frames,
      NULL);
  udp_path = gpuprof_test_path (p, "udp");
  fail_unless (gst_element_set_state (p, GST_STATE_PLAYING)
      != GST_STATE_CHANGE_FAILURE);
  desc = g_strdup_printf ("videotestsrc is-live=true num-buffers=%u ! "
      "video/x-raw,width=320,height=240,framerate=30/1 ! x264enc "
      "tune=zerolatency speed-preset=ultrafast key-int-max=15 ! "
      "rtph264pay config-interval=1 ! udpsink host=127.0.0.1 %s",
      CAMERA_FRAMES, port);
  {
    /* no quoting in it: split on blanks, it is gst-launch's argv */
    gchar **args = g_strsplit (desc, " ", -1);
    GStrvBuilder *b = g_strv_builder_new ();
    gchar **full;

    g_strv_builder_add_many (b, "gst-launch-1.0", "-q", NULL);
    g_strv_builder_addv (b, (const gchar **) args);
    full = g_strv_builder_end (b);
    fail_unless (g_spawn_async (NULL, full, envp, G_SPAWN_SEARCH_PATH |
            G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL, NULL,
            NULL, &sender, NULL));
    g_strfreev (full);
    g_strfreev (args);
    g_strv_builder_unref (b);
  }
  /* the sender's frames, then the end of the stream */
  end = g_get_monotonic_time () + 60 * G_TIME_SPAN_SECOND;
  while (waitpid (sender, &status, WNOHANG) == 0
      && g_get_monotonic_time () < end)
    g_usleep (10000);
  fail_unless (WIFEXITED (status) && WEXITSTATUS (status) == 0,
      "the sender failed (%d)", status);
  g_usleep (300 * 1000);        /* past the jitterbuffer's latency */
  gst_element_send_event (p, gst_event_new_eos ());
  fail_unless_equals_int (gpuprof_test_play (p, 30 * GST_SECOND, NULL),
      GST_MESSAGE_EOS);
  fail_unless (g_atomic_int_get (&frames) >= CAMERA_FRAMES - 5,
      "%d frames of %u decoded", frames, CAMERA_FRAMES);

  s = gpuprof_test_element_stats (udp_path);
  m = metrics_of (p);
  report = gpuprof_test_live_report (p);
  /* its wait on the socket is no work */
  fail_unless (gpuprof_test_get_u64 (s, "self_ns") * 5 <
      gpuprof_test_get_u64 (s, "thread_wall_ns"), "udpsrc self %"
      G_GUINT64_FORMAT " ns of %" G_GUINT64_FORMAT " ns:\n%s",
      gpuprof_test_get_u64 (s, "self_ns"),
      gpuprof_test_get_u64 (s, "thread_wall_ns"),
      gpuprof_test_said (report));
  fail_unless (gpuprof_test_get_double (s, "busy") < 0.20, "udpsrc busy "
      "%.2f:\n%s", gpuprof_test_get_double (s, "busy"),
      gpuprof_test_said (report));
  assert_limit (p, m, "input", "udp");
  fail_unless (strstr (report, "\nlimit: input ") != NULL, "%s",
      gpuprof_test_said (report));
  g_free (report);
  gst_structure_free (m);
  gst_structure_free (s);
  g_free (udp_path);
  g_free (desc);
  g_free (port);
  g_strfreev (envp);
  gst_object_unref (sinkpad);
  gst_object_unref (sink);
  gst_object_unref (udp);
  gpuprof_test_stop (p);
  g_object_unref (bound);
  g_object_unref (any);
  g_object_unref (lo);
  g_object_unref (rx);
}

GST_END_TEST;

/* -------------------------------------------------------------- cpus */

#define BRANCH(n) "videotestsrc num-buffers=80 ! " \
  "video/x-raw,width=1280,height=720,format=I420,framerate=30/1 ! " \
  "videoconvert name=conv" n " ! video/x-raw,format=BGRx ! " \
  "fakesink sync=false "

/* Two CPU-bound branches on one core: the process uses the whole core and
 * its threads wait for it about half their runnable time. The CPUs limit,
 * not one branch; both converters are named and the advice moves them to
 * the GPU; the wait for a core is what schedstat says of the same run.
 * The process and its autogroup run at nice -20 to have its core on a
 * loaded machine; where it still got less than 90 % of it, the run is
 * made again, three times at most. */
GST_START_TEST (test_cpu_saturated_on_one_core)
{
  cpu_set_t saved, one;
  GstElement *p = NULL;
  GstStructure *m = NULL;
  GHashTable *before;
  gchar *c1, *c2, *report = NULL;
  const GstStructure *first;
  const GValue *limits;
  guint64 truth = 0, waited;
  gint cpu, saved_nice, saved_group;
  guint attempt;

  fail_unless (sched_getaffinity (0, sizeof (saved), &saved) == 0);
  errno = 0;
  saved_nice = getpriority (PRIO_PROCESS, 0);
  saved_group = set_autogroup_nice (-20);
  for (cpu = 0; cpu < CPU_SETSIZE && !CPU_ISSET (cpu, &saved); cpu++);
  CPU_ZERO (&one);
  CPU_SET (cpu, &one);
  /* the core the process's own: the other load of the machine moves to
   * the other cores, or yields to it */
  pin_all_threads (&one, -20);
  for (attempt = 0; attempt < 3; attempt++) {
    if (p) {
      gst_structure_free (m);
      gpuprof_test_stop (p);
    }
    p = gpuprof_test_parse (BRANCH ("1") BRANCH ("2"));
    before = run_delays ();
    gpuprof_test_play_to_eos (p);
    truth = run_delay_since (before, NULL);
    free_delays (before);
    m = metrics_of (p);
    if (run_double (m, "cpu_used") >= 0.9 * run_double (m, "cpu_available"))
      break;
    GST_INFO ("the process used %.2f of %.0f cores: run again",
        run_double (m, "cpu_used"), run_double (m, "cpu_available"));
  }
  report = gpuprof_test_live_report (p);
  /* under the sanitizers (GPUPROF_TEST_NO_TIMING) beside burners the
   * process may not get its core even at nice -20: there the precondition
   * is said and the rest of the case skipped; the plain build fails */
  if (attempt == 3 && !gpuprof_test_timing ()) {
    g_printerr ("test_cpu_saturated_on_one_core: skipped under the "
        "sanitizers: the process used %.2f of its core in 3 runs\n",
        run_double (m, "cpu_used"));
    g_free (report);
    gst_structure_free (m);
    gpuprof_test_stop (p);
    restore_nice (&saved, saved_nice, saved_group);
    return;
  }
  fail_unless (attempt < 3, "the machine is too loaded: the process used "
      "%.2f of its core", run_double (m, "cpu_used"));
  fail_unless_equals_float (run_double (m, "cpu_available"), 1.0);
  fail_unless (!g_strcmp0 (run_str (m, "limit_kind"), "cpu"), "limit %s "
      "%s:\n%s", run_str (m, "limit_kind"), run_str (m, "limit_what"),
      gpuprof_test_said (report));
  /* the evidence names both branches' converters */
  limits = gst_structure_get_value (m, "limits");
  fail_unless (limits && gst_value_array_get_size (limits) > 0);
  first = gst_value_get_structure (gst_value_array_get_value (limits, 0));
  c1 = gpuprof_test_path (p, "conv1");
  c2 = gpuprof_test_path (p, "conv2");
  fail_unless (strstr (gst_structure_get_string (first, "evidence"), c1)
      && strstr (gst_structure_get_string (first, "evidence"), c2),
      "%s", gpuprof_test_said (report));
  fail_unless (strstr (gst_structure_get_string (first, "advice"),
          "conv1 -> nvvideoconvert") != NULL, "%s",
      gpuprof_test_said (report));
  fail_unless (strstr (report, "\nlimit: cpu cpus — ") != NULL, "%s",
      gpuprof_test_said (report));
  /* the threads' wait for a core, against schedstat in the same run */
  waited = gpuprof_test_get_u64 (run_of (m), "cpu_wait_core_ns");
  assert_within ("wait for a core", waited, truth, 0.20);
  g_free (c1);
  g_free (c2);
  g_free (report);
  gst_structure_free (m);
  /* its end-of-run report on the same core */
  gpuprof_test_stop (p);
  restore_nice (&saved, saved_nice, saved_group);
}

GST_END_TEST;

/* ------------------------------------------------------- second run */

/* A process that runs pipelines one after another (a service, or a test
 * made again on a loaded machine): the second is measured like the
 * first, its stage's work what the stage's own clock says */
GST_START_TEST (test_second_run_measured)
{
  guint run;

  for (run = 0; run < 2; run++) {
    GstElement *p = gpuprof_test_parse ("fakesrc num-buffers=20 ! "
        "gpuprofwork name=work work-us=2000 spin=true ! fakesink "
        "sync=false");
    gchar *path = gpuprof_test_path (p, "work");
    GpuprofTestTruth work;
    GstStructure *s, *m;

    gpuprof_test_play_to_eos (p);
    work = gpuprof_test_truth (p, "work");
    s = gpuprof_test_element_stats (path);
    m = metrics_of (p);
    fail_unless (gpuprof_test_get_u64 (s, "self_ns") > work.self_ns / 2,
        "run %u: %s self %" G_GUINT64_FORMAT " ns, its own clock %"
        G_GUINT64_FORMAT " ns", run, path, gpuprof_test_get_u64 (s,
            "self_ns"), work.self_ns);
    assert_limit (p, m, "stage", "work");
    gst_structure_free (m);
    gst_structure_free (s);
    g_free (path);
    gpuprof_test_stop (p);
  }
}

GST_END_TEST;

static Suite *
verdict_suite (void)
{
  Suite *s = suite_create ("gpuprof-verdict");
  TCase *tc = tcase_create ("verdict");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_clock_cheap_stage);
  tcase_add_test (tc, test_clock_stage_at_60_percent);
  tcase_add_test (tc, test_identity_sync_is_no_work);
  tcase_add_test (tc, test_appsrc_fed_at_a_rate);
  tcase_add_test (tc, test_live_source_into_synced_sink);
  tcase_add_test (tc, test_leaky_queue_drops);
  tcase_add_test (tc, test_causal);
  tcase_add_test (tc, test_rtp_camera_is_input_paced);
  tcase_add_test (tc, test_cpu_saturated_on_one_core);
  tcase_add_test (tc, test_second_run_measured);
  return s;
}

/* --untraced DESC: run DESC without the tracer, print its wall seconds
 * (PLAYING to EOS) */
static gint
run_untraced (gint argc, gchar ** argv)
{
  GstElement *p;
  GstBus *bus;
  GstMessage *msg;
  gint64 t0;
  gboolean ok;

  gst_init (&argc, &argv);
  gpuprof_test_register_elements ();
  p = gst_parse_launch (argv[2], NULL);
  if (!p)
    return 2;
  bus = gst_element_get_bus (p);
  t0 = g_get_monotonic_time ();
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  ok = msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;
  g_print ("%.6f\n", (g_get_monotonic_time () - t0) / 1e6);
  if (msg)
    gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (p);
  return ok ? 0 : 1;
}

int
main (int argc, char **argv)
{
  if (argc == 3 && !strcmp (argv[1], "--untraced"))
    return run_untraced (argc, argv);
  self_exe = g_file_read_link ("/proc/self/exe", NULL);
  return gpuprof_test_main (&argc, &argv, "gpuprof", verdict_suite,
      "verdict", __FILE__);
}
