/* See gpuprof-test-core.h. */
#include "gpuprof-test-core.h"

#include <gst/gst.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>

static const gchar *
element_at (guint32 id, const gchar * const *elements)
{
  guint32 i;

  /* an id past the table's end has no name */
  for (i = 1; i < id; i++)
    if (!elements[i - 1])
      return NULL;
  return id ? elements[id - 1] : NULL;
}

static gchar *
element_path (guint32 id, gpointer user_data)
{
  return g_strdup (element_at (id, user_data));
}

static gchar *
pad_name (guint32 id, gpointer user_data)
{
  const gchar *path;

  if (id <= GPUPROF_TEST_PAD_BASE)
    return NULL;
  path = element_at (id - GPUPROF_TEST_PAD_BASE, user_data);
  if (!path)
    return NULL;
  return g_strdup_printf ("%s:sink", strrchr (path, '/') ?
      strrchr (path, '/') + 1 : path);
}

static gchar *
thread_name (guint32 id, gpointer user_data)
{
  return g_strdup (id == 1 ? "src:src" : id == 2 ? "q:src" : "main");
}

static gchar *
pipeline_name (gpointer user_data)
{
  return g_strdup ("pipeline0");
}

GpuprofTraceNames
gpuprof_test_trace_names (const gchar * const *elements)
{
  GpuprofTraceNames names = { (gpointer) elements, element_path, pad_name,
    thread_name, pipeline_name
  };

  return names;
}

gint
gpuprof_test_check_trace (const gchar * path, const gchar * const *opts)
{
  GPtrArray *argv = g_ptr_array_new ();
  const gchar *checker = g_getenv ("CHECK_TRACE");
  gchar *out = NULL;
  gint status = -1;
  GError *err = NULL;

  g_assert_nonnull (checker);
  g_ptr_array_add (argv, (gpointer) checker);
  for (; opts && *opts; opts++)
    g_ptr_array_add (argv, (gpointer) * opts);
  g_ptr_array_add (argv, (gpointer) path);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (gchar **) argv->pdata, NULL,
          G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL, &status, &err));
  g_assert_no_error (err);
  g_test_message ("%s", out);
  if (!g_spawn_check_wait_status (status, NULL))
    g_printerr ("checker on %s:\n%s", path, out);
  g_free (out);
  g_ptr_array_unref (argv);
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

guint gpuprof_test_printerr_count;

static void
count_printerr (const gchar * msg)
{
  gpuprof_test_printerr_count++;
  g_test_message ("printerr: %s", msg);
}

void
gpuprof_test_count_printerr (void)
{
  gpuprof_test_printerr_count = 0;
  g_set_printerr_handler (count_printerr);
}

gchar *
gpuprof_test_core_init (gint * argc, gchar *** argv, const gchar * tmpl)
{
  gst_init (argc, argv);
  g_test_init (argc, argv, NULL);
  return tmpl ? gpuprof_test_tmpdir_new (tmpl) : NULL;
}

gchar *
gpuprof_test_tmpdir_new (const gchar * tmpl)
{
  GError *err = NULL;
  gchar *dir = g_dir_make_tmp (tmpl, &err);

  g_assert_no_error (err);
  return dir;
}

static gboolean
remove_tree (const gchar * path)
{
  GDir *dir = g_dir_open (path, 0, NULL);
  const gchar *name;
  gboolean ok = TRUE;

  if (dir) {
    while ((name = g_dir_read_name (dir))) {
      gchar *child = g_build_filename (path, name, NULL);

      ok = remove_tree (child) && ok;
      g_free (child);
    }
    g_dir_close (dir);
  }
  return g_remove (path) == 0 && ok;
}

gint
gpuprof_test_tmpdir_done (gchar * tmpdir, gint status)
{
  if (status == 0 && g_getenv ("GPUPROF_KEEP_TMP"))
    g_printerr ("GPUPROF_KEEP_TMP: files kept in %s\n", tmpdir);
  else if (status == 0 && !remove_tree (tmpdir)) {
    g_printerr ("could not remove %s\n", tmpdir);
    status = 1;
  }
  g_free (tmpdir);
  return status;
}

GpuprofTrace *
gpuprof_test_trace_new (const gchar * path, const GpuprofTraceNames * names,
    guint64 max_bytes, GRegex * filter, GError ** err)
{
  GpuprofBus *bus = gpuprof_bus_new ();
  GpuprofTrace *trace = gpuprof_trace_new (bus, path, names, max_bytes,
      filter, err);

  if (!trace)
    gpuprof_bus_free (bus);
  return trace;
}

GpuprofRing *
gpuprof_test_trace_ring (GpuprofTrace * trace, guint32 id)
{
  return gpuprof_bus_ring_for_thread (gpuprof_trace_get_bus (trace), id);
}

void
gpuprof_test_trace_free (GpuprofTrace * trace)
{
  GpuprofBus *bus = trace ? gpuprof_trace_get_bus (trace) : NULL;

  gpuprof_trace_free (trace);
  gpuprof_bus_free (bus);
}
