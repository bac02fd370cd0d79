/* gpuprof: NVTX emission. */
#include "config.h"
#include "gpuprof-nvtx.h"

#if HAVE_NVTX
#include <nvtx3/nvToolsExt.h>

gboolean
gpuprof_nvtx_available (void)
{
  return TRUE;
}

void
gpuprof_nvtx_element_init (GpuprofElement * e)
{
  nvtxDomainHandle_t d = nvtxDomainCreateA (e->path);

  e->nvtx_domain = d;
  nvtxDomainNameCategoryA (d, GPUPROF_NVTX_CAT_CHAIN, "chain");
  nvtxDomainNameCategoryA (d, GPUPROF_NVTX_CAT_PULL, "pull");
  nvtxDomainNameCategoryA (d, GPUPROF_NVTX_CAT_QUEUE, "queue");
  nvtxDomainNameCategoryA (d, GPUPROF_NVTX_CAT_EVENT, "event");
  nvtxDomainNameCategoryA (d, GPUPROF_NVTX_CAT_STATE, "state");
}

void
gpuprof_nvtx_pad_init (GpuprofPad * p)
{
  gchar *text;

  if (!p->element || !p->element->nvtx_domain)
    return;
  text = g_strdup_printf ("%s:%s", strrchr (p->element->path, '/') ?
      strrchr (p->element->path, '/') + 1 : p->element->path, p->name);
  p->nvtx_msg = nvtxDomainRegisterStringA (p->element->nvtx_domain, text);
  g_free (text);
}

static inline void
attrs_init (nvtxEventAttributes_t * a, GpuprofElement * e, guint64 payload,
    GpuprofNvtxCategory cat)
{
  memset (a, 0, sizeof (*a));
  a->version = NVTX_VERSION;
  a->size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a->category = cat;
  a->colorType = NVTX_COLOR_ARGB;
  a->color = e->color;
  a->payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
  a->payload.ullValue = payload;
}

/* ranges are named by the registered "element:pad" string */
static inline void
attrs_init_registered (nvtxEventAttributes_t * a, GpuprofElement * e,
    gpointer msg, guint64 payload, GpuprofNvtxCategory cat)
{
  attrs_init (a, e, payload, cat);
  a->messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  a->message.registered = msg;
}

void
gpuprof_nvtx_push (GpuprofElement * e, gpointer msg, guint64 payload,
    GpuprofNvtxCategory cat)
{
  nvtxEventAttributes_t a;

  /* no domain yet: an element not in a pipeline yet (or no NVTX tool) */
  if (!e->nvtx_domain)
    return;
  attrs_init_registered (&a, e, msg, payload, cat);
  nvtxDomainRangePushEx (e->nvtx_domain, &a);
}

void
gpuprof_nvtx_pop (GpuprofElement * e)
{
  if (e->nvtx_domain)
    nvtxDomainRangePop (e->nvtx_domain);
}

guint64
gpuprof_nvtx_start (GpuprofElement * e, gpointer msg, guint64 payload)
{
  nvtxEventAttributes_t a;

  if (!e->nvtx_domain)
    return 0;
  attrs_init_registered (&a, e, msg, payload, GPUPROF_NVTX_CAT_QUEUE);
  return nvtxDomainRangeStartEx (e->nvtx_domain, &a);
}

void
gpuprof_nvtx_end (GpuprofElement * e, guint64 range)
{
  if (e->nvtx_domain)
    nvtxDomainRangeEnd (e->nvtx_domain, range);
}

void
gpuprof_nvtx_mark (GpuprofElement * e, const gchar * text, guint64 payload,
    GpuprofNvtxCategory cat)
{
  nvtxEventAttributes_t a;

  if (!e->nvtx_domain)
    return;
  attrs_init (&a, e, payload, cat);
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = text;
  nvtxDomainMarkEx (e->nvtx_domain, &a);
}

void
gpuprof_nvtx_name_thread (gint tid, const gchar * name)
{
  nvtxNameOsThreadA ((uint32_t) tid, name);
}

#else /* !HAVE_NVTX */

gboolean
gpuprof_nvtx_available (void)
{
  return FALSE;
}

void
gpuprof_nvtx_element_init (GpuprofElement * e)
{
}

void
gpuprof_nvtx_pad_init (GpuprofPad * p)
{
}

void
gpuprof_nvtx_push (GpuprofElement * e, gpointer msg, guint64 payload,
    GpuprofNvtxCategory cat)
{
}

void
gpuprof_nvtx_pop (GpuprofElement * e)
{
}

guint64
gpuprof_nvtx_start (GpuprofElement * e, gpointer msg, guint64 payload)
{
  return 0;
}

void
gpuprof_nvtx_end (GpuprofElement * e, guint64 range)
{
}

void
gpuprof_nvtx_mark (GpuprofElement * e, const gchar * text, guint64 payload,
    GpuprofNvtxCategory cat)
{
}

void
gpuprof_nvtx_name_thread (gint tid, const gchar * name)
{
}
#endif
