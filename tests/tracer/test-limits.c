/* The ranking of what limits a run (gpuprof-limits.c) on synthetic rows:
 * no pipeline, no clock, exact expectations (docs/tracer.md, "Report and
 * verdict"). The rows are what the samplers and the hooks fill: stages
 * and their threads, a cpu resources row (the THREADS sampler's), GPU
 * candidates through the candidate API (the GPU engines' source), queues
 * that dropped, links. */
#include <gst/gst.h>
#include <string.h>

#include "gpuprof-delta.h"
#include "gpuprof-limits.h"
#include "gpuprof-metrics.h"
#include "gpuprof-report.h"

#define MS (G_GUINT64_CONSTANT (1000000))
#define WALL (1000 * MS)

/* an element on @thread doing @busy of its wall in work */
static GpuprofElementRow *
add_element (GpuprofSnapshot * s, const gchar * name, const gchar * role,
    const gchar * thread, gdouble busy, guint64 buffers)
{
  GpuprofElementRow r = { 0 };

  r.path = g_strdup_printf ("p/%s", name);
  r.factory = g_strdup (name);
  r.role = g_strdup (role);
  r.thread = g_strdup (thread);
  r.calls = buffers ? buffers : 1;
  r.buffers_in = g_strcmp0 (role, "source") ? buffers : 0;
  r.buffers_out = g_strcmp0 (role, "sink") ? buffers : 0;
  r.thread_wall_ns = WALL;
  r.thread_self_ns = (guint64) (busy * WALL);
  r.self_ns = r.thread_self_ns;
  r.busy = busy;
  g_array_append_val (s->elements, r);
  return &g_array_index (s->elements, GpuprofElementRow, s->elements->len - 1);
}

/* the threads table: each thread's work, the sum of its elements' */
static void
add_threads (GpuprofSnapshot * s)
{
  guint i, j;

  for (i = 0; i < s->elements->len; i++) {
    const GpuprofElementRow *e = &g_array_index (s->elements,
        GpuprofElementRow, i);
    GpuprofThreadRow *t = NULL;

    for (j = 0; j < s->threads->len && !t; j++)
      if (!g_strcmp0 (g_array_index (s->threads, GpuprofThreadRow, j).name,
              e->thread))
        t = &g_array_index (s->threads, GpuprofThreadRow, j);
    if (!t) {
      GpuprofThreadRow r = { 0 };
      r.name = g_strdup (e->thread);
      r.wall_ns = WALL;
      g_array_append_val (s->threads, r);
      t = &g_array_index (s->threads, GpuprofThreadRow, s->threads->len - 1);
    }
    t->busy_ns += e->thread_self_ns;
  }
}

static void
add_link (GpuprofSnapshot * s, const gchar * src, const gchar * sink)
{
  GpuprofLinkRow r = { 0 };

  r.src = g_strdup_printf ("p/%s", src);
  r.src_pad = g_strdup ("src");
  r.sink = g_strdup_printf ("p/%s", sink);
  r.sink_pad = g_strdup ("sink");
  g_array_append_val (s->links, r);
}

static void
add_cpu (GpuprofSnapshot * s, gdouble utilisation, const gchar * detail)
{
  GpuprofResourceRow r = { 0 };

  r.kind = g_strdup ("cpu");
  r.name = g_strdup ("cpus");
  r.device = g_strdup ("");
  r.utilisation = utilisation;
  r.peak = MIN (utilisation + 0.02, 1.0);
  r.saturated = utilisation >= 0.9 ? 0.8 : 0.0;
  r.samples = 100;
  r.detail = g_strdup (detail);
  g_array_append_val (s->resources, r);
}

/* stages a and b on threads of their own, each on a CPU @busy of the
 * wall, and the cpu row: @cores of @available used */
static GpuprofSnapshot *
two_stages (gdouble a_busy, gdouble b_busy, gdouble cores, gdouble available)
{
  GpuprofSnapshot *s = gpuprof_snapshot_new ("p");
  gchar *detail = g_strdup_printf ("%.2f of %g cores", cores, available);

  /* (a row pointer lasts until the next add) */
  add_element (s, "a", "filter", "ta", 0.99, 100)->cpu_ns = a_busy * WALL;
  add_element (s, "b", "filter", "tb", b_busy, 100)->cpu_ns = b_busy * WALL;
  add_cpu (s, cores / available, detail);
  s->process_cpu_ns = cores * WALL;
  g_free (detail);
  return s;
}

static const GpuprofLimitRow *
limit (const GpuprofSnapshot * s, guint rank)
{
  g_assert_cmpuint (s->limits->len, >=, rank);
  return &g_array_index (s->limits, GpuprofLimitRow, rank - 1);
}

static void
verdict (GpuprofSnapshot * s)
{
  add_threads (s);
  gpuprof_snapshot_sort (s);
  gpuprof_snapshot_compute_verdict (s);
}

static void
assert_limit (const GpuprofSnapshot * s, guint rank, const gchar * kind,
    const gchar * what)
{
  const GpuprofLimitRow *l = limit (s, rank);
  gchar *path = g_strdup_printf ("p/%s", what);

  if (g_strcmp0 (l->kind, kind) || (g_strcmp0 (l->what, path)
          && g_strcmp0 (l->what, what)))
    g_error ("rank %u: %s %s, expected %s %s", rank, l->kind, l->what, kind,
        what);
  g_free (path);
}

/* 30 fps, a sink that syncs, a stage at 60 % of the frame: the clock
 * paces, headroom 1 / the busiest thread's utilisation */
static void
test_clock_paces (void)
{
  GpuprofSnapshot *s = gpuprof_snapshot_new ("p");
  GpuprofElementRow *sink;
  gchar *report;

  add_element (s, "src", "source", "t", 0.01, 30);
  add_element (s, "work", "filter", "t", 0.60, 30);
  sink = add_element (s, "sink", "sink", "t", 0.01, 30);
  sink->waits_on_clock = TRUE;
  sink->clock_wait_ns = (guint64) (0.37 * WALL);
  verdict (s);
  assert_limit (s, 1, "clock", "sink");
  assert_limit (s, 2, "stage", "work");
  /* the thread's work, 62 %: it limits once 1.6x more comes */
  g_assert_cmpfloat_with_epsilon (s->limit_utilisation, 0.62, 1e-9);
  g_assert_cmpfloat_with_epsilon (s->limit_headroom, 1 / 0.62, 1e-9);
  g_assert_cmpfloat_with_epsilon (s->limit_rate, 30.0, 1e-9);
  g_assert_false (s->input_bound);
  g_assert_nonnull (strstr (limit (s, 1)->advice, "not limited: 1.6x"));
  report = gpuprof_report_verdict (s);
  g_assert_true (g_str_has_prefix (report, "limit: clock p/sink — waited on "
          "the clock 370.0 ms (37% of its thread's wall), 30.0 buffers/s\n"
          "  not limited: 1.6x headroom"));
  g_assert_nonnull (strstr (report, "\nnext: stage p/work — 60% occupied"));
  g_free (report);
  gpuprof_snapshot_free (s);
}

/* A sink that syncs but waits on no buffer (they come late) does not pace:
 * the saturated stage limits */
static void
test_late_sink_is_no_pacer (void)
{
  GpuprofSnapshot *s = gpuprof_snapshot_new ("p");
  GpuprofElementRow *sink;

  add_element (s, "work", "filter", "t", 0.97, 30);
  sink = add_element (s, "sink", "sink", "t", 0.01, 30);
  sink->waits_on_clock = TRUE;
  sink->clock_wait_ns = (guint64) (0.01 * WALL);
  verdict (s);
  assert_limit (s, 1, "stage", "work");
  g_assert_cmpuint (s->limits->len, ==, 2);
  gpuprof_snapshot_free (s);
}

/* appsrc waiting for the application 80 % of its wall: input-paced */
static void
test_input_paces (void)
{
  GpuprofSnapshot *s = gpuprof_snapshot_new ("p");
  GpuprofElementRow *src;

  src = add_element (s, "appsrc", "source", "a", 0.02, 100);
  src->wait_input_ns = (guint64) (0.8 * WALL);
  add_element (s, "work", "filter", "a", 0.18, 100);
  verdict (s);
  assert_limit (s, 1, "input", "appsrc");
  g_assert_true (s->input_bound);
  g_assert_cmpfloat_with_epsilon (s->limit_rate, 100.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (s->limit_headroom, 1 / 0.20, 1e-9);
  g_assert_nonnull (strstr (limit (s, 1)->evidence, "waited 800.0 ms for "
          "input (80% of its thread's wall), 100.0 buffers/s"));
  gpuprof_snapshot_free (s);
}

/* A live source into a sink that syncs: the sink waits (the source's
 * frames are early), the source never does; the input paces, the clock is
 * the runner-up */
static void
test_live_source_into_synced_sink (void)
{
  GpuprofSnapshot *s = gpuprof_snapshot_new ("p");
  GpuprofElementRow *src, *sink;

  src = add_element (s, "cam", "source", "t", 0.01, 30);
  src->waits_on_clock = TRUE;
  sink = add_element (s, "sink", "sink", "t", 0.01, 30);
  sink->waits_on_clock = TRUE;
  sink->clock_wait_ns = (guint64) (0.95 * WALL);
  verdict (s);
  assert_limit (s, 1, "input", "cam");
  assert_limit (s, 2, "clock", "sink");
  g_assert_nonnull (strstr (limit (s, 1)->evidence, "live source, 30.0 "
          "buffers/s; its frames wait on the clock at p/sink"));
  gpuprof_snapshot_free (s);
}

/* A live 100 fps source, a leaky queue, a stage at 50 fps: the stage
 * limits (whatever its busy share reads), the drops are named, and the
 * source waiting on its clock is no input-bound verdict */
static void
test_drops_name_the_stage (void)
{
  GpuprofSnapshot *s = gpuprof_snapshot_new ("p");
  GpuprofElementRow *src;
  GpuprofQueueRow q = { 0 };
  gchar *report;

  src = add_element (s, "cam", "source", "a", 0.01, 200);
  src->waits_on_clock = TRUE;
  src->wait_input_ns = (guint64) (0.98 * WALL);
  add_element (s, "q", "queue", "a", 0.0, 200);
  /* a loaded machine: the stage's thread read only 80 % busy */
  add_element (s, "work", "filter", "b", 0.80, 101);
  add_element (s, "sink", "sink", "b", 0.01, 101);
  add_link (s, "cam", "q");
  add_link (s, "q", "work");
  add_link (s, "work", "sink");
  q.path = g_strdup ("p/q");
  q.buffers = 101;
  q.drops = 99;
  g_array_append_val (s->queues, q);
  verdict (s);
  assert_limit (s, 1, "stage", "work");
  assert_limit (s, 2, "input", "cam");
  g_assert_false (s->input_bound);
  g_assert_cmpuint (s->drops, ==, 99);
  g_assert_cmpstr (s->drops_where, ==, "p/q");
  g_assert_nonnull (strstr (limit (s, 1)->evidence, "99 of 200 buffers "
          "dropped before it at p/q (leaky)"));
  /* the input comes 2x faster than the stage goes: speeding the stage up
   * helps 2x at most */
  g_assert_cmpfloat_with_epsilon (s->limit_headroom, 200.0 / 101, 1e-9);
  report = gpuprof_report_verdict (s);
  g_assert_nonnull (strstr (report, "\ndrops: 99 buffers dropped by leaky "
          "queues, most at p/q"));
  g_assert_null (strstr (report, "limit: input"));
  g_free (report);
  gpuprof_snapshot_free (s);
}

/* Two slow stages on threads of their own: the first limits, and speeding
 * it up gives at most first / second */
static void
test_runner_up_headroom (void)
{
  GpuprofSnapshot *s = gpuprof_snapshot_new ("p");

  add_element (s, "src", "source", "s", 0.05, 100);
  add_element (s, "a", "filter", "qa", 0.99, 100);
  add_element (s, "b", "filter", "qb", 0.55, 100);
  verdict (s);
  assert_limit (s, 1, "stage", "a");
  assert_limit (s, 2, "stage", "b");
  g_assert_cmpstr (s->next_what, ==, "p/b");
  g_assert_cmpfloat_with_epsilon (s->next_utilisation, 0.55, 1e-9);
  g_assert_cmpfloat_with_epsilon (s->limit_headroom, 0.99 / 0.55, 1e-9);
  g_assert_nonnull (strstr (limit (s, 1)->advice, "speeding it up gives at "
          "most 1.80x: then p/b (55% occupied) limits"));
  /* the others: 1 / their utilisation */
  g_assert_cmpfloat_with_epsilon (limit (s, 2)->headroom, 1 / 0.55, 1e-9);
  gpuprof_snapshot_free (s);
}

/* Stages on one thread share it: the busiest is at the limit when the
 * thread is, and its runner-up is the rest of the thread */
static void
test_shared_thread (void)
{
  GpuprofSnapshot *s = gpuprof_snapshot_new ("p");

  add_element (s, "a", "filter", "t", 0.50, 100);
  add_element (s, "b", "filter", "t", 0.45, 100);
  add_element (s, "c", "filter", "u", 0.30, 100);
  verdict (s);
  assert_limit (s, 1, "stage", "a");
  /* b shares a's thread: not saturated on its own */
  assert_limit (s, 2, "stage", "b");
  g_assert_cmpfloat_with_epsilon (s->limit_headroom, 0.95 / 0.45, 1e-9);
  g_assert_nonnull (strstr (limit (s, 1)->advice, "then the rest of thread t "
          "(45% occupied) limits; a queue before it"));
  g_assert_nonnull (strstr (limit (s, 1)->evidence, "(the thread 95% occupied "
          "in all)"));
  gpuprof_snapshot_free (s);
}

/* The CPUs saturated (the cpu row: cores used / available), two branches
 * whose threads read busy because they wait for a core: CPU-bound, both
 * branches named, advice to move the CPU work to the GPU */
static void
test_cpu_bound (void)
{
  GpuprofSnapshot *s = gpuprof_snapshot_new ("p");

  add_element (s, "videoconvert", "filter", "b1", 0.97, 100);
  add_element (s, "x264enc", "filter", "b2", 0.95, 100);
  add_cpu (s, 0.99, "0.99 of 1 cores (affinity 1 of 2, no quota)");
  /* they waited for the one core half their runnable time */
  s->process_cpu_ns = 990 * MS;
  s->cpu_wait_core_ns = 900 * MS;
  verdict (s);
  assert_limit (s, 1, "cpu", "cpus");
  g_assert_cmpfloat_with_epsilon (s->limit_utilisation, 0.99, 1e-9);
  g_assert_cmpfloat_with_epsilon (s->limit_headroom, 1 / 0.99, 1e-9);
  g_assert_nonnull (strstr (limit (s, 1)->evidence, "0.99 of 1 cores"));
  g_assert_nonnull (strstr (limit (s, 1)->evidence, "p/videoconvert ("));
  g_assert_nonnull (strstr (limit (s, 1)->evidence, "p/x264enc ("));
  g_assert_nonnull (strstr (limit (s, 1)->advice, "videoconvert -> "
          "nvvideoconvert"));
  g_assert_nonnull (strstr (limit (s, 1)->advice, "fewer streams"));
  /* the encoder's own advice names its threads property */
  assert_limit (s, 2, "stage", "videoconvert");
  assert_limit (s, 3, "stage", "x264enc");
  g_assert_nonnull (strstr (limit (s, 3)->advice, "set threads"));
  gpuprof_snapshot_free (s);
}

/* All the cores used by as many busy threads, each on a core of its own
 * (no thread waited for one): the threads limit, not the CPUs; and behind
 * the first stage the other, not the CPUs: without the first's work they
 * carry half as much */
static void
test_cpu_full_not_contended (void)
{
  GpuprofSnapshot *s = two_stages (0.99, 0.97, 1.96, 2);

  s->cpu_wait_core_ns = 40 * MS;
  verdict (s);
  assert_limit (s, 1, "stage", "a");
  assert_limit (s, 2, "stage", "b");
  assert_limit (s, 3, "cpu", "cpus");
  g_assert_nonnull (strstr (limit (s, 3)->evidence, "hardly waited for a "
          "core"));
  /* then b limits, at 0.99 / 0.97; the CPUs without a: 0.98 * 970 / 1960 */
  g_assert_cmpfloat_with_epsilon (s->limit_headroom, 0.99 / 0.97, 1e-9);
  gpuprof_snapshot_free (s);
}

/* The runner-up of a stage is what limits once it is made fast: the CPUs
 * at 71 % of the cores, of which the first's work is 70 %, carry 21 % —
 * less than the other stage's 42 % (two spinning stages, 12 and 5 ms a
 * buffer, on a 2-core machine) */
static void
test_runner_up_not_the_cpus (void)
{
  GpuprofSnapshot *s = two_stages (0.99, 0.42, 1.42, 2);

  verdict (s);
  assert_limit (s, 1, "stage", "a");
  assert_limit (s, 2, "stage", "b");
  g_assert_cmpstr (s->next_what, ==, "p/b");
  g_assert_cmpfloat_with_epsilon (s->limit_headroom, 0.99 / 0.42, 1e-9);
  /* the CPUs stay in the table with what they measured */
  assert_limit (s, 3, "cpu", "cpus");
  g_assert_cmpfloat_with_epsilon (limit (s, 3)->utilisation, 0.71, 1e-9);
  gpuprof_snapshot_free (s);

  /* where the first's work is a small part of the CPUs' (six more threads
   * at 35 % on 4 cores: 2.82 cores used, a's work 28 % of it), the CPUs
   * without it (51 %) come before b */
  s = two_stages (0.30, 0.42, 2.82, 4);
  for (guint i = 0; i < 6; i++) {
    gchar name[8], thread[8];

    g_snprintf (name, sizeof (name), "w%u", i);
    g_snprintf (thread, sizeof (thread), "t%u", i);
    add_element (s, name, "filter", thread, 0.35, 100)->cpu_ns = 350 * MS;
  }
  verdict (s);
  assert_limit (s, 1, "stage", "a");
  assert_limit (s, 2, "cpu", "cpus");
  g_assert_nonnull (strstr (limit (s, 1)->advice, "then the CPUs limit (51% "
          "of the cores without its work)"));
  gpuprof_snapshot_free (s);
}

/* Start-up apart: an element whose first call took 300 ms (an engine's
 * creation) and then little is not what limits; the stage slow in the
 * steady state is, and its time per buffer is the steady state's */
static void
test_startup_apart (void)
{
  GpuprofSnapshot *s = gpuprof_snapshot_new ("p");
  GpuprofElementRow *r;

  r = add_element (s, "engine", "filter", "t", 0.35, 40);
  r->first_ns = 300 * MS;
  r->first_calls = 1;
  add_element (s, "steady", "filter", "t", 0.28, 40);
  verdict (s);
  assert_limit (s, 1, "stage", "steady");
  /* 350 ms less its 300 ms start-up, over the wall less it */
  r = (GpuprofElementRow *) gpuprof_snapshot_find_element (s, "p/engine");
  g_assert_cmpfloat_with_epsilon (gpuprof_element_row_occupancy (r),
      50.0 / 700.0, 1e-9);
  gpuprof_snapshot_free (s);
}

/* A source's loop is timed on its thread's CPU clock: its wait for a core
 * is work of its thread all the same (a filter's is in its chain calls'
 * wall time): 20 % on a CPU and 50 % waiting for a core is 70 % occupied,
 * more than a filter at 50 % on a thread of its own */
static void
test_source_waiting_for_a_core (void)
{
  GpuprofSnapshot *s = gpuprof_snapshot_new ("p");

  add_element (s, "src", "source", "s", 0.20, 100)->wait_core_ns = 500 * MS;
  add_element (s, "work", "filter", "w", 0.50, 100);
  verdict (s);
  assert_limit (s, 1, "stage", "src");
  g_assert_cmpfloat_with_epsilon (s->limit_utilisation, 0.70, 1e-9);
  gpuprof_snapshot_free (s);
}

/* A container's quota: half a core, used whole, the cgroup throttling the
 * threads 40 % of the run (they wait for it, not in a run queue): the CPUs
 * limit */
static void
test_cpu_quota_throttled (void)
{
  GpuprofSnapshot *s = two_stages (0.40, 0.09, 0.49, 0.5);

  s->wall_ns = WALL;
  s->cpu_throttled_ns = 400 * MS;
  verdict (s);
  assert_limit (s, 1, "cpu", "cpus");
  g_assert_nonnull (strstr (limit (s, 1)->advice, "the CPUs are saturated"));
  gpuprof_snapshot_free (s);
}

/* Threads that wait for cores the process does not use (the machine
 * loaded by others): not CPU-bound by this process, and said so */
static void
test_cpu_loaded_by_others (void)
{
  GpuprofSnapshot *s = two_stages (0.15, 0.15, 1.0, 2);

  s->cpu_wait_core_ns = 4000 * MS;      /* 80 % of their runnable time */
  /* a at 15 % too: nothing saturated */
  ((GpuprofElementRow *) gpuprof_snapshot_find_element (s, "p/a"))->
      thread_self_ns = 150 * MS;
  verdict (s);
  assert_limit (s, 1, "cpu", "cpus");
  g_assert_true (g_str_has_prefix (limit (s, 1)->advice, "the CPUs limit, "
          "held by other load: its threads waited 80% of their runnable "
          "time for a core while the process used 50% of its cores"));
  gpuprof_snapshot_free (s);
}

/* Starved by other load (the README's example beside two CPU burners):
 * its sources read 83-87 % occupied, mostly waiting for a core, the
 * process using 69 % of 2 cores; its threads waited 74 % of their runnable
 * time for one. The CPUs limit, not the sources */
static void
test_cpu_starved_by_others (void)
{
  GpuprofSnapshot *s = two_stages (0.40, 0.40, 1.38, 2);

  s->cpu_wait_core_ns = 3674 * MS;
  ((GpuprofElementRow *) gpuprof_snapshot_find_element (s, "p/a"))->
      thread_self_ns = 870 * MS;
  ((GpuprofElementRow *) gpuprof_snapshot_find_element (s, "p/b"))->
      thread_self_ns = 830 * MS;
  verdict (s);
  assert_limit (s, 1, "cpu", "cpus");
  g_assert_nonnull (strstr (limit (s, 1)->advice, "held by other load"));
  /* below half their runnable time, the stages rank first again */
  s->cpu_wait_core_ns = 600 * MS;
  verdict (s);
  assert_limit (s, 1, "stage", "a");
  gpuprof_snapshot_free (s);
}

/* The CPUs half used: no CPU verdict, the stage limits */
static void
test_cpu_not_saturated (void)
{
  GpuprofSnapshot *s = gpuprof_snapshot_new ("p");

  add_element (s, "work", "filter", "t", 0.98, 100);
  add_cpu (s, 0.50, "1.0 of 2 cores");
  verdict (s);
  assert_limit (s, 1, "stage", "work");
  assert_limit (s, 2, "cpu", "cpus");
  gpuprof_snapshot_free (s);
}

/* A GPU engine through the candidate API, as the GPU engines' source adds
 * it: a saturated NVDEC ranks before the decoders that wait on it; an
 * engine with room ranks by its utilisation among the rest */
static void
test_gpu_candidates (void)
{
  GpuprofSnapshot *s = gpuprof_snapshot_new ("p");
  GpuprofLimitCandidates *c = gpuprof_limits_candidates_new ();
  GpuprofLimitCandidate *dec;

  dec = gpuprof_limits_add (c, GPUPROF_LIMIT_STAGE, "p/dec1", 0.95, TRUE,
      30, g_strdup ("95% busy on thread dec1:src"), NULL);
  dec->thread = "dec1:src";
  dec->thread_util = 0.95;
  gpuprof_limits_add (c, GPUPROF_LIMIT_GPU, "GPU 0 NVDEC", 0.99, TRUE, 0,
      g_strdup ("NVDEC 99% (dmon)"), g_strdup ("fewer streams per GPU"));
  gpuprof_limits_add (c, GPUPROF_LIMIT_GPU, "GPU 0 SMs", 0.14, FALSE, 0,
      g_strdup ("SM 14%"), NULL);
  gpuprof_limits_rank (s, c);
  assert_limit (s, 1, "gpu", "GPU 0 NVDEC");
  assert_limit (s, 2, "stage", "dec1");
  assert_limit (s, 3, "gpu", "GPU 0 SMs");
  g_assert_cmpstr (s->limit_kind, ==, "gpu");
  g_assert_cmpfloat_with_epsilon (s->limit_headroom, 1 / 0.99, 1e-9);
  g_assert_cmpstr (limit (s, 1)->advice, ==, "fewer streams per GPU");
  g_assert_cmpfloat_with_epsilon (limit (s, 3)->headroom, 1 / 0.14, 1e-9);
  gpuprof_snapshot_free (s);
}

/* Nothing saturated, nothing that paces: the busiest stage, said not to
 * be saturated */
static void
test_nothing_saturated (void)
{
  GpuprofSnapshot *s = gpuprof_snapshot_new ("p");

  add_element (s, "work", "filter", "t", 0.40, 100);
  verdict (s);
  assert_limit (s, 1, "stage", "work");
  g_assert_nonnull (strstr (limit (s, 1)->advice, "not saturated (40% "
          "occupied)"));
  g_assert_cmpfloat_with_epsilon (s->limit_headroom, 2.5, 1e-9);
  gpuprof_snapshot_free (s);
}

static void
test_no_work (void)
{
  GpuprofSnapshot *s = gpuprof_snapshot_new ("p");
  gchar *report;

  verdict (s);
  g_assert_cmpuint (s->limits->len, ==, 0);
  g_assert_null (s->limit_kind);
  report = gpuprof_report_verdict (s);
  g_assert_cmpstr (report, ==, "limit: none found (no element did "
      "measurable work)");
  g_free (report);
  gpuprof_snapshot_free (s);
}

/* Between two snapshots: the run was stage-bound, then clock-paced */
static void
test_interval_verdict (void)
{
  GpuprofSnapshot *a = gpuprof_snapshot_new ("p");
  GpuprofSnapshot *b = gpuprof_snapshot_new ("p");
  GpuprofSnapshot *d;
  GpuprofElementRow *sink;

  /* first second: work 95 % busy, the sink never waits */
  add_element (a, "work", "filter", "t", 0.95, 30);
  sink = add_element (a, "sink", "sink", "t", 0.01, 30);
  sink->waits_on_clock = TRUE;
  verdict (a);
  assert_limit (a, 1, "stage", "work");
  /* two seconds: in the second, work 30 % busy, the sink waited 69 % */
  add_element (b, "work", "filter", "t", 0.625, 60);
  sink = add_element (b, "sink", "sink", "t", 0.01, 60);
  sink->waits_on_clock = TRUE;
  sink->clock_wait_ns = (guint64) (0.69 * WALL);
  for (guint i = 0; i < b->elements->len; i++) {
    GpuprofElementRow *r = &g_array_index (b->elements, GpuprofElementRow, i);
    r->thread_wall_ns = 2 * WALL;
    r->thread_self_ns = r->self_ns = (guint64) (r->busy * 2 * WALL);
    r->busy = (gdouble) r->thread_self_ns / r->thread_wall_ns;
  }
  verdict (b);
  d = gpuprof_snapshot_delta (b, a);
  assert_limit (d, 1, "clock", "sink");
  g_assert_cmpfloat_with_epsilon (limit (d, 2)->utilisation, 0.30, 1e-6);
  gpuprof_snapshot_free (d);
  gpuprof_snapshot_free (a);
  gpuprof_snapshot_free (b);
}

/* Prometheus: what limits and the runner-up, never more series */
static void
test_prometheus (void)
{
  GpuprofSnapshot *s = gpuprof_snapshot_new ("p");
  GPtrArray *snaps = g_ptr_array_new ();
  gchar *text;

  add_element (s, "a", "filter", "qa", 0.99, 100);
  add_element (s, "b", "filter", "qb", 0.50, 100);
  add_element (s, "c", "filter", "qc", 0.25, 100);
  verdict (s);
  g_ptr_array_add (snaps, s);
  text = gpuprof_metrics_format (snaps, 0);
  g_assert_nonnull (strstr (text, "\ngpuprof_limit{pipeline=\"p\",rank=\"1\","
          "kind=\"stage\",what=\"p/a\"} 0.99\n"));
  g_assert_nonnull (strstr (text, "\ngpuprof_limit_headroom_ratio{pipeline="
          "\"p\",rank=\"1\",kind=\"stage\",what=\"p/a\"} 1.98\n"));
  g_assert_nonnull (strstr (text, "\ngpuprof_limit{pipeline=\"p\",rank=\"2\","
          "kind=\"stage\",what=\"p/b\"} 0.5\n"));
  g_assert_null (strstr (text, "rank=\"3\""));
  g_free (text);
  g_ptr_array_unref (snaps);
  gpuprof_snapshot_free (s);
}

static void
test_threads_property (void)
{
  g_assert_cmpstr (gpuprof_limits_threads_property ("x264enc"), ==,
      "threads");
  g_assert_cmpstr (gpuprof_limits_threads_property ("avdec_h264"), ==,
      "max-threads");
  g_assert_cmpstr (gpuprof_limits_threads_property ("videoconvert"), ==,
      "n-threads");
  g_assert_null (gpuprof_limits_threads_property ("identity"));
  g_assert_null (gpuprof_limits_threads_property (NULL));
}

/* GStreamer >= 1.28's pool hooks: a stage whose pool ran out at its
 * maximum waited for downstream inside its calls; the evidence and the
 * advice say so (issue 20: pool waits in the verdict's evidence) */
static void
test_pool_ran_out (void)
{
  GpuprofSnapshot *s = gpuprof_snapshot_new ("p");
  GpuprofPoolRow pool = { 0 };
  const GpuprofLimitRow *l;

  add_element (s, "src", "source", "t", 0.95, 100);
  add_element (s, "sink", "sink", "t2", 0.30, 100);
  pool.pool = g_strdup ("videobufferpool0");
  pool.element = g_strdup ("p/src");
  pool.pools = 1;
  pool.max_buffers = 2;
  pool.outstanding_max = 2;
  pool.empties = 40;
  pool.empty_ns = 420 * MS;
  pool.empty_max_ns = 15 * MS;
  g_array_append_val (s->pools, pool);
  verdict (s);
  assert_limit (s, 1, "stage", "src");
  l = limit (s, 1);
  g_assert_nonnull (strstr (l->evidence, "its pool videobufferpool0 had "
          "all 2 buffers out for 420.0 ms (40 times, longest 15.0 ms)"));
  g_assert_nonnull (strstr (l->advice, "src waits for its pool "
          "videobufferpool0: downstream holds its buffers"));
  /* a pool without a maximum never makes its acquirer wait */
  g_array_index (s->pools, GpuprofPoolRow, 0).max_buffers = 0;
  verdict (s);
  g_assert_null (strstr (limit (s, 1)->evidence, "videobufferpool0"));
  gpuprof_snapshot_free (s);
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/limits/clock-paces", test_clock_paces);
  g_test_add_func ("/limits/late-sink-is-no-pacer",
      test_late_sink_is_no_pacer);
  g_test_add_func ("/limits/input-paces", test_input_paces);
  g_test_add_func ("/limits/live-source-into-synced-sink",
      test_live_source_into_synced_sink);
  g_test_add_func ("/limits/drops-name-the-stage", test_drops_name_the_stage);
  g_test_add_func ("/limits/runner-up-headroom", test_runner_up_headroom);
  g_test_add_func ("/limits/shared-thread", test_shared_thread);
  g_test_add_func ("/limits/cpu-bound", test_cpu_bound);
  g_test_add_func ("/limits/cpu-not-saturated", test_cpu_not_saturated);
  g_test_add_func ("/limits/startup-apart", test_startup_apart);
  g_test_add_func ("/limits/source-waiting-for-a-core",
      test_source_waiting_for_a_core);
  g_test_add_func ("/limits/cpu-loaded-by-others", test_cpu_loaded_by_others);
  g_test_add_func ("/limits/cpu-starved-by-others",
      test_cpu_starved_by_others);
  g_test_add_func ("/limits/cpu-quota-throttled", test_cpu_quota_throttled);
  g_test_add_func ("/limits/cpu-full-not-contended",
      test_cpu_full_not_contended);
  g_test_add_func ("/limits/runner-up-not-the-cpus",
      test_runner_up_not_the_cpus);
  g_test_add_func ("/limits/gpu-candidates", test_gpu_candidates);
  g_test_add_func ("/limits/nothing-saturated", test_nothing_saturated);
  g_test_add_func ("/limits/no-work", test_no_work);
  g_test_add_func ("/limits/interval-verdict", test_interval_verdict);
  g_test_add_func ("/limits/prometheus", test_prometheus);
  g_test_add_func ("/limits/threads-property", test_threads_property);
  g_test_add_func ("/limits/pool-ran-out", test_pool_ran_out);
  return g_test_run ();
}
