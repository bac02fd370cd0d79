/* gpuprof: the process's CPU, used and available (see
 * gpuprof-cpu-limits.h).
 *
 * The cgroup is found once: the hierarchy that carries the cpu controller
 * (v1 "cpu" mount first, as on hybrid machines the cgroup2 mount has no
 * cpu controller, else cgroup2), its mount from mountinfo (a container
 * without its own cgroup namespace mounts its cgroup as the root: the
 * mount's root is cut from the path /proc/self/cgroup gives), and the
 * folders from the process's cgroup up to the mount point. A read looks at
 * each folder's quota: the tightest binds. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "gpuprof-cpu-limits.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

typedef enum
{
  CG_NONE = 0,
  CG_V1,
  CG_V2,
} CgroupVersion;

struct _GpuprofCpuLimitsReader
{
  gchar *online_path;
  CgroupVersion version;
  const gchar *why;             /* no cgroup: why (static) */
  gchar *dir;                   /* the process's cpu cgroup */
  gboolean has_cpu;             /* v2: the hierarchy has the cpu controller */
  GPtrArray *levels;            /* folders from dir up to the mount point */
};

/* ---- parsers ---- */

guint
gpuprof_cpu_parse_cpu_list (const gchar * text)
{
  const gchar *p = text;
  guint count = 0;

  if (!text)
    return 0;
  while (*p && *p != '\n') {
    gchar *end;
    guint64 first = g_ascii_strtoull (p, &end, 10), last = first;

    if (end == p)
      return 0;
    p = end;
    if (*p == '-') {
      last = g_ascii_strtoull (++p, &end, 10);
      if (end == p || last < first)
        return 0;
      p = end;
    }
    count += (guint) (last - first + 1);
    if (*p == ',')
      p++;
    else if (*p && *p != '\n')
      return 0;
  }
  return count;
}

gboolean
gpuprof_cpu_parse_cpu_max (const gchar * text, gint64 * quota_us,
    guint64 * period_us)
{
  const gchar *p = text;
  gchar *end;
  gint64 quota;
  guint64 period;

  if (!text)
    return FALSE;
  if (g_str_has_prefix (p, "max")) {
    quota = -1;
    p += 3;
  } else {
    quota = g_ascii_strtoll (p, &end, 10);
    if (end == p || quota <= 0)
      return FALSE;
    p = end;
  }
  if (*p != ' ')
    return FALSE;
  period = g_ascii_strtoull (++p, &end, 10);
  if (end == p || period == 0 || (*end && *end != '\n'))
    return FALSE;
  *quota_us = quota;
  *period_us = period;
  return TRUE;
}

/* allocation-free: read on every sample */
gboolean
gpuprof_cpu_parse_cpu_stat (const gchar * text, GpuprofCpuThrottle * out)
{
  static const struct
  {
    const gchar *key;
    gsize offset;
    guint64 unit_ns;            /* 0: a count */
  } keys[] = {
    {"nr_periods ", G_STRUCT_OFFSET (GpuprofCpuThrottle, nr_periods), 0},
    {"nr_throttled ", G_STRUCT_OFFSET (GpuprofCpuThrottle, nr_throttled), 0},
    {"throttled_usec ", G_STRUCT_OFFSET (GpuprofCpuThrottle, throttled_ns),
        1000},
    {"throttled_time ", G_STRUCT_OFFSET (GpuprofCpuThrottle, throttled_ns), 1},
  };
  const gchar *line;
  gboolean found = FALSE;

  if (!text)
    return FALSE;
  memset (out, 0, sizeof (*out));
  for (line = text; *line; line++) {
    guint k;

    for (k = 0; k < G_N_ELEMENTS (keys); k++) {
      gsize len = strlen (keys[k].key);
      guint64 v;

      if (strncmp (line, keys[k].key, len))
        continue;
      v = g_ascii_strtoull (line + len, NULL, 10);
      G_STRUCT_MEMBER (guint64, out, keys[k].offset) =
          keys[k].unit_ns ? v * keys[k].unit_ns : v;
      found |= keys[k].unit_ns != 0;
    }
    if (!(line = strchr (line, '\n')))
      break;
  }
  return found;
}

static gboolean
list_has (const gchar * list, const gchar * item)
{
  gchar **items = g_strsplit (list, ",", -1);
  gboolean found = g_strv_contains ((const gchar * const *) items, item);

  g_strfreev (items);
  return found;
}

gchar *
gpuprof_cpu_parse_proc_cgroup (const gchar * text, gboolean v1)
{
  gchar **lines, *path = NULL;
  guint i;

  if (!text)
    return NULL;
  lines = g_strsplit (text, "\n", -1);
  for (i = 0; lines[i] && !path; i++) {
    /* hierarchy-id:controllers:path (the path may hold ':') */
    gchar **f = g_strsplit (lines[i], ":", 3);

    if (g_strv_length (f) == 3 && f[2][0] == '/') {
      gboolean v2_line = !strcmp (f[0], "0") && f[1][0] == 0;

      if (v1 ? (!v2_line && list_has (f[1], "cpu")) : v2_line)
        path = g_strdup (f[2]);
    }
    g_strfreev (f);
  }
  g_strfreev (lines);
  return path;
}

/* mountinfo escapes ' ', '\t', '\n' and '\\' as \ooo */
static gchar *
unescape_octal (const gchar * s)
{
  GString *out = g_string_new (NULL);

  while (*s) {
    if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0'
        && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
      g_string_append_c (out, (gchar) ((s[1] - '0') * 64 + (s[2] - '0') * 8
              + (s[3] - '0')));
      s += 4;
    } else
      g_string_append_c (out, *s++);
  }
  return g_string_free (out, FALSE);
}

gboolean
gpuprof_cpu_parse_mountinfo (const gchar * text, gboolean v1, gchar ** root,
    gchar ** mount_point)
{
  gchar **lines;
  gboolean found = FALSE;
  guint i;

  if (!text)
    return FALSE;
  lines = g_strsplit (text, "\n", -1);
  for (i = 0; lines[i] && !found; i++) {
    /* id parent maj:min root mount-point options [optional...] - type
     * source super-options */
    gchar **f = g_strsplit (lines[i], " ", -1);
    guint n = g_strv_length (f), dash;

    for (dash = 6; dash < n && strcmp (f[dash], "-"); dash++);
    if (n >= 5 && dash + 3 < n) {
      const gchar *type = f[dash + 1], *super = f[dash + 3];

      if (v1 ? (!strcmp (type, "cgroup") && list_has (super, "cpu"))
          : !strcmp (type, "cgroup2")) {
        *root = unescape_octal (f[3]);
        *mount_point = unescape_octal (f[4]);
        found = TRUE;
      }
    }
    g_strfreev (f);
  }
  g_strfreev (lines);
  return found;
}

/* ---- files ---- */

/* reads a small file into @buf, NUL-terminated; FALSE when unreadable */
static gboolean
read_small (const gchar * path, gchar * buf, gsize size)
{
  gssize got;
  gint fd = open (path, O_RDONLY | O_CLOEXEC);

  if (fd < 0)
    return FALSE;
  do
    got = read (fd, buf, size - 1);
  while (got < 0 && errno == EINTR);
  close (fd);
  if (got <= 0)
    return FALSE;
  buf[got] = 0;
  return TRUE;
}

static gchar *
read_whole (const gchar * root, const gchar * path)
{
  gchar *full = g_strconcat (root, path, NULL), *text = NULL;

  if (!g_file_get_contents (full, &text, NULL, NULL))
    text = NULL;
  g_free (full);
  return text;
}

/* the process's cgroup folder of @version's hierarchy, under @root */
static gchar *
find_cgroup_dir (const gchar * root, gboolean v1, gchar ** mount_dir)
{
  gchar *cgroups = read_whole (root, "/proc/self/cgroup");
  gchar *mounts = read_whole (root, "/proc/self/mountinfo");
  gchar *path = gpuprof_cpu_parse_proc_cgroup (cgroups, v1);
  gchar *mount_root = NULL, *mount_point = NULL, *dir = NULL;

  if (path && gpuprof_cpu_parse_mountinfo (mounts, v1, &mount_root,
          &mount_point)) {
    const gchar *rel = path;
    gsize root_len = strlen (mount_root);

    /* the mount shows the hierarchy from mount_root down */
    if (strcmp (mount_root, "/") && g_str_has_prefix (path, mount_root)
        && (path[root_len] == '/' || path[root_len] == 0))
      rel = path + root_len;
    else if (strcmp (mount_root, "/"))
      rel = "";                 /* outside what is mounted: its top */
    *mount_dir = g_strconcat (root, mount_point, NULL);
    dir = g_strconcat (*mount_dir, rel, NULL);
    /* no trailing '/': the walk up compares with the mount folder */
    while (strlen (dir) > strlen (*mount_dir) && g_str_has_suffix (dir, "/"))
      dir[strlen (dir) - 1] = 0;
  }
  g_free (cgroups);
  g_free (mounts);
  g_free (path);
  g_free (mount_root);
  g_free (mount_point);
  return dir;
}

GpuprofCpuLimitsReader *
gpuprof_cpu_limits_reader_new (const gchar * root)
{
  GpuprofCpuLimitsReader *r = g_new0 (GpuprofCpuLimitsReader, 1);
  gchar *mount_dir = NULL, *level;

  if (!root)
    root = "";
  r->online_path = g_strconcat (root, "/sys/devices/system/cpu/online", NULL);
  r->levels = g_ptr_array_new_with_free_func (g_free);
  if ((r->dir = find_cgroup_dir (root, TRUE, &mount_dir)))
    r->version = CG_V1;
  else if ((r->dir = find_cgroup_dir (root, FALSE, &mount_dir))) {
    gchar *controllers = g_build_filename (mount_dir, "cgroup.controllers",
        NULL);
    gchar buf[512];

    r->version = CG_V2;
    /* cgroup.controllers: names separated by spaces */
    if (read_small (controllers, buf, sizeof (buf))) {
      gchar **names = g_strsplit (g_strstrip (buf), " ", -1);

      r->has_cpu = g_strv_contains ((const gchar * const *) names, "cpu");
      g_strfreev (names);
    }
    g_free (controllers);
  } else
    r->why = "no cgroup hierarchy with the cpu controller is mounted";

  if (r->dir) {
    level = g_strdup (r->dir);
    while (TRUE) {
      gchar *slash;

      g_ptr_array_add (r->levels, level);
      if (strlen (level) <= strlen (mount_dir))
        break;
      level = g_strdup (level);
      slash = strrchr (level, '/');
      *slash = 0;
    }
  }
  g_free (mount_dir);
  return r;
}

void
gpuprof_cpu_limits_reader_free (GpuprofCpuLimitsReader * r)
{
  if (!r)
    return;
  g_free (r->online_path);
  g_free (r->dir);
  g_ptr_array_unref (r->levels);
  g_free (r);
}

const gchar *
gpuprof_cpu_limits_reader_cgroup (const GpuprofCpuLimitsReader * r,
    const gchar ** why)
{
  if (why)
    *why = r->why;
  return r->dir;
}

/* the quota of one cgroup folder in cores; 0: none there; -1: no file */
static gdouble
level_quota (const GpuprofCpuLimitsReader * r, const gchar * dir)
{
  gchar path[4096], buf[128];
  gint64 quota;
  guint64 period;

  if (r->version == CG_V2) {
    g_snprintf (path, sizeof (path), "%s/cpu.max", dir);
    if (!read_small (path, buf, sizeof (buf))
        || !gpuprof_cpu_parse_cpu_max (buf, &quota, &period))
      return -1;
  } else {
    gchar *end;

    g_snprintf (path, sizeof (path), "%s/cpu.cfs_quota_us", dir);
    if (!read_small (path, buf, sizeof (buf)))
      return -1;
    quota = g_ascii_strtoll (buf, &end, 10);
    if (end == buf)
      return -1;
    g_snprintf (path, sizeof (path), "%s/cpu.cfs_period_us", dir);
    if (!read_small (path, buf, sizeof (buf))
        || !(period = g_ascii_strtoull (buf, NULL, 10)))
      return -1;
  }
  return quota > 0 ? (gdouble) quota / (gdouble) period : 0;
}

static void
read_quota (GpuprofCpuLimitsReader * r, GpuprofCpuLimits * out)
{
  const gchar *binding = NULL;
  gboolean any_file = FALSE;
  guint i;

  out->quota_state = GPUPROF_CPU_QUOTA_UNKNOWN;
  if (!r->dir)
    return;
  for (i = 0; i < r->levels->len; i++) {
    const gchar *dir = g_ptr_array_index (r->levels, i);
    gdouble cores = level_quota (r, dir);

    any_file |= cores >= 0;
    if (cores > 0 && (!binding || cores < out->quota)) {
      binding = dir;
      out->quota = cores;
    }
  }
  if (binding) {
    gchar path[4096], buf[1024];

    out->quota_state = GPUPROF_CPU_QUOTA_SET;
    g_snprintf (path, sizeof (path), "%s/cpu.stat", binding);
    out->have_throttle = read_small (path, buf, sizeof (buf))
        && gpuprof_cpu_parse_cpu_stat (buf, &out->throttle);
  } else if (any_file || r->version == CG_V1 || r->has_cpu)
    out->quota_state = GPUPROF_CPU_QUOTA_NONE;
}

static guint
affinity_count (void)
{
  cpu_set_t set;
  guint n;

  if (sched_getaffinity (getpid (), sizeof (set), &set) == 0)
    return (guint) CPU_COUNT (&set);
  /* more CPUs than a cpu_set_t holds */
  for (n = 2 * CPU_SETSIZE; n <= 64 * CPU_SETSIZE; n *= 2) {
    cpu_set_t *big = CPU_ALLOC (n);
    gsize size = CPU_ALLOC_SIZE (n);
    guint count = 0;

    if (sched_getaffinity (getpid (), size, big) == 0)
      count = (guint) CPU_COUNT_S (size, big);
    CPU_FREE (big);
    if (count || errno != EINVAL)
      return count;
  }
  return 0;
}

void
gpuprof_cpu_limits_read (GpuprofCpuLimitsReader * r, GpuprofCpuLimits * out)
{
  gchar buf[1024];

  memset (out, 0, sizeof (*out));
  if (read_small (r->online_path, buf, sizeof (buf)))
    out->online = gpuprof_cpu_parse_cpu_list (buf);
  out->affinity = affinity_count ();
  read_quota (r, out);

  if (out->online) {
    out->available = out->online;
    out->limited_by = GPUPROF_CPU_LIMIT_ONLINE;
  }
  if (out->affinity && (!out->available || out->affinity < out->available)) {
    out->available = out->affinity;
    out->limited_by = GPUPROF_CPU_LIMIT_AFFINITY;
  }
  if (out->quota_state == GPUPROF_CPU_QUOTA_SET
      && (!out->available || out->quota < out->available)) {
    out->available = out->quota;
    out->limited_by = GPUPROF_CPU_LIMIT_QUOTA;
  }
}

void
gpuprof_cpu_process_read (GpuprofCpuProcess * out)
{
  struct rusage ru;

  memset (out, 0, sizeof (*out));
  if (getrusage (RUSAGE_SELF, &ru) != 0)
    return;
  out->user_ns = (guint64) ru.ru_utime.tv_sec * G_GUINT64_CONSTANT (1000000000)
      + (guint64) ru.ru_utime.tv_usec * 1000;
  out->system_ns = (guint64) ru.ru_stime.tv_sec * G_GUINT64_CONSTANT (1000000000)
      + (guint64) ru.ru_stime.tv_usec * 1000;
  out->voluntary_switches = (guint64) ru.ru_nvcsw;
  out->involuntary_switches = (guint64) ru.ru_nivcsw;
}

const gchar *
gpuprof_cpu_limit_name (GpuprofCpuLimit limit)
{
  switch (limit) {
    case GPUPROF_CPU_LIMIT_ONLINE:
      return "online";
    case GPUPROF_CPU_LIMIT_AFFINITY:
      return "affinity";
    case GPUPROF_CPU_LIMIT_QUOTA:
      return "quota";
    default:
      return "unknown";
  }
}
