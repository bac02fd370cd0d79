/* gpuprof: parsing GST_TRACERS="gpuprof(...)" parameters. */
#include "gpuprof-params.h"

#include <stdlib.h>
#include <string.h>

typedef gboolean (*ParamSetter) (GpuprofParams * p, const gchar * value);

typedef struct
{
  const gchar *key;
  const gchar *choices;         /* for the warning */
  ParamSetter set;
} ParamSpec;

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

static gboolean
set_nvtx (GpuprofParams * p, const gchar * v)
{
  return parse_on_off (v, &p->nvtx);
}

static gboolean
set_report (GpuprofParams * p, const gchar * v)
{
  if (!*v)
    return FALSE;
  g_clear_pointer (&p->report_path, g_free);
  if (!strcmp (v, "stderr"))
    p->report = GPUPROF_REPORT_STDERR;
  else if (!strcmp (v, "stdout"))
    p->report = GPUPROF_REPORT_STDOUT;
  else if (!strcmp (v, "off") || !strcmp (v, "none"))
    p->report = GPUPROF_REPORT_OFF;
  else {
    p->report = GPUPROF_REPORT_FILE;
    p->report_path = g_strdup (v);
  }
  return TRUE;
}

static gboolean
set_path (gchar ** dest, const gchar * v)
{
  if (!*v)
    return FALSE;
  g_free (*dest);
  *dest = g_strdup (v);
  return TRUE;
}

static gboolean
set_trace (GpuprofParams * p, const gchar * v)
{
  return set_path (&p->trace_path, v);
}

static gboolean
set_stats (GpuprofParams * p, const gchar * v)
{
  return set_path (&p->stats_path, v);
}

static gboolean
set_cupti_lib (GpuprofParams * p, const gchar * v)
{
  return set_path (&p->cupti_lib, v);
}

static gboolean
set_trace_elements (GpuprofParams * p, const gchar * v)
{
  GRegex *re = g_regex_new (v, 0, 0, NULL);

  if (!re)
    return FALSE;
  g_regex_unref (re);
  return set_path (&p->trace_elements, v);
}

static gboolean
set_trace_max_mb (GpuprofParams * p, const gchar * v)
{
  gchar *end = NULL;
  guint64 n = g_ascii_strtoull (v, &end, 10);

  if (!*v || *end || n > G_MAXUINT)
    return FALSE;
  p->trace_max_mb = (guint) n;
  return TRUE;
}

static gboolean
set_cupti (GpuprofParams * p, const gchar * v)
{
  gboolean on;

  if (!g_ascii_strcasecmp (v, "auto"))
    p->cupti = GPUPROF_CUPTI_AUTO;
  else if (parse_on_off (v, &on))
    p->cupti = on ? GPUPROF_CUPTI_ON : GPUPROF_CUPTI_OFF;
  else
    return FALSE;
  return TRUE;
}

static const ParamSpec specs[] = {
  {"nvtx", "on|off", set_nvtx},
  {"report", "stderr|stdout|off|<path>", set_report},
  {"trace", "<path>", set_trace},
  {"trace-elements", "<regex>", set_trace_elements},
  {"trace-max-mb", "<megabytes, 0 = no cap>", set_trace_max_mb},
  {"stats", "<path>", set_stats},
  {"cupti", "auto|on|off", set_cupti},
  {"cupti-lib", "<path of libcupti.so>", set_cupti_lib},
};

void
gpuprof_params_init (GpuprofParams * p)
{
  memset (p, 0, sizeof (*p));
  p->nvtx = TRUE;
  p->report = GPUPROF_REPORT_STDERR;
  p->cupti = GPUPROF_CUPTI_AUTO;
}

void
gpuprof_params_clear (GpuprofParams * p)
{
  g_free (p->report_path);
  g_free (p->trace_path);
  g_free (p->trace_elements);
  g_free (p->stats_path);
  g_free (p->cupti_lib);
  memset (p, 0, sizeof (*p));
}

static gchar *
valid_keys (void)
{
  GString *s = g_string_new (NULL);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (specs); i++)
    g_string_append_printf (s, "%s%s=%s", i ? ", " : "", specs[i].key,
        specs[i].choices);
  return g_string_free (s, FALSE);
}

typedef struct
{
  GpuprofParams *p;
  GString *warnings;
} ParseCtx;

static gboolean
apply_field (GQuark field, const GValue * value, gpointer user_data)
{
  ParseCtx *ctx = user_data;
  const gchar *key = g_quark_to_string (field);
  gchar *str;
  guint i;

  if (G_VALUE_HOLDS_STRING (value))
    str = g_value_dup_string (value);
  else
    str = gst_value_serialize (value);
  if (!str)
    str = g_strdup ("");

  for (i = 0; i < G_N_ELEMENTS (specs); i++) {
    if (strcmp (specs[i].key, key))
      continue;
    if (!specs[i].set (ctx->p, str))
      g_string_append_printf (ctx->warnings,
          "gpuprof: bad value '%s' for '%s' (valid: %s=%s); using the default\n",
          str, key, key, specs[i].choices);
    break;
  }
  if (i == G_N_ELEMENTS (specs)) {
    gchar *keys = valid_keys ();
    g_string_append_printf (ctx->warnings,
        "gpuprof: unknown parameter '%s' ignored (valid: %s)\n", key, keys);
    g_free (keys);
  }
  g_free (str);
  return TRUE;
}

gchar *
gpuprof_params_parse (GpuprofParams * p, const gchar * params)
{
  ParseCtx ctx = { p, g_string_new (NULL) };
  GstStructure *s;
  gchar *full;

  if (params && *params) {
    full = g_strdup_printf ("gpuprof,%s", params);
    s = gst_structure_from_string (full, NULL);
    if (!s) {
      gchar *keys = valid_keys ();
      g_string_append_printf (ctx.warnings,
          "gpuprof: cannot parse parameters '%s' (expected key=value,... "
          "with keys %s); using the defaults\n", params, keys);
      g_free (keys);
    } else {
      gst_structure_foreach (s, apply_field, &ctx);
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
