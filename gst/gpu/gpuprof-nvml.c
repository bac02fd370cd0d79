/* gpuprof: NVML, loaded at run time — see gpuprof-nvml.h.
 *
 * The functions' types come from our own declarations
 * (gpuprof-nvml-api.h); nothing of NVIDIA's is needed to build. Required:
 * what opening and the utilisation reading need. Everything else is
 * optional: an older driver without a call leaves that field unknown.
 * The clock event reasons have two names (...ClocksEventReasons since
 * driver 535, ...ClocksThrottleReasons before, deprecated in NVML 13):
 * the new one first. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gpuprof-nvml.h"
#include "gpuprof-nvml-api.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NVML_DEFAULT_LIBRARY "libnvidia-ml.so.1"
#define REASON_PREFIX "NVML off: "

typedef struct
{
  /* required */
  __typeof__ (nvmlInit_v2) * Init_v2;
  __typeof__ (nvmlShutdown) * Shutdown;
  __typeof__ (nvmlErrorString) * ErrorString;
  __typeof__ (nvmlDeviceGetCount_v2) * DeviceGetCount_v2;
  __typeof__ (nvmlDeviceGetHandleByIndex_v2) * DeviceGetHandleByIndex_v2;
  __typeof__ (nvmlDeviceGetUtilizationRates) * DeviceGetUtilizationRates;
  /* optional */
  __typeof__ (nvmlDeviceGetName) * DeviceGetName;
  __typeof__ (nvmlDeviceGetUUID) * DeviceGetUUID;
  __typeof__ (nvmlDeviceGetPciInfo_v3) * DeviceGetPciInfo_v3;
  __typeof__ (nvmlDeviceGetDecoderUtilization) * DeviceGetDecoderUtilization;
  __typeof__ (nvmlDeviceGetEncoderUtilization) * DeviceGetEncoderUtilization;
  __typeof__ (nvmlDeviceGetMemoryInfo) * DeviceGetMemoryInfo;
  __typeof__ (nvmlDeviceGetClockInfo) * DeviceGetClockInfo;
  __typeof__ (nvmlDeviceGetMaxClockInfo) * DeviceGetMaxClockInfo;
  __typeof__ (nvmlDeviceGetCurrentClocksEventReasons)
      * DeviceGetCurrentClocksEventReasons;
  __typeof__ (nvmlDeviceGetCurrentClocksThrottleReasons)
      * DeviceGetCurrentClocksThrottleReasons;
  __typeof__ (nvmlDeviceGetPcieThroughput) * DeviceGetPcieThroughput;
  __typeof__ (nvmlDeviceGetProcessUtilization) * DeviceGetProcessUtilization;
} NvmlTable;

#define REQUIRED(name) { "nvml" #name, G_STRUCT_OFFSET (NvmlTable, name), TRUE }
#define OPTIONAL(name) { "nvml" #name, G_STRUCT_OFFSET (NvmlTable, name), FALSE }

static const struct
{
  const gchar *symbol;
  glong offset;
  gboolean required;
} symbols[] = {
  REQUIRED (Init_v2),
  REQUIRED (Shutdown),
  REQUIRED (ErrorString),
  REQUIRED (DeviceGetCount_v2),
  REQUIRED (DeviceGetHandleByIndex_v2),
  REQUIRED (DeviceGetUtilizationRates),
  OPTIONAL (DeviceGetName),
  OPTIONAL (DeviceGetUUID),
  OPTIONAL (DeviceGetPciInfo_v3),
  OPTIONAL (DeviceGetDecoderUtilization),
  OPTIONAL (DeviceGetEncoderUtilization),
  OPTIONAL (DeviceGetMemoryInfo),
  OPTIONAL (DeviceGetClockInfo),
  OPTIONAL (DeviceGetMaxClockInfo),
  OPTIONAL (DeviceGetCurrentClocksEventReasons),
  OPTIONAL (DeviceGetCurrentClocksThrottleReasons),
  OPTIONAL (DeviceGetPcieThroughput),
  OPTIONAL (DeviceGetProcessUtilization),
};

struct _GpuprofNvml
{
  NvmlTable f;
  gchar *library;
  gchar *missing;               /* optional symbols not found */
  guint n;
  GpuprofNvmlDevice *devices;
  nvmlDevice_t *handles;
  guint64 *last_seen_us;        /* per device: newest process sample read */
  nvmlProcessUtilizationSample_t *samples;
  guint samples_cap;
  guint pid;
};

static const gchar *
error_string (const GpuprofNvml * nvml, nvmlReturn_t r)
{
  const gchar *s = nvml->f.ErrorString ? nvml->f.ErrorString (r) : NULL;

  return s ? s : "unknown NVML error";
}

/* ---- opening ---- */

/* an optional symbol that another one stands in for */
static gboolean
replaced (const NvmlTable * f, glong offset)
{
  if (offset == G_STRUCT_OFFSET (NvmlTable,
          DeviceGetCurrentClocksEventReasons))
    return f->DeviceGetCurrentClocksThrottleReasons != NULL;
  if (offset == G_STRUCT_OFFSET (NvmlTable,
          DeviceGetCurrentClocksThrottleReasons))
    return f->DeviceGetCurrentClocksEventReasons != NULL;
  return FALSE;
}

static gboolean
load_symbols (GpuprofNvml * nvml, void *module, gchar ** reason)
{
  GString *missing = g_string_new (NULL);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (symbols); i++) {
    gpointer fn = dlsym (module, symbols[i].symbol);

    G_STRUCT_MEMBER (gpointer, &nvml->f, symbols[i].offset) = fn;
    if (!fn && symbols[i].required) {
      *reason = g_strdup_printf (REASON_PREFIX "%s has no %s (driver too "
          "old?)", nvml->library, symbols[i].symbol);
      g_string_free (missing, TRUE);
      return FALSE;
    }
  }
  for (i = 0; i < G_N_ELEMENTS (symbols); i++) {
    if (!G_STRUCT_MEMBER (gpointer, &nvml->f, symbols[i].offset)
        && !replaced (&nvml->f, symbols[i].offset))
      g_string_append_printf (missing, "%s%s", missing->len ? ", " : "",
          symbols[i].symbol);
  }
  nvml->missing = g_string_free (missing, FALSE);
  return TRUE;
}

static void
copy_string (gchar * dst, const gchar * src, gsize size)
{
  g_strlcpy (dst, src, size);
}

/* what is known of device @i; a device that cannot be opened stays listed
 * (not usable, with NVML's reason) so indexes keep NVML's numbering */
static void
describe_device (GpuprofNvml * nvml, guint i)
{
  GpuprofNvmlDevice *d = &nvml->devices[i];
  nvmlDevice_t h = NULL;
  nvmlPciInfo_t pci;
  gchar text[NVML_DEVICE_NAME_V2_BUFFER_SIZE];

  d->index = i;
  d->status = nvml->f.DeviceGetHandleByIndex_v2 (i, &h);
  d->usable = d->status == NVML_SUCCESS && h;
  nvml->handles[i] = d->usable ? h : NULL;
  if (!d->usable)
    return;
  if (nvml->f.DeviceGetName
      && nvml->f.DeviceGetName (h, text, sizeof (text)) == NVML_SUCCESS)
    copy_string (d->name, text, sizeof (d->name));
  if (nvml->f.DeviceGetUUID
      && nvml->f.DeviceGetUUID (h, text, sizeof (text)) == NVML_SUCCESS)
    copy_string (d->uuid, text, sizeof (d->uuid));
  memset (&pci, 0, sizeof (pci));
  if (nvml->f.DeviceGetPciInfo_v3
      && nvml->f.DeviceGetPciInfo_v3 (h, &pci) == NVML_SUCCESS) {
    pci.busId[sizeof (pci.busId) - 1] = 0;
    copy_string (d->pci_bus_id, pci.busId, sizeof (d->pci_bus_id));
    d->pci_domain = pci.domain;
    d->pci_bus = pci.bus;
    d->pci_device = pci.device;
  }
}

/* process samples older than opening are not this run's: skip them */
static void
prime_process_samples (GpuprofNvml * nvml, guint i)
{
  GpuprofNvmlReading r;

  if (nvml->f.DeviceGetProcessUtilization && nvml->devices[i].usable)
    gpuprof_nvml_read (nvml, i, GPUPROF_NVML_BIT (GPUPROF_NVML_PROCESS), &r);
}

GpuprofNvml *
gpuprof_nvml_open (const gchar * library, gchar ** reason)
{
  GpuprofNvml *nvml;
  const gchar *path = library ? library : g_getenv ("GPUPROF_NVML_LIBRARY");
  gchar *why = NULL;
  void *module;
  nvmlReturn_t r;
  guint count = 0, i;

  if (!path || !*path)
    path = NVML_DEFAULT_LIBRARY;
  module = dlopen (path, RTLD_NOW | RTLD_LOCAL);
  if (!module) {
    why = g_strdup_printf (REASON_PREFIX "%s not loadable (%s)", path,
        dlerror ());
    goto fail;
  }
  nvml = g_new0 (GpuprofNvml, 1);
  nvml->library = g_strdup (path);
  nvml->pid = (guint) getpid ();
  if (!load_symbols (nvml, module, &why)) {
    dlclose (module);           /* nothing of it ran */
    goto fail_free;
  }
  /* from here on the library ran: it stays loaded (gpuprof-nvml.h) */
  if ((r = nvml->f.Init_v2 ()) != NVML_SUCCESS) {
    why = g_strdup_printf (REASON_PREFIX "nvmlInit_v2 failed: %s (NVML "
        "error %d)", error_string (nvml, r), (gint) r);
    goto fail_free;
  }
  if ((r = nvml->f.DeviceGetCount_v2 (&count)) != NVML_SUCCESS || !count) {
    why = r != NVML_SUCCESS ?
        g_strdup_printf (REASON_PREFIX "nvmlDeviceGetCount_v2 failed: %s "
        "(NVML error %d)", error_string (nvml, r), (gint) r) :
        g_strdup (REASON_PREFIX "no GPU (NVML found none)");
    nvml->f.Shutdown ();
    goto fail_free;
  }
  nvml->n = count;
  nvml->devices = g_new0 (GpuprofNvmlDevice, count);
  nvml->handles = g_new0 (nvmlDevice_t, count);
  nvml->last_seen_us = g_new0 (guint64, count);
  nvml->samples_cap = 64;
  nvml->samples = g_new0 (nvmlProcessUtilizationSample_t, nvml->samples_cap);
  for (i = 0; i < count; i++)
    describe_device (nvml, i);
  for (i = 0; i < count; i++)
    prime_process_samples (nvml, i);
  if (reason)
    *reason = NULL;
  return nvml;

fail_free:
  g_free (nvml->missing);
  g_free (nvml->library);
  g_free (nvml);
fail:
  if (reason)
    *reason = why;
  else
    g_free (why);
  return NULL;
}

void
gpuprof_nvml_close (GpuprofNvml * nvml)
{
  if (!nvml)
    return;
  nvml->f.Shutdown ();
  g_free (nvml->devices);
  g_free (nvml->handles);
  g_free (nvml->last_seen_us);
  g_free (nvml->samples);
  g_free (nvml->missing);
  g_free (nvml->library);
  g_free (nvml);
}

const gchar *
gpuprof_nvml_library (const GpuprofNvml * nvml)
{
  return nvml->library;
}

const gchar *
gpuprof_nvml_missing (const GpuprofNvml * nvml)
{
  return nvml->missing;
}

guint
gpuprof_nvml_device_count (const GpuprofNvml * nvml)
{
  return nvml->n;
}

const GpuprofNvmlDevice *
gpuprof_nvml_device (const GpuprofNvml * nvml, guint index)
{
  return index < nvml->n ? &nvml->devices[index] : NULL;
}

/* ---- reading ---- */

/* @r is @field's outcome: known on success, else its reason */
static void
settle (GpuprofNvmlReading * out, GpuprofNvmlField field, nvmlReturn_t r)
{
  out->status[field] = (gint) r;
  if (r == NVML_SUCCESS)
    out->have |= GPUPROF_NVML_BIT (field);
}

static nvmlReturn_t
read_reasons (GpuprofNvml * nvml, nvmlDevice_t h, guint64 * reasons)
{
  unsigned long long bits = 0;
  nvmlReturn_t r = nvml->f.DeviceGetCurrentClocksEventReasons ?
      nvml->f.DeviceGetCurrentClocksEventReasons (h, &bits) :
      nvml->f.DeviceGetCurrentClocksThrottleReasons (h, &bits);

  *reasons = bits;
  return r;
}

static nvmlReturn_t
read_clocks (GpuprofNvml * nvml, nvmlDevice_t h, GpuprofNvmlReading * out)
{
  unsigned int now = 0, max = 0;
  nvmlReturn_t r = nvml->f.DeviceGetClockInfo (h, NVML_CLOCK_SM, &now);

  if (r == NVML_SUCCESS)
    r = nvml->f.DeviceGetMaxClockInfo (h, NVML_CLOCK_SM, &max);
  out->sm_mhz = now;
  out->sm_max_mhz = max;
  return r;
}

static nvmlReturn_t
read_pcie (GpuprofNvml * nvml, nvmlDevice_t h, GpuprofNvmlReading * out)
{
  unsigned int rx = 0, tx = 0;
  nvmlReturn_t r = nvml->f.DeviceGetPcieThroughput (h, NVML_PCIE_UTIL_RX_BYTES,
      &rx);

  if (r == NVML_SUCCESS)
    r = nvml->f.DeviceGetPcieThroughput (h, NVML_PCIE_UTIL_TX_BYTES, &tx);
  out->pcie_rx_kbs = rx;
  out->pcie_tx_kbs = tx;
  return r;
}

static void
add_sample (GpuprofNvmlProcessSums * sums,
    const nvmlProcessUtilizationSample_t * s)
{
  sums->samples++;
  sums->sm += s->smUtil;
  sums->mem += s->memUtil;
  sums->enc += s->encUtil;
  sums->dec += s->decUtil;
}

/* NVML gives the samples newer than the last seen: one per process and
 * sampling period in which it used the GPU; none at all is NOT_FOUND */
static nvmlReturn_t
read_process (GpuprofNvml * nvml, guint i, GpuprofNvmlReading * out)
{
  nvmlDevice_t h = nvml->handles[i];
  guint64 newest = nvml->last_seen_us[i];
  unsigned int count = nvml->samples_cap, k;
  nvmlReturn_t r;

  r = nvml->f.DeviceGetProcessUtilization (h, nvml->samples, &count,
      nvml->last_seen_us[i]);
  if (r == NVML_ERROR_INSUFFICIENT_SIZE && count > nvml->samples_cap) {
    /* more samples than ever before: the only allocation of a reading */
    nvml->samples_cap = count + 16;
    nvml->samples = g_renew (nvmlProcessUtilizationSample_t, nvml->samples,
        nvml->samples_cap);
    count = nvml->samples_cap;
    r = nvml->f.DeviceGetProcessUtilization (h, nvml->samples, &count,
        nvml->last_seen_us[i]);
  }
  if (r == NVML_ERROR_NOT_FOUND)
    return NVML_SUCCESS;        /* nothing new: known, all zero */
  if (r != NVML_SUCCESS)
    return r;
  count = MIN (count, nvml->samples_cap);
  for (k = 0; k < count; k++) {
    const nvmlProcessUtilizationSample_t *s = &nvml->samples[k];
    guint j;

    newest = MAX (newest, s->timeStamp);
    add_sample (&out->all, s);
    if (s->pid == nvml->pid)
      add_sample (&out->self, s);
    /* distinct processes (one has a sample per period) */
    for (j = 0; j < k && nvml->samples[j].pid != s->pid; j++);
    out->procs += j == k;
  }
  nvml->last_seen_us[i] = newest;
  return NVML_SUCCESS;
}

/* the optional function each field needs (UTIL's is required) */
static gboolean
field_available (const GpuprofNvml * nvml, GpuprofNvmlField field)
{
  const NvmlTable *f = &nvml->f;

  switch (field) {
    case GPUPROF_NVML_UTIL:
      return TRUE;
    case GPUPROF_NVML_DECODER:
      return f->DeviceGetDecoderUtilization != NULL;
    case GPUPROF_NVML_ENCODER:
      return f->DeviceGetEncoderUtilization != NULL;
    case GPUPROF_NVML_MEMORY:
      return f->DeviceGetMemoryInfo != NULL;
    case GPUPROF_NVML_CLOCKS:
      return f->DeviceGetClockInfo && f->DeviceGetMaxClockInfo;
    case GPUPROF_NVML_REASONS:
      return f->DeviceGetCurrentClocksEventReasons
          || f->DeviceGetCurrentClocksThrottleReasons;
    case GPUPROF_NVML_PCIE:
      return f->DeviceGetPcieThroughput != NULL;
    case GPUPROF_NVML_PROCESS:
      return f->DeviceGetProcessUtilization != NULL;
    default:
      return FALSE;
  }
}

static nvmlReturn_t
read_field (GpuprofNvml * nvml, guint i, GpuprofNvmlField field,
    GpuprofNvmlReading * out)
{
  nvmlDevice_t h = nvml->handles[i];

  switch (field) {
    case GPUPROF_NVML_UTIL:{
      nvmlUtilization_t u = { 0, 0 };
      nvmlReturn_t r = nvml->f.DeviceGetUtilizationRates (h, &u);

      out->sm_pct = u.gpu;
      out->mem_pct = u.memory;
      return r;
    }
    case GPUPROF_NVML_DECODER:
      return nvml->f.DeviceGetDecoderUtilization (h, &out->dec_pct,
          &out->dec_period_us);
    case GPUPROF_NVML_ENCODER:
      return nvml->f.DeviceGetEncoderUtilization (h, &out->enc_pct,
          &out->enc_period_us);
    case GPUPROF_NVML_MEMORY:{
      nvmlMemory_t m = { 0, 0, 0 };
      nvmlReturn_t r = nvml->f.DeviceGetMemoryInfo (h, &m);

      out->mem_used = m.used;
      out->mem_total = m.total;
      return r;
    }
    case GPUPROF_NVML_CLOCKS:
      return read_clocks (nvml, h, out);
    case GPUPROF_NVML_REASONS:
      return read_reasons (nvml, h, &out->reasons);
    case GPUPROF_NVML_PCIE:
      return read_pcie (nvml, h, out);
    case GPUPROF_NVML_PROCESS:
      return read_process (nvml, i, out);
    default:
      return NVML_ERROR_INVALID_ARGUMENT;
  }
}

gboolean
gpuprof_nvml_read (GpuprofNvml * nvml, guint index, guint fields,
    GpuprofNvmlReading * out)
{
  guint field;

  memset (out, 0, sizeof (*out));
  out->ts_ns = (guint64) g_get_monotonic_time () * 1000;
  for (field = 0; field < GPUPROF_NVML_N_FIELDS; field++)
    out->status[field] = GPUPROF_NVML_NOT_ASKED;
  if (index >= nvml->n || !nvml->devices[index].usable)
    return FALSE;

  for (field = 0; field < GPUPROF_NVML_N_FIELDS; field++) {
    if (!(fields & GPUPROF_NVML_BIT (field)))
      continue;
    if (!field_available (nvml, field)) {
      out->status[field] = GPUPROF_NVML_NO_SYMBOL;
      continue;
    }
    settle (out, field, read_field (nvml, index, field, out));
  }
  return TRUE;
}

/* ---- names ---- */

const gchar *
gpuprof_nvml_status_string (const GpuprofNvml * nvml, gint status)
{
  if (status == GPUPROF_NVML_NOT_ASKED)
    return "not asked";
  if (status == GPUPROF_NVML_NO_SYMBOL)
    return "not in this driver's NVML";
  return error_string (nvml, (nvmlReturn_t) status);
}

const gchar *
gpuprof_nvml_field_name (GpuprofNvmlField field)
{
  static const gchar *names[GPUPROF_NVML_N_FIELDS] = {
    "util", "decoder", "encoder", "memory", "clocks", "reasons", "pcie",
    "process",
  };

  return field < GPUPROF_NVML_N_FIELDS ? names[field] : "unknown";
}

const gchar *
gpuprof_nvml_reasons_string (guint64 reasons, gchar * buf, gsize size)
{
  static const struct
  {
    guint64 bit;
    const gchar *name;
  } names[] = {
    {GPUPROF_NVML_REASON_GPU_IDLE, "gpu_idle"},
    {GPUPROF_NVML_REASON_APP_CLOCKS, "applications_clocks"},
    {GPUPROF_NVML_REASON_SW_POWER_CAP, "sw_power_cap"},
    {GPUPROF_NVML_REASON_HW_SLOWDOWN, "hw_slowdown"},
    {GPUPROF_NVML_REASON_SYNC_BOOST, "sync_boost"},
    {GPUPROF_NVML_REASON_SW_THERMAL, "sw_thermal"},
    {GPUPROF_NVML_REASON_HW_THERMAL, "hw_thermal"},
    {GPUPROF_NVML_REASON_HW_POWER_BRAKE, "hw_power_brake"},
    {GPUPROF_NVML_REASON_DISPLAY_CLOCKS, "display_clocks"},
  };
  guint64 known = 0;
  guint i;

  g_strlcpy (buf, reasons ? "" : "none", size);
  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    known |= names[i].bit;
    if (!(reasons & names[i].bit))
      continue;
    if (*buf)
      g_strlcat (buf, ",", size);
    g_strlcat (buf, names[i].name, size);
  }
  if (reasons & ~known) {
    gchar other[32];

    g_snprintf (other, sizeof (other), "%s0x%" G_GINT64_MODIFIER "x",
        *buf ? "," : "", reasons & ~known);
    g_strlcat (buf, other, size);
  }
  return buf;
}

/* ---- which device ---- */

void
gpuprof_nvml_uuid_string (const guint8 b[16], gchar out[41])
{
  g_snprintf (out, 41, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
      "%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3], b[4], b[5], b[6],
      b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

static gboolean
parse_hex (const gchar ** p, guint max_digits, guint * out)
{
  const gchar *s = *p;
  guint v = 0, n = 0;

  while (n < max_digits && g_ascii_isxdigit (*s)) {
    v = v * 16 + (guint) g_ascii_xdigit_value (*s++);
    n++;
  }
  if (!n)
    return FALSE;
  *p = s;
  *out = v;
  return TRUE;
}

gboolean
gpuprof_nvml_parse_pci_bus_id (const gchar * s, guint * domain, guint * bus,
    guint * device, guint * function)
{
  const gchar *p = s;
  guint a, b, c, fn = 0;

  if (!s || !parse_hex (&p, 8, &a) || *p++ != ':' || !parse_hex (&p, 2, &b))
    return FALSE;
  if (*p == ':') {
    /* domain:bus:device[.function] */
    p++;
    if (!parse_hex (&p, 2, &c))
      return FALSE;
    *domain = a;
    *bus = b;
    *device = c;
  } else {
    /* bus:device[.function], domain 0 */
    if (a > 0xff)
      return FALSE;
    *domain = 0;
    *bus = a;
    *device = b;
  }
  if (*p == '.' && (p++, !parse_hex (&p, 1, &fn)))
    return FALSE;
  if (*p)
    return FALSE;
  *function = fn;
  return TRUE;
}

gint
gpuprof_nvml_find_pci_bus_id (const GpuprofNvml * nvml, const gchar * bus_id)
{
  guint domain, bus, device, function, i;

  if (!gpuprof_nvml_parse_pci_bus_id (bus_id, &domain, &bus, &device,
          &function))
    return -1;
  for (i = 0; i < nvml->n; i++) {
    const GpuprofNvmlDevice *d = &nvml->devices[i];

    if (d->pci_bus_id[0] && d->pci_domain == domain && d->pci_bus == bus
        && d->pci_device == device)
      return (gint) i;
  }
  return -1;
}

/* @uuid with or without "GPU-": does it name @d (@prefix: or start it)? */
static gboolean
uuid_matches (const GpuprofNvmlDevice * d, const gchar * uuid,
    gboolean prefix)
{
  const gchar *have = d->uuid;
  gsize len;

  if (!have[0])
    return FALSE;
  if (!g_ascii_strncasecmp (have, "GPU-", 4)
      && g_ascii_strncasecmp (uuid, "GPU-", 4))
    have += 4;
  len = strlen (uuid);
  return prefix ? len <= strlen (have) && !g_ascii_strncasecmp (have, uuid,
      len) : !g_ascii_strcasecmp (have, uuid);
}

gint
gpuprof_nvml_find_uuid (const GpuprofNvml * nvml, const gchar * uuid)
{
  guint i;

  for (i = 0; uuid && i < nvml->n; i++)
    if (uuid_matches (&nvml->devices[i], uuid, FALSE))
      return (gint) i;
  return -1;
}

static gint
compare_pci (gconstpointer a, gconstpointer b, gpointer data)
{
  const GpuprofNvmlDevice *devices = data;
  const GpuprofNvmlDevice *x = &devices[*(const guint *) a];
  const GpuprofNvmlDevice *y = &devices[*(const guint *) b];

  if (x->pci_domain != y->pci_domain)
    return x->pci_domain < y->pci_domain ? -1 : 1;
  if (x->pci_bus != y->pci_bus)
    return x->pci_bus < y->pci_bus ? -1 : 1;
  if (x->pci_device != y->pci_device)
    return x->pci_device < y->pci_device ? -1 : 1;
  return 0;
}

/* NVML indexes in CUDA's order of all devices; FALSE when not knowable */
static gboolean
cuda_order (const GpuprofNvmlDevice * devices, guint n, const gchar * order,
    guint * out)
{
  gboolean by_pci = order && !g_ascii_strcasecmp (order, "PCI_BUS_ID");
  guint i;

  for (i = 0; i < n; i++) {
    /* PCI order needs every bus id (one device needs no order); fastest
     * first, one model throughout */
    if (!devices[i].pci_bus_id[0] && n > 1)
      return FALSE;
    if (!by_pci && strcmp (devices[i].name, devices[0].name))
      return FALSE;
    out[i] = i;
  }
  g_qsort_with_data (out, n, sizeof (guint), compare_pci, (gpointer) devices);
  return TRUE;
}

/* one CUDA_VISIBLE_DEVICES entry -> NVML index; -1 unknown, -2 invalid
 * (the list ends there) */
static gint
visible_entry (const GpuprofNvmlDevice * devices, guint n,
    const guint * order, gboolean have_order, const gchar * entry)
{
  gchar *end;
  guint64 v;
  gint found = -1;
  guint i;

  entry += strspn (entry, " ");
  if (!g_ascii_strncasecmp (entry, "MIG-", 4))
    return -1;
  if (!g_ascii_strncasecmp (entry, "GPU-", 4)) {
    for (i = 0; i < n; i++) {
      if (!uuid_matches (&devices[i], entry, TRUE))
        continue;
      if (found >= 0)
        return -2;              /* an ambiguous prefix */
      found = (gint) i;
    }
    return found >= 0 ? found : -2;
  }
  v = g_ascii_strtoull (entry, &end, 10);
  if (end == entry || (*end && *end != ' ') || v >= n)
    return -2;
  return have_order ? (gint) order[v] : -1;
}

gint
gpuprof_nvml_cuda_ordinal_to_index (const GpuprofNvmlDevice * devices,
    guint n, guint ordinal, const gchar * visible, const gchar * order)
{
  guint *cuda = g_new (guint, MAX (n, 1));
  gboolean have_order = cuda_order (devices, n, order, cuda);
  gchar **entries;
  gint result = -1;
  guint i;

  if (!visible) {
    result = ordinal < n && have_order ? (gint) cuda[ordinal] : -1;
    g_free (cuda);
    return result;
  }
  entries = g_strsplit (visible, ",", -1);
  for (i = 0; entries[i]; i++) {
    gint index = visible_entry (devices, n, cuda, have_order, entries[i]);

    if (index == -2)
      break;                    /* CUDA ignores the rest of the list */
    if (i == ordinal) {
      result = index;
      break;
    }
  }
  g_strfreev (entries);
  g_free (cuda);
  return result;
}

gint
gpuprof_nvml_find_cuda_ordinal (const GpuprofNvml * nvml, guint ordinal)
{
  return gpuprof_nvml_cuda_ordinal_to_index (nvml->devices, nvml->n, ordinal,
      g_getenv ("CUDA_VISIBLE_DEVICES"), g_getenv ("CUDA_DEVICE_ORDER"));
}
