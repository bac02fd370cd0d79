/* The limits reader on this machine, against truth measured in the same
 * run: the CPUs online (sysconf), the affinity mask the test itself sets,
 * the process CPU against CLOCK_PROCESS_CPUTIME_ID, and — where the test
 * may make a cgroup (root, a cpu controller it can write) — a child
 * process in a cgroup with a quota of a tenth of a core: the quota read
 * back, the cores available, and the throttling its two spinning threads
 * cause (they want far more than a tenth of a core, even beside other
 * load: with half a core, a loaded 2-core machine gave them less than the
 * quota, and nothing throttled). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <glib.h>
#include <glib/gstdio.h>
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "gpuprof-cpu-limits.h"
#include "gpuprof-test-spin.h"

#define MS (G_GUINT64_CONSTANT (1000000))

static guint64
process_cpu_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (guint64) ts.tv_sec * G_GUINT64_CONSTANT (1000000000) + ts.tv_nsec;
}

static void
test_online_and_affinity (void)
{
  GpuprofCpuLimitsReader *r = gpuprof_cpu_limits_reader_new (NULL);
  GpuprofCpuLimits l;
  cpu_set_t saved, one;
  const gchar *why = NULL, *dir = gpuprof_cpu_limits_reader_cgroup (r, &why);

  g_test_message ("cgroup: %s", dir ? dir : why);
  gpuprof_cpu_limits_read (r, &l);
  g_assert_cmpuint (l.online, ==, sysconf (_SC_NPROCESSORS_ONLN));
  g_assert_cmpuint (l.affinity, >=, 1);
  g_assert_cmpuint (l.affinity, <=, l.online);
  g_assert_cmpfloat (l.available, >, 0);
  g_assert_cmpfloat (l.available, <=, l.affinity);

  /* the process pinned to one CPU: one core available at most */
  g_assert_cmpint (sched_getaffinity (0, sizeof (saved), &saved), ==, 0);
  CPU_ZERO (&one);
  CPU_SET (gpuprof_test_first_cpu (), &one);
  g_assert_cmpint (sched_setaffinity (0, sizeof (one), &one), ==, 0);
  gpuprof_cpu_limits_read (r, &l);
  g_assert_cmpint (sched_setaffinity (0, sizeof (saved), &saved), ==, 0);
  g_assert_cmpuint (l.affinity, ==, 1);
  if (l.quota_state == GPUPROF_CPU_QUOTA_SET && l.quota < 1) {
    g_assert_cmpfloat (l.available, ==, l.quota);
  } else {
    g_assert_cmpfloat (l.available, ==, 1);
    g_assert_cmpint (l.limited_by, ==, GPUPROF_CPU_LIMIT_AFFINITY);
  }
  gpuprof_cpu_limits_reader_free (r);
}

/* getrusage: the same CPU as the process clock (µs resolution), ended
 * threads included */
static void
test_process_cpu (void)
{
  GpuprofCpuProcess p0, p1;
  GpuprofTestSpinner *s;
  guint64 clock0, clock1, spun;

  clock0 = process_cpu_ns ();
  gpuprof_cpu_process_read (&p0);
  s = gpuprof_test_spinner_start ("spin", -1);
  g_usleep (200 * 1000);
  spun = gpuprof_test_spinner_cpu_ns (s);
  gpuprof_test_spinner_stop (s);        /* ended: still counted */
  gpuprof_cpu_process_read (&p1);
  clock1 = process_cpu_ns ();

  g_assert_cmpuint (p1.user_ns + p1.system_ns, >=,
      p0.user_ns + p0.system_ns + spun - 1 * MS);
  g_assert_cmpuint (p1.user_ns + p1.system_ns, <=, clock1 + 1 * MS);
  g_assert_cmpuint (p0.user_ns + p0.system_ns + 1 * MS, >=, clock0);
  g_assert_cmpuint (p1.voluntary_switches, >=, p0.voluntary_switches);
}

/* ---- a cgroup of the test's own ---- */

typedef struct
{
  gchar *dir;                   /* the new cgroup */
  gchar *procs;                 /* the file a process joins it by */
} TestCgroup;

static gboolean
write_file (const gchar * path, const gchar * text)
{
  return g_file_set_contents_full (path, text, -1, G_FILE_SET_CONTENTS_NONE,
      0644, NULL);
}

/* A new cgroup with a quota of @quota_us per 100 ms under the mount of the
 * cpu controller (v1) or the cgroup2 root; FALSE (with @why) where this
 * machine or user does not allow it. */
static gboolean
make_cgroup (TestCgroup * cg, guint quota_us, const gchar ** why)
{
  gchar *mountinfo = NULL, *root = NULL, *mount = NULL;
  gboolean v1, ok = FALSE;

  memset (cg, 0, sizeof (*cg));
  g_file_get_contents ("/proc/self/mountinfo", &mountinfo, NULL, NULL);
  v1 = gpuprof_cpu_parse_mountinfo (mountinfo, TRUE, &root, &mount);
  if (!v1 && !gpuprof_cpu_parse_mountinfo (mountinfo, FALSE, &root, &mount)) {
    *why = "no cgroup hierarchy mounted";
    goto out;
  }
  cg->dir = g_strdup_printf ("%s/gpuprof-test-%d", mount, (gint) getpid ());
  if (g_mkdir (cg->dir, 0755) != 0) {
    *why = "cannot make a cgroup (not root, or read-only)";
    goto out;
  }
  {
    /* v1: the period is 100 ms by default; v2: only where the root
     * already hands the cpu controller down (the test changes nothing of
     * the machine's set-up) */
    gchar *file = g_build_filename (cg->dir, v1 ? "cpu.cfs_quota_us" :
        "cpu.max", NULL);
    gchar *text = g_strdup_printf (v1 ? "%u" : "%u 100000", quota_us);

    ok = write_file (file, text);
    g_free (file);
    g_free (text);
    cg->procs = g_build_filename (cg->dir, "cgroup.procs", NULL);
  }
  if (!ok) {
    *why = "cannot set a CPU quota on a new cgroup";
    g_rmdir (cg->dir);
  }
out:
  g_free (mountinfo);
  g_free (root);
  g_free (mount);
  return ok;
}

typedef struct
{
  GpuprofCpuLimits before, after;
  guint64 wall_ns, cpu_ns;
  gboolean joined;
} ChildReport;

/* the child: joins the cgroup, spins two threads for @ms, reports */
static void
child_main (const TestCgroup * cg, guint ms, gint fd)
{
  ChildReport rep = { 0, };
  GpuprofCpuLimitsReader *r;
  gchar *pid = g_strdup_printf ("%d", (gint) getpid ());
  guint64 t0, c0;

  rep.joined = write_file (cg->procs, pid);
  r = gpuprof_cpu_limits_reader_new (NULL);
  gpuprof_cpu_limits_read (r, &rep.before);
  /* left spinning: the child ends with _exit() */
  gpuprof_test_spinner_start ("spin-a", -1);
  gpuprof_test_spinner_start ("spin-b", -1);
  t0 = gpuprof_test_monotonic_ns ();
  c0 = process_cpu_ns ();
  g_usleep (ms * 1000);
  rep.cpu_ns = process_cpu_ns () - c0;
  rep.wall_ns = gpuprof_test_monotonic_ns () - t0;
  gpuprof_cpu_limits_read (r, &rep.after);
  if (write (fd, &rep, sizeof (rep)) != sizeof (rep))
    _exit (2);
  _exit (0);
}

static void
test_cgroup_quota (void)
{
  TestCgroup cg;
  ChildReport rep;
  const gchar *why = NULL;
  gint fds[2], status;
  pid_t pid;

  if (!make_cgroup (&cg, 10000, &why)) {
    g_test_skip (why);
    g_free (cg.dir);
    g_free (cg.procs);
    return;
  }
  g_assert_cmpint (pipe (fds), ==, 0);
  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0) {
    close (fds[0]);
    child_main (&cg, 1000, fds[1]);
  }
  close (fds[1]);
  memset (&rep, 0, sizeof (rep));
  g_assert_cmpint (read (fds[0], &rep, sizeof (rep)), ==, sizeof (rep));
  close (fds[0]);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_cmpint (g_rmdir (cg.dir), ==, 0);
  g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  g_assert_true (rep.joined);

  g_test_message ("quota %.2f cores, throttled %" G_GUINT64_FORMAT " of %"
      G_GUINT64_FORMAT " periods, %.0f ms; the child used %.0f ms of CPU "
      "in %.0f ms", rep.after.quota, rep.after.throttle.nr_throttled,
      rep.after.throttle.nr_periods, rep.after.throttle.throttled_ns / 1e6,
      rep.cpu_ns / 1e6, rep.wall_ns / 1e6);
  g_assert_cmpint (rep.before.quota_state, ==, GPUPROF_CPU_QUOTA_SET);
  g_assert_cmpfloat_with_epsilon (rep.before.quota, 0.1, 1e-9);
  g_assert_cmpfloat_with_epsilon (rep.before.available, 0.1, 1e-9);
  g_assert_cmpint (rep.before.limited_by, ==, GPUPROF_CPU_LIMIT_QUOTA);
  g_assert_true (rep.after.have_throttle);
  /* the truth: two spinners held to a tenth of a core (10 ms a 100 ms
   * period; a period may overrun by a tick), so it throttled */
  g_assert_cmpuint (rep.cpu_ns, <, rep.wall_ns / 10 + 30 * MS);
  g_assert_cmpuint (rep.after.throttle.nr_throttled, >,
      rep.before.throttle.nr_throttled);
  g_assert_cmpuint (rep.after.throttle.throttled_ns, >,
      rep.before.throttle.throttled_ns);
  g_assert_cmpuint (rep.after.throttle.nr_periods, >=,
      rep.after.throttle.nr_throttled);
  g_free (cg.dir);
  g_free (cg.procs);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cpu/limits/online-and-affinity",
      test_online_and_affinity);
  g_test_add_func ("/cpu/limits/process", test_process_cpu);
  g_test_add_func ("/cpu/limits/cgroup-quota", test_cgroup_quota);
  return g_test_run ();
}
