/* The threads reader on this process's own threads, against truth measured
 * in the same run: a spinning thread's own CPU clock
 * (CLOCK_THREAD_CPUTIME_ID), and — as a spinning thread never blocks, it
 * is always either on a CPU or waiting for one — wall time minus that
 * clock for its time waiting for a core. The passes are made on the
 * spinner itself: a wait still going on is counted only once the thread
 * runs again (a pass from another thread once saw 187 ms not yet counted
 * on the loaded build machine). Two spinners pinned to one core make the
 * waiting deterministic: each waits at least 30 % of the time, on any
 * machine, loaded or not. Threads that start and end between two passes
 * are told. */
#include <glib.h>
#include <string.h>
#include <unistd.h>

#include "gpuprof-cpu-threads.h"
#include "gpuprof-test-gate.h"
#include "gpuprof-test-spin.h"

#define MS (G_GUINT64_CONSTANT (1000000))

/* A pass made on a spinner, with the spinner's CPU clock and the wall
 * clock read just before and just after it: the truth of an interval lies
 * between the inner and the outer difference of two passes. Made on the
 * spinner, so while it runs: all its waits for a core are counted (a
 * thread's wait is added to run_delay when it gets a CPU), and its own
 * on-CPU time lags by at most a scheduler tick. */
typedef struct
{
  GpuprofCpuThreads *t;
  GpuprofTestSpinner *s;
  guint64 cpu_before, cpu_after, wall_before, wall_after;
  guint64 switches;             /* voluntary + involuntary, the kernel's */
} Pass;

/* the calling thread's context switches (/proc/thread-self/status): a
 * timeslice begins at each switch in */
static guint64
own_switches (void)
{
  gchar *text = NULL, **lines;
  guint64 n = 0;
  guint i;

  g_assert_true (g_file_get_contents ("/proc/thread-self/status", &text,
          NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (i = 0; lines[i]; i++)
    if (g_str_has_prefix (lines[i], "voluntary_ctxt_switches:")
        || g_str_has_prefix (lines[i], "nonvoluntary_ctxt_switches:"))
      n += g_ascii_strtoull (strchr (lines[i], ':') + 1, NULL, 10);
  g_strfreev (lines);
  g_free (text);
  return n;
}

static void
pass_on_spinner (gpointer data, gpointer unused)
{
  Pass *p = data;

  p->switches = own_switches ();
  p->wall_before = gpuprof_test_monotonic_ns ();
  p->cpu_before = gpuprof_test_spinner_cpu_ns (p->s);
  g_assert_cmpuint (gpuprof_cpu_threads_read (p->t, GPUPROF_CPU_READ_ALL), >,
      1);
  p->cpu_after = gpuprof_test_spinner_cpu_ns (p->s);
  p->wall_after = gpuprof_test_monotonic_ns ();
}

/* |@got - truth| within @slack_ns, truth in [@lo, @hi] */
static void
assert_within (const gchar * what, guint64 got, gint64 lo, gint64 hi,
    guint64 slack_ns)
{
  g_test_message ("%s: %.1f ms, truth %.1f..%.1f ms", what, got / 1e6,
      lo / 1e6, hi / 1e6);
  if ((gint64) (got + slack_ns) < lo || (gint64) got > hi + (gint64) slack_ns)
    g_error ("%s: %.1f ms, the truth is %.1f..%.1f ms (±%.1f ms)", what,
        got / 1e6, lo / 1e6, hi / 1e6, slack_ns / 1e6);
}

/* @n spinners on @cpu (-1: anywhere) for @ms between two passes of a
 * reader of each one's own, made on it; checks its on-CPU time and CPU
 * against its clock, and its run delay against wall - CPU (it never
 * blocks). Returns the run delays in @delay, the intervals in @interval. */
static void
spin_and_check (guint n, gint cpu, guint ms, guint64 * delay,
    guint64 * interval)
{
  GpuprofTestSpinner *s[2];
  Pass p0[2], p1[2];
  guint i;

  for (i = 0; i < n; i++) {
    s[i] = gpuprof_test_spinner_start (i ? "spin-b" : "spin-a", cpu);
    p0[i].t = gpuprof_cpu_threads_new (NULL, NULL);
    p0[i].s = s[i];
    p1[i] = p0[i];
  }
  for (i = 0; i < n; i++)
    gpuprof_test_spinner_call (s[i], pass_on_spinner, &p0[i]);
  g_usleep (ms * 1000);
  for (i = 0; i < n; i++)
    gpuprof_test_spinner_call (s[i], pass_on_spinner, &p1[i]);

  for (i = 0; i < n; i++) {
    const GpuprofCpuThread *row =
        gpuprof_cpu_threads_find (p1[i].t, gpuprof_test_spinner_tid (s[i]));
    gint64 wall_lo = p1[i].wall_before - p0[i].wall_after;
    gint64 wall_hi = p1[i].wall_after - p0[i].wall_before;
    gint64 cpu_lo = p1[i].cpu_before - p0[i].cpu_after;
    gint64 cpu_hi = p1[i].cpu_after - p0[i].cpu_before;

    interval[i] = gpuprof_cpu_threads_interval_ns (p1[i].t);
    assert_within ("interval", interval[i], wall_lo, wall_hi, 0);
    g_assert_nonnull (row);
    g_assert_cmpstr (row->name, ==, i ? "spin-b" : "spin-a");
    g_assert_cmpuint (row->flags, ==, 0);
    /* schedstat: a running thread's time is added at ticks (1-4 ms) */
    assert_within ("on CPU", row->delta.on_cpu_ns, cpu_lo, cpu_hi, 10 * MS);
    /* stat: whole ticks (10 ms) at each end */
    assert_within ("stat CPU", row->delta.cpu_ns, cpu_lo, cpu_hi, 25 * MS);
    /* never blocked: the rest of the wall time it waited for a core */
    assert_within ("run delay", row->delta.run_delay_ns, wall_lo - cpu_hi,
        wall_hi - cpu_lo, 5 * MS + interval[i] / 50);
    /* timeslices: the switches in between the two readings, as the
     * kernel counts them in the thread's status (a spinner alone on an
     * idle core may run the whole interval in one: 0 is right then); the
     * second reading's own switch may fall on either side */
    g_test_message ("timeslices: %" G_GUINT64_FORMAT ", switches %"
        G_GUINT64_FORMAT, (guint64) row->delta.timeslices,
        p1[i].switches - p0[i].switches);
    g_assert_cmpuint (row->delta.timeslices + 2, >=,
        p1[i].switches - p0[i].switches);
    g_assert_cmpuint (row->delta.timeslices, <=,
        p1[i].switches - p0[i].switches + 2);
    delay[i] = row->delta.run_delay_ns;
  }
  for (i = 0; i < n; i++) {
    gpuprof_test_spinner_stop (s[i]);
    gpuprof_cpu_threads_free (p0[i].t);
  }
}

static void
test_spinner_cpu (void)
{
  guint64 delay[1], interval[1];

  spin_and_check (1, -1, 400, delay, interval);
}

/* two spinners on one core: each waits for it at least 30 % of the time
 * (50 % with the core to themselves, more beside other load) */
static void
test_two_spinners_one_core (void)
{
  guint64 delay[2], interval[2];
  guint i;

  spin_and_check (2, gpuprof_test_first_cpu (), 600, delay, interval);
  for (i = 0; i < 2; i++) {
    g_test_message ("spinner %u waited %.0f %% of %.0f ms", i,
        100.0 * delay[i] / interval[i], interval[i] / 1e6);
    g_assert_cmpuint (delay[i], >=, interval[i] * 3 / 10);
  }
}

static void
noop (gpointer data)
{
}

/* lets a gate thread through and ends it */
static void
end_gate (GpuprofTestGate * gate)
{
  gpuprof_test_gate_run (gate);
  gpuprof_test_gate_end (gate);
}

/* a thread started between two passes is NEW, with its name and state;
 * it is ENDED in the pass after it ended, and gone in the next */
static void
test_threads_appear_and_end (void)
{
  GpuprofCpuThreads *t = gpuprof_cpu_threads_new (NULL, NULL);
  GpuprofTestGate gate = { 0, };
  GpuprofTestSpinner *spin;
  const GpuprofCpuThread *row;
  guint i, n;

  gpuprof_cpu_threads_read (t, GPUPROF_CPU_READ_ALL);
  for (i = 0; i < gpuprof_cpu_threads_count (t); i++)
    g_assert_cmpuint (gpuprof_cpu_threads_row (t, i)->flags, ==, 0);

  gpuprof_test_gate_start (&gate, "lazy-worker", noop, NULL);
  spin = gpuprof_test_spinner_start ("lazy-spin", -1);
  g_usleep (20 * 1000);
  n = gpuprof_cpu_threads_read (t, GPUPROF_CPU_READ_ALL);
  row = gpuprof_cpu_threads_find (t, gate.tid);
  g_assert_nonnull (row);
  g_assert_cmpuint (row->flags, ==, GPUPROF_CPU_THREAD_NEW);
  g_assert_cmpstr (row->name, ==, "lazy-worker");
  g_assert_cmpint (row->state, ==, 'S');        /* waits at its gate */
  row = gpuprof_cpu_threads_find (t, gpuprof_test_spinner_tid (spin));
  g_assert_cmpuint (row->flags, ==, GPUPROF_CPU_THREAD_NEW);
  g_assert_cmpint (row->state, ==, 'R');        /* running or runnable */
  g_assert_cmpuint (row->delta.on_cpu_ns, ==, row->total.on_cpu_ns);
  row = gpuprof_cpu_threads_find (t, (gint) getpid ());
  g_assert_cmpuint (row->flags, ==, 0);

  end_gate (&gate);
  gpuprof_test_spinner_stop (spin);
  g_assert_cmpuint (gpuprof_cpu_threads_read (t, GPUPROF_CPU_READ_ALL), ==, n);
  g_assert_null (gpuprof_cpu_threads_find (t, (gint) gate.tid));
  for (i = 0; i < gpuprof_cpu_threads_count (t); i++) {
    row = gpuprof_cpu_threads_row (t, i);
    if (row->tid == (gint) gate.tid)
      break;
  }
  g_assert_cmpuint (i, <, gpuprof_cpu_threads_count (t));
  g_assert_cmpuint (row->flags, ==, GPUPROF_CPU_THREAD_ENDED);
  g_assert_cmpstr (row->name, ==, "lazy-worker");

  g_assert_cmpuint (gpuprof_cpu_threads_read (t, GPUPROF_CPU_READ_ALL), ==,
      n - 2);
  for (i = 0; i < gpuprof_cpu_threads_count (t); i++)
    g_assert_cmpint (gpuprof_cpu_threads_row (t, i)->tid, !=, gate.tid);
  gpuprof_cpu_threads_free (t);
}

/* passes over the same threads allocate nothing: the arrays never grow */
static void
test_no_growth_once_warm (void)
{
  GpuprofCpuThreads *t = gpuprof_cpu_threads_new (NULL, NULL);
  GpuprofTestGate gates[40];
  guint i, grown;

  memset (gates, 0, sizeof (gates));
  for (i = 0; i < G_N_ELEMENTS (gates); i++)
    gpuprof_test_gate_start (&gates[i], "idle", noop, NULL);
  gpuprof_cpu_threads_read (t, GPUPROF_CPU_READ_ALL);
  grown = gpuprof_cpu_threads_grown (t);
  for (i = 0; i < 50; i++)
    g_assert_cmpuint (gpuprof_cpu_threads_read (t, i % 2 ?
            GPUPROF_CPU_READ_ALL : GPUPROF_CPU_READ_SCHEDSTAT), >,
        G_N_ELEMENTS (gates));
  g_assert_cmpuint (gpuprof_cpu_threads_grown (t), ==, grown);
  for (i = 0; i < G_N_ELEMENTS (gates); i++)
    end_gate (&gates[i]);
  gpuprof_cpu_threads_free (t);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cpu/threads/spinner", test_spinner_cpu);
  g_test_add_func ("/cpu/threads/two-spinners-one-core",
      test_two_spinners_one_core);
  g_test_add_func ("/cpu/threads/appear-and-end", test_threads_appear_and_end);
  g_test_add_func ("/cpu/threads/no-growth", test_no_growth_once_warm);
  return g_test_run ();
}
