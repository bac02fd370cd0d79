/* tests/tools: running `gst-gpuprof report`, see tools-report-util.h. */
#include "tools-report-util.h"

#include <sys/wait.h>

/* `gst-gpuprof report FILE`: its exit status, stdout and stderr */
gint
tools_run_report (const gchar * file, gchar ** out, gchar ** err)
{
  const gchar *argv[] = { g_getenv ("GST_GPUPROF"), "report", file, NULL };
  gint status;

  g_assert_nonnull (argv[0]);
  g_assert_true (g_spawn_sync (NULL, (gchar **) argv, NULL, 0, NULL, NULL,
          out, err, &status, NULL));
  g_test_message ("stdout:\n%s\nstderr:\n%s", *out, *err);
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

/* the report of FILE is byte for byte @expected */
void
tools_assert_report_equals (const gchar * file, const gchar * expected)
{
  gchar *out, *err;

  g_assert_cmpint (tools_run_report (file, &out, &err), ==, 0);
  g_assert_cmpstr (out, ==, expected);
  g_free (out);
  g_free (err);
}
