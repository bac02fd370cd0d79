/* The active gpuprof tracer: see gpuprof-test-tracer.h. */
#include "gpuprof-test-tracer.h"

GstTracer *
gpuprof_test_find_tracer (void)
{
  GList *tracers = gst_tracing_get_active_tracers (), *l;
  GstTracer *found = NULL;

  for (l = tracers; l; l = l->next) {
    if (!g_strcmp0 (G_OBJECT_TYPE_NAME (l->data), "GstGpuprofTracer"))
      found = l->data;
  }
  /* the tracer lives as long as the process; no ref needed */
  g_list_free_full (tracers, gst_object_unref);
  return found;
}
