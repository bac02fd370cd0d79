/* gpuprof: the process's CPU, used and available.
 *
 * Used: getrusage(RUSAGE_SELF) — every thread's CPU, ended threads
 * included. Available: the fewest cores of three limits — the CPUs online,
 * the process's affinity mask (which a cgroup cpuset also narrows) and the
 * container's CPU quota (cgroup v2 cpu.max, or v1 cpu.cfs_quota_us /
 * cpu.cfs_period_us; the tightest one on the path from the process's
 * cgroup up to the root of the mounted hierarchy), with the throttling of
 * the cgroup whose quota binds (cpu.stat). docs/resources.md, "CPU limits".
 *
 * "Unknown" is not an error: a machine without a cgroup hierarchy that
 * carries the cpu controller has an unknown quota, and the cores
 * available are then the other two limits.
 *
 * Threading contract: a GpuprofCpuLimitsReader belongs to one thread at a
 * time (the sampler); no locks, no hooks. gpuprof_cpu_limits_reader_new()
 * finds the cgroup once (it allocates); a read opens a few small files and
 * allocates nothing. gpuprof_cpu_process_read() is safe on any thread.
 * The parsers are pure functions. */
#pragma once

#include "gpuprof-api.h"

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  guint64 user_ns, system_ns;   /* all threads' CPU, ended ones included */
  guint64 voluntary_switches;   /* ru_nvcsw: a thread blocked */
  guint64 involuntary_switches; /* ru_nivcsw: a thread was preempted */
} GpuprofCpuProcess;

typedef enum
{
  GPUPROF_CPU_QUOTA_UNKNOWN = 0,        /* no cgroup with the cpu controller */
  GPUPROF_CPU_QUOTA_NONE,       /* found, no quota on the path */
  GPUPROF_CPU_QUOTA_SET,
} GpuprofCpuQuota;

typedef enum
{
  GPUPROF_CPU_LIMIT_UNKNOWN = 0,
  GPUPROF_CPU_LIMIT_ONLINE,
  GPUPROF_CPU_LIMIT_AFFINITY,
  GPUPROF_CPU_LIMIT_QUOTA,
} GpuprofCpuLimit;

/* cgroup cpu.stat, throttling (v2 throttled_usec, v1 throttled_time ns) */
typedef struct
{
  guint64 nr_periods;           /* quota periods with runnable threads */
  guint64 nr_throttled;         /* periods the quota ran out */
  guint64 throttled_ns;         /* time the cgroup's threads were held */
} GpuprofCpuThrottle;

typedef struct
{
  guint online;                 /* CPUs online; 0: unknown */
  guint affinity;               /* CPUs in the main thread's mask; 0: unknown */
  GpuprofCpuQuota quota_state;
  gdouble quota;                /* QUOTA_SET: cores (quota / period) */
  gdouble available;            /* the fewest cores of those known; 0: none known */
  GpuprofCpuLimit limited_by;   /* which limit gives @available */
  gboolean have_throttle;       /* QUOTA_SET and its cpu.stat read */
  GpuprofCpuThrottle throttle;  /* of the cgroup whose quota binds */
} GpuprofCpuLimits;

typedef struct _GpuprofCpuLimitsReader GpuprofCpuLimitsReader;

/* @root: prefix of every path read ("/proc/self/cgroup",
 * "/proc/self/mountinfo", the cgroup files, "/sys/devices/system/cpu/
 * online"); %NULL for "" (the machine). Never fails: what it cannot find
 * is unknown. */
GPUPROF_API
GpuprofCpuLimitsReader *gpuprof_cpu_limits_reader_new (const gchar * root);
GPUPROF_API
void gpuprof_cpu_limits_reader_free (GpuprofCpuLimitsReader * r);
GPUPROF_API
void gpuprof_cpu_limits_read (GpuprofCpuLimitsReader * r,
    GpuprofCpuLimits * out);
/* The cgroup folder read (its cpu controller's), %NULL when none: then
 * why in @why if not %NULL (a static string) */
GPUPROF_API
const gchar *gpuprof_cpu_limits_reader_cgroup (const GpuprofCpuLimitsReader *
    r, const gchar ** why);

GPUPROF_API
void gpuprof_cpu_process_read (GpuprofCpuProcess * out);

GPUPROF_API
const gchar *gpuprof_cpu_limit_name (GpuprofCpuLimit limit);

/* ---- pure parsers (text NUL-terminated) ---- */

/* "0-3,8,10-11\n" -> 7; 0 when malformed */
GPUPROF_API
guint gpuprof_cpu_parse_cpu_list (const gchar * text);
/* v2 cpu.max "max 100000" (@quota_us -1) or "50000 100000" */
GPUPROF_API
gboolean gpuprof_cpu_parse_cpu_max (const gchar * text, gint64 * quota_us,
    guint64 * period_us);
/* cpu.stat: v2 or v1 keys; FALSE when it has neither throttled_usec nor
 * throttled_time */
GPUPROF_API
gboolean gpuprof_cpu_parse_cpu_stat (const gchar * text,
    GpuprofCpuThrottle * out);
/* /proc/self/cgroup: the cgroup path of the v2 hierarchy ("0::/a/b") or,
 * @v1, of the v1 hierarchy whose controllers include "cpu"
 * ("4:cpu,cpuacct:/a/b"); a newly allocated string, %NULL when none */
GPUPROF_API
gchar *gpuprof_cpu_parse_proc_cgroup (const gchar * text, gboolean v1);
/* /proc/self/mountinfo: the mount of the cgroup2 hierarchy or, @v1, of the
 * v1 hierarchy with the cpu controller; its root inside the hierarchy and
 * its mount point ("\040" escapes decoded), newly allocated. FALSE: none. */
GPUPROF_API
gboolean gpuprof_cpu_parse_mountinfo (const gchar * text, gboolean v1,
    gchar ** root, gchar ** mount_point);

G_END_DECLS
