/* The fake libnvidia-ml (tests/gpu/fake-nvml.c) seen from a test: where
 * its three builds are and its test functions, found with dlsym in the
 * same library instance gpuprof-nvml.c loads (dlopen of one path gives
 * one instance). Needs only GLib; failures abort with a message. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  GPUPROF_TEST_NVML_FAKE = 0,   /* complete */
  GPUPROF_TEST_NVML_OLD,        /* an older driver: optional calls missing */
  GPUPROF_TEST_NVML_BROKEN,     /* a required call missing */
} GpuprofTestNvmlKind;

/* its path ($FAKE_NVML_PATH, _OLD_PATH, _BROKEN_PATH, set by meson) */
const gchar *gpuprof_test_fake_nvml_path (GpuprofTestNvmlKind kind);
/* fake_nvml_script(): replaces the readings' script, restarts its time;
 * aborts when it is malformed */
void gpuprof_test_fake_nvml_script (GpuprofTestNvmlKind kind,
    const gchar * script);
/* fake_nvml_calls(): calls of @func (%NULL: of all NVML functions) */
gulong gpuprof_test_fake_nvml_calls (GpuprofTestNvmlKind kind,
    const gchar * func);
/* fake_nvml_reset_calls() */
void gpuprof_test_fake_nvml_reset_calls (GpuprofTestNvmlKind kind);
/* fake_nvml_callers(): the threads that called, their calls; how many */
guint gpuprof_test_fake_nvml_callers (GpuprofTestNvmlKind kind, gint * tids,
    gulong * calls, guint max);

G_END_DECLS
