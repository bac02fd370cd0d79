/* gpuprof: the HTML report, one self-contained file (docs/html.md). The
 * page (gpuprof-html-page.html, inline script and style, no network) gets
 * the run's summary JSON, or a sweep's JSON, in a script element, and the
 * run's time series (interval snapshots or a trace binned) in another, and
 * draws every section from them in the browser. */
#include "gpuprof-html.h"
#include "gpuprof-summary.h"
#include "gpuprof-json.h"
#include "gpuprof-html-page.h"

#include <string.h>

#define DATA_MARK "@DATA@"
#define SERIES_MARK "@SERIES@"

/* '<' only occurs inside JSON strings: as \u003c no "</script>" or "<!--"
 * in the data can end the script element */
static void
append_json_in_script (GString * out, const gchar * json)
{
  const gchar *c;

  for (c = json; *c; c++) {
    if (*c == '<')
      g_string_append (out, "\\u003c");
    else
      g_string_append_c (out, *c);
  }
}

gchar *
gpuprof_html_page_with_series (const gchar * data_json,
    const gchar * series_json)
{
  const gchar *mark = strstr (gpuprof_html_page_text, DATA_MARK);
  const gchar *smark = strstr (gpuprof_html_page_text, SERIES_MARK);
  GString *out = g_string_new (NULL);

  g_return_val_if_fail (mark != NULL && smark > mark, NULL);
  g_string_append_len (out, gpuprof_html_page_text,
      mark - gpuprof_html_page_text);
  append_json_in_script (out, data_json);
  mark += strlen (DATA_MARK);
  g_string_append_len (out, mark, smark - mark);
  append_json_in_script (out, series_json ? series_json : "null");
  g_string_append (out, smark + strlen (SERIES_MARK));
  return g_string_free (out, FALSE);
}

gchar *
gpuprof_html_page (const gchar * data_json)
{
  return gpuprof_html_page_with_series (data_json, NULL);
}

gchar *
gpuprof_html_format_with_series (const GpuprofSnapshot * snap,
    const gchar * series_json)
{
  gchar *json = gpuprof_summary_to_json (snap);
  gchar *page = gpuprof_html_page_with_series (json, series_json);

  g_free (json);
  return page;
}

gchar *
gpuprof_html_series_json (const gchar * source, const GPtrArray * points)
{
  GString *s = g_string_new ("{\"source\": ");
  guint i;

  gpuprof_json_append_string (s, source);
  g_string_append (s, ", \"points\": [");
  for (i = 0; i < points->len; i++) {
    if (i)
      g_string_append (s, ",\n");
    g_string_append (s, g_ptr_array_index (points, i));
  }
  g_string_append (s, "]}");
  return g_string_free (s, FALSE);
}

void
gpuprof_html_points_add (GPtrArray * points, gchar * point)
{
  guint i;

  if (points->len >= GPUPROF_HTML_MAX_POINTS) {
    for (i = 1; i < points->len; i++)
      g_ptr_array_remove_index (points, i);
  }
  g_ptr_array_add (points, point);
}
