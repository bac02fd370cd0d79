/* Helpers shared by the tracer tests: run a pipeline to EOS under the tracer
 * and read its statistics back through the tracer's action signals. */
#pragma once

#include <gst/check/gstcheck.h>

G_BEGIN_DECLS

GstTracer *gpuprof_test_tracer (void);
GstElement *gpuprof_test_run (const gchar * description);
void gpuprof_test_play_to_eos (GstElement * pipeline);
GstStructure *gpuprof_test_element_stats (const gchar * path);
GstStructure *gpuprof_test_queue_stats (const gchar * path);
guint64 gpuprof_test_get_u64 (const GstStructure * s, const gchar * field);
gchar *gpuprof_test_last_report (void);
gboolean gpuprof_test_timing (void);
void gpuprof_test_assert_near (const gchar * what, gdouble value,
    gdouble expected, gdouble tolerance);

G_END_DECLS
