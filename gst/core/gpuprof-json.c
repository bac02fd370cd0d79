/* gpuprof: JSON writing helpers (see gpuprof-json.h). */
#include "gpuprof-json.h"

#include <math.h>

/**
 * gpuprof_json_append_string:
 * @s: where to append
 * @str: (nullable): UTF-8 text
 *
 * Appends @str as a JSON string, quotes included: '"' and '\\' are escaped,
 * control characters written as \u00XX. %NULL is written as null.
 */
void
gpuprof_json_append_string (GString * s, const gchar * str)
{
  const guchar *p;

  if (str == NULL) {
    g_string_append (s, "null");
    return;
  }
  g_string_append_c (s, '"');
  for (p = (const guchar *) str; *p; p++) {
    if (*p == '"' || *p == '\\') {
      g_string_append_c (s, '\\');
      g_string_append_c (s, *p);
    } else if (*p < 0x20) {
      g_string_append_printf (s, "\\u%04x", *p);
    } else {
      g_string_append_c (s, *p);
    }
  }
  g_string_append_c (s, '"');
}

/**
 * gpuprof_json_quote:
 * @str: (nullable): UTF-8 text
 *
 * Returns: (transfer full): @str as a JSON string, see
 *   gpuprof_json_append_string()
 */
gchar *
gpuprof_json_quote (const gchar * str)
{
  GString *s = g_string_new (NULL);

  gpuprof_json_append_string (s, str);
  return g_string_free (s, FALSE);
}

/**
 * gpuprof_json_append_double:
 * @s: where to append
 * @v: value
 *
 * Appends the shortest text that reads back as exactly @v (JSON has no NaN
 * or infinity: those become 0).
 */
void
gpuprof_json_append_double (GString * s, gdouble v)
{
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (!isfinite (v))
    v = 0;
  g_ascii_formatd (buf, sizeof (buf), "%.15g", v);
  if (g_ascii_strtod (buf, NULL) != v)
    g_ascii_formatd (buf, sizeof (buf), "%.17g", v);
  g_string_append (s, buf);
}
