/* gpuprof: the HTML report, one self-contained file (docs/html.md). The
 * page (gpuprof-html-page.html, inline script and style, no network) gets
 * the run's summary JSON, or a sweep's JSON, in a script element and draws
 * every section from it in the browser. */
#include "gpuprof-html.h"
#include "gpuprof-summary.h"
#include "gpuprof-html-page.h"

#include <string.h>

#define DATA_MARK "@DATA@"

gchar *
gpuprof_html_page (const gchar * data_json)
{
  const gchar *mark = strstr (gpuprof_html_page_text, DATA_MARK);
  GString *out = g_string_new (NULL);
  const gchar *c;

  g_return_val_if_fail (mark != NULL, NULL);
  g_string_append_len (out, gpuprof_html_page_text,
      mark - gpuprof_html_page_text);
  /* '<' only occurs inside JSON strings: as \u003c no "</script>" or
   * "<!--" in the data can end the script element */
  for (c = data_json; *c; c++) {
    if (*c == '<')
      g_string_append (out, "\\u003c");
    else
      g_string_append_c (out, *c);
  }
  g_string_append (out, mark + strlen (DATA_MARK));
  return g_string_free (out, FALSE);
}

gchar *
gpuprof_html_format (const GpuprofSnapshot * snap)
{
  gchar *json = gpuprof_summary_to_json (snap);
  gchar *page = gpuprof_html_page (json);

  g_free (json);
  return page;
}
