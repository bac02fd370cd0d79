/* The fake libnvidia-ml seen from a test: see gpuprof-test-nvml.h. */
#include "gpuprof-test-nvml.h"

#include <dlfcn.h>

const gchar *
gpuprof_test_fake_nvml_path (GpuprofTestNvmlKind kind)
{
  static const gchar *vars[] = { "FAKE_NVML_PATH", "FAKE_NVML_OLD_PATH",
    "FAKE_NVML_BROKEN_PATH"
  };
  const gchar *path = g_getenv (vars[kind]);

  if (!path)
    g_error ("%s is not set: no fake libnvidia-ml", vars[kind]);
  return path;
}

static gpointer
symbol (GpuprofTestNvmlKind kind, const gchar * name)
{
  const gchar *path = gpuprof_test_fake_nvml_path (kind);
  void *module = dlopen (path, RTLD_NOW | RTLD_LOCAL);
  gpointer f;

  if (!module)
    g_error ("cannot open the fake libnvidia-ml %s: %s", path, dlerror ());
  if (!(f = dlsym (module, name)))
    g_error ("the fake libnvidia-ml %s has no %s", path, name);
  /* left open: the function stays valid, and the loader's dlopen of the
   * same path finds this instance */
  return f;
}

void
gpuprof_test_fake_nvml_script (GpuprofTestNvmlKind kind, const gchar * script)
{
  gint (*f) (const gchar *) = symbol (kind, "fake_nvml_script");

  if (f (script) != 0)
    g_error ("fake NVML: malformed script %s", script);
}

gulong
gpuprof_test_fake_nvml_calls (GpuprofTestNvmlKind kind, const gchar * func)
{
  gulong (*f) (const gchar *) = symbol (kind, "fake_nvml_calls");

  return f (func);
}

void
gpuprof_test_fake_nvml_reset_calls (GpuprofTestNvmlKind kind)
{
  void (*f) (void) = symbol (kind, "fake_nvml_reset_calls");

  f ();
}

guint
gpuprof_test_fake_nvml_callers (GpuprofTestNvmlKind kind, gint * tids,
    gulong * calls, guint max)
{
  guint (*f) (gint *, gulong *, guint) = symbol (kind, "fake_nvml_callers");

  return f (tids, calls, max);
}
