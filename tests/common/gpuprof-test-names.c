/* See gpuprof-test-names.h. */
#include "gpuprof-test-names.h"

#include <string.h>

static const gchar *
element_at (guint32 id, const gchar * const *elements)
{
  guint32 i;

  if (id == 0)
    return NULL;
  for (i = 1; i < id && elements[i - 1]; i++);
  return elements[i - 1];
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
