/* gpuprof: the CPU of every thread of the process (see
 * gpuprof-cpu-threads.h).
 *
 * A pass: list the task folder with getdents64 into a tid array, then for
 * each tid read <tid>/stat and <tid>/schedstat with openat + read into a
 * stack buffer. The rows of a pass go into one of two arrays; the other
 * holds the previous pass, found by tid through an open-addressing index.
 * Nothing is allocated unless the process has more threads than ever
 * before. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "gpuprof-cpu-threads.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define MIN_ROWS 64

struct _GpuprofCpuThreads
{
  gchar *task_dir;
  gint dir_fd;
  gint pid;                     /* the process that opened /proc/self/task */
  gboolean self;                /* task_dir is /proc/self/task */
  guint64 tick_ns;              /* ns per clock tick of stat */

  GpuprofCpuThread *rows[2];    /* rows[cur]: the last pass */
  guint n[2];
  guint cap;                    /* of rows[0], rows[1], matched */
  guint cur;
  guint8 *matched;              /* per row of the previous pass, in a pass */
  guint32 *index;               /* tid -> row + 1 of rows[cur]; 0: empty */
  guint index_mask;             /* index has index_mask + 1 slots */
  gint *tids;                   /* the listing of a pass */
  guint tids_cap;

  guint64 passes;
  guint64 ts_last, ts_prev;
  guint grown;

  guint64 dents[2048];          /* getdents64 records, 8-byte aligned */
};

/* ---- parsers ---- */

/* skips blanks, then reads an unsigned decimal; FALSE when none */
static gboolean
parse_u64 (const gchar ** p, const gchar * end, guint64 * out)
{
  const gchar *s = *p;
  guint64 v = 0;

  while (s < end && (*s == ' ' || *s == '\t'))
    s++;
  if (s == end || !g_ascii_isdigit (*s))
    return FALSE;
  while (s < end && g_ascii_isdigit (*s))
    v = v * 10 + (guint64) (*s++ - '0');
  *p = s;
  *out = v;
  return TRUE;
}

/* skips blanks and one field (any non-blank text: signed numbers too) */
static gboolean
skip_field (const gchar ** p, const gchar * end)
{
  const gchar *s = *p;

  while (s < end && *s == ' ')
    s++;
  if (s == end || *s == '\n')
    return FALSE;
  while (s < end && *s != ' ' && *s != '\n')
    s++;
  *p = s;
  return TRUE;
}

/**
 * gpuprof_cpu_parse_stat:
 * @text: a /proc/<pid>/task/<tid>/stat line (@len bytes)
 * @out: (out): the name (comm, which may hold spaces and parentheses: it
 *   ends at the last ')'), the state (field 3), utime and stime (14, 15, in
 *   clock ticks) and the start time (22, clock ticks after boot)
 *
 * Returns: FALSE, @out unspecified, when the line is cut short or malformed
 */
gboolean
gpuprof_cpu_parse_stat (const gchar * text, gsize len, GpuprofCpuStat * out)
{
  const gchar *end = text + len;
  const gchar *open, *close, *p;
  gsize name_len;
  guint field;

  if (!text || !(open = memchr (text, '(', len)))
    return FALSE;
  for (close = end - 1; close > open && *close != ')'; close--);
  if (close <= open || close + 3 >= end || close[1] != ' ')
    return FALSE;
  name_len = MIN ((gsize) (close - open - 1), sizeof (out->name) - 1);
  memcpy (out->name, open + 1, name_len);
  out->name[name_len] = 0;
  out->state = close[2];
  if (!g_ascii_isalpha (out->state) || (close + 3 < end && close[3] != ' '))
    return FALSE;

  p = close + 3;
  for (field = 4; field <= 22; field++) {
    guint64 *target = field == 14 ? &out->utime_ticks :
        field == 15 ? &out->stime_ticks : field == 22 ? &out->start_ticks : NULL;

    if (target ? !parse_u64 (&p, end, target) : !skip_field (&p, end))
      return FALSE;
  }
  return TRUE;
}

/**
 * gpuprof_cpu_parse_schedstat:
 * @text: a /proc/<pid>/task/<tid>/schedstat line (@len bytes)
 * @out: (out): its on_cpu_ns, run_delay_ns and timeslices
 *
 * Returns: FALSE, @out untouched, unless the three numbers are there
 */
gboolean
gpuprof_cpu_parse_schedstat (const gchar * text, gsize len,
    GpuprofCpuTimes * out)
{
  const gchar *p = text, *end = text + len;
  guint64 on_cpu, delay, slices;

  if (!text || !parse_u64 (&p, end, &on_cpu) || !parse_u64 (&p, end, &delay)
      || !parse_u64 (&p, end, &slices))
    return FALSE;
  out->on_cpu_ns = on_cpu;
  out->run_delay_ns = delay;
  out->timeslices = slices;
  return TRUE;
}

/* ---- the reader ---- */

static gboolean
open_dir (GpuprofCpuThreads * t, GError ** error)
{
  t->dir_fd = open (t->task_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (t->dir_fd < 0) {
    int e = errno;

    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e),
        "cannot list threads in %s: %s", t->task_dir, g_strerror (e));
    return FALSE;
  }
  t->pid = getpid ();
  return TRUE;
}

GpuprofCpuThreads *
gpuprof_cpu_threads_new (const gchar * task_dir, GError ** error)
{
  GpuprofCpuThreads *t = g_new0 (GpuprofCpuThreads, 1);
  glong hz = sysconf (_SC_CLK_TCK);

  t->self = task_dir == NULL;
  t->task_dir = g_strdup (task_dir ? task_dir : "/proc/self/task");
  t->tick_ns = G_GUINT64_CONSTANT (1000000000) / (guint64) (hz > 0 ? hz : 100);
  if (!open_dir (t, error)) {
    g_free (t->task_dir);
    g_free (t);
    return NULL;
  }
  return t;
}

void
gpuprof_cpu_threads_free (GpuprofCpuThreads * t)
{
  if (!t)
    return;
  if (t->dir_fd >= 0)
    close (t->dir_fd);
  g_free (t->rows[0]);
  g_free (t->rows[1]);
  g_free (t->matched);
  g_free (t->index);
  g_free (t->tids);
  g_free (t->task_dir);
  g_free (t);
}

static guint32
tid_hash (gint tid)
{
  return (guint32) tid * 2654435761u;
}

static void
index_rebuild (GpuprofCpuThreads * t)
{
  const GpuprofCpuThread *rows = t->rows[t->cur];
  guint i;

  memset (t->index, 0, (t->index_mask + 1) * sizeof (guint32));
  for (i = 0; i < t->n[t->cur]; i++) {
    guint32 slot;

    if (rows[i].flags & GPUPROF_CPU_THREAD_ENDED)
      continue;
    for (slot = tid_hash (rows[i].tid) & t->index_mask; t->index[slot];
        slot = (slot + 1) & t->index_mask);
    t->index[slot] = i + 1;
  }
}

/* row number of @tid in rows[cur], -1 when not there */
static gint
index_lookup (const GpuprofCpuThreads * t, gint tid)
{
  guint32 slot;

  if (!t->index)
    return -1;
  for (slot = tid_hash (tid) & t->index_mask; t->index[slot];
      slot = (slot + 1) & t->index_mask) {
    guint32 row = t->index[slot] - 1;

    if (t->rows[t->cur][row].tid == tid)
      return (gint) row;
  }
  return -1;
}

/* room for @need rows in each array (the index is rebuilt for rows[cur]) */
static void
ensure_rows (GpuprofCpuThreads * t, guint need)
{
  guint cap = MAX (t->cap, MIN_ROWS), slots;

  if (need <= t->cap)
    return;
  while (cap < need)
    cap *= 2;
  t->rows[0] = g_renew (GpuprofCpuThread, t->rows[0], cap);
  t->rows[1] = g_renew (GpuprofCpuThread, t->rows[1], cap);
  t->matched = g_renew (guint8, t->matched, cap);
  t->cap = cap;
  for (slots = 1; slots < 2 * cap; slots *= 2);
  g_free (t->index);
  t->index = g_new0 (guint32, slots);
  t->index_mask = slots - 1;
  index_rebuild (t);
  t->grown++;
}

static void
add_tid (GpuprofCpuThreads * t, guint * n, gint tid)
{
  if (*n == t->tids_cap) {
    t->tids_cap = MAX (t->tids_cap * 2, MIN_ROWS);
    t->tids = g_renew (gint, t->tids, t->tids_cap);
    t->grown++;
  }
  t->tids[(*n)++] = tid;
}

/* the thread ids in the task folder; G_MAXUINT when it cannot be read */
static guint
list_tids (GpuprofCpuThreads * t)
{
  guint n = 0;
  gssize got;

  if (lseek (t->dir_fd, 0, SEEK_SET) < 0)
    return G_MAXUINT;
  while ((got = getdents64 (t->dir_fd, t->dents, sizeof (t->dents))) > 0) {
    const gchar *base = (const gchar *) t->dents;
    gssize off = 0;

    while (off < got) {
      const struct dirent64 *d = (const struct dirent64 *) (base + off);
      const gchar *s = d->d_name;
      gint tid = 0;

      off += d->d_reclen;
      while (g_ascii_isdigit (*s) && tid < G_MAXINT / 10)
        tid = tid * 10 + (*s++ - '0');
      if (*s == 0 && tid > 0)
        add_tid (t, &n, tid);
    }
  }
  return got < 0 ? G_MAXUINT : n;
}

/* reads <tid>/<file> into @buf; its length, 0 when the thread is gone */
static gsize
read_task_file (GpuprofCpuThreads * t, gint tid, const gchar * file,
    gchar * buf, gsize size)
{
  gchar path[48];
  gssize got;
  gint fd;

  g_snprintf (path, sizeof (path), "%d/%s", tid, file);
  fd = openat (t->dir_fd, path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  do
    got = read (fd, buf, size);
  while (got < 0 && errno == EINTR);
  close (fd);
  return got > 0 ? (gsize) got : 0;
}

static gboolean
read_stat (GpuprofCpuThreads * t, GpuprofCpuThread * row)
{
  gchar buf[1024];
  gsize len = read_task_file (t, row->tid, "stat", buf, sizeof (buf));
  GpuprofCpuStat st;

  if (!len || !gpuprof_cpu_parse_stat (buf, len, &st))
    return FALSE;
  memcpy (row->name, st.name, sizeof (row->name));
  row->state = st.state;
  row->start_ticks = st.start_ticks;
  row->total.cpu_ns = (st.utime_ticks + st.stime_ticks) * t->tick_ns;
  return TRUE;
}

static gboolean
read_schedstat (GpuprofCpuThreads * t, GpuprofCpuThread * row)
{
  gchar buf[128];
  gsize len = read_task_file (t, row->tid, "schedstat", buf, sizeof (buf));

  return len && gpuprof_cpu_parse_schedstat (buf, len, &row->total);
}

static guint64
minus (guint64 a, guint64 b)
{
  return a > b ? a - b : 0;
}

static void
set_delta (GpuprofCpuThread * row, const GpuprofCpuTimes * before)
{
  row->delta.cpu_ns = minus (row->total.cpu_ns, before->cpu_ns);
  row->delta.on_cpu_ns = minus (row->total.on_cpu_ns, before->on_cpu_ns);
  row->delta.run_delay_ns =
      minus (row->total.run_delay_ns, before->run_delay_ns);
  row->delta.timeslices = minus (row->total.timeslices, before->timeslices);
}

/* Fills @row (its tid set) from the files and the previous pass's row of
 * the same thread (index @prev_i in rows[cur], -1 none). FALSE: the thread
 * is gone. */
static gboolean
read_thread (GpuprofCpuThreads * t, GpuprofCpuThread * row, gint prev_i,
    guint what)
{
  const GpuprofCpuThread *prev = prev_i >= 0 ? &t->rows[t->cur][prev_i] : NULL;
  static const GpuprofCpuTimes zero;

  if (prev) {
    /* what this pass does not read stays as last read */
    memcpy (row->name, prev->name, sizeof (row->name));
    row->state = prev->state;
    row->start_ticks = prev->start_ticks;
    row->total = prev->total;
  }
  if ((what & GPUPROF_CPU_READ_SCHEDSTAT) && !read_schedstat (t, row))
    return FALSE;
  /* a tid reused by a new thread: another start time, or (schedstat
   * alone) less time on a CPU than its former thread had */
  if (prev && !(what & GPUPROF_CPU_READ_STAT)
      && row->total.on_cpu_ns < prev->total.on_cpu_ns)
    prev = NULL;
  if ((what & GPUPROF_CPU_READ_STAT) || !prev) {
    if (!read_stat (t, row))
      return FALSE;
    if (prev && row->start_ticks != prev->start_ticks)
      prev = NULL;
  }
  if (!prev && !(what & GPUPROF_CPU_READ_SCHEDSTAT)
      && !read_schedstat (t, row))
    return FALSE;

  if (prev) {
    row->flags = 0;
    set_delta (row, &prev->total);
    t->matched[prev_i] = 1;
  } else {
    row->flags = t->passes ? GPUPROF_CPU_THREAD_NEW : 0;
    set_delta (row, t->passes ? &zero : &row->total);
  }
  return TRUE;
}

/* a fork()ed child reads its own threads, from scratch */
static void
follow_fork (GpuprofCpuThreads * t)
{
  if (!t->self || t->pid == getpid ())
    return;
  close (t->dir_fd);
  t->dir_fd = -1;
  if (open_dir (t, NULL)) {
    t->n[0] = t->n[1] = 0;
    t->passes = 0;
    t->ts_last = t->ts_prev = 0;
    if (t->index)
      index_rebuild (t);
  }
}

guint
gpuprof_cpu_threads_read (GpuprofCpuThreads * t, guint what)
{
  guint prev = t->cur, next = !t->cur, listed, i, n = 0;
  GpuprofCpuThread *rows;
  guint64 now = (guint64) g_get_monotonic_time () * 1000;

  follow_fork (t);
  if (t->dir_fd < 0 || (listed = list_tids (t)) == G_MAXUINT)
    return 0;
  /* room for every thread listed and every one of the last pass ending */
  ensure_rows (t, listed + MAX (t->n[prev], listed));
  rows = t->rows[next];
  memset (t->matched, 0, t->n[prev]);

  for (i = 0; i < listed; i++) {
    GpuprofCpuThread *row = &rows[n];

    memset (row, 0, sizeof (*row));
    row->tid = t->tids[i];
    if (read_thread (t, row, index_lookup (t, row->tid), what))
      n++;
  }
  /* threads of the last pass not seen now ended in between: one more row */
  for (i = 0; i < t->n[prev]; i++) {
    const GpuprofCpuThread *p = &t->rows[prev][i];

    if (t->matched[i] || (p->flags & GPUPROF_CPU_THREAD_ENDED))
      continue;
    rows[n] = *p;
    rows[n].flags = GPUPROF_CPU_THREAD_ENDED;
    memset (&rows[n].delta, 0, sizeof (rows[n].delta));
    n++;
  }

  t->n[next] = n;
  t->cur = next;
  index_rebuild (t);
  t->passes++;
  t->ts_prev = t->ts_last;
  t->ts_last = now;
  return n;
}

guint
gpuprof_cpu_threads_count (const GpuprofCpuThreads * t)
{
  return t->n[t->cur];
}

const GpuprofCpuThread *
gpuprof_cpu_threads_row (const GpuprofCpuThreads * t, guint i)
{
  return i < t->n[t->cur] ? &t->rows[t->cur][i] : NULL;
}

const GpuprofCpuThread *
gpuprof_cpu_threads_find (const GpuprofCpuThreads * t, gint tid)
{
  gint i = index_lookup (t, tid);

  return i >= 0 ? &t->rows[t->cur][i] : NULL;
}

guint64
gpuprof_cpu_threads_passes (const GpuprofCpuThreads * t)
{
  return t->passes;
}

guint64
gpuprof_cpu_threads_interval_ns (const GpuprofCpuThreads * t)
{
  return t->ts_prev ? t->ts_last - t->ts_prev : 0;
}

guint
gpuprof_cpu_threads_grown (const GpuprofCpuThreads * t)
{
  return t->grown;
}
