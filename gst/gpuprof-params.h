/* gpuprof: the tracer's parameters, GST_TRACERS="gpuprof(key=value,...)".
 *
 * Parsed as a GstStructure. An unknown key or a bad value gives one warning
 * naming it and the valid choices; the run goes on with the default.
 * docs/parameters.md documents every key.
 */
#pragma once

#include <gst/gst.h>

#include "gpuprof-cupti.h"

G_BEGIN_DECLS

typedef enum
{
  GPUPROF_REPORT_OFF,
  GPUPROF_REPORT_STDERR,
  GPUPROF_REPORT_STDOUT,
  GPUPROF_REPORT_FILE,
} GpuprofReportDest;


typedef struct
{
  gboolean nvtx;                /* nvtx=on|off */
  GpuprofReportDest report;     /* report=stderr|stdout|off|<path> */
  gchar *report_path;
  gchar *trace_path;            /* trace=<path>, NULL = no trace */
  gchar *trace_elements;        /* trace-elements=<regex>, NULL = all */
  guint trace_max_mb;           /* trace-max-mb=<n>, 0 = no cap */
  gchar *stats_path;            /* stats=<path>, NULL = none */
  GpuprofCuptiMode cupti;       /* cupti=auto|on|off */
  gchar *cupti_lib;             /* cupti-lib=<path> */
} GpuprofParams;

void gpuprof_params_init (GpuprofParams * p);
void gpuprof_params_clear (GpuprofParams * p);
/* Returns the warnings (one line each), NULL when all was fine. */
gchar *gpuprof_params_parse (GpuprofParams * p, const gchar * params);

G_END_DECLS
