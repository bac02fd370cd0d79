/* gpuprof NVTX recorder: events as JSON lines, one flat object per line.
 * The schema is in docs/nvtx-recorder.md; the reader only has to read what
 * the writer writes: flat objects of strings, numbers and null. */

#define _GNU_SOURCE
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvtxrec-private.h"

static const char *const kind_names[NVTXREC_N_KINDS] = {
  [NVTXREC_DOMAIN_CREATE] = "domain_create",
  [NVTXREC_DOMAIN_DESTROY] = "domain_destroy",
  [NVTXREC_REGISTER_STRING] = "register_string",
  [NVTXREC_NAME_CATEGORY] = "name_category",
  [NVTXREC_PUSH] = "push",
  [NVTXREC_POP] = "pop",
  [NVTXREC_START] = "start",
  [NVTXREC_END] = "end",
  [NVTXREC_MARK] = "mark",
  [NVTXREC_NAME_THREAD] = "name_thread",
};

static const char *const payload_names[] = {
  [NVTXREC_PAYLOAD_NONE] = "none",
  [NVTXREC_PAYLOAD_UINT64] = "uint64",
  [NVTXREC_PAYLOAD_INT64] = "int64",
  [NVTXREC_PAYLOAD_DOUBLE] = "double",
  [NVTXREC_PAYLOAD_UINT32] = "uint32",
  [NVTXREC_PAYLOAD_INT32] = "int32",
  [NVTXREC_PAYLOAD_FLOAT] = "float",
};

#define N_PAYLOAD_NAMES (sizeof (payload_names) / sizeof (payload_names[0]))

const char *
nvtxrec_kind_name (NvtxrecKind kind)
{
  return (unsigned) kind < NVTXREC_N_KINDS ? kind_names[kind] : "unknown";
}

/* ---- writer ---- */

static void
write_string (FILE * f, const char *key, const char *s)
{
  fprintf (f, ",\"%s\":\"", key);
  for (; *s; s++) {
    unsigned char c = (unsigned char) *s;

    if (c == '"' || c == '\\')
      fprintf (f, "\\%c", c);
    else if (c < 0x20)
      fprintf (f, "\\u%04x", c);
    else
      fputc (c, f);
  }
  fputc ('"', f);
}

static void
write_payload (FILE * f, const NvtxrecEvent * e)
{
  if (e->payload_type == NVTXREC_PAYLOAD_NONE ||
      (unsigned) e->payload_type >= N_PAYLOAD_NAMES)
    return;
  fprintf (f, ",\"payload_type\":\"%s\",\"payload\":",
      payload_names[e->payload_type]);
  switch (e->payload_type) {
    case NVTXREC_PAYLOAD_UINT64:
    case NVTXREC_PAYLOAD_UINT32:
      fprintf (f, "%llu", (unsigned long long) e->payload.u64);
      break;
    case NVTXREC_PAYLOAD_INT64:
    case NVTXREC_PAYLOAD_INT32:
      fprintf (f, "%lld", (long long) e->payload.i64);
      break;
    default:
      /* JSON has no NaN or infinity */
      if (isfinite (e->payload.d))
        fprintf (f, "%.17g", e->payload.d);
      else
        fputs ("null", f);
      break;
  }
}

static void
write_event (FILE * f, const NvtxrecEvent * e)
{
  fprintf (f, "{\"kind\":\"%s\"", nvtxrec_kind_name (e->kind));
  write_string (f, "domain", e->domain ? e->domain : "");
  fprintf (f, ",\"tid\":%u,\"ts\":%llu", e->tid, (unsigned long long) e->ts);
  if (e->message)
    write_string (f, "msg", e->message);
  write_payload (f, e);
  if (e->category)
    fprintf (f, ",\"category\":%u", e->category);
  if (e->has_color)
    fprintf (f, ",\"color\":%u", e->color);
  if (e->kind == NVTXREC_START || e->kind == NVTXREC_END)
    fprintf (f, ",\"id\":%llu", (unsigned long long) e->range_id);
  if (e->kind == NVTXREC_PUSH || e->kind == NVTXREC_POP)
    fprintf (f, ",\"depth\":%d", e->depth);
  if (e->kind == NVTXREC_NAME_THREAD)
    fprintf (f, ",\"target_tid\":%u", e->target_tid);
  fputs ("}\n", f);
}

/* Numbers must use '.' whatever locale the application (gst-launch) set. */
static locale_t
use_c_numeric (void)
{
  locale_t c = newlocale (LC_NUMERIC_MASK, "C", (locale_t) 0);

  return c ? uselocale (c) : (locale_t) 0;
}

static void
restore_locale (locale_t old)
{
  locale_t c;

  if (!old)
    return;
  c = uselocale (old);
  freelocale (c);
}

int
nvtxrec_write_jsonl (const char *path)
{
  size_t n, i;
  NvtxrecEvent *ev;
  FILE *f = fopen (path, "w");
  locale_t old;
  int ok;

  if (!f)
    return 0;
  ev = nvtxrec_snapshot (&n);
  old = use_c_numeric ();
  for (i = 0; i < n; i++)
    write_event (f, &ev[i]);
  restore_locale (old);
  free (ev);
  ok = !ferror (f);
  if (fclose (f) != 0)
    ok = 0;
  return ok;
}

/* ---- reader ---- */

static const char *
skip_ws (const char *p)
{
  while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
    p++;
  return p;
}

static char *
put_utf8 (char *o, unsigned c)
{
  if (c < 0x80) {
    *o++ = c;
  } else if (c < 0x800) {
    *o++ = 0xc0 | (c >> 6);
    *o++ = 0x80 | (c & 0x3f);
  } else {
    *o++ = 0xe0 | (c >> 12);
    *o++ = 0x80 | ((c >> 6) & 0x3f);
    *o++ = 0x80 | (c & 0x3f);
  }
  return o;
}

/* Decodes the string at @p (after its '"') into @out, which is at least as
 * long as the rest of the line; returns the position after the closing '"'
 * or NULL. */
static const char *
parse_string (const char *p, char *out)
{
  while (*p && *p != '"') {
    if (*p != '\\') {
      *out++ = *p++;
      continue;
    }
    p++;
    switch (*p) {
      case 'n':
        *out++ = '\n';
        break;
      case 't':
        *out++ = '\t';
        break;
      case 'r':
        *out++ = '\r';
        break;
      case 'b':
        *out++ = '\b';
        break;
      case 'f':
        *out++ = '\f';
        break;
      case 'u':{
        unsigned c;

        if (sscanf (p + 1, "%4x", &c) != 1)
          return NULL;
        out = put_utf8 (out, c);        /* BMP only: we write \u00XX only */
        p += 4;
        break;
      }
      case '\0':
        return NULL;
      default:
        *out++ = *p;
        break;
    }
    p++;
  }
  if (*p != '"')
    return NULL;
  *out = '\0';
  return p + 1;
}

/* A bare value: number, null, true or false; returns its end. */
static const char *
parse_bare (const char *p, char *out)
{
  size_t len = strcspn (p, ",} \t\r\n");

  memcpy (out, p, len);
  out[len] = '\0';
  return len ? p + len : NULL;
}

static int
lookup_name (const char *const *names, size_t n, const char *s)
{
  size_t i;

  for (i = 0; i < n; i++)
    if (names[i] && strcmp (names[i], s) == 0)
      return (int) i;
  return -1;
}

/* Sets the field @key of @e from the decoded value @val. */
static int
set_field (NvtxrecEvent * e, const char *key, const char *val,
    char *payload_text)
{
  int k;

  if (strcmp (key, "kind") == 0) {
    if ((k = lookup_name (kind_names, NVTXREC_N_KINDS, val)) < 0)
      return 0;
    e->kind = (NvtxrecKind) k;
  } else if (strcmp (key, "domain") == 0) {
    e->domain = nvtxrec_intern (val);
  } else if (strcmp (key, "msg") == 0) {
    e->message = nvtxrec_intern (val);
  } else if (strcmp (key, "payload_type") == 0) {
    if ((k = lookup_name (payload_names, N_PAYLOAD_NAMES, val)) < 0)
      return 0;
    e->payload_type = (NvtxrecPayloadType) k;
  } else if (strcmp (key, "payload") == 0) {
    /* its type may not be known yet */
    strcpy (payload_text, val);
  } else if (strcmp (key, "tid") == 0) {
    e->tid = strtoul (val, NULL, 10);
  } else if (strcmp (key, "ts") == 0) {
    e->ts = strtoull (val, NULL, 10);
  } else if (strcmp (key, "category") == 0) {
    e->category = strtoul (val, NULL, 10);
  } else if (strcmp (key, "color") == 0) {
    e->has_color = 1;
    e->color = strtoul (val, NULL, 10);
  } else if (strcmp (key, "id") == 0) {
    e->range_id = strtoull (val, NULL, 10);
  } else if (strcmp (key, "depth") == 0) {
    e->depth = (int) strtol (val, NULL, 10);
  } else if (strcmp (key, "target_tid") == 0) {
    e->target_tid = strtoul (val, NULL, 10);
  }
  /* unknown keys with flat values are skipped: newer writers may add some */
  return 1;
}

static void
set_payload (NvtxrecEvent * e, const char *text)
{
  switch (e->payload_type) {
    case NVTXREC_PAYLOAD_UINT64:
    case NVTXREC_PAYLOAD_UINT32:
      e->payload.u64 = strtoull (text, NULL, 10);
      break;
    case NVTXREC_PAYLOAD_INT64:
    case NVTXREC_PAYLOAD_INT32:
      e->payload.i64 = strtoll (text, NULL, 10);
      break;
    case NVTXREC_PAYLOAD_DOUBLE:
    case NVTXREC_PAYLOAD_FLOAT:
      e->payload.d = strcmp (text, "null") == 0 ? NAN : strtod (text, NULL);
      break;
    default:
      break;
  }
}

/* @key and @val are scratch buffers as long as @line. */
static int
parse_line (const char *line, NvtxrecEvent * e, char *key, char *val,
    char *payload_text)
{
  const char *p = skip_ws (line);
  int have_kind = 0;

  memset (e, 0, sizeof (*e));
  payload_text[0] = '\0';
  if (*p++ != '{')
    return 0;
  for (p = skip_ws (p); *p != '}'; p = skip_ws (p)) {
    if (*p++ != '"' || !(p = parse_string (p, key)))
      return 0;
    p = skip_ws (p);
    if (*p++ != ':')
      return 0;
    p = skip_ws (p);
    p = *p == '"' ? parse_string (p + 1, val) : parse_bare (p, val);
    if (!p || !set_field (e, key, val, payload_text))
      return 0;
    have_kind |= strcmp (key, "kind") == 0;
    p = skip_ws (p);
    if (*p == ',')
      p++;
    else if (*p != '}')
      return 0;
  }
  if (!e->domain)
    e->domain = nvtxrec_intern ("");
  set_payload (e, payload_text);
  return have_kind;
}

long
nvtxrec_load_jsonl (const char *path, char **error)
{
  FILE *f = fopen (path, "r");
  char *line = NULL, *key = NULL, *val = NULL, *payload = NULL;
  size_t cap = 0, buf_cap = 0;
  ssize_t len;
  long n = 0, lineno = 0;
  locale_t old;

  if (!f) {
    *error = nvtxrec_strdup_printf ("%s: %s", path, strerror (errno));
    return -1;
  }
  old = use_c_numeric ();
  while ((len = getline (&line, &cap, f)) >= 0) {
    NvtxrecEvent e;

    lineno++;
    if (*skip_ws (line) == '\0')
      continue;
    if ((size_t) len + 1 > buf_cap) {
      buf_cap = len + 1;
      key = realloc (key, buf_cap);
      val = realloc (val, buf_cap);
      payload = realloc (payload, buf_cap);
      if (!key || !val || !payload)
        abort ();
    }
    if (!parse_line (line, &e, key, val, payload)) {
      *error = nvtxrec_strdup_printf ("%s:%ld: not an nvtxrec event", path,
          lineno);
      n = -1;
      break;
    }
    nvtxrec_append (&e);
    n++;
  }
  restore_locale (old);
  free (line);
  free (key);
  free (val);
  free (payload);
  fclose (f);
  return n;
}
