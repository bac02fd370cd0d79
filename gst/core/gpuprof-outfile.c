/* gpuprof: the rules of every file an output writes (see gpuprof-outfile.h,
 * docs/outputs.md "Files"). */
#include "gpuprof-outfile.h"

#include <gst/gst.h>
#include <glib/gstdio.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

GST_DEBUG_CATEGORY_STATIC (gpuprof_outfile_debug);
#define GST_CAT_DEFAULT gpuprof_outfile_debug

/* links followed before a path counts as a loop (the kernel's own limit) */
#define MAX_LINK_HOPS 40

static void
debug_init (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    GST_DEBUG_CATEGORY_INIT (gpuprof_outfile_debug, "gpuprof-outfile", 0,
        "gpuprof output files");
    g_once_init_leave (&done, 1);
  }
}

/* --- failures: one line per path until it works again -------------------- */

static GMutex said_lock;
static GHashTable *said;        /* path -> NULL; said_lock */

void
gpuprof_outfile_fail (const gchar * what, const gchar * path,
    const gchar * op, gint errsv, const gchar * tail)
{
  gboolean first;
  gchar *msg;

  debug_init ();
  g_mutex_lock (&said_lock);
  if (!said)
    said = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  first = !g_hash_table_contains (said, path);
  if (first)
    g_hash_table_add (said, g_strdup (path));
  g_mutex_unlock (&said_lock);

  msg = g_strdup_printf ("gpuprof: cannot %s %s '%s': %s%s", op, what, path,
      g_strerror (errsv), tail ? tail : "");
  if (first) {
    GST_ERROR ("%s", msg);
    g_printerr ("%s\n", msg);
  } else {
    GST_DEBUG ("again: %s", msg);
  }
  g_free (msg);
}

void
gpuprof_outfile_succeeded (const gchar * path)
{
  g_mutex_lock (&said_lock);
  if (said)
    g_hash_table_remove (said, path);
  g_mutex_unlock (&said_lock);
}

/* --- where a path leads -------------------------------------------------- */

/* the descriptor @path names when it is one of the process' own: fd N */
static gint
own_fd_of (const gchar * path)
{
  static const gchar *const prefixes[] = { "/dev/fd/", "/proc/self/fd/",
    "/proc/thread-self/fd/"
  };
  gchar pid_prefix[48];
  const gchar *num = NULL;
  gchar *end = NULL;
  guint64 n;
  guint i;

  if (!strcmp (path, "/dev/stdout"))
    return 1;
  if (!strcmp (path, "/dev/stderr"))
    return 2;
  for (i = 0; i < G_N_ELEMENTS (prefixes) && !num; i++)
    if (g_str_has_prefix (path, prefixes[i]))
      num = path + strlen (prefixes[i]);
  g_snprintf (pid_prefix, sizeof (pid_prefix), "/proc/%d/fd/", (gint) getpid ());
  if (!num && g_str_has_prefix (path, pid_prefix))
    num = path + strlen (pid_prefix);
  if (!num || !g_ascii_isdigit (*num))
    return -1;
  n = g_ascii_strtoull (num, &end, 10);
  return *end || n > G_MAXINT ? -1 : (gint) n;
}

typedef struct
{
  gchar *path;                  /* after the links: where the bytes go */
  gint own_fd;                  /* >= 0: one of the process' descriptors */
  GpuprofOutfileKind kind;
  gboolean exists;
  struct stat st;               /* when it exists */
  gint errsv;                   /* REFUSED: why */
} Target;

static void
target_clear (Target * t)
{
  g_free (t->path);
}

/* follows @path's links one by one (lstat/readlink), so a hop through
 * /proc/self/fd/N is seen as the descriptor it is, not as what it points to */
static void
target_resolve (const gchar * path, Target * t)
{
  gchar *cur = g_strdup (path);
  guint hops;

  memset (t, 0, sizeof (*t));
  t->own_fd = -1;
  for (hops = 0; hops < MAX_LINK_HOPS; hops++) {
    gchar *link, *dir;

    if ((t->own_fd = own_fd_of (cur)) >= 0) {
      t->path = cur;
      t->kind = GPUPROF_OUTFILE_STREAM;
      t->exists = fstat (t->own_fd, &t->st) == 0;
      return;
    }
    link = g_file_read_link (cur, NULL);
    if (!link)
      break;
    if (g_path_is_absolute (link)) {
      g_free (cur);
      cur = link;
      continue;
    }
    dir = g_path_get_dirname (cur);
    g_free (cur);
    cur = g_build_filename (dir, link, NULL);
    g_free (dir);
    g_free (link);
  }
  t->path = cur;
  if (hops == MAX_LINK_HOPS) {
    t->kind = GPUPROF_OUTFILE_REFUSED;
    t->errsv = ELOOP;
    return;
  }
  t->exists = g_stat (cur, &t->st) == 0;
  if (!t->exists || S_ISREG (t->st.st_mode))
    t->kind = GPUPROF_OUTFILE_FILE;
  else if (S_ISFIFO (t->st.st_mode) || S_ISCHR (t->st.st_mode)
      || S_ISSOCK (t->st.st_mode))
    t->kind = GPUPROF_OUTFILE_STREAM;
  else {
    t->kind = GPUPROF_OUTFILE_REFUSED;
    t->errsv = S_ISDIR (t->st.st_mode) ? EISDIR : ENOTSUP;
  }
}

GpuprofOutfileKind
gpuprof_outfile_kind (const gchar * path)
{
  Target t;
  GpuprofOutfileKind kind;

  target_resolve (path, &t);
  kind = t.kind;
  target_clear (&t);
  return kind;
}

gchar *
gpuprof_outfile_sibling_base (const gchar * path, const gchar * dir)
{
  gchar *name, *base;

  if (!dir)
    return gpuprof_outfile_kind (path) == GPUPROF_OUTFILE_STREAM ? NULL :
        g_strdup (path);
  name = g_path_get_basename (path);
  base = g_build_filename (dir, name, NULL);
  g_free (name);
  return base;
}

/* --- writing ------------------------------------------------------------- */

/* all of @data; a stream (non-blocking) that takes nothing for
 * GPUPROF_OUTFILE_STALL_S fails with ETIMEDOUT */
static gboolean
write_all (gint fd, const gchar * data, gsize len, gint * errsv)
{
  while (len > 0) {
    gssize n = write (fd, data, len);

    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      struct pollfd pfd = { fd, POLLOUT, 0 };
      gint r = poll (&pfd, 1, GPUPROF_OUTFILE_STALL_S * 1000);

      if (r == 0) {
        *errsv = ETIMEDOUT;
        return FALSE;
      }
      continue;
    }
    if (n <= 0) {
      *errsv = n < 0 ? errno : ENOSPC;
      return FALSE;
    }
    data += n;
    len -= n;
  }
  return TRUE;
}

static gboolean
close_checked (gint fd, gint * errsv)
{
  /* Linux closes the descriptor even when close() fails (EINTR included) */
  if (close (fd) == 0)
    return TRUE;
  *errsv = errno;
  return FALSE;
}

/* opens a resolved stream target, non-blocking: a FIFO without a reader is
 * ENXIO at once, not a wait */
static gint
open_stream (const Target * t, gint * errsv)
{
  gint fd;

  /* what we print ourselves comes before what the stream gets now */
  if (t->own_fd == 1)
    fflush (stdout);
  else if (t->own_fd == 2)
    fflush (stderr);
  if (t->own_fd >= 0) {
    fd = fcntl (t->own_fd, F_DUPFD_CLOEXEC, 3);
  } else {
    fd = open (t->path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  }
  if (fd < 0)
    *errsv = errno;
  return fd;
}

static gint
open_target (const Target * t, GpuprofOutfileMode mode, gint * errsv)
{
  gint fd;

  if (t->kind == GPUPROF_OUTFILE_REFUSED) {
    *errsv = t->errsv;
    return -1;
  }
  if (t->kind == GPUPROF_OUTFILE_STREAM)
    return open_stream (t, errsv);
  fd = open (t->path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY |
      (mode == GPUPROF_OUTFILE_APPEND ? O_APPEND : O_TRUNC), 0666);
  if (fd < 0)
    *errsv = errno;
  return fd;
}

/* "No such device or address" says nothing about a FIFO nobody reads */
static const gchar *
open_tail (const Target * t, gint errsv)
{
  if (errsv == ENXIO && t->exists && S_ISFIFO (t->st.st_mode))
    return " (a FIFO nobody reads)";
  if (t->kind == GPUPROF_OUTFILE_REFUSED && errsv == ENOTSUP)
    return " (a block device or other special file: not written)";
  return NULL;
}

static gboolean
write_stream (const gchar * what, const gchar * path, const Target * t,
    const gchar * data, gsize len)
{
  gint errsv = 0, fd = open_stream (t, &errsv);

  if (fd < 0) {
    gpuprof_outfile_fail (what, path, "open", errsv, open_tail (t, errsv));
    return FALSE;
  }
  if (!write_all (fd, data, len, &errsv)) {
    gpuprof_outfile_fail (what, path, "write", errsv, NULL);
    close (fd);
    return FALSE;
  }
  if (!close_checked (fd, &errsv)) {
    gpuprof_outfile_fail (what, path, "close", errsv, NULL);
    return FALSE;
  }
  return TRUE;
}

/* a temporary file beside the target, with its mode (and owner, for root) */
static gint
open_temp (const Target * t, gchar ** tmp_path, gint * errsv)
{
  gchar *dir = g_path_get_dirname (t->path);
  gchar *name = g_path_get_basename (t->path);
  gchar *tmpl = g_strdup_printf ("%s/.%s.gpuprof-XXXXXX", dir, name);
  gint fd = g_mkstemp_full (tmpl, O_WRONLY | O_CLOEXEC, 0666);

  g_free (dir);
  g_free (name);
  if (fd < 0) {
    *errsv = errno;
    g_free (tmpl);
    return -1;
  }
  /* created 0666 less the umask, as a new file is; one it replaces
   * decides instead */
  if (t->exists) {
    if (fchmod (fd, t->st.st_mode & 07777) < 0)
      GST_DEBUG ("fchmod %s: %s", tmpl, g_strerror (errno));
    if (getuid () == 0 && fchown (fd, t->st.st_uid, t->st.st_gid) < 0)
      GST_DEBUG ("fchown %s: %s", tmpl, g_strerror (errno));
  }
  *tmp_path = tmpl;
  return fd;
}

static gboolean
write_renamed (const gchar * what, const gchar * path, const Target * t,
    const gchar * data, gsize len)
{
  gchar *tmp = NULL;
  gint errsv = 0, fd = open_temp (t, &tmp, &errsv);
  const gchar *op = NULL;

  if (fd < 0) {
    gpuprof_outfile_fail (what, path, "create", errsv,
        " (its temporary file)");
    return FALSE;
  }
  if (!write_all (fd, data, len, &errsv)) {
    op = "write";
    close (fd);
  } else if (!close_checked (fd, &errsv)) {
    op = "close";
  } else if (g_rename (tmp, t->path) < 0) {
    errsv = errno;
    op = "rename into place";
  }
  if (op) {
    g_unlink (tmp);
    gpuprof_outfile_fail (what, path, op, errsv, NULL);
  }
  g_free (tmp);
  return op == NULL;
}

gboolean
gpuprof_outfile_replace (const gchar * what, const gchar * path,
    const gchar * data, gsize len)
{
  Target t;
  gboolean ok;

  debug_init ();
  target_resolve (path, &t);
  switch (t.kind) {
    case GPUPROF_OUTFILE_FILE:
      ok = write_renamed (what, path, &t, data, len);
      break;
    case GPUPROF_OUTFILE_STREAM:
      ok = write_stream (what, path, &t, data, len);
      break;
    default:
      gpuprof_outfile_fail (what, path, "write", t.errsv, open_tail (&t,
              t.errsv));
      ok = FALSE;
      break;
  }
  if (ok)
    gpuprof_outfile_succeeded (path);
  target_clear (&t);
  return ok;
}

struct _GpuprofOutfile
{
  gchar *what;
  gchar *path;
  gint fd;
  gboolean failed;
};

GpuprofOutfile *
gpuprof_outfile_open (const gchar * what, const gchar * path,
    GpuprofOutfileMode mode)
{
  GpuprofOutfile *f;
  Target t;
  gint errsv = 0, fd;

  debug_init ();
  target_resolve (path, &t);
  fd = open_target (&t, mode, &errsv);
  if (fd < 0)
    gpuprof_outfile_fail (what, path, "open", errsv, open_tail (&t, errsv));
  target_clear (&t);
  if (fd < 0)
    return NULL;
  f = g_new0 (GpuprofOutfile, 1);
  f->what = g_strdup (what);
  f->path = g_strdup (path);
  f->fd = fd;
  return f;
}

gboolean
gpuprof_outfile_write (GpuprofOutfile * f, const gchar * data, gsize len)
{
  gint errsv = 0;

  if (f->failed)
    return FALSE;
  if (!write_all (f->fd, data, len, &errsv)) {
    f->failed = TRUE;
    gpuprof_outfile_fail (f->what, f->path, "write", errsv, NULL);
    return FALSE;
  }
  gpuprof_outfile_succeeded (f->path);
  return TRUE;
}

gboolean
gpuprof_outfile_close (GpuprofOutfile * f)
{
  gint errsv = 0;
  gboolean ok;

  if (!f)
    return TRUE;
  ok = close_checked (f->fd, &errsv);
  if (!ok && !f->failed)
    gpuprof_outfile_fail (f->what, f->path, "close", errsv, NULL);
  g_free (f->what);
  g_free (f->path);
  g_free (f);
  return ok;
}

const gchar *
gpuprof_outfile_path (GpuprofOutfile * f)
{
  return f->path;
}

gint
gpuprof_outfile_open_fd (const gchar * path, GpuprofOutfileMode mode,
    gint * errsv)
{
  Target t;
  gint fd;

  target_resolve (path, &t);
  fd = open_target (&t, mode, errsv);
  /* its writer blocks on its own thread: a stream gets its blocking back */
  if (fd >= 0 && t.kind == GPUPROF_OUTFILE_STREAM)
    fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) & ~O_NONBLOCK);
  target_clear (&t);
  return fd;
}

/* --- placeholders -------------------------------------------------------- */

static const struct
{
  gchar c;
  const gchar *what;
  const gchar *example;
} placeholders[] = {
  {'p', "process id", "4242"},
  {'n', "pipeline name (in trace=, one file for every pipeline of the "
        "process: the program's name)", "pipeline0"},
  {'t', "start time of the tracer, UTC", "20250131T120501Z"},
  {'h', "host name", "node7"},
  {'%', "a percent sign", "%"},
};

static gint64 start_real_us;    /* atomic; 0 until marked */

void
gpuprof_outfile_mark_start (void)
{
  gint64 zero = 0;

  __atomic_compare_exchange_n (&start_real_us, &zero, g_get_real_time (),
      FALSE, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

static const gchar *
placeholder_what (gchar c)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (placeholders); i++)
    if (placeholders[i].c == c)
      return placeholders[i].what;
  return NULL;
}

/* a name as a piece of a file name */
static void
append_safe (GString * s, const gchar * name)
{
  const gchar *c;

  for (c = name; *c; c++)
    g_string_append_c (s, g_ascii_isalnum (*c) || strchr ("._+-", *c)
        ? (c == name && *c == '.' ? '_' : *c) : '_');
}

static gchar *
program_name (void)
{
  const gchar *prg = g_get_prgname ();
  gchar *comm = NULL;

  if (prg && *prg)
    return g_path_get_basename (prg);
  if (g_file_get_contents ("/proc/self/comm", &comm, NULL, NULL)) {
    g_strchomp (comm);
    if (*comm)
      return comm;
  }
  g_free (comm);
  return g_strdup ("gpuprof");
}

static void
append_placeholder (GString * s, gchar c, const gchar * pipeline)
{
  gchar *name;

  switch (c) {
    case 'p':
      g_string_append_printf (s, "%d", (gint) getpid ());
      break;
    case 'n':
      name = pipeline && *pipeline ? g_strdup (pipeline) : program_name ();
      append_safe (s, name);
      g_free (name);
      break;
    case 't':{
      GDateTime *dt;
      gchar *text;

      gpuprof_outfile_mark_start ();
      dt = g_date_time_new_from_unix_utc (__atomic_load_n (&start_real_us,
              __ATOMIC_RELAXED) / G_USEC_PER_SEC);
      text = g_date_time_format (dt, "%Y%m%dT%H%M%SZ");
      g_string_append (s, text);
      g_free (text);
      g_date_time_unref (dt);
      break;
    }
    case 'h':
      append_safe (s, g_get_host_name ());
      break;
    case '%':
      g_string_append_c (s, '%');
      break;
  }
}

gchar *
gpuprof_outfile_expand (const gchar * tmpl, const gchar * pipeline)
{
  GString *s = g_string_new (NULL);
  const gchar *c;

  for (c = tmpl; *c; c++) {
    if (*c == '%' && c[1] && placeholder_what (c[1])) {
      append_placeholder (s, c[1], pipeline);
      c++;
    } else {
      /* an unknown placeholder is kept as written (warned at parse) */
      g_string_append_c (s, *c);
    }
  }
  return g_string_free (s, FALSE);
}

gchar *
gpuprof_outfile_placeholders_list (void)
{
  GString *s = g_string_new (NULL);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (placeholders); i++) {
    gchar *what = g_strdup (placeholders[i].what);
    gchar *paren = strstr (what, " (");

    /* the short form: the details are in the docs */
    if (paren)
      *paren = '\0';
    g_string_append_printf (s, "%s%%%c %s", i ? ", " : "", placeholders[i].c,
        what);
    g_free (what);
  }
  return g_string_free (s, FALSE);
}

gchar *
gpuprof_outfile_check_placeholders (const gchar * key, const gchar * tmpl)
{
  GString *s = NULL;
  const gchar *c;

  for (c = tmpl; c && *c; c++) {
    gchar *valid;

    if (*c != '%')
      continue;
    if (c[1] && placeholder_what (c[1])) {
      c++;
      continue;
    }
    if (!s)
      s = g_string_new (NULL);
    valid = gpuprof_outfile_placeholders_list ();
    if (c[1])
      g_string_append_printf (s, "gpuprof: unknown placeholder '%%%c' in "
          "%s=%s, kept as written (valid: %s)\n", c[1], key, tmpl, valid);
    else
      g_string_append_printf (s, "gpuprof: a lone '%%' ends %s=%s, kept as "
          "written (valid: %s)\n", key, tmpl, valid);
    g_free (valid);
    if (c[1])
      c++;
  }
  return s ? g_string_free (s, FALSE) : NULL;
}

gchar *
gpuprof_outfile_placeholders_markdown (void)
{
  GString *s = g_string_new ("| placeholder | replaced by | example |\n"
      "|---|---|---|\n");
  guint i;

  for (i = 0; i < G_N_ELEMENTS (placeholders); i++)
    g_string_append_printf (s, "| `%%%c` | %s | `%s` |\n", placeholders[i].c,
        placeholders[i].what, placeholders[i].example);
  return g_string_free (s, FALSE);
}
