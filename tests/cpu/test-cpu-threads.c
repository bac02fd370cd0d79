/* The threads reader on this process's own threads, against truth measured
 * in the same run: a spinning thread's own CPU clock
 * (CLOCK_THREAD_CPUTIME_ID), and — as a spinning thread never blocks, it
 * is always either on a CPU or waiting for one — wall time minus that
 * clock for its time waiting for a core. Two spinners pinned to one core
 * make the waiting deterministic: each waits at least 30 % of the time,
 * on any machine, loaded or not. Threads that start and end between two
 * passes are told. */
#include <glib.h>
#include <string.h>
#include <unistd.h>

#include "gpuprof-cpu-threads.h"
#include "gpuprof-test-gate.h"
#include "gpuprof-test-spin.h"

#define MS (G_GUINT64_CONSTANT (1000000))

/* The spinners' clocks read just before and just after a pass: the truth
 * of the interval lies between the inner and the outer difference. */
typedef struct
{
  guint64 before, after;
} Bracket;

static void
pass (GpuprofCpuThreads * t, GpuprofTestSpinner ** s, guint n, Bracket * b,
    guint64 * wall)
{
  guint i;

  for (i = 0; i < n; i++)
    b[i].before = gpuprof_test_spinner_cpu_ns (s[i]);
  *wall = gpuprof_test_monotonic_ns ();
  g_assert_cmpuint (gpuprof_cpu_threads_read (t, GPUPROF_CPU_READ_ALL), >, n);
  for (i = 0; i < n; i++)
    b[i].after = gpuprof_test_spinner_cpu_ns (s[i]);
}

/* |@got - truth| within @slack_ns, truth in [@lo, @hi] */
static void
assert_within (const gchar * what, guint64 got, guint64 lo, guint64 hi,
    guint64 slack_ns)
{
  g_test_message ("%s: %.1f ms, truth %.1f..%.1f ms", what, got / 1e6,
      lo / 1e6, hi / 1e6);
  if (got + slack_ns < lo || got > hi + slack_ns)
    g_error ("%s: %.1f ms, the truth is %.1f..%.1f ms (±%.1f ms)", what,
        got / 1e6, lo / 1e6, hi / 1e6, slack_ns / 1e6);
}

/* @n spinners on @cpu (-1: anywhere) for @ms between two passes; checks
 * each one's on-CPU time and CPU against its clock, and its run delay
 * against wall - CPU. Returns the pair's run delays in @delay. */
static void
spin_and_check (guint n, gint cpu, guint ms, guint64 * delay,
    guint64 * interval)
{
  GpuprofCpuThreads *t = gpuprof_cpu_threads_new (NULL, NULL);
  GpuprofTestSpinner *s[2];
  Bracket b0[2], b1[2];
  guint64 wall0, wall1;
  guint i;

  g_assert_nonnull (t);
  for (i = 0; i < n; i++)
    s[i] = gpuprof_test_spinner_start (i ? "spin-b" : "spin-a", cpu);
  pass (t, s, n, b0, &wall0);
  g_usleep (ms * 1000);
  pass (t, s, n, b1, &wall1);
  *interval = gpuprof_cpu_threads_interval_ns (t);
  /* the interval is the passes' start times apart */
  assert_within ("interval", *interval, wall1 - wall0, wall1 - wall0, 1 * MS);

  for (i = 0; i < n; i++) {
    const GpuprofCpuThread *row =
        gpuprof_cpu_threads_find (t, gpuprof_test_spinner_tid (s[i]));
    guint64 lo = b1[i].before - b0[i].after, hi = b1[i].after - b0[i].before;
    guint64 waited_lo, waited_hi;

    g_assert_nonnull (row);
    g_assert_cmpstr (row->name, ==, i ? "spin-b" : "spin-a");
    g_assert_cmpuint (row->flags, ==, 0);
    /* schedstat lags a running thread by up to a scheduler tick (4 ms at
     * HZ 250) at each end */
    assert_within ("on CPU", row->delta.on_cpu_ns, lo, hi, 10 * MS);
    /* stat: whole ticks (10 ms) at each end */
    assert_within ("stat CPU", row->delta.cpu_ns, lo, hi, 25 * MS);
    /* never blocked: the rest of the interval it waited for a core; the
     * wait it is in at a pass is counted when it next runs (a slice) */
    waited_lo = *interval > hi ? *interval - hi : 0;
    waited_hi = *interval > lo ? *interval - lo : 0;
    assert_within ("run delay", row->delta.run_delay_ns, waited_lo, waited_hi,
        30 * MS + *interval / 20);
    g_assert_cmpuint (row->delta.timeslices, >, 0);
    delay[i] = row->delta.run_delay_ns;
  }
  for (i = 0; i < n; i++)
    gpuprof_test_spinner_stop (s[i]);
  gpuprof_cpu_threads_free (t);
}

static void
test_spinner_cpu (void)
{
  guint64 delay[1], interval;

  spin_and_check (1, -1, 400, delay, &interval);
}

/* two spinners on one core: each waits for it at least 30 % of the time
 * (50 % with the core to themselves, more beside other load) */
static void
test_two_spinners_one_core (void)
{
  guint64 delay[2], interval;
  guint i;

  spin_and_check (2, gpuprof_test_first_cpu (), 600, delay, &interval);
  for (i = 0; i < 2; i++) {
    g_test_message ("spinner %u waited %.0f %% of %.0f ms", i,
        100.0 * delay[i] / interval, interval / 1e6);
    g_assert_cmpuint (delay[i], >=, interval * 3 / 10);
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
