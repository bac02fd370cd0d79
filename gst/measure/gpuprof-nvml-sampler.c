/* gpuprof: the GPU engines over time from NVML — see
 * gpuprof-nvml-sampler.h. */
#include "gpuprof-nvml-sampler.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#define ENGINES GPUPROF_NVML_N_ENGINES
#define REASONS GPUPROF_NVML_N_REASONS
/* this process's share: SM, NVDEC, NVENC */
#define SHARES 3

/* Running totals up to a reading; kept entries of the history are copies.
 * @peak_* are the most of the readings since the previous entry kept. */
typedef struct
{
  guint64 ts_ns;
  guint64 readings;
  guint64 known[ENGINES], sum[ENGINES], sat[ENGINES];
  guint64 peak[ENGINES];
  guint64 clock_known, clock_sum;
  guint64 reasons_known, throttled, reason[REASONS];
  guint64 mem_used_peak;
  guint64 process_known, self[SHARES], all[SHARES];
  guint64 procs_peak;
} Entry;

typedef struct
{
  Entry *history;               /* oldest first; NULL until the first */
  guint n;
  Entry total;
  GpuprofNvmlReading last;
  gboolean have_last;
  guint clock_max_mhz;
  guint64 mem_total;
} Device;

struct _GpuprofNvmlSampler
{
  gchar *library;
  GpuprofNvmlSamplerState state;        /* under the lock */
  gchar *reason;                /* FAILED: why */
  GCond opened;
  GpuprofNvml *nvml;            /* set once, by the first tick */
  guint n_devices;
  Device *devices;
  GMutex lock;                  /* the state, the devices' figures, the
                                 * cost */
  gint64 period_us;             /* asked: 1 / nvml-hz */
  gint64 next_us;               /* the next reading is due (sampler) */
  GpuprofNvmlSamplerCost cost;
};

/* ---------------------------------------------------------- creation */

GpuprofNvmlSampler *
gpuprof_nvml_sampler_new (const gchar * library, gdouble hz)
{
  GpuprofNvmlSampler *s = g_new0 (GpuprofNvmlSampler, 1);

  s->library = g_strdup (library);
  g_mutex_init (&s->lock);
  g_cond_init (&s->opened);
  s->period_us = (gint64) (G_USEC_PER_SEC / (hz > 0.0 ? hz : 1.0));
  s->period_us = MAX (s->period_us, 1000);
  s->cost.period_us = s->cost.effective_us = s->period_us;
  return s;
}

/* the first tick: NVML's loading and init on the sampler thread */
static void
open_nvml (GpuprofNvmlSampler * s)
{
  gchar *reason = NULL;
  GpuprofNvml *nvml = gpuprof_nvml_open (s->library, &reason);
  guint n = nvml ? gpuprof_nvml_device_count (nvml) : 0;
  Device *devices = g_new0 (Device, MAX (n, 1));

  g_mutex_lock (&s->lock);
  s->nvml = nvml;
  s->n_devices = n;
  s->devices = devices;
  s->reason = reason;
  s->state = nvml ? GPUPROF_NVML_SAMPLER_OPEN : GPUPROF_NVML_SAMPLER_FAILED;
  g_cond_broadcast (&s->opened);
  g_mutex_unlock (&s->lock);
}

GpuprofNvmlSamplerState
gpuprof_nvml_sampler_state (GpuprofNvmlSampler * s, gint64 timeout_us,
    const gchar ** reason)
{
  gint64 until = g_get_monotonic_time () + timeout_us;
  GpuprofNvmlSamplerState state;

  g_mutex_lock (&s->lock);
  while (s->state == GPUPROF_NVML_SAMPLER_PENDING && timeout_us > 0
      && g_cond_wait_until (&s->opened, &s->lock, until));
  state = s->state;
  if (reason)
    *reason = s->reason;
  g_mutex_unlock (&s->lock);
  return state;
}

void
gpuprof_nvml_sampler_free (GpuprofNvmlSampler * s)
{
  guint i;

  if (!s)
    return;
  for (i = 0; i < s->n_devices; i++)
    g_free (s->devices[i].history);
  g_free (s->devices);
  if (s->nvml)
    gpuprof_nvml_close (s->nvml);
  g_mutex_clear (&s->lock);
  g_cond_clear (&s->opened);
  g_free (s->reason);
  g_free (s->library);
  g_free (s);
}

gint64
gpuprof_nvml_sampler_period_us (const GpuprofNvmlSampler * s)
{
  return s->period_us;
}

/* NVML and its devices, once open (they do not change after) */
static GpuprofNvml *
opened (GpuprofNvmlSampler * s)
{
  GpuprofNvml *nvml;

  g_mutex_lock (&s->lock);
  nvml = s->nvml;
  g_mutex_unlock (&s->lock);
  return nvml;
}

guint
gpuprof_nvml_sampler_device_count (GpuprofNvmlSampler * s)
{
  return opened (s) ? s->n_devices : 0;
}

const GpuprofNvmlDevice *
gpuprof_nvml_sampler_device (GpuprofNvmlSampler * s, guint index)
{
  GpuprofNvml *nvml = opened (s);

  return nvml ? gpuprof_nvml_device (nvml, index) : NULL;
}

const gchar *
gpuprof_nvml_sampler_missing (GpuprofNvmlSampler * s)
{
  GpuprofNvml *nvml = opened (s);

  return nvml ? gpuprof_nvml_missing (nvml) : "";
}

void
gpuprof_nvml_sampler_cost (GpuprofNvmlSampler * s,
    GpuprofNvmlSamplerCost * out)
{
  g_mutex_lock (&s->lock);
  *out = s->cost;
  g_mutex_unlock (&s->lock);
}

/* ---------------------------------------------------------- readings */

static void
add_engine (Entry * t, GpuprofNvmlEngine e, guint pct)
{
  t->known[e]++;
  t->sum[e] += pct;
  t->sat[e] += pct >= GPUPROF_NVML_SATURATED_PCT;
  t->peak[e] = MAX (t->peak[e], pct);
}

static gboolean
have (const GpuprofNvmlReading * r, GpuprofNvmlField f)
{
  return (r->have & GPUPROF_NVML_BIT (f)) != 0;
}

static void
add_reasons (Entry * t, guint64 reasons)
{
  guint b;

  t->reasons_known++;
  if ((reasons & GPUPROF_NVML_REASONS_THROTTLE)
      && !(reasons & GPUPROF_NVML_REASON_GPU_IDLE))
    t->throttled++;
  for (b = 0; b < REASONS; b++)
    t->reason[b] += (reasons >> b) & 1;
}

static void
add_process (Entry * t, const GpuprofNvmlReading * r)
{
  t->process_known++;
  t->self[0] += r->self.sm;
  t->all[0] += r->all.sm;
  t->self[1] += r->self.dec;
  t->all[1] += r->all.dec;
  t->self[2] += r->self.enc;
  t->all[2] += r->all.enc;
  t->procs_peak = MAX (t->procs_peak, r->procs);
}

/* the totals with @r added; the peaks start over with each entry */
static void
add_reading (Device * d, const GpuprofNvmlReading * r)
{
  Entry *t = &d->total;

  memset (t->peak, 0, sizeof (t->peak));
  t->mem_used_peak = 0;
  t->procs_peak = 0;
  t->ts_ns = r->ts_ns;
  t->readings++;
  if (have (r, GPUPROF_NVML_UTIL)) {
    add_engine (t, GPUPROF_NVML_ENGINE_SM, r->sm_pct);
    add_engine (t, GPUPROF_NVML_ENGINE_MEM, r->mem_pct);
  }
  if (have (r, GPUPROF_NVML_DECODER))
    add_engine (t, GPUPROF_NVML_ENGINE_DEC, r->dec_pct);
  if (have (r, GPUPROF_NVML_ENCODER))
    add_engine (t, GPUPROF_NVML_ENGINE_ENC, r->enc_pct);
  if (have (r, GPUPROF_NVML_CLOCKS)) {
    t->clock_known++;
    t->clock_sum += r->sm_mhz;
    d->clock_max_mhz = r->sm_max_mhz;
  }
  if (have (r, GPUPROF_NVML_REASONS))
    add_reasons (t, r->reasons);
  if (have (r, GPUPROF_NVML_MEMORY)) {
    t->mem_used_peak = r->mem_used;
    d->mem_total = r->mem_total;
  }
  if (have (r, GPUPROF_NVML_PROCESS))
    add_process (t, r);
}

/* the history full: every other entry goes, its peaks to the next */
static void
halve (Device * d)
{
  guint i, k;

  for (i = 0; i + 1 < d->n; i += 2) {
    Entry *a = &d->history[i], *b = &d->history[i + 1];

    for (k = 0; k < ENGINES; k++)
      b->peak[k] = MAX (a->peak[k], b->peak[k]);
    b->mem_used_peak = MAX (a->mem_used_peak, b->mem_used_peak);
    b->procs_peak = MAX (a->procs_peak, b->procs_peak);
    d->history[i / 2] = *b;
  }
  if (d->n % 2)
    d->history[d->n / 2] = d->history[d->n - 1];
  d->n = (d->n + 1) / 2;
}

static void
keep (Device * d)
{
  if (!d->history)
    d->history = g_new (Entry, GPUPROF_NVML_SAMPLER_HISTORY);
  if (d->n == GPUPROF_NVML_SAMPLER_HISTORY)
    halve (d);
  d->history[d->n++] = d->total;
}

static guint64
thread_cpu_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (guint64) ts.tv_sec * G_GUINT64_CONSTANT (1000000000) + ts.tv_nsec;
}

/* read every this often: as asked, or less often when a reading costs
 * more than the budget of one core */
static gint64
effective_period (const GpuprofNvmlSampler * s)
{
  gint64 floor_us;

  if (!s->cost.readings)
    return s->period_us;
  floor_us = (gint64) (s->cost.cpu_ns / s->cost.readings / 1000 /
      GPUPROF_NVML_SAMPLER_CPU_BUDGET);
  return MAX (s->period_us, floor_us);
}

void
gpuprof_nvml_sampler_tick (GpuprofNvmlSampler * s, gint64 now_us)
{
  GpuprofNvmlReading *r;
  gboolean *ok;
  guint64 cpu0, wall0, cpu, wall;
  guint i;

  if (s->state == GPUPROF_NVML_SAMPLER_PENDING)
    open_nvml (s);
  if (!s->nvml)
    return;
  /* the devices are known once open */
  r = g_newa (GpuprofNvmlReading, MAX (s->n_devices, 1));
  ok = g_newa (gboolean, MAX (s->n_devices, 1));
  /* a tick a little early still reads: the ticker wakes at its period */
  if (s->next_us && now_us + s->period_us / 4 < s->next_us)
    return;
  cpu0 = thread_cpu_ns ();
  wall0 = g_get_monotonic_time ();
  /* NVML outside the lock: readers never wait for the driver */
  for (i = 0; i < s->n_devices; i++)
    ok[i] = gpuprof_nvml_read (s->nvml, i, GPUPROF_NVML_DEFAULT_FIELDS, &r[i]);
  cpu = thread_cpu_ns () - cpu0;
  wall = (g_get_monotonic_time () - wall0) * 1000;

  g_mutex_lock (&s->lock);
  for (i = 0; i < s->n_devices; i++) {
    Device *d = &s->devices[i];

    if (!ok[i])
      continue;
    add_reading (d, &r[i]);
    keep (d);
    d->last = r[i];
    d->have_last = TRUE;
  }
  s->cost.readings++;
  s->cost.cpu_ns += cpu;
  s->cost.wall_ns += wall;
  s->cost.effective_us = effective_period (s);
  s->next_us = now_us + s->cost.effective_us;
  g_mutex_unlock (&s->lock);
}

gboolean
gpuprof_nvml_sampler_tick_func (gint64 now_us, gpointer sampler)
{
  gpuprof_nvml_sampler_tick (sampler, now_us);
  return FALSE;
}

/* ----------------------------------------------------------- figures */

/* index of the last entry at or before @t (−1 none) */
static gint
at_or_before (const Device * d, guint64 t)
{
  gint lo = 0, hi = (gint) d->n - 1, found = -1;

  while (lo <= hi) {
    gint mid = (lo + hi) / 2;

    if (d->history[mid].ts_ns <= t) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}

static gdouble
ratio (guint64 part, guint64 whole)
{
  return whole ? (gdouble) part / whole : 0.0;
}

static void
figures_between (const Device * d, const Entry * base, gint first, gint end,
    GpuprofNvmlFigures * out)
{
  const Entry *e = &d->history[end];
  guint64 peak[ENGINES] = { 0 };
  gint i;
  guint k;

  for (i = first; i <= end; i++) {
    for (k = 0; k < ENGINES; k++)
      peak[k] = MAX (peak[k], d->history[i].peak[k]);
    out->mem_used_peak = MAX (out->mem_used_peak,
        d->history[i].mem_used_peak);
    out->procs_peak = MAX (out->procs_peak, d->history[i].procs_peak);
  }
  out->readings = e->readings - base->readings;
  out->first_ns = d->history[first].ts_ns;
  out->last_ns = e->ts_ns;
  for (k = 0; k < ENGINES; k++) {
    guint64 known = e->known[k] - base->known[k];

    out->known[k] = known;
    out->mean[k] = ratio (e->sum[k] - base->sum[k], known) / 100.0;
    out->saturated[k] = ratio (e->sat[k] - base->sat[k], known);
    out->peak[k] = peak[k] / 100.0;
  }
  out->clock_known = e->clock_known - base->clock_known;
  out->clock_mhz = ratio (e->clock_sum - base->clock_sum, out->clock_known);
  out->clock_max_mhz = d->clock_max_mhz;
  out->reasons_known = e->reasons_known - base->reasons_known;
  out->throttled = ratio (e->throttled - base->throttled, out->reasons_known);
  for (k = 0; k < REASONS; k++)
    out->reason_share[k] = ratio (e->reason[k] - base->reason[k],
        out->reasons_known);
  out->mem_total = d->mem_total;
  out->process_known = e->process_known - base->process_known;
  for (k = 0; k < SHARES; k++) {
    guint64 all = e->all[k] - base->all[k];

    /* no process sample in the window: known, none of it ours */
    out->self_share[k] = out->process_known ?
        ratio (e->self[k] - base->self[k], all) : -1.0;
  }
}

gboolean
gpuprof_nvml_sampler_figures (GpuprofNvmlSampler * s, guint index,
    guint64 t0_ns, guint64 t1_ns, GpuprofNvmlFigures * out)
{
  static const Entry zero;
  const Device *d;
  gint base, end;
  gboolean found = FALSE;

  memset (out, 0, sizeof (*out));
  g_mutex_lock (&s->lock);
  if (index >= s->n_devices) {
    g_mutex_unlock (&s->lock);
    return FALSE;
  }
  d = &s->devices[index];
  if (d->n) {
    /* the totals before the window: the last entry before t0 */
    base = t0_ns ? at_or_before (d, t0_ns - 1) : -1;
    end = t1_ns ? at_or_before (d, t1_ns) : (gint) d->n - 1;
    if (end > base) {
      figures_between (d, base >= 0 ? &d->history[base] : &zero, base + 1,
          end, out);
      found = TRUE;
    }
  }
  g_mutex_unlock (&s->lock);
  return found;
}

gboolean
gpuprof_nvml_sampler_last (GpuprofNvmlSampler * s, guint index,
    GpuprofNvmlReading * out)
{
  gboolean have_last = FALSE;

  g_mutex_lock (&s->lock);
  if (index < s->n_devices && s->devices[index].have_last) {
    *out = s->devices[index].last;
    have_last = TRUE;
  }
  g_mutex_unlock (&s->lock);
  return have_last;
}

/* ---------------------------------------------- devices of a pipeline */

/* the device an element says it works on: nvcodec's and gst-cuda's
 * cuda-device-id (-1: not chosen yet), DeepStream's gpu-id; -1 none */
static gint
element_device (GstElement * el, const gchar ** prop)
{
  static const gchar *const names[] = { "cuda-device-id", "gpu-id",
    "device-id"
  };
  GObjectClass *klass = G_OBJECT_GET_CLASS (el);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    GParamSpec *spec = g_object_class_find_property (klass, names[i]);
    gint v = -1;

    if (!spec || !(spec->flags & G_PARAM_READABLE))
      continue;
    if (spec->value_type == G_TYPE_INT) {
      g_object_get (el, names[i], &v, NULL);
    } else if (spec->value_type == G_TYPE_UINT) {
      guint u = 0;

      g_object_get (el, names[i], &u, NULL);
      v = u <= G_MAXINT ? (gint) u : -1;
    }
    if (v >= 0) {
      *prop = names[i];
      return v;
    }
  }
  return -1;
}

static void
add_device (GpuprofNvmlSampler * s, guint64 * mask, GString * how,
    gint cuda, const gchar * source)
{
  gint index = gpuprof_nvml_find_cuda_ordinal (s->nvml, (guint) cuda);

  if (index < 0 || index >= 64 || (*mask & (G_GUINT64_CONSTANT (1) << index)))
    return;
  *mask |= G_GUINT64_CONSTANT (1) << index;
  g_string_append_printf (how, "%sCUDA device %d (%s)", how->len ? ", " : "",
      cuda, source);
}

guint64
gpuprof_nvml_sampler_pipeline_devices (GpuprofNvmlSampler * s,
    GpuprofObjects * objects, GpuprofPipeline * pl,
    const GpuprofSnapshot * snap, gchar ** how)
{
  GString *text = g_string_new (NULL);
  GPtrArray *all;
  guint64 mask = 0;
  guint i;

  if (!opened (s)) {
    *how = g_string_free (text, FALSE);
    return 0;
  }
  for (i = 0; snap && i < snap->gpu_devices->len; i++)
    add_device (s, &mask, text, (gint) g_array_index (snap->gpu_devices,
            GpuprofGpuDeviceRow, i).device, "CUPTI");
  all = objects ? gpuprof_objects_elements (objects) : g_ptr_array_new ();
  for (i = 0; i < all->len; i++) {
    GpuprofElement *e = g_ptr_array_index (all, i);
    GstElement *el;
    const gchar *prop = NULL;
    gint dev;

    if (e->pipeline != pl || !(el = gpuprof_objects_ref_element (objects, e)))
      continue;
    dev = element_device (el, &prop);
    gst_object_unref (el);
    if (dev >= 0) {
      gchar *src = g_strdup_printf ("%s %s", e->path, prop);

      add_device (s, &mask, text, dev, src);
      g_free (src);
    }
  }
  g_ptr_array_unref (all);
  if (!mask) {
    mask = s->n_devices >= 64 ? G_MAXUINT64 :
        (G_GUINT64_CONSTANT (1) << s->n_devices) - 1;
    g_string_printf (text, "all %u device%s: which the pipeline uses is not "
        "known (no CUDA device from CUPTI or an element's property)",
        s->n_devices, s->n_devices == 1 ? "" : "s");
  }
  *how = g_string_free (text, FALSE);
  return mask;
}

/* ------------------------------------------------------------- rows */

/* "sw_power_cap 40%, gpu_idle 5%" */
static gchar *
reasons_text (const GpuprofNvmlFigures * f)
{
  GString *s = g_string_new (NULL);
  guint b;

  for (b = 0; b < REASONS; b++) {
    gchar name[64];

    if (f->reason_share[b] <= 0.0)
      continue;
    gpuprof_nvml_reasons_string (G_GUINT64_CONSTANT (1) << b, name,
        sizeof (name));
    g_string_append_printf (s, "%s%s %.0f%%", s->len ? ", " : "", name,
        f->reason_share[b] * 100.0);
  }
  return g_string_free (s, FALSE);
}

static gdouble
share_of (const GpuprofNvmlFigures * f, guint64 bits)
{
  gdouble most = 0.0;
  guint b;

  /* readings with any of @bits: at least the most common one (the bits
   * are counted each on its own) */
  for (b = 0; b < REASONS; b++)
    if (bits & (G_GUINT64_CONSTANT (1) << b))
      most = MAX (most, f->reason_share[b]);
  return most;
}

static void
fill_last (GpuprofNvmlSampler * s, guint i, GpuprofGpuResourceRow * r)
{
  GpuprofNvmlReading last;
  gchar buf[128];

  if (!gpuprof_nvml_sampler_last (s, i, &last)) {
    r->last_reasons = g_strdup ("");
    return;
  }
  r->last_sm = last.sm_pct / 100.0;
  r->last_mem = last.mem_pct / 100.0;
  r->last_dec = last.dec_pct / 100.0;
  r->last_enc = last.enc_pct / 100.0;
  r->last_mem_used = last.mem_used;
  r->last_reasons = g_strdup (have (&last, GPUPROF_NVML_REASONS) ?
      gpuprof_nvml_reasons_string (last.reasons, buf, sizeof (buf)) : "");
}

static void
fill_row (GpuprofNvmlSampler * s, guint i, const GpuprofNvmlFigures * f,
    const gchar * how, const GpuprofNvmlSamplerCost * cost,
    GpuprofGpuResourceRow * r)
{
  const GpuprofNvmlDevice *d = gpuprof_nvml_device (s->nvml, i);

  r->device = g_strdup (d->uuid);
  r->name = g_strdup_printf ("GPU %u%s%s", i, d->name[0] ? " " : "", d->name);
  r->used_by = g_strdup (how);
  r->readings = f->readings;
  r->span_ns = f->last_ns - f->first_ns;
  r->sm = f->mean[GPUPROF_NVML_ENGINE_SM];
  r->sm_peak = f->peak[GPUPROF_NVML_ENGINE_SM];
  r->sm_saturated = f->saturated[GPUPROF_NVML_ENGINE_SM];
  r->mem = f->mean[GPUPROF_NVML_ENGINE_MEM];
  r->mem_peak = f->peak[GPUPROF_NVML_ENGINE_MEM];
  r->mem_saturated = f->saturated[GPUPROF_NVML_ENGINE_MEM];
  r->dec = f->mean[GPUPROF_NVML_ENGINE_DEC];
  r->dec_peak = f->peak[GPUPROF_NVML_ENGINE_DEC];
  r->dec_saturated = f->saturated[GPUPROF_NVML_ENGINE_DEC];
  r->enc = f->mean[GPUPROF_NVML_ENGINE_ENC];
  r->enc_peak = f->peak[GPUPROF_NVML_ENGINE_ENC];
  r->enc_saturated = f->saturated[GPUPROF_NVML_ENGINE_ENC];
  r->mem_used_peak = f->mem_used_peak;
  r->mem_total = f->mem_total;
  r->clock_mhz = f->clock_mhz;
  r->clock_max_mhz = f->clock_max_mhz;
  r->throttled = f->throttled;
  r->power_capped = share_of (f, GPUPROF_NVML_REASON_SW_POWER_CAP |
      GPUPROF_NVML_REASON_HW_POWER_BRAKE);
  r->thermal = share_of (f, GPUPROF_NVML_REASON_SW_THERMAL |
      GPUPROF_NVML_REASON_HW_THERMAL);
  r->hw_slowdown = share_of (f, GPUPROF_NVML_REASON_HW_SLOWDOWN);
  r->reasons = reasons_text (f);
  r->self_known = f->process_known > 0;
  r->self_sm = MAX (f->self_share[0], 0.0);
  r->self_dec = MAX (f->self_share[1], 0.0);
  r->self_enc = MAX (f->self_share[2], 0.0);
  r->processes = f->procs_peak;
  fill_last (s, i, r);
  r->read_period_ns = (guint64) cost->effective_us * 1000;
  r->read_cpu_ns = cost->readings ? cost->cpu_ns / cost->readings : 0;
  r->read_wall_ns = cost->readings ? cost->wall_ns / cost->readings : 0;
  r->missing = g_strdup (gpuprof_nvml_missing (s->nvml));
}

void
gpuprof_nvml_sampler_fill (GpuprofNvmlSampler * s, GpuprofSnapshot * snap,
    guint64 mask, const gchar * how, guint64 t0_ns, guint64 t1_ns)
{
  GpuprofNvmlSamplerCost cost;
  guint i;

  g_array_set_size (snap->gpu_resources, 0);
  if (!opened (s))
    return;
  gpuprof_nvml_sampler_cost (s, &cost);
  for (i = 0; i < s->n_devices && i < 64; i++) {
    GpuprofNvmlFigures f;
    GpuprofGpuResourceRow r = { 0 };

    if (!(mask & (G_GUINT64_CONSTANT (1) << i))
        || !gpuprof_nvml_sampler_figures (s, i, t0_ns, t1_ns, &f))
      continue;
    fill_row (s, i, &f, how, &cost, &r);
    g_array_append_val (snap->gpu_resources, r);
  }
}
