/* The CPU readers on text and folders made by the test: the /proc and
 * cgroup parsers on fixture strings, the limits reader on made-up machines
 * (cgroup v2, a container without its own cgroup namespace, v1 on a hybrid
 * machine, no cpu controller at all) and the threads reader on a made-up
 * task folder (threads appearing, ending, a tid reused). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <glib.h>
#include <glib/gstdio.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "gpuprof-cpu-limits.h"
#include "gpuprof-cpu-threads.h"
#include "gpuprof-test-core.h"

/* ---- parsers ---- */

static void
test_stat_line (void)
{
  /* a name with spaces and parentheses: it ends at the last ')' */
  const gchar *line = "4242 (my (odd) name) S 1 4242 4242 0 -1 4194368 "
      "120 0 0 0 250 37 0 0 20 0 7 0 123456 0 0 18446744073709551615 "
      "1 1 0 0 0 0 0 4096 0 0 0 0 17 1 0 0 0 0 0\n";
  GpuprofCpuStat st;

  g_assert_true (gpuprof_cpu_parse_stat (line, strlen (line), &st));
  g_assert_cmpstr (st.name, ==, "my (odd) name");
  g_assert_cmpint (st.state, ==, 'S');
  g_assert_cmpuint (st.utime_ticks, ==, 250);
  g_assert_cmpuint (st.stime_ticks, ==, 37);
  g_assert_cmpuint (st.start_ticks, ==, 123456);

  /* a name longer than comm's 15 characters is cut, not overflowed */
  line = "7 (abcdefghijklmnopqrstuvwxyz) R 1 1 1 0 -1 0 0 0 0 0 5 6 0 0 20 "
      "0 1 0 99 0\n";
  g_assert_true (gpuprof_cpu_parse_stat (line, strlen (line), &st));
  g_assert_cmpstr (st.name, ==, "abcdefghijklmno");
  g_assert_cmpint (st.state, ==, 'R');
  g_assert_cmpuint (st.utime_ticks + st.stime_ticks, ==, 11);
  g_assert_cmpuint (st.start_ticks, ==, 99);

  /* cut short before the start time, no name, no state */
  line = "7 (x) R 1 1 1 0 -1 0 0 0 0 0 5 6 0 0 20";
  g_assert_false (gpuprof_cpu_parse_stat (line, strlen (line), &st));
  g_assert_false (gpuprof_cpu_parse_stat ("7 x R 1", 7, &st));
  g_assert_false (gpuprof_cpu_parse_stat ("7 (x)", 5, &st));
  g_assert_false (gpuprof_cpu_parse_stat ("", 0, &st));
  /* the length is honoured: no NUL needed */
  line = "7 (x) R 1 1 1 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 99 0 garbage";
  g_assert_true (gpuprof_cpu_parse_stat (line, strlen (line) - 10, &st));
  g_assert_false (gpuprof_cpu_parse_stat (line, 30, &st));
}

static void
test_schedstat_line (void)
{
  GpuprofCpuTimes t = { 0, };

  g_assert_true (gpuprof_cpu_parse_schedstat ("58800676 141383036 221\n", 23,
          &t));
  g_assert_cmpuint (t.on_cpu_ns, ==, 58800676);
  g_assert_cmpuint (t.run_delay_ns, ==, 141383036);
  g_assert_cmpuint (t.timeslices, ==, 221);
  g_assert_false (gpuprof_cpu_parse_schedstat ("1 2\n", 4, &t));
  g_assert_false (gpuprof_cpu_parse_schedstat ("a b c\n", 6, &t));
  g_assert_cmpuint (t.on_cpu_ns, ==, 58800676);  /* untouched */
}

static void
test_cpu_list (void)
{
  g_assert_cmpuint (gpuprof_cpu_parse_cpu_list ("0-3,8,10-11\n"), ==, 7);
  g_assert_cmpuint (gpuprof_cpu_parse_cpu_list ("0\n"), ==, 1);
  g_assert_cmpuint (gpuprof_cpu_parse_cpu_list ("0-1"), ==, 2);
  g_assert_cmpuint (gpuprof_cpu_parse_cpu_list ("0-127\n"), ==, 128);
  g_assert_cmpuint (gpuprof_cpu_parse_cpu_list (""), ==, 0);
  g_assert_cmpuint (gpuprof_cpu_parse_cpu_list ("3-1"), ==, 0);
  g_assert_cmpuint (gpuprof_cpu_parse_cpu_list ("0-x"), ==, 0);
  g_assert_cmpuint (gpuprof_cpu_parse_cpu_list ("0;1"), ==, 0);
  g_assert_cmpuint (gpuprof_cpu_parse_cpu_list (NULL), ==, 0);
}

static void
test_cpu_max (void)
{
  gint64 quota = 0;
  guint64 period = 0;

  g_assert_true (gpuprof_cpu_parse_cpu_max ("max 100000\n", &quota, &period));
  g_assert_cmpint (quota, ==, -1);
  g_assert_cmpuint (period, ==, 100000);
  g_assert_true (gpuprof_cpu_parse_cpu_max ("50000 100000\n", &quota,
          &period));
  g_assert_cmpint (quota, ==, 50000);
  g_assert_cmpuint (period, ==, 100000);
  g_assert_true (gpuprof_cpu_parse_cpu_max ("250000 100000", &quota, &period));
  g_assert_cmpint (quota, ==, 250000);

  quota = 7;
  g_assert_false (gpuprof_cpu_parse_cpu_max ("", &quota, &period));
  g_assert_false (gpuprof_cpu_parse_cpu_max ("max", &quota, &period));
  g_assert_false (gpuprof_cpu_parse_cpu_max ("0 100000", &quota, &period));
  g_assert_false (gpuprof_cpu_parse_cpu_max ("50000 0", &quota, &period));
  g_assert_false (gpuprof_cpu_parse_cpu_max ("abc 100000", &quota, &period));
  g_assert_false (gpuprof_cpu_parse_cpu_max ("5 10 x", &quota, &period));
  g_assert_false (gpuprof_cpu_parse_cpu_max (NULL, &quota, &period));
  g_assert_cmpint (quota, ==, 7);       /* untouched */
}

static void
test_cpu_stat (void)
{
  GpuprofCpuThrottle t;

  /* v2: microseconds */
  g_assert_true (gpuprof_cpu_parse_cpu_stat ("usage_usec 8000\n"
          "user_usec 6000\nsystem_usec 2000\nnr_periods 50\nnr_throttled 7\n"
          "throttled_usec 12345\nnr_bursts 0\nburst_usec 0\n", &t));
  g_assert_cmpuint (t.nr_periods, ==, 50);
  g_assert_cmpuint (t.nr_throttled, ==, 7);
  g_assert_cmpuint (t.throttled_ns, ==, 12345000);
  /* v1: nanoseconds */
  g_assert_true (gpuprof_cpu_parse_cpu_stat ("nr_periods 9\nnr_throttled 3\n"
          "throttled_time 777\nnr_bursts 0\nburst_time 0\n", &t));
  g_assert_cmpuint (t.nr_periods, ==, 9);
  g_assert_cmpuint (t.nr_throttled, ==, 3);
  g_assert_cmpuint (t.throttled_ns, ==, 777);
  /* v2 without the cpu controller: usage only, no throttling */
  g_assert_false (gpuprof_cpu_parse_cpu_stat ("usage_usec 8000\n"
          "user_usec 6000\nsystem_usec 2000\n", &t));
  g_assert_false (gpuprof_cpu_parse_cpu_stat ("", &t));
  g_assert_false (gpuprof_cpu_parse_cpu_stat (NULL, &t));
}

static void
test_proc_cgroup (void)
{
  const gchar *hybrid = "12:pids:/user.slice\n4:cpu,cpuacct:/docker/abc\n"
      "1:name=systemd:/docker/abc\n0::/docker/abc/inner\n";
  gchar *p;

  p = gpuprof_cpu_parse_proc_cgroup (hybrid, TRUE);
  g_assert_cmpstr (p, ==, "/docker/abc");
  g_free (p);
  p = gpuprof_cpu_parse_proc_cgroup (hybrid, FALSE);
  g_assert_cmpstr (p, ==, "/docker/abc/inner");
  g_free (p);
  /* "cpuacct" or "cpuset" alone is not "cpu"; a path with ':' is kept */
  p = gpuprof_cpu_parse_proc_cgroup ("3:cpuset:/a\n2:cpuacct:/b\n", TRUE);
  g_assert_null (p);
  p = gpuprof_cpu_parse_proc_cgroup ("0::/a:b/c\n", FALSE);
  g_assert_cmpstr (p, ==, "/a:b/c");
  g_free (p);
  g_assert_null (gpuprof_cpu_parse_proc_cgroup ("0::/a\n", TRUE));
  g_assert_null (gpuprof_cpu_parse_proc_cgroup ("4:cpu:/a\n", FALSE));
  g_assert_null (gpuprof_cpu_parse_proc_cgroup ("", FALSE));
  g_assert_null (gpuprof_cpu_parse_proc_cgroup (NULL, FALSE));
}

static void
test_mountinfo (void)
{
  const gchar *text =
      "22 1 8:1 / / rw,relatime - ext4 /dev/root rw\n"
      "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
      "32 31 0:29 / /sys/fs/cgroup/cpuacct rw - cgroup cgroup rw,cpuacct\n"
      "33 31 0:30 /docker/abc /sys/fs/cgroup/cpu\\040x rw shared:5 - cgroup "
      "cgroup rw,cpu,cpuacct\n"
      "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";
  gchar *root = NULL, *mount = NULL;

  g_assert_true (gpuprof_cpu_parse_mountinfo (text, TRUE, &root, &mount));
  g_assert_cmpstr (root, ==, "/docker/abc");
  g_assert_cmpstr (mount, ==, "/sys/fs/cgroup/cpu x");
  g_free (root);
  g_free (mount);
  g_assert_true (gpuprof_cpu_parse_mountinfo (text, FALSE, &root, &mount));
  g_assert_cmpstr (root, ==, "/");
  g_assert_cmpstr (mount, ==, "/sys/fs/cgroup/unified");
  g_free (root);
  g_free (mount);
  g_assert_false (gpuprof_cpu_parse_mountinfo ("22 1 8:1 / / rw - ext4 x rw",
          FALSE, &root, &mount));
  g_assert_false (gpuprof_cpu_parse_mountinfo ("garbage\n\n", TRUE, &root,
          &mount));
  g_assert_false (gpuprof_cpu_parse_mountinfo (NULL, TRUE, &root, &mount));
}

/* ---- made-up machines ---- */

static void
put (const gchar * root, const gchar * path, const gchar * text)
{
  gchar *full = g_build_filename (root, path, NULL);
  gchar *dir = g_path_get_dirname (full);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (full, text, -1, NULL));
  g_free (dir);
  g_free (full);
}

static guint
real_affinity (void)
{
  cpu_set_t set;

  g_assert_cmpint (sched_getaffinity (0, sizeof (set), &set), ==, 0);
  return CPU_COUNT (&set);
}

static GpuprofCpuLimits
read_limits (const gchar * root, gchar ** cgroup_dir)
{
  GpuprofCpuLimitsReader *r = gpuprof_cpu_limits_reader_new (root);
  GpuprofCpuLimits l;
  const gchar *dir, *why = NULL;

  gpuprof_cpu_limits_read (r, &l);
  dir = gpuprof_cpu_limits_reader_cgroup (r, &why);
  g_assert_true ((dir == NULL) != (why == NULL));
  *cgroup_dir = dir ? g_strdup (dir + strlen (root)) : NULL;
  gpuprof_cpu_limits_reader_free (r);
  g_assert_cmpuint (l.affinity, ==, real_affinity ());
  return l;
}

/* cgroup v2 with nested quotas: the tightest on the path binds */
static void
test_limits_v2 (void)
{
  gchar *root = gpuprof_test_tmpdir_new ("gpuprof-cpu-XXXXXX"), *dir;
  GpuprofCpuLimits l;

  put (root, "proc/self/cgroup", "0::/kubepods/pod1/ctr\n");
  put (root, "proc/self/mountinfo",
      "30 20 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n");
  put (root, "sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory\n");
  put (root, "sys/fs/cgroup/kubepods/cpu.max", "max 100000\n");
  put (root, "sys/fs/cgroup/kubepods/pod1/cpu.max", "150000 100000\n");
  put (root, "sys/fs/cgroup/kubepods/pod1/cpu.stat", "usage_usec 1000\n"
      "nr_periods 50\nnr_throttled 7\nthrottled_usec 12345\n");
  put (root, "sys/fs/cgroup/kubepods/pod1/ctr/cpu.max", "400000 100000\n");
  put (root, "sys/fs/cgroup/kubepods/pod1/ctr/cpu.stat", "usage_usec 1\n"
      "nr_periods 1\nnr_throttled 0\nthrottled_usec 0\n");
  put (root, "sys/devices/system/cpu/online", "0-63\n");

  l = read_limits (root, &dir);
  g_assert_cmpstr (dir, ==, "/sys/fs/cgroup/kubepods/pod1/ctr");
  g_assert_cmpuint (l.online, ==, 64);
  g_assert_cmpint (l.quota_state, ==, GPUPROF_CPU_QUOTA_SET);
  g_assert_cmpfloat_with_epsilon (l.quota, 1.5, 1e-9);
  g_assert_true (l.have_throttle);      /* pod1's: its quota binds */
  g_assert_cmpuint (l.throttle.nr_periods, ==, 50);
  g_assert_cmpuint (l.throttle.nr_throttled, ==, 7);
  g_assert_cmpuint (l.throttle.throttled_ns, ==, 12345000);
  if (l.affinity > 1) {
    g_assert_cmpfloat_with_epsilon (l.available, 1.5, 1e-9);
    g_assert_cmpint (l.limited_by, ==, GPUPROF_CPU_LIMIT_QUOTA);
  } else {
    g_assert_cmpfloat_with_epsilon (l.available, 1, 1e-9);
    g_assert_cmpint (l.limited_by, ==, GPUPROF_CPU_LIMIT_AFFINITY);
  }
  g_free (dir);

  /* the quotas lifted: none, and no throttling to read */
  put (root, "sys/fs/cgroup/kubepods/pod1/cpu.max", "max 100000\n");
  put (root, "sys/fs/cgroup/kubepods/pod1/ctr/cpu.max", "max 100000\n");
  l = read_limits (root, &dir);
  g_assert_cmpint (l.quota_state, ==, GPUPROF_CPU_QUOTA_NONE);
  g_assert_false (l.have_throttle);
  g_assert_cmpfloat (l.available, ==, MIN (64, l.affinity));
  g_free (dir);
  g_assert_cmpint (gpuprof_test_tmpdir_done (root, 0), ==, 0);
}

/* a container without its own cgroup namespace: its cgroup is mounted as
 * the root of /sys/fs/cgroup, /proc/self/cgroup shows the host's path */
static void
test_limits_container (void)
{
  gchar *root = gpuprof_test_tmpdir_new ("gpuprof-cpu-XXXXXX"), *dir;
  GpuprofCpuLimits l;

  put (root, "proc/self/cgroup", "0::/system.slice/docker-abc.scope\n");
  put (root, "proc/self/mountinfo", "40 30 0:26 /system.slice/docker-abc.scope"
      " /sys/fs/cgroup ro,nosuid - cgroup2 cgroup rw\n");
  put (root, "sys/fs/cgroup/cgroup.controllers", "cpu memory pids\n");
  put (root, "sys/fs/cgroup/cpu.max", "50000 100000\n");
  put (root, "sys/devices/system/cpu/online", "0-15\n");
  l = read_limits (root, &dir);
  g_assert_cmpstr (dir, ==, "/sys/fs/cgroup");
  g_assert_cmpint (l.quota_state, ==, GPUPROF_CPU_QUOTA_SET);
  g_assert_cmpfloat_with_epsilon (l.available, 0.5, 1e-9);
  g_assert_cmpint (l.limited_by, ==, GPUPROF_CPU_LIMIT_QUOTA);
  g_assert_false (l.have_throttle);     /* no cpu.stat there */
  g_free (dir);
  g_assert_cmpint (gpuprof_test_tmpdir_done (root, 0), ==, 0);
}

/* a hybrid machine: the cpu controller on v1, a mount root to cut */
static void
test_limits_v1 (void)
{
  gchar *root = gpuprof_test_tmpdir_new ("gpuprof-cpu-XXXXXX"), *dir;
  GpuprofCpuLimits l;

  put (root, "proc/self/cgroup", "4:cpu,cpuacct:/docker/abc\n"
      "1:name=systemd:/docker/abc\n0::/docker/abc\n");
  put (root, "proc/self/mountinfo",
      "41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n"
      "33 31 0:30 /docker /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup "
      "rw,cpu,cpuacct\n");
  put (root, "sys/fs/cgroup/cpu,cpuacct/abc/cpu.cfs_quota_us", "-1\n");
  put (root, "sys/fs/cgroup/cpu,cpuacct/abc/cpu.cfs_period_us", "100000\n");
  put (root, "sys/devices/system/cpu/online", "0-1\n");
  l = read_limits (root, &dir);
  g_assert_cmpstr (dir, ==, "/sys/fs/cgroup/cpu,cpuacct/abc");
  g_assert_cmpint (l.quota_state, ==, GPUPROF_CPU_QUOTA_NONE);
  g_free (dir);

  put (root, "sys/fs/cgroup/cpu,cpuacct/abc/cpu.cfs_quota_us", "25000\n");
  put (root, "sys/fs/cgroup/cpu,cpuacct/abc/cpu.stat", "nr_periods 9\n"
      "nr_throttled 3\nthrottled_time 777\n");
  l = read_limits (root, &dir);
  g_assert_cmpint (l.quota_state, ==, GPUPROF_CPU_QUOTA_SET);
  g_assert_cmpfloat_with_epsilon (l.quota, 0.25, 1e-9);
  g_assert_cmpfloat_with_epsilon (l.available, 0.25, 1e-9);
  g_assert_true (l.have_throttle);
  g_assert_cmpuint (l.throttle.nr_throttled, ==, 3);
  g_assert_cmpuint (l.throttle.throttled_ns, ==, 777);
  g_free (dir);
  g_assert_cmpint (gpuprof_test_tmpdir_done (root, 0), ==, 0);
}

/* no cgroup with the cpu controller (v2 without it, or nothing mounted):
 * the quota is unknown, not an error; the other limits still count */
static void
test_limits_unknown (void)
{
  gchar *root = gpuprof_test_tmpdir_new ("gpuprof-cpu-XXXXXX"), *dir;
  GpuprofCpuLimits l;

  put (root, "proc/self/cgroup", "1:name=systemd:/\n0::/\n");
  put (root, "proc/self/mountinfo",
      "41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n");
  put (root, "sys/fs/cgroup/unified/cgroup.controllers", "memory pids\n");
  put (root, "sys/devices/system/cpu/online", "0-3\n");
  l = read_limits (root, &dir);
  g_assert_cmpstr (dir, ==, "/sys/fs/cgroup/unified");
  g_assert_cmpint (l.quota_state, ==, GPUPROF_CPU_QUOTA_UNKNOWN);
  g_assert_cmpuint (l.online, ==, 4);
  g_assert_cmpfloat (l.available, ==, MIN (4, l.affinity));
  g_assert_cmpint (l.limited_by, ==, l.affinity < 4 ?
      GPUPROF_CPU_LIMIT_AFFINITY : GPUPROF_CPU_LIMIT_ONLINE);
  g_free (dir);
  g_assert_cmpint (gpuprof_test_tmpdir_done (root, 0), ==, 0);

  /* an empty root: no /proc, no /sys */
  root = gpuprof_test_tmpdir_new ("gpuprof-cpu-XXXXXX");
  l = read_limits (root, &dir);
  g_assert_null (dir);
  g_assert_cmpint (l.quota_state, ==, GPUPROF_CPU_QUOTA_UNKNOWN);
  g_assert_cmpuint (l.online, ==, 0);
  g_assert_cmpfloat (l.available, ==, l.affinity);
  g_assert_cmpint (l.limited_by, ==, GPUPROF_CPU_LIMIT_AFFINITY);
  g_assert_cmpint (gpuprof_test_tmpdir_done (root, 0), ==, 0);
}

/* ---- a made-up task folder ---- */

static void
put_thread (const gchar * root, gint tid, const gchar * name, guint64 ticks,
    guint64 start, guint64 on_cpu, guint64 delay, guint64 slices)
{
  gchar *path = g_strdup_printf ("%d/stat", tid);
  gchar *text = g_strdup_printf ("%d (%s) S 1 1 1 0 -1 0 0 0 0 0 %"
      G_GUINT64_FORMAT " 0 0 0 20 0 1 0 %" G_GUINT64_FORMAT " 0\n", tid,
      name, ticks, start);

  put (root, path, text);
  g_free (path);
  g_free (text);
  path = g_strdup_printf ("%d/schedstat", tid);
  text = g_strdup_printf ("%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %"
      G_GUINT64_FORMAT "\n", on_cpu, delay, slices);
  put (root, path, text);
  g_free (path);
  g_free (text);
}

static void
drop_thread (const gchar * root, gint tid)
{
  gchar *dir = g_strdup_printf ("%s/%d", root, tid);
  gchar *stat = g_build_filename (dir, "stat", NULL);
  gchar *schedstat = g_build_filename (dir, "schedstat", NULL);

  g_assert_cmpint (g_unlink (stat) | g_unlink (schedstat) | g_rmdir (dir), ==,
      0);
  g_free (schedstat);
  g_free (stat);
  g_free (dir);
}

static void
test_task_folder (void)
{
  gchar *root = gpuprof_test_tmpdir_new ("gpuprof-cpu-XXXXXX");
  GpuprofCpuThreads *t = gpuprof_cpu_threads_new (root, NULL);
  const GpuprofCpuThread *a, *b;
  guint64 tick = 1000000000 / sysconf (_SC_CLK_TCK);
  GError *error = NULL;

  g_assert_null (gpuprof_cpu_threads_new ("/nonexistent/task", &error));
  g_assert_nonnull (strstr (error->message, "/nonexistent/task"));
  g_clear_error (&error);

  /* the first pass is the baseline: no NEW, no deltas */
  put_thread (root, 100, "main", 10, 500, 1000, 200, 3);
  put_thread (root, 101, "worker", 4, 510, 400, 50, 2);
  g_assert_cmpuint (gpuprof_cpu_threads_read (t, GPUPROF_CPU_READ_ALL), ==, 2);
  a = gpuprof_cpu_threads_find (t, 100);
  g_assert_nonnull (a);
  g_assert_cmpstr (a->name, ==, "main");
  g_assert_cmpint (a->state, ==, 'S');
  g_assert_cmpuint (a->flags, ==, 0);
  g_assert_cmpuint (a->total.cpu_ns, ==, 10 * tick);
  g_assert_cmpuint (a->total.on_cpu_ns, ==, 1000);
  g_assert_cmpuint (a->delta.on_cpu_ns, ==, 0);
  g_assert_cmpuint (gpuprof_cpu_threads_interval_ns (t), ==, 0);

  /* 101 ends, 102 starts, 100 runs on; a non-thread entry is ignored */
  drop_thread (root, 101);
  put_thread (root, 102, "lazy", 1, 600, 300, 30, 1);
  put_thread (root, 100, "main", 15, 500, 1700, 260, 5);
  put (root, "not-a-tid/stat", "x");
  g_assert_cmpuint (gpuprof_cpu_threads_read (t, GPUPROF_CPU_READ_ALL), ==, 3);
  a = gpuprof_cpu_threads_find (t, 100);
  g_assert_cmpuint (a->flags, ==, 0);
  g_assert_cmpuint (a->delta.cpu_ns, ==, 5 * tick);
  g_assert_cmpuint (a->delta.on_cpu_ns, ==, 700);
  g_assert_cmpuint (a->delta.run_delay_ns, ==, 60);
  g_assert_cmpuint (a->delta.timeslices, ==, 2);
  b = gpuprof_cpu_threads_find (t, 102);
  g_assert_cmpuint (b->flags, ==, GPUPROF_CPU_THREAD_NEW);
  g_assert_cmpuint (b->delta.on_cpu_ns, ==, 300);       /* since its start */
  /* the ended one: one more row, last reading, no delta, not found */
  g_assert_null (gpuprof_cpu_threads_find (t, 101));
  b = gpuprof_cpu_threads_row (t, 2);
  g_assert_cmpint (b->tid, ==, 101);
  g_assert_cmpuint (b->flags, ==, GPUPROF_CPU_THREAD_ENDED);
  g_assert_cmpstr (b->name, ==, "worker");
  g_assert_cmpuint (b->total.on_cpu_ns, ==, 400);
  g_assert_cmpuint (b->delta.on_cpu_ns, ==, 0);
  g_assert_cmpuint (gpuprof_cpu_threads_interval_ns (t), >, 0);

  /* the ended row is gone after one pass; tid 102 reused by a new thread
   * (another start time) is NEW, its former self ENDED */
  put_thread (root, 102, "reused", 0, 700, 50, 5, 1);
  g_assert_cmpuint (gpuprof_cpu_threads_read (t, GPUPROF_CPU_READ_ALL), ==, 3);
  b = gpuprof_cpu_threads_find (t, 102);
  g_assert_cmpuint (b->flags, ==, GPUPROF_CPU_THREAD_NEW);
  g_assert_cmpstr (b->name, ==, "reused");
  g_assert_cmpuint (b->delta.on_cpu_ns, ==, 50);
  b = gpuprof_cpu_threads_row (t, 2);
  g_assert_cmpint (b->tid, ==, 102);
  g_assert_cmpuint (b->flags, ==, GPUPROF_CPU_THREAD_ENDED);
  g_assert_cmpstr (b->name, ==, "lazy");

  /* schedstat alone: stat's figures stay as last read; a reuse still
   * shows (less time on a CPU than before) and its stat is then read */
  put_thread (root, 100, "renamed", 99, 500, 2000, 300, 6);
  put_thread (root, 102, "again", 0, 800, 10, 1, 1);
  g_assert_cmpuint (gpuprof_cpu_threads_read (t, GPUPROF_CPU_READ_SCHEDSTAT),
      ==, 3);
  a = gpuprof_cpu_threads_find (t, 100);
  g_assert_cmpuint (a->flags, ==, 0);
  g_assert_cmpstr (a->name, ==, "main");
  g_assert_cmpuint (a->delta.cpu_ns, ==, 0);
  g_assert_cmpuint (a->delta.on_cpu_ns, ==, 300);
  b = gpuprof_cpu_threads_find (t, 102);
  g_assert_cmpuint (b->flags, ==, GPUPROF_CPU_THREAD_NEW);
  g_assert_cmpstr (b->name, ==, "again");
  g_assert_cmpuint (b->start_ticks, ==, 800);

  /* a thread whose files are unreadable is skipped, not an error */
  put (root, "103/stat", "garbage");
  put (root, "103/schedstat", "1 2 3\n");
  g_assert_cmpuint (gpuprof_cpu_threads_read (t, GPUPROF_CPU_READ_ALL), ==, 2);
  g_assert_null (gpuprof_cpu_threads_find (t, 103));
  g_assert_cmpuint (gpuprof_cpu_threads_passes (t), ==, 5);

  gpuprof_cpu_threads_free (t);
  g_assert_cmpint (gpuprof_test_tmpdir_done (root, 0), ==, 0);
}

/* more threads than the first arrays hold: they grow, then stay */
static void
test_task_folder_grows (void)
{
  gchar *root = gpuprof_test_tmpdir_new ("gpuprof-cpu-XXXXXX");
  GpuprofCpuThreads *t = gpuprof_cpu_threads_new (root, NULL);
  guint i, grown;

  for (i = 0; i < 300; i++)
    put_thread (root, 1000 + i, "t", 1, 1 + i, 10, 1, 1);
  g_assert_cmpuint (gpuprof_cpu_threads_read (t, GPUPROF_CPU_READ_ALL), ==,
      300);
  grown = gpuprof_cpu_threads_grown (t);
  g_assert_cmpuint (grown, >, 0);
  for (i = 0; i < 5; i++)
    g_assert_cmpuint (gpuprof_cpu_threads_read (t, GPUPROF_CPU_READ_ALL), ==,
        300);
  g_assert_cmpuint (gpuprof_cpu_threads_grown (t), ==, grown);
  for (i = 0; i < 300; i++)
    g_assert_cmpint (gpuprof_cpu_threads_find (t, 1000 + i)->tid, ==,
        1000 + i);
  gpuprof_cpu_threads_free (t);
  g_assert_cmpint (gpuprof_test_tmpdir_done (root, 0), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cpu/parse/stat", test_stat_line);
  g_test_add_func ("/cpu/parse/schedstat", test_schedstat_line);
  g_test_add_func ("/cpu/parse/cpu-list", test_cpu_list);
  g_test_add_func ("/cpu/parse/cpu-max", test_cpu_max);
  g_test_add_func ("/cpu/parse/cpu-stat", test_cpu_stat);
  g_test_add_func ("/cpu/parse/proc-cgroup", test_proc_cgroup);
  g_test_add_func ("/cpu/parse/mountinfo", test_mountinfo);
  g_test_add_func ("/cpu/limits/v2-nested", test_limits_v2);
  g_test_add_func ("/cpu/limits/container", test_limits_container);
  g_test_add_func ("/cpu/limits/v1-hybrid", test_limits_v1);
  g_test_add_func ("/cpu/limits/unknown", test_limits_unknown);
  g_test_add_func ("/cpu/threads/task-folder", test_task_folder);
  g_test_add_func ("/cpu/threads/grows", test_task_folder_grows);
  return g_test_run ();
}
