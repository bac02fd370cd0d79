/* gpuprof: the tracer's parameters, defined once in params[] below. */
#include "gpuprof-params.h"
#include "gpuprof-outfile.h"

#include <stdlib.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gpuprof_params_debug);
#define GST_CAT_DEFAULT gpuprof_params_debug

typedef enum
{
  PARAM_SWITCH,                 /* gboolean, written on|off */
  PARAM_ENUM,                   /* a registered enum, written by its nicks */
  PARAM_UINT,
  PARAM_SECONDS,                /* gdouble >= 0, fractional; 0 = off */
  PARAM_PATH,                   /* non-empty string, NULL = unset */
  PARAM_OUTPUT,                 /* a path an output writes: placeholders */
  PARAM_REGEX,                  /* a GRegex pattern, NULL = unset */
  PARAM_REPORT,                 /* stderr|stdout|off|<path> */
  PARAM_WINDOW,                 /* SKIP[+LENGTH]: a string, parsed */
} ParamKind;

typedef struct
{
  const gchar *name;
  ParamKind kind;
  gsize offset;                 /* of its field in GpuprofParams */
  gint def;                     /* switch, enum, uint */
  GType (*enum_type) (void);    /* enum */
  const gchar *values;          /* uint and strings: how a value is written */
  const gchar *unset;           /* strings: what no value means */
  const gchar *blurb;           /* one line: the property's blurb */
  const gchar *doc;             /* more, for docs/parameters.md (markdown) */
} ParamDef;

#define FIELD(f) G_STRUCT_OFFSET (GpuprofParams, f)

/* *INDENT-OFF* */
static const ParamDef params[] = {
  {"nvtx", PARAM_SWITCH, FIELD (nvtx), TRUE, NULL, NULL, NULL,
   "NVTX ranges for Nsight Systems",
   "A domain per element, a push/pop range per chain call, a start/end "
   "range per buffer per queue, marks, thread names "
   "([tracer.md](tracer.md#nvtx)). With no NVTX tool attached each call "
   "costs a pointer check. Off: no NVTX call at all."},
  {"report", PARAM_REPORT, FIELD (report), 0, NULL, NULL, NULL,
   "Where the end-of-run report goes",
   "A path is truncated by the first report of the process and appended "
   "to by later ones. If it cannot be opened the report goes to stderr "
   "after one error line naming the path."},
  {"trace", PARAM_OUTPUT, FIELD (trace_path), 0, NULL, "<path>", "none",
   "Timeline trace file (Chrome trace-event JSON)",
   "For ui.perfetto.dev / chrome://tracing, see [trace.md](trace.md). One "
   "file for every pipeline of the process: `%n` is the program's name "
   "here."},
  {"trace-elements", PARAM_REGEX, FIELD (trace_elements), 0, NULL,
   "<regex>", "all",
   "Only elements whose path matches get chain and queue events in the "
   "trace",
   "A GLib regular expression; one with a bar goes in double quotes, as "
   "shown above."},
  {"trace-max-mb", PARAM_UINT, FIELD (trace_max_mb), 0, NULL,
   "<megabytes, 0 = no cap>", NULL,
   "Size cap of the trace in MiB, 0 = no cap",
   "After this many MiB the trace stops taking events and the report says "
   "so."},
  {"stats", PARAM_OUTPUT, FIELD (stats_path), 0, NULL, "<path>", "none",
   "Machine-readable summary of the report (JSON, plus one CSV per table)",
   "Schema in [summary-schema.md](summary-schema.md). Written at each run "
   "end and, while a pipeline runs, every `checkpoint` seconds (marked "
   "`run.checkpoint`), each file replaced atomically: a killed process "
   "leaves the last checkpoint. Into a FIFO, a character device or "
   "`/dev/stdout` only the JSON is written, at each run end "
   "([outputs.md](outputs.md#files))."},
  {"stats-dir", PARAM_OUTPUT, FIELD (stats_dir), 0, NULL, "<folder>",
   "beside `stats=`",
   "Folder for the files beside the summary (its CSV files, the live "
   "files of `interval`)",
   "Named after the `stats=` file. Without it they go beside `stats=`, and "
   "nowhere when `stats=` is a FIFO, a character device or `/dev/stdout` "
   "(said once)."},
  {"html", PARAM_OUTPUT, FIELD (html_path), 0, NULL, "<path>", "none",
   "One self-contained HTML report of the run (graph, time split, "
   "distributions, verdict)",
   "Rewritten at each run end and every `checkpoint` seconds while the "
   "pipeline runs; see [html.md](html.md)."},
  {"checkpoint", PARAM_SECONDS, FIELD (checkpoint), 5, NULL,
   "<seconds, fractional, 0 = off>", NULL,
   "Seconds between checkpoints of `stats=` and `html=` while a pipeline "
   "runs",
   "A thread of the tracer's own rewrites them from a snapshot of each "
   "running pipeline, so a run stopped by SIGTERM or SIGKILL (`docker "
   "stop`) leaves its summary up to the last checkpoint; the run end "
   "writes the final one. Nothing is done without `stats=` or `html=`. "
   "Cost: [benchmarks.md](benchmarks.md#checkpoints)."},
  {"cupti", PARAM_ENUM, FIELD (cupti), GPUPROF_CUPTI_AUTO,
   gpuprof_cupti_mode_get_type, NULL, NULL,
   "GPU attribution with CUPTI",
   "See [gpu.md](gpu.md). `auto`: on when CUPTI loads and a GPU is there, "
   "silently off otherwise (no stderr line, no `GPU:` report line); `on`: "
   "says why it is off when it cannot be on, once on stderr and in a `GPU:` "
   "line of each report. CUPTI starts with the first run (an element "
   "leaving NULL), so `gst-inspect-1.0` never loads it."},
  {"cupti-lib", PARAM_PATH, FIELD (cupti_lib), 0, NULL,
   "<path of libcupti.so>", "`libcupti.so.13` from the library path",
   "CUPTI library to load at run time", NULL},
  {"cupti-path", PARAM_ENUM, FIELD (cupti_path), GPUPROF_CUPTI_PATH_CALLBACK,
   gpuprof_cupti_path_get_type, NULL, NULL,
   "How GPU records find the element that launched them",
   "See [gpu.md](gpu.md#collection-paths). `callback`: CUPTI callbacks on "
   "launch, copy and memset calls note the launching thread's element and "
   "buffer; activity records for GPU work only (the cheap path). "
   "`activity`: runtime and driver API activity records and external "
   "correlation records, joined on the collector thread (the older, "
   "costlier path, kept to compare)."},
  {"interval", PARAM_SECONDS, FIELD (interval), 0, NULL,
   "<seconds, fractional, 0 = off>", NULL,
   "Live snapshots every this many seconds",
   "A thread of the tracer's own takes a snapshot of each running "
   "pipeline every interval, also when no data flows: JSON Lines and CSV "
   "rows beside `stats=`, a few lines per interval on `report=`, tracer "
   "records, an `fps` counter per sink in `trace=` ([live.md](live.md)). "
   "The end-of-run report is unchanged."},
  {"stall", PARAM_SECONDS, FIELD (stall), 0, NULL,
   "<seconds, 0 = auto>", NULL,
   "Seconds without a buffer that make a stall (watchdog)",
   "The watchdog runs on the live thread, with `interval=` or a `stall=` "
   "above 0. A pad that was flowing and has had no buffer for this long "
   "gets one stderr line naming the element and pad and what the "
   "pipeline's threads are doing now, while it lasts; so does a pipeline "
   "set to PLAYING that never got a buffer. `0`: four times the pad's "
   "normal gap between buffers, at least 2 s ([live.md](live.md#stalls))."},
  {"sample-hz", PARAM_SECONDS, FIELD (sample_hz), 10, NULL,
   "<passes per second, fractional, at most 10; 0 = off>", NULL,
   "Passes per second of the CPU sampler",
   "A thread of the tracer's own reads every thread of the process from "
   "`/proc` (time on a CPU, time waiting for a core, off CPU), the "
   "process's CPU and the cores it may use (CPUs online, affinity, cgroup "
   "quota), never on the buffer path, and gives each thread's CPU to its "
   "owner: the elements whose calls ran on it, the element that started it "
   "([tracer.md](tracer.md#busy-occupied-waiting), "
   "[resources.md](resources.md)). It also reads at each snapshot and when "
   "a pipeline starts and stops. Above 10 is taken as 10. Cost: about "
   "0.2 % of a core at 10 with 100 threads "
   "([benchmarks.md](benchmarks.md#cpu-sampler)). `0`: no sampler: the "
   "CPU columns are 0 and `busy` is self time over wall."},
  {"metrics", PARAM_PATH, FIELD (metrics), 0, NULL,
   "<HOST:PORT, :PORT or PORT>", "none",
   "Serve /metrics (Prometheus text format) on this address",
   "A thread of the tracer's own answers each scrape from a fresh "
   "snapshot of every running pipeline: per-stream figures under "
   "DeepStream 9's names, per-element, queue, batch and GPU families "
   "([metrics.md](metrics.md)). The host defaults to 127.0.0.1. A bad "
   "address or a port in use gives one stderr line naming it; the "
   "pipeline runs on without the endpoint."},
  {"nvml", PARAM_ENUM, FIELD (nvml), GPUPROF_NVML_AUTO,
   gpuprof_nvml_mode_get_type, NULL, NULL,
   "The GPU's engines from NVML (SMs, NVDEC, NVENC, memory, clocks)",
   "See [resources.md](resources.md#gpu-engines-in-the-run). Read on the "
   "sampler thread, never on the buffer path, with or without `cupti`: "
   "the report's GPU resources table, the verdict's decode-, encode-, "
   "compute-bound and throttled GPU. `auto`: on when "
   "`libnvidia-ml.so.1` loads and finds a GPU, silently off otherwise; "
   "`on`: says once why it cannot be on (stderr and the report); `off`: "
   "NVML is never loaded. Starts with the first run, as `cupti`."},
  {"nvml-hz", PARAM_SECONDS, FIELD (nvml_hz), 2, NULL,
   "<readings per second, fractional, 0 = off>", NULL,
   "NVML readings per second",
   "One reading of a device costs ~4.4 ms on an H100 (measured): at 2 a "
   "second about 1 % of the sampler thread's time. A reading that costs "
   "more than 1 % of a core at this rate is made less often (the report "
   "says the rate it kept). NVML averages its own figures over 1/6 s to "
   "1 s, so more than 6 a second repeats them."},
  {"window", PARAM_WINDOW, FIELD (window), 0, NULL,
   "<skip>[+<length>], each seconds (2.5) or buffers at the sinks (300b)",
   "the whole run",
   "Measure only a window of the run: start-up left out, and the CUDA "
   "profiler started and stopped at its edges",
   "`window=5+10`: from 5 s after the first pipeline went to PLAYING, "
   "for 10 s; `window=300b`: from when the sinks have received 300 "
   "buffers to the end. Calls before the window are start-up (each "
   "element's `first_ns`), calls after it are not measured; percentiles, "
   "busy, the verdict and the GPU resources cover the window. At its "
   "edges the sampler thread calls `cuProfilerStart` / `cuProfilerStop` "
   "(libcuda loaded at run time), so `nsys profile "
   "--capture-range=cudaProfilerApi` and `ncu --profile-from-start off` "
   "capture the same window ([resources.md](resources.md#the-measurement-"
   "window))."},
};
/* *INDENT-ON* */

/* report=: the words, the first is the default; other values are paths */
static const struct
{
  const gchar *word;
  GpuprofReportDest dest;
  gboolean alias;               /* accepted, not listed */
} report_words[] = {
  {"stderr", GPUPROF_REPORT_STDERR, FALSE},
  {"stdout", GPUPROF_REPORT_STDOUT, FALSE},
  {"off", GPUPROF_REPORT_OFF, FALSE},
  {"none", GPUPROF_REPORT_OFF, TRUE},
};

#define MEMBER(type, p, d) G_STRUCT_MEMBER (type, p, (d)->offset)

GType
gpuprof_cupti_mode_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {GPUPROF_CUPTI_AUTO, "On when CUPTI and a GPU are there, silently off "
          "otherwise", "auto"},
    {GPUPROF_CUPTI_ON, "On, or say once why not", "on"},
    {GPUPROF_CUPTI_OFF, "Never load CUPTI", "off"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GpuprofCuptiMode",
            values));
  return type;
}

GType
gpuprof_cupti_path_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {GPUPROF_CUPTI_PATH_CALLBACK, "Launch callbacks + GPU activity records",
        "callback"},
    {GPUPROF_CUPTI_PATH_ACTIVITY, "API and external correlation activity "
          "records, joined", "activity"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GpuprofCuptiPath",
            values));
  return type;
}

GType
gpuprof_nvml_mode_get_type (void)
{
  static gsize type = 0;
  static const GEnumValue values[] = {
    {GPUPROF_NVML_AUTO, "On when NVML and a GPU are there, silently off "
          "otherwise", "auto"},
    {GPUPROF_NVML_MODE_ON, "On, or say once why not", "on"},
    {GPUPROF_NVML_MODE_OFF, "Never load NVML", "off"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GpuprofNvmlMode",
            values));
  return type;
}

/* "2.5" seconds or "300b" buffers */
static gboolean
parse_window_part (const gchar * v, gdouble * seconds, guint64 * buffers)
{
  gchar *end = NULL;

  if (!*v || g_ascii_isspace (*v) || *v == '-' || *v == '+')
    return FALSE;
  if (g_str_has_suffix (v, "b")) {
    guint64 n = g_ascii_strtoull (v, &end, 10);

    if (end == v || strcmp (end, "b") || !n)
      return FALSE;
    *buffers = n;
    return TRUE;
  }
  *seconds = g_ascii_strtod (v, &end);
  return end != v && !*end && *seconds >= 0.0 && *seconds <= 1e6;
}

gboolean
gpuprof_window_spec_parse (const gchar * text, GpuprofWindowSpec * out)
{
  GpuprofWindowSpec w = { 0 };
  gchar **parts;
  gboolean ok;

  if (!text || !*text)
    return FALSE;
  parts = g_strsplit (text, "+", 3);
  ok = parts[0] && parse_window_part (parts[0], &w.skip_s, &w.skip_buffers)
      && (!parts[1] || (parse_window_part (parts[1], &w.length_s,
                  &w.length_buffers) && (w.length_s > 0.0
                  || w.length_buffers))) && (!parts[1] || !parts[2]);
  g_strfreev (parts);
  if (ok)
    *out = w;
  return ok;
}

static gboolean
parse_on_off (const gchar * v, gboolean * out)
{
  if (!g_ascii_strcasecmp (v, "on") || !g_ascii_strcasecmp (v, "true")
      || !g_ascii_strcasecmp (v, "1") || !g_ascii_strcasecmp (v, "yes")) {
    *out = TRUE;
    return TRUE;
  }
  if (!g_ascii_strcasecmp (v, "off") || !g_ascii_strcasecmp (v, "false")
      || !g_ascii_strcasecmp (v, "0") || !g_ascii_strcasecmp (v, "no")) {
    *out = FALSE;
    return TRUE;
  }
  return FALSE;
}

/* "auto", or an on/off spelling for an enum that has "on" and "off" */
static gboolean
parse_enum (const ParamDef * d, const gchar * v, gint * out)
{
  GEnumClass *klass = g_type_class_ref (d->enum_type ());
  GEnumValue *ev = g_enum_get_value_by_nick (klass, v);
  gboolean on;

  if (!ev && parse_on_off (v, &on))
    ev = g_enum_get_value_by_nick (klass, on ? "on" : "off");
  if (ev)
    *out = ev->value;
  g_type_class_unref (klass);
  return ev != NULL;
}

static void
set_string (gchar ** dest, const gchar * v)
{
  g_free (*dest);
  *dest = g_strdup (v);
}

static gboolean
set_report (GpuprofParams * p, const gchar * v)
{
  guint i;

  if (!*v)
    return FALSE;
  g_clear_pointer (&p->report_path, g_free);
  for (i = 0; i < G_N_ELEMENTS (report_words); i++) {
    if (!strcmp (v, report_words[i].word)) {
      p->report = report_words[i].dest;
      return TRUE;
    }
  }
  p->report = GPUPROF_REPORT_FILE;
  p->report_path = g_strdup (v);
  return TRUE;
}

/* an output path with a placeholder it does not know: kept, and said */
static gchar *
param_warning (const ParamDef * d, const GpuprofParams * p)
{
  if (d->kind == PARAM_OUTPUT)
    return gpuprof_outfile_check_placeholders (d->name,
        MEMBER (gchar *, p, d));
  if (d->kind == PARAM_REPORT && p->report == GPUPROF_REPORT_FILE)
    return gpuprof_outfile_check_placeholders (d->name, p->report_path);
  return NULL;
}

/* a value as written in GST_TRACERS (or a string property): FALSE when it
 * is not valid, and then nothing changes */
static gboolean
param_parse (const ParamDef * d, GpuprofParams * p, const gchar * v)
{
  switch (d->kind) {
    case PARAM_SWITCH:
      return parse_on_off (v, &MEMBER (gboolean, p, d));
    case PARAM_ENUM:
      return parse_enum (d, v, &MEMBER (gint, p, d));
    case PARAM_UINT:{
      gchar *end = NULL;
      guint64 n = g_ascii_strtoull (v, &end, 10);

      if (!*v || *end || n > G_MAXUINT)
        return FALSE;
      MEMBER (guint, p, d) = (guint) n;
      return TRUE;
    }
    case PARAM_SECONDS:{
      gchar *end = NULL;
      gdouble x = g_ascii_strtod (v, &end);

      if (!*v || *end || !(x >= 0.0) || x > 1e6)
        return FALSE;
      MEMBER (gdouble, p, d) = x;
      return TRUE;
    }
    case PARAM_REGEX:{
      GRegex *re = g_regex_new (v, 0, 0, NULL);

      if (!re)
        return FALSE;
      g_regex_unref (re);
    }
      /* FALLTHROUGH */
    case PARAM_PATH:
    case PARAM_OUTPUT:
      if (!*v)
        return FALSE;
      set_string (&MEMBER (gchar *, p, d), v);
      return TRUE;
    case PARAM_REPORT:
      return set_report (p, v);
    case PARAM_WINDOW:
      if (!gpuprof_window_spec_parse (v, &p->window_spec))
        return FALSE;
      set_string (&MEMBER (gchar *, p, d), v);
      return TRUE;
  }
  return FALSE;
}

static void
param_set_default (const ParamDef * d, GpuprofParams * p)
{
  switch (d->kind) {
    case PARAM_SWITCH:
      MEMBER (gboolean, p, d) = d->def;
      break;
    case PARAM_ENUM:
      MEMBER (gint, p, d) = d->def;
      break;
    case PARAM_UINT:
      MEMBER (guint, p, d) = d->def;
      break;
    case PARAM_SECONDS:
      MEMBER (gdouble, p, d) = d->def;
      break;
    case PARAM_PATH:
    case PARAM_OUTPUT:
    case PARAM_REGEX:
      g_clear_pointer (&MEMBER (gchar *, p, d), g_free);
      break;
    case PARAM_REPORT:
      set_report (p, report_words[0].word);
      break;
    case PARAM_WINDOW:
      g_clear_pointer (&MEMBER (gchar *, p, d), g_free);
      memset (&p->window_spec, 0, sizeof (p->window_spec));
      break;
  }
}

/* the valid values, as the warnings show them: "on|off", "<path>" */
static gchar *
param_choices (const ParamDef * d)
{
  GString *s = g_string_new (NULL);
  guint i;

  switch (d->kind) {
    case PARAM_SWITCH:
      g_string_append (s, "on|off");
      break;
    case PARAM_ENUM:{
      GEnumClass *klass = g_type_class_ref (d->enum_type ());

      for (i = 0; i < klass->n_values; i++)
        g_string_append_printf (s, "%s%s", i ? "|" : "",
            klass->values[i].value_nick);
      g_type_class_unref (klass);
      break;
    }
    case PARAM_REPORT:
      for (i = 0; i < G_N_ELEMENTS (report_words); i++)
        if (!report_words[i].alias)
          g_string_append_printf (s, "%s|", report_words[i].word);
      g_string_append (s, "<path>");
      break;
    default:
      g_string_append (s, d->values);
      break;
  }
  return g_string_free (s, FALSE);
}

static GParamSpec *
param_spec (const ParamDef * d)
{
  /* the blurb is built: the name and nick are static, the blurb not */
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
      G_PARAM_STATIC_NAME | G_PARAM_STATIC_NICK;
  gchar *choices = param_choices (d);
  gchar *blurb;
  GParamSpec *spec = NULL;

  if (d->kind == PARAM_SWITCH || d->kind == PARAM_ENUM)
    blurb = g_strdup (d->blurb);
  else
    blurb = g_strdup_printf ("%s: %s", d->blurb, choices);

  switch (d->kind) {
    case PARAM_SWITCH:
      spec = g_param_spec_boolean (d->name, d->name, blurb, d->def, flags);
      break;
    case PARAM_ENUM:
      spec = g_param_spec_enum (d->name, d->name, blurb, d->enum_type (),
          d->def, flags);
      break;
    case PARAM_UINT:
      spec = g_param_spec_uint (d->name, d->name, blurb, 0, G_MAXUINT,
          d->def, flags);
      break;
    case PARAM_SECONDS:
      spec = g_param_spec_double (d->name, d->name, blurb, 0.0, 1e6,
          d->def, flags);
      break;
    case PARAM_PATH:
    case PARAM_OUTPUT:
    case PARAM_REGEX:
    case PARAM_WINDOW:
      spec = g_param_spec_string (d->name, d->name, blurb, NULL, flags);
      break;
    case PARAM_REPORT:
      spec = g_param_spec_string (d->name, d->name, blurb,
          report_words[0].word, flags);
      break;
  }
  g_free (blurb);
  g_free (choices);
  return spec;
}

void
gpuprof_params_init (GpuprofParams * p)
{
  guint i;

  memset (p, 0, sizeof (*p));
  for (i = 0; i < G_N_ELEMENTS (params); i++)
    param_set_default (&params[i], p);
}

void
gpuprof_params_clear (GpuprofParams * p)
{
  g_free (p->report_path);
  g_free (p->trace_path);
  g_free (p->trace_elements);
  g_free (p->stats_path);
  g_free (p->html_path);
  g_free (p->stats_dir);
  g_free (p->cupti_lib);
  g_free (p->metrics);
  g_free (p->window);
  memset (p, 0, sizeof (*p));
}

void
gpuprof_params_copy (GpuprofParams * dest, const GpuprofParams * src)
{
  *dest = *src;
  dest->report_path = g_strdup (src->report_path);
  dest->trace_path = g_strdup (src->trace_path);
  dest->trace_elements = g_strdup (src->trace_elements);
  dest->stats_path = g_strdup (src->stats_path);
  dest->html_path = g_strdup (src->html_path);
  dest->stats_dir = g_strdup (src->stats_dir);
  dest->cupti_lib = g_strdup (src->cupti_lib);
  dest->metrics = g_strdup (src->metrics);
  dest->window = g_strdup (src->window);
}

/* ------------------------------------------------------------ properties */

void
gpuprof_params_install_properties (GObjectClass * klass, guint first_prop_id)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (params); i++)
    g_object_class_install_property (klass, first_prop_id + i,
        param_spec (&params[i]));
}

static gchar *
bad_value (const ParamDef * d, const gchar * value)
{
  gchar *choices = param_choices (d);
  gchar *line = g_strdup_printf ("gpuprof: bad value '%s' for '%s' "
      "(valid: %s=%s); using the default\n", value, d->name, d->name,
      choices);

  g_free (choices);
  return line;
}

void
gpuprof_params_set_property (GpuprofParams * p, guint index,
    const GValue * value)
{
  const ParamDef *d;
  const gchar *v;

  g_return_if_fail (index < G_N_ELEMENTS (params));
  d = &params[index];
  switch (d->kind) {
    case PARAM_SWITCH:
      MEMBER (gboolean, p, d) = g_value_get_boolean (value);
      return;
    case PARAM_ENUM:
      MEMBER (gint, p, d) = g_value_get_enum (value);
      return;
    case PARAM_UINT:
      MEMBER (guint, p, d) = g_value_get_uint (value);
      return;
    case PARAM_SECONDS:
      MEMBER (gdouble, p, d) = g_value_get_double (value);
      return;
    default:
      break;
  }
  v = g_value_get_string (value);
  if (!v) {
    param_set_default (d, p);
  } else if (!param_parse (d, p, v)) {
    gchar *line = bad_value (d, v);
    gpuprof_params_warn (line);
    g_free (line);
  } else {
    gchar *line = param_warning (d, p);

    if (line)
      gpuprof_params_warn (line);
    g_free (line);
  }
}

void
gpuprof_params_get_property (const GpuprofParams * p, guint index,
    GValue * value)
{
  const ParamDef *d;
  guint i;

  g_return_if_fail (index < G_N_ELEMENTS (params));
  d = &params[index];
  switch (d->kind) {
    case PARAM_SWITCH:
      g_value_set_boolean (value, MEMBER (gboolean, p, d));
      break;
    case PARAM_ENUM:
      g_value_set_enum (value, MEMBER (gint, p, d));
      break;
    case PARAM_UINT:
      g_value_set_uint (value, MEMBER (guint, p, d));
      break;
    case PARAM_SECONDS:
      g_value_set_double (value, MEMBER (gdouble, p, d));
      break;
    case PARAM_PATH:
    case PARAM_OUTPUT:
    case PARAM_REGEX:
    case PARAM_WINDOW:
      g_value_set_string (value, MEMBER (gchar *, p, d));
      break;
    case PARAM_REPORT:
      if (p->report == GPUPROF_REPORT_FILE) {
        g_value_set_string (value, p->report_path);
        break;
      }
      for (i = 0; i < G_N_ELEMENTS (report_words); i++) {
        if (report_words[i].dest == p->report) {
          g_value_set_string (value, report_words[i].word);
          break;
        }
      }
      break;
  }
}

/* --------------------------------------------------- GST_TRACERS params */

static gchar *
valid_keys (void)
{
  GString *s = g_string_new (NULL);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (params); i++) {
    gchar *choices = param_choices (&params[i]);

    g_string_append_printf (s, "%s%s=%s", i ? ", " : "", params[i].name,
        choices);
    g_free (choices);
  }
  return g_string_free (s, FALSE);
}

typedef struct
{
  GpuprofParams *p;
  GString *warnings;
} ParseCtx;

static gboolean
apply_key (const gchar * key, const GValue * value, ParseCtx * ctx)
{
  gchar *str;
  guint i;

  /* GstStructure guessed a type ("5" is an int): the text is what counts */
  if (G_VALUE_HOLDS_STRING (value))
    str = g_value_dup_string (value);
  else
    str = gst_value_serialize (value);
  if (!str)
    str = g_strdup ("");

  for (i = 0; i < G_N_ELEMENTS (params); i++) {
    if (strcmp (params[i].name, key))
      continue;
    if (!param_parse (&params[i], ctx->p, str)) {
      gchar *line = bad_value (&params[i], str);
      g_string_append (ctx->warnings, line);
      g_free (line);
    } else {
      gchar *line = param_warning (&params[i], ctx->p);

      if (line)
        g_string_append (ctx->warnings, line);
      g_free (line);
    }
    break;
  }
  if (i == G_N_ELEMENTS (params)) {
    gchar *keys = valid_keys ();
    g_string_append_printf (ctx->warnings,
        "gpuprof: unknown parameter '%s' ignored (valid: %s)\n", key, keys);
    g_free (keys);
  }
  g_free (str);
  return TRUE;
}

/* GstStructure takes '%' only inside quotes: an unquoted value holding a
 * placeholder (stats=/var/log/%p.json) is quoted for it, up to the next
 * comma, so paths need no quotes (docs/parameters.md) */
static gchar *
quote_placeholders (const gchar * text)
{
  GString *s = g_string_new (NULL);
  const gchar *c = text;

  while (*c) {
    const gchar *eq = strchr (c, '='), *end;
    gboolean quoted = FALSE;

    if (!eq || strchr ("\"'({[<", eq[1])) {
      /* no plain value here: copied up to the next comma outside quotes */
      for (; *c && (quoted || *c != ','); c++) {
        if (*c == '"' && (c == text || c[-1] != '\\'))
          quoted = !quoted;
        g_string_append_c (s, *c);
      }
    } else {
      g_string_append_len (s, c, eq + 1 - c);
      end = eq + 1 + strcspn (eq + 1, ",");
      if (memchr (eq + 1, '%', end - eq - 1)) {
        gchar *v = g_strndup (eq + 1, end - eq - 1);
        gchar *esc = g_strescape (v, NULL);

        g_string_append_printf (s, "\"%s\"", esc);
        g_free (esc);
        g_free (v);
      } else {
        g_string_append_len (s, eq + 1, end - eq - 1);
      }
      c = end;
    }
    if (*c == ',')
      g_string_append_c (s, *c++);
  }
  return g_string_free (s, FALSE);
}

/* GStreamer 1.26 deprecates gst_structure_foreach() (GQuark field names)
 * for gst_structure_foreach_id_str() ("gst: structure: Use GstIdStr for
 * structure field names") */
#if GST_CHECK_VERSION(1, 26, 0)
static gboolean
apply_field (const GstIdStr * field, const GValue * value, gpointer user_data)
{
  return apply_key (gst_id_str_as_str (field), value, user_data);
}
#else
static gboolean
apply_field (GQuark field, const GValue * value, gpointer user_data)
{
  return apply_key (g_quark_to_string (field), value, user_data);
}
#endif

gchar *
gpuprof_params_parse (GpuprofParams * p, const gchar * params_text)
{
  ParseCtx ctx = { p, g_string_new (NULL) };
  GstStructure *s;
  gchar *full;

  if (params_text && *params_text) {
    gchar *quoted = quote_placeholders (params_text);

    full = g_strdup_printf ("gpuprof,%s", quoted);
    g_free (quoted);
    s = gst_structure_from_string (full, NULL);
    if (!s) {
      gchar *keys = valid_keys ();
      g_string_append_printf (ctx.warnings,
          "gpuprof: cannot parse parameters '%s' (expected key=value,... "
          "with keys %s); using the defaults\n", params_text, keys);
      g_free (keys);
    } else {
#if GST_CHECK_VERSION(1, 26, 0)
      gst_structure_foreach_id_str (s, apply_field, &ctx);
#else
      gst_structure_foreach (s, apply_field, &ctx);
#endif
      gst_structure_free (s);
    }
    g_free (full);
  }
  if (ctx.warnings->len == 0) {
    g_string_free (ctx.warnings, TRUE);
    return NULL;
  }
  return g_string_free (ctx.warnings, FALSE);
}

void
gpuprof_params_warn (const gchar * warnings)
{
  if (!gpuprof_params_debug)
    GST_DEBUG_CATEGORY_INIT (gpuprof_params_debug, "gpuprof", 0,
        "gpuprof tracer");
  GST_WARNING ("%s", warnings);
  g_printerr ("%s", warnings);
}

/* ------------------------------------------------------------------ docs */

static void
append_code_list (GString * s, const gchar * choices)
{
  gchar **alt = g_strsplit (choices, "|", -1);
  guint i;

  for (i = 0; alt[i]; i++)
    g_string_append_printf (s, "%s`%s`", i ? ", " : "", alt[i]);
  g_strfreev (alt);
}

/* the default as a user writes it, from the property itself; 'q' quotes
 * a value ("`" in markdown) */
static gchar *
default_text (const ParamDef * d, GParamSpec * spec, const gchar * q)
{
  const GValue *def = g_param_spec_get_default_value (spec);
  const gchar *word = NULL;

  switch (d->kind) {
    case PARAM_SWITCH:
      word = g_value_get_boolean (def) ? "on" : "off";
      break;
    case PARAM_ENUM:
      word = g_enum_get_value (G_PARAM_SPEC_ENUM (spec)->enum_class,
          g_value_get_enum (def))->value_nick;
      break;
    case PARAM_UINT:
      return g_strdup_printf ("%s%u%s", q, g_value_get_uint (def), q);
    case PARAM_SECONDS:
      return g_strdup_printf ("%s%g%s", q, g_value_get_double (def), q);
    default:
      word = g_value_get_string (def);
      break;
  }
  return word ? g_strdup_printf ("%s%s%s", q, word, q) : g_strdup (d->unset);
}

/* "`report`, `trace`, ..." or "report, trace, ...": the keys whose value
 * is a path an output writes */
static gchar *
output_keys (const gchar * q)
{
  GString *s = g_string_new (NULL);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (params); i++)
    if (params[i].kind == PARAM_OUTPUT || params[i].kind == PARAM_REPORT)
      g_string_append_printf (s, "%s%s%s%s", s->len ? ", " : "", q,
          params[i].name, q);
  return g_string_free (s, FALSE);
}

gchar *
gpuprof_params_describe (void)
{
  GString *s = g_string_new ("Parameters: GST_TRACERS=\"gpuprof(key=value,"
      "...)\", also the tracer's\nconstruct-only properties "
      "(docs/parameters.md)\n\n");
  guint i;

  for (i = 0; i < G_N_ELEMENTS (params); i++) {
    const ParamDef *d = &params[i];
    GParamSpec *spec = g_param_spec_ref_sink (param_spec (d));
    gchar *choices = param_choices (d);
    gchar *def = default_text (d, spec, "");

    g_string_append_printf (s, "  %-16s%s\n  %-16s%s; default: %s; %s\n",
        d->name, d->blurb, "", choices, def,
        g_type_name (G_PARAM_SPEC_VALUE_TYPE (spec)));
    g_free (def);
    g_free (choices);
    g_param_spec_unref (spec);
  }
  {
    gchar *keys = output_keys (""), *list = gpuprof_outfile_placeholders_list ();

    g_string_append_printf (s, "\nPaths of %s take placeholders: %s "
        "(docs/parameters.md)\n", keys, list);
    g_free (list);
    g_free (keys);
  }
  return g_string_free (s, FALSE);
}

gchar *
gpuprof_params_markdown (void)
{
  GString *s = g_string_new ("| key | values | default | property type | "
      "what it does |\n|---|---|---|---|---|\n");
  guint i;

  for (i = 0; i < G_N_ELEMENTS (params); i++) {
    const ParamDef *d = &params[i];
    GParamSpec *spec = g_param_spec_ref_sink (param_spec (d));
    gchar *choices = param_choices (d);
    gchar *def = default_text (d, spec, "`");

    g_string_append_printf (s, "| `%s` | ", d->name);
    append_code_list (s, choices);
    if (d->kind == PARAM_SWITCH)
      g_string_append (s, " (also `true/false`, `yes/no`, `1/0`)");
    g_string_append_printf (s, " | %s | `%s` | %s.%s%s |\n", def,
        g_type_name (G_PARAM_SPEC_VALUE_TYPE (spec)), d->blurb,
        d->doc ? " " : "", d->doc ? d->doc : "");
    g_free (def);
    g_free (choices);
    g_param_spec_unref (spec);
  }
  {
    gchar *keys = output_keys ("`"), *table =
        gpuprof_outfile_placeholders_markdown ();

    g_string_append_printf (s, "\nPlaceholders in the paths of %s "
        "([below](#output-paths)):\n\n%s", keys, table);
    g_free (table);
    g_free (keys);
  }
  return g_string_free (s, FALSE);
}
