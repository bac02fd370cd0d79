/* Preloaded by tests/sanitizer-run.sh into the GStreamer programs it shims
 * (gst-launch-1.0, ...), after the sanitizer runtimes. With ASan and UBSan
 * together, GCC 12's libubsan ignores UBSAN_OPTIONS=log_path and writes to
 * stderr, which shell tests often redirect away; this points libubsan's own
 * report path (not libasan's, which has a symbol of the same name) at
 * $GPUPROF_UBSAN_LOG so the wrapper finds the report. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdlib.h>

__attribute__((constructor))
static void
set_ubsan_report_path (void)
{
  const char *path = getenv ("GPUPROF_UBSAN_LOG");
  void *ubsan = dlopen ("libubsan.so.1", RTLD_NOW | RTLD_NOLOAD);
  void (*set_path) (const char *);

  if (!path || !ubsan)
    return;
  *(void **) &set_path = dlsym (ubsan, "__sanitizer_set_report_path");
  if (set_path)
    set_path (path);
}
