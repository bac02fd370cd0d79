/* The output-file rules (gst/core/gpuprof-outfile.h), on real files:
 * a regular file replaced with its mode kept and no temporary left; a
 * chain of relative links followed (the links stay links, a dangling one
 * creates its target); a FIFO with a reader written into (also more than
 * the pipe holds), without a reader a failure line, never a hang; a
 * character device written into, never replaced (device nodes of the
 * test's own, made with mknod as root); the process' own descriptors
 * (/proc/self/fd/N, behind a link too) written at their offset; a full
 * file system (a 64 KiB tmpfs in a mount namespace of the test's own, or
 * RLIMIT_FSIZE where it cannot mount) fails with one line naming the file
 * and the reason and keeps the old content; failures said once per file
 * until it works again; the placeholders, also through GST_TRACERS' text
 * (no quotes needed, an unknown one warned about). */
#define _GNU_SOURCE
#include <glib.h>
#include <glib/gstdio.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "gpuprof-outfile.h"
#include "gpuprof-params.h"

#include <gst/gst.h>

static gchar *tmpdir;
static GString *said;           /* what g_printerr printed */

static void
capture_printerr (const gchar * text)
{
  g_string_append (said, text);
}

static guint
said_lines (const gchar * with)
{
  gchar **lines = g_strsplit (said->str, "\n", -1);
  guint i, n = 0;

  for (i = 0; lines[i]; i++)
    n += *lines[i] && strstr (lines[i], with) != NULL;
  g_strfreev (lines);
  return n;
}

static gchar *
path_in (const gchar * name)
{
  return g_build_filename (tmpdir, name, NULL);
}

static gchar *
contents (const gchar * path)
{
  gchar *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

/* no ".NAME.gpuprof-XXXXXX" left in @dir */
static void
assert_no_temp (const gchar * dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const gchar *name;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)))
    g_assert_null (strstr (name, ".gpuprof-"));
  g_dir_close (d);
}

static void
test_regular (void)
{
  gchar *path = path_in ("run.json"), *text;
  struct stat st;

  g_assert_cmpint (gpuprof_outfile_kind (path), ==, GPUPROF_OUTFILE_FILE);
  g_assert_true (gpuprof_outfile_replace ("stats file", path, "one", 3));
  g_assert_cmpint (chmod (path, 0640), ==, 0);
  g_assert_true (gpuprof_outfile_replace ("stats file", path, "two", 3));
  text = contents (path);
  g_assert_cmpstr (text, ==, "two");
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 07777, ==, 0640);
  assert_no_temp (tmpdir);
  g_free (text);
  g_unlink (path);
  g_free (path);
}

static void
test_symlink (void)
{
  gchar *sub = path_in ("data"), *target = path_in ("data/real.json");
  gchar *link2 = path_in ("data/mid.json"), *link1 = path_in ("latest.json");
  gchar *dangling = path_in ("new.json"), *made = path_in ("data/made.json");
  gchar *text;

  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  g_assert_true (g_file_set_contents (target, "old", -1, NULL));
  /* relative targets, resolved from each link's own folder */
  g_assert_cmpint (symlink ("real.json", link2), ==, 0);
  g_assert_cmpint (symlink ("data/mid.json", link1), ==, 0);
  g_assert_true (gpuprof_outfile_replace ("stats file", link1, "new", 3));
  g_assert_true (g_file_test (link1, G_FILE_TEST_IS_SYMLINK));
  g_assert_true (g_file_test (link2, G_FILE_TEST_IS_SYMLINK));
  text = contents (target);
  g_assert_cmpstr (text, ==, "new");
  g_free (text);
  assert_no_temp (tmpdir);
  assert_no_temp (sub);

  /* a dangling link creates its target */
  g_assert_cmpint (symlink ("data/made.json", dangling), ==, 0);
  g_assert_true (gpuprof_outfile_replace ("html file", dangling, "page", 4));
  g_assert_true (g_file_test (dangling, G_FILE_TEST_IS_SYMLINK));
  text = contents (made);
  g_assert_cmpstr (text, ==, "page");
  g_free (text);

  /* files written over time open through the link too */
  {
    GpuprofOutfile *f = gpuprof_outfile_open ("report file", link1,
        GPUPROF_OUTFILE_APPEND);

    g_assert_nonnull (f);
    g_assert_true (gpuprof_outfile_write (f, "+", 1));
    g_assert_true (gpuprof_outfile_close (f));
    text = contents (target);
    g_assert_cmpstr (text, ==, "new+");
    g_free (text);
    g_assert_true (g_file_test (link1, G_FILE_TEST_IS_SYMLINK));
  }
  g_unlink (link1);
  g_unlink (link2);
  g_unlink (dangling);
  g_unlink (made);
  g_unlink (target);
  g_rmdir (sub);
  g_free (sub);
  g_free (target);
  g_free (link1);
  g_free (link2);
  g_free (dangling);
  g_free (made);
}

typedef struct
{
  gint fd;
  GString *got;
} Reader;

static gpointer
read_all (gpointer data)
{
  Reader *r = data;
  gchar buf[8192];
  gssize n;

  while ((n = read (r->fd, buf, sizeof (buf))) != 0) {
    if (n < 0 && errno == EAGAIN) {
      g_usleep (1000);
      continue;
    }
    g_assert_cmpint (n, >, 0);
    g_string_append_len (r->got, buf, n);
  }
  return NULL;
}

static void
test_fifo (void)
{
  gchar *fifo = path_in ("fifo.json");
  gsize big_len = 1 << 20;      /* more than a pipe holds: the writer waits */
  gchar *big = g_malloc (big_len);
  Reader r = { -1, g_string_new (NULL) };
  GThread *t;
  struct stat st;

  memset (big, 'x', big_len);
  g_assert_cmpint (mkfifo (fifo, 0644), ==, 0);
  g_assert_cmpint (gpuprof_outfile_kind (fifo), ==, GPUPROF_OUTFILE_STREAM);
  g_assert_null (gpuprof_outfile_sibling_base (fifo, NULL));

  /* a reader: written into, not renamed over */
  r.fd = open (fifo, O_RDONLY | O_NONBLOCK);
  g_assert_cmpint (r.fd, >=, 0);
  t = g_thread_new ("reader", read_all, &r);
  g_assert_true (gpuprof_outfile_replace ("stats file", fifo, big, big_len));
  g_thread_join (t);
  close (r.fd);
  g_assert_cmpuint (r.got->len, ==, big_len);
  g_assert_cmpint (lstat (fifo, &st), ==, 0);
  g_assert_true (S_ISFIFO (st.st_mode));
  assert_no_temp (tmpdir);

  /* none: one line naming it, at once */
  g_string_truncate (said, 0);
  g_assert_false (gpuprof_outfile_replace ("stats file", fifo, "x", 1));
  g_assert_cmpuint (said_lines (fifo), ==, 1);
  g_assert_cmpuint (said_lines ("a FIFO nobody reads"), ==, 1);
  g_assert_true (g_str_has_prefix (said->str, "gpuprof: cannot open stats file"));
  g_assert_cmpint (lstat (fifo, &st), ==, 0);
  g_assert_true (S_ISFIFO (st.st_mode));
  g_assert_null (gpuprof_outfile_open ("live file", fifo,
          GPUPROF_OUTFILE_TRUNCATE));

  g_string_free (r.got, TRUE);
  g_free (big);
  g_unlink (fifo);
  g_free (fifo);
}

/* device nodes of our own (root): /dev itself is never at risk */
static void
test_char_device (void)
{
  gchar *null_ = path_in ("null"), *full = path_in ("full");
  struct stat st;

  g_assert_cmpint (gpuprof_outfile_kind ("/dev/null"), ==,
      GPUPROF_OUTFILE_STREAM);
  if (mknod (null_, S_IFCHR | 0666, makedev (1, 3)) < 0
      || mknod (full, S_IFCHR | 0666, makedev (1, 7)) < 0) {
    g_test_skip ("cannot make device nodes (not root?)");
    goto out;
  }
  if (!gpuprof_outfile_replace ("stats file", null_, "x", 1)) {
    g_test_skip ("device nodes do not open here (nodev?)");
    goto out;
  }
  g_assert_cmpint (lstat (null_, &st), ==, 0);
  g_assert_true (S_ISCHR (st.st_mode));

  g_string_truncate (said, 0);
  g_assert_false (gpuprof_outfile_replace ("stats file", full, "x", 1));
  g_assert_cmpuint (said_lines (full), ==, 1);
  g_assert_cmpuint (said_lines (g_strerror (ENOSPC)), ==, 1);
  g_assert_cmpint (lstat (full, &st), ==, 0);
  g_assert_true (S_ISCHR (st.st_mode));
  assert_no_temp (tmpdir);
out:
  g_unlink (null_);
  g_unlink (full);
  g_free (null_);
  g_free (full);
}

static void
test_own_descriptors (void)
{
  gchar *file = path_in ("redirected.txt"), *link = path_in ("out-link");
  gchar *via_fd, *text;
  gint fd;

  g_assert_cmpint (gpuprof_outfile_kind ("/dev/stdout"), ==,
      GPUPROF_OUTFILE_STREAM);
  g_assert_cmpint (gpuprof_outfile_kind ("/dev/stderr"), ==,
      GPUPROF_OUTFILE_STREAM);
  g_assert_null (gpuprof_outfile_sibling_base ("/dev/stdout", NULL));

  /* a redirected stream: written at its offset, neither truncated nor
   * replaced (as stats=/dev/stdout with stdout sent to a file) */
  g_assert_true (g_file_set_contents (file, "app output\n", -1, NULL));
  fd = open (file, O_WRONLY | O_APPEND);
  g_assert_cmpint (fd, >=, 0);
  via_fd = g_strdup_printf ("/proc/self/fd/%d", fd);
  g_assert_cmpint (symlink (via_fd, link), ==, 0);
  g_assert_true (gpuprof_outfile_replace ("stats file", via_fd, "{}\n", 3));
  g_assert_true (gpuprof_outfile_replace ("stats file", link, "[]\n", 3));
  g_assert_true (g_file_test (link, G_FILE_TEST_IS_SYMLINK));
  /* the descriptor is still the application's */
  g_assert_cmpint (write (fd, "more\n", 5), ==, 5);
  close (fd);
  text = contents (file);
  g_assert_cmpstr (text, ==, "app output\n{}\n[]\nmore\n");
  g_free (text);
  g_unlink (link);
  g_unlink (file);
  g_free (via_fd);
  g_free (link);
  g_free (file);
}

static void
test_refused (void)
{
  gchar *loop1 = path_in ("loop1"), *loop2 = path_in ("loop2");

  g_string_truncate (said, 0);
  g_assert_cmpint (gpuprof_outfile_kind (tmpdir), ==,
      GPUPROF_OUTFILE_REFUSED);
  g_assert_false (gpuprof_outfile_replace ("html file", tmpdir, "x", 1));
  g_assert_cmpuint (said_lines (g_strerror (EISDIR)), ==, 1);
  g_assert_cmpint (symlink ("loop2", loop1), ==, 0);
  g_assert_cmpint (symlink ("loop1", loop2), ==, 0);
  g_assert_false (gpuprof_outfile_replace ("html file", loop1, "x", 1));
  g_assert_cmpuint (said_lines (g_strerror (ELOOP)), ==, 1);
  g_unlink (loop1);
  g_unlink (loop2);
  g_free (loop1);
  g_free (loop2);
}

/* a 64 KiB tmpfs in a mount namespace of this process; else the file
 * size limit (EFBIG instead of ENOSPC, the same paths in the code) */
static gboolean
make_full_place (const gchar * dir, gint * errsv)
{
  struct rlimit rl = { 64 << 10, 64 << 10 };

  if (unshare (CLONE_NEWNS) == 0
      && mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0
      && mount ("tmpfs", dir, "tmpfs", 0, "size=64k") == 0) {
    *errsv = ENOSPC;
    return TRUE;
  }
  signal (SIGXFSZ, SIG_IGN);
  *errsv = EFBIG;
  return setrlimit (RLIMIT_FSIZE, &rl) == 0;
}

static void
test_full (void)
{
  gchar *dir = path_in ("full-fs"), *path, *log, *text;
  gsize big_len = 256 << 10;
  gchar *big = g_malloc (big_len);
  GpuprofOutfile *f;
  gint errsv = 0;

  memset (big, 'y', big_len);
  g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
  if (!make_full_place (dir, &errsv)) {
    g_test_skip ("neither a tmpfs nor a file size limit");
    g_free (dir);
    g_free (big);
    return;
  }
  g_test_message ("full: %s", errsv == ENOSPC ? "64 KiB tmpfs" :
      "RLIMIT_FSIZE");
  path = g_build_filename (dir, "run.json", NULL);
  log = g_build_filename (dir, "live.jsonl", NULL);

  /* the old file stays whole; one line naming it and the reason */
  g_assert_true (gpuprof_outfile_replace ("stats file", path, "old", 3));
  g_string_truncate (said, 0);
  g_assert_false (gpuprof_outfile_replace ("stats file", path, big,
          big_len));
  g_assert_cmpuint (said_lines (path), ==, 1);
  g_assert_cmpuint (said_lines (g_strerror (errsv)), ==, 1);
  text = contents (path);
  g_assert_cmpstr (text, ==, "old");
  g_free (text);
  assert_no_temp (dir);

  /* said once per file until it works again */
  g_assert_false (gpuprof_outfile_replace ("stats file", path, big,
          big_len));
  g_assert_cmpuint (said_lines (path), ==, 1);
  g_assert_true (gpuprof_outfile_replace ("stats file", path, "ok", 2));
  g_assert_false (gpuprof_outfile_replace ("stats file", path, big,
          big_len));
  g_assert_cmpuint (said_lines (path), ==, 2);

  /* a file written over time: the write fails once, said once */
  g_string_truncate (said, 0);
  f = gpuprof_outfile_open ("live file", log, GPUPROF_OUTFILE_TRUNCATE);
  g_assert_nonnull (f);
  g_assert_false (gpuprof_outfile_write (f, big, big_len));
  g_assert_false (gpuprof_outfile_write (f, big, big_len));
  gpuprof_outfile_close (f);
  g_assert_cmpuint (said_lines (log), ==, 1);
  g_assert_true (g_str_has_prefix (said->str,
          "gpuprof: cannot write live file"));

  g_unlink (path);
  g_unlink (log);
  if (errsv == ENOSPC)
    umount (dir);
  g_rmdir (dir);
  g_free (path);
  g_free (log);
  g_free (dir);
  g_free (big);
}

static void
test_placeholders (void)
{
  gchar *want, *got, *warn, *host = g_strdup (g_get_host_name ());
  GRegex *re;

  gpuprof_outfile_mark_start ();
  got = gpuprof_outfile_expand ("/x/%p-%n-%%-%h.json", "my pipe/1");
  want = g_strdup_printf ("/x/%d-my_pipe_1-%%-%s.json", (gint) getpid (),
      host);
  g_assert_cmpstr (got, ==, want);
  g_free (got);
  g_free (want);

  got = gpuprof_outfile_expand ("%t", "p");
  re = g_regex_new ("^20[0-9]{6}T[0-9]{6}Z$", 0, 0, NULL);
  g_assert_true (g_regex_match (re, got, 0, NULL));
  g_regex_unref (re);
  /* one start time for every file of the process */
  want = gpuprof_outfile_expand ("%t", "q");
  g_assert_cmpstr (got, ==, want);
  g_free (want);
  g_free (got);

  /* a name starting with a dot does not make a hidden file */
  got = gpuprof_outfile_expand ("%n", ".hidden");
  g_assert_cmpstr (got, ==, "_hidden");
  g_free (got);
  /* no pipeline (trace=): the program's name */
  got = gpuprof_outfile_expand ("%n", NULL);
  g_assert_cmpstr (got, ==, "test-outfile");
  g_free (got);

  /* unknown: kept as written, and a warning naming it and the valid ones */
  got = gpuprof_outfile_expand ("a%xb%", "p");
  g_assert_cmpstr (got, ==, "a%xb%");
  g_free (got);
  g_assert_null (gpuprof_outfile_check_placeholders ("stats", "%p%%%n%t%h"));
  warn = gpuprof_outfile_check_placeholders ("stats", "/v/%x.json");
  g_assert_cmpstr (warn, ==, "gpuprof: unknown placeholder '%x' in "
      "stats=/v/%x.json, kept as written (valid: %p process id, %n pipeline "
      "name, %t start time of the tracer, UTC, %h host name, %% a percent "
      "sign)\n");
  g_free (warn);
  warn = gpuprof_outfile_check_placeholders ("html", "a%");
  g_assert_true (g_str_has_prefix (warn, "gpuprof: a lone '%' ends html=a%"));
  g_free (warn);
  g_free (host);
}

static void
test_params (void)
{
  GpuprofParams p;
  gchar *warn;

  gpuprof_params_init (&p);
  /* GstStructure takes no unquoted '%': the parser quotes such values */
  warn = gpuprof_params_parse (&p, "stats=/v/%p-%n.json,nvtx=off,"
      "html=/h/%t-%%.html,trace-elements=\"a|b\",report=/r/%h.txt");
  g_assert_null (warn);
  g_assert_cmpstr (p.stats_path, ==, "/v/%p-%n.json");
  g_assert_cmpstr (p.html_path, ==, "/h/%t-%%.html");
  g_assert_cmpstr (p.trace_elements, ==, "a|b");
  g_assert_cmpstr (p.report_path, ==, "/r/%h.txt");
  g_assert_false (p.nvtx);
  g_assert_cmpfloat (p.checkpoint, ==, 5.0);

  warn = gpuprof_params_parse (&p, "stats=/v/%x.json,report=/r/%y,"
      "checkpoint=0.5");
  g_assert_nonnull (strstr (warn, "unknown placeholder '%x' in "
          "stats=/v/%x.json"));
  g_assert_nonnull (strstr (warn, "unknown placeholder '%y' in report=/r/%y"));
  g_assert_cmpstr (p.stats_path, ==, "/v/%x.json");
  g_assert_cmpfloat (p.checkpoint, ==, 0.5);
  g_free (warn);
  gpuprof_params_clear (&p);
}

static void
test_sibling_base (void)
{
  gchar *base = gpuprof_outfile_sibling_base ("/a/run.json", NULL);

  g_assert_cmpstr (base, ==, "/a/run.json");
  g_free (base);
  base = gpuprof_outfile_sibling_base ("/dev/stdout", "/logs");
  g_assert_cmpstr (base, ==, "/logs/stdout");
  g_free (base);
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  gst_init (NULL, NULL);
  g_set_prgname ("test-outfile");
  said = g_string_new (NULL);
  g_set_printerr_handler (capture_printerr);
  tmpdir = g_dir_make_tmp ("gpuprof-outfile-XXXXXX", NULL);
  g_test_add_func ("/outfile/regular", test_regular);
  g_test_add_func ("/outfile/symlink", test_symlink);
  g_test_add_func ("/outfile/fifo", test_fifo);
  g_test_add_func ("/outfile/char-device", test_char_device);
  g_test_add_func ("/outfile/own-descriptors", test_own_descriptors);
  g_test_add_func ("/outfile/refused", test_refused);
  g_test_add_func ("/outfile/placeholders", test_placeholders);
  g_test_add_func ("/outfile/sibling-base", test_sibling_base);
  g_test_add_func ("/outfile/params", test_params);
  /* last: it may leave the process with a file size limit */
  g_test_add_func ("/outfile/full", test_full);
  ret = g_test_run ();
  g_rmdir (tmpdir);
  g_free (tmpdir);
  return ret;
}
