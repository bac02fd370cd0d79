/* gpuprof: the tracer's parameters.
 *
 * One table (gpuprof-params.c) defines every parameter once; from it come
 * the tracer's construct-only GObject properties, the parsing of
 * GST_TRACERS="gpuprof(key=value,...)" (GStreamer 1.22 hands the text over
 * as the "params" property; it is parsed as a GstStructure and each field
 * is stored as its property would store it), the warnings for a bad key or
 * value (one line naming it and the valid choices; the run goes on with the
 * default), and the table of docs/parameters.md.
 */
#pragma once

#include "gpuprof-api.h"

#include <gst/gst.h>

G_BEGIN_DECLS

/**
 * GpuprofCuptiMode:
 * @GPUPROF_CUPTI_AUTO: on when CUPTI loads and a GPU is there, else off with
 *   its reason
 * @GPUPROF_CUPTI_ON: the same, but the caller should warn when it is off
 * @GPUPROF_CUPTI_OFF: never load CUPTI
 */
typedef enum
{
  GPUPROF_CUPTI_AUTO = 0,
  GPUPROF_CUPTI_ON,
  GPUPROF_CUPTI_OFF,
} GpuprofCuptiMode;

/**
 * GpuprofCuptiPath:
 * @GPUPROF_CUPTI_PATH_CALLBACK: CUPTI callbacks at the entry of launch, copy
 *   and memset API calls store what the launching thread is doing under the
 *   call's correlation id; activity records for GPU work only (the cheap one)
 * @GPUPROF_CUPTI_PATH_ACTIVITY: runtime + driver API activity records and
 *   external correlation records, joined on the collector thread
 *
 * How GPU records find the element that launched them (docs/gpu.md).
 */
typedef enum
{
  GPUPROF_CUPTI_PATH_CALLBACK = 0,
  GPUPROF_CUPTI_PATH_ACTIVITY,
} GpuprofCuptiPath;


/**
 * GpuprofNvmlMode:
 * @GPUPROF_NVML_AUTO: read the GPU's engines when NVML loads and finds a
 *   GPU, else silently not
 * @GPUPROF_NVML_MODE_ON: the same, but say once why it cannot
 * @GPUPROF_NVML_MODE_OFF: never load NVML
 */
typedef enum
{
  GPUPROF_NVML_AUTO = 0,
  GPUPROF_NVML_MODE_ON,
  GPUPROF_NVML_MODE_OFF,
} GpuprofNvmlMode;

/* window=SKIP[+LENGTH] (docs/parameters.md): each in seconds, or in
 * buffers at the sinks with a "b"; 0 / unset = from the start, to the end */
typedef struct
{
  gdouble skip_s, length_s;
  guint64 skip_buffers, length_buffers;
} GpuprofWindowSpec;

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
  gchar *stats_dir;             /* stats-dir=<folder>, NULL = beside stats= */
  gchar *html_path;             /* html=<path>, NULL = none */
  gdouble checkpoint;           /* checkpoint=<seconds>, 0 = off */
  GpuprofCuptiMode cupti;       /* cupti=auto|on|off */
  gchar *cupti_lib;             /* cupti-lib=<path> */
  GpuprofCuptiPath cupti_path;  /* cupti-path=callback|activity */
  gdouble interval;             /* interval=<seconds>, 0 = no live snapshots */
  gdouble stall;                /* stall=<seconds>, 0 = auto */
  gdouble sample_hz;            /* sample-hz=<passes a second>, 0 = off */
  gchar *metrics;               /* metrics=[HOST:]PORT, NULL = no endpoint */
  GpuprofNvmlMode nvml;         /* nvml=auto|on|off */
  gdouble nvml_hz;              /* nvml-hz=<readings per second> */
  gchar *window;                /* window=SKIP[+LENGTH], NULL = whole run */
  GpuprofWindowSpec window_spec;        /* window=, parsed */
} GpuprofParams;

#define GPUPROF_TYPE_CUPTI_MODE (gpuprof_cupti_mode_get_type ())
GType gpuprof_cupti_mode_get_type (void);
GType gpuprof_cupti_path_get_type (void);
GType gpuprof_nvml_mode_get_type (void);

/* Parses a window= value into @out; FALSE when malformed */
GPUPROF_API
gboolean gpuprof_window_spec_parse (const gchar * text,
    GpuprofWindowSpec * out);

/* defaults, from the table */
GPUPROF_API
void gpuprof_params_init (GpuprofParams * p);
GPUPROF_API
void gpuprof_params_clear (GpuprofParams * p);
void gpuprof_params_copy (GpuprofParams * dest, const GpuprofParams * src);

/* Installs one construct-only property per parameter, with ids
 * first_prop_id, first_prop_id + 1, ... in table order. */
GPUPROF_API
void gpuprof_params_install_properties (GObjectClass * klass,
    guint first_prop_id);
/* 'index' is prop_id - first_prop_id. A bad value warns (as a bad
 * GST_TRACERS value does) and leaves the parameter as it was. */
GPUPROF_API
void gpuprof_params_set_property (GpuprofParams * p, guint index,
    const GValue * value);
GPUPROF_API
void gpuprof_params_get_property (const GpuprofParams * p, guint index,
    GValue * value);

/* Applies GST_TRACERS' "key=value,..." over what is in 'p'. Returns the
 * warnings (one line each), NULL when all was fine. */
GPUPROF_API
gchar *gpuprof_params_parse (GpuprofParams * p, const gchar * params);
/* the warnings, to the debug log and once on stderr for the user */
GPUPROF_API
void gpuprof_params_warn (const gchar * warnings);

/* docs/parameters.md's table of parameters (markdown), from the table */
GPUPROF_API
gchar *gpuprof_params_markdown (void);
/* the same for a terminal (gst-gpuprof params): 1.22's gst-inspect-1.0
 * prints no tracer properties */
GPUPROF_API
gchar *gpuprof_params_describe (void);

G_END_DECLS
