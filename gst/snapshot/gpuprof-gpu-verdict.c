/* gpuprof: the GPU as resources in the verdict — see gpuprof-gpu-verdict.h.
 * Numbers in, candidates out: no clock, no NVML, no CUPTI call. */
#include "gpuprof-gpu-verdict.h"

#include <string.h>

const gchar *
gpuprof_gpu_bound_name (GpuprofGpuBound bound)
{
  static const gchar *const names[] = { "", "decode-bound", "encode-bound",
    "compute-bound", "copy-bound", "memory-bound", "throttled"
  };

  return bound < G_N_ELEMENTS (names) ? names[bound] : "";
}

static void
candidate_clear (gpointer data)
{
  GpuprofGpuCandidate *c = data;

  g_free (c->what);
  g_free (c->device);
  g_free (c->evidence);
  g_free (c->advice);
  g_free (c->stage);
}

/* nvh264dec, nvh265dec, nvh264device1dec, nvjpegdec, nvv4l2decoder */
static gboolean
is_codec (const gchar * factory, const gchar * suffix, const gchar * word)
{
  return factory && g_str_has_prefix (factory, "nv")
      && (g_str_has_suffix (factory, suffix) || strstr (factory, word));
}

/* How much of its thread's time a stage spends in its calls, waits on the
 * GPU included: a decoder waiting for NVDEC is occupied though its CPU
 * rests (busy may count the CPU's work alone) */
static gdouble
occupancy (const GpuprofElementRow * r)
{
  if (!r->thread_wall_ns)
    return r->busy;
  return MIN ((gdouble) (r->thread_self_ns + r->gpu_wait_ns) /
      r->thread_wall_ns, 1.0);
}

typedef struct
{
  const GpuprofElementRow *busiest;     /* of all stages */
  const GpuprofElementRow *codec;       /* the busiest decoder (encoder) */
  guint n_codecs;
} Stages;

/* the busiest stage, and the busiest of the codecs (a clock wait is no
 * work: synced sinks are not stages here) */
static Stages
busiest_stages (const GpuprofSnapshot * snap, const gchar * suffix,
    const gchar * word)
{
  Stages st = { NULL, NULL, 0 };
  guint i;

  for (i = 0; i < snap->elements->len; i++) {
    const GpuprofElementRow *r =
        &g_array_index (snap->elements, GpuprofElementRow, i);

    if (r->waits_on_clock)
      continue;
    if (!st.busiest || occupancy (r) > occupancy (st.busiest))
      st.busiest = r;
    if (is_codec (r->factory, suffix, word)) {
      st.n_codecs++;
      if (!st.codec || occupancy (r) > occupancy (st.codec))
        st.codec = r;
    }
  }
  return st;
}

static gboolean
codecs_busiest (const Stages * st)
{
  return st->codec && st->busiest && occupancy (st->codec) > 0.0
      && occupancy (st->codec) >= GPUPROF_GPU_VERDICT_BUSIEST *
      occupancy (st->busiest);
}

static GpuprofGpuCandidate *
add (GArray * out, const GpuprofGpuResourceRow * r, const gchar * engine,
    gdouble utilisation)
{
  GpuprofGpuCandidate c = { 0 };
  /* "GPU 0 NVIDIA H100 80GB HBM3" -> "GPU 0" */
  const gchar *name = r ? r->name : "GPU";
  const gchar *sp = strchr (name, ' ');
  gsize len = sp && (sp = strchr (sp + 1, ' ')) ? (gsize) (sp - name) :
      strlen (name);

  c.what = g_strdup_printf ("%.*s %s", (gint) len, name, engine);
  c.device = g_strdup (r && r->device ? r->device : "");
  c.utilisation = CLAMP (utilisation, 0.0, 1.0);
  g_array_append_val (out, c);
  return &g_array_index (out, GpuprofGpuCandidate, out->len - 1);
}

static gboolean
saturated (gdouble mean, gdouble share_saturated)
{
  return mean >= GPUPROF_GPU_VERDICT_SATURATED || share_saturated >= 0.5;
}

static gchar *
readings_text (const GpuprofGpuResourceRow * r, gdouble mean, gdouble peak,
    gdouble sat)
{
  return g_strdup_printf ("%.0f%% busy (at or above 90%% in %.0f%% of %"
      G_GUINT64_FORMAT " readings, peak %.0f%%)", mean * 100, sat * 100,
      r->readings, peak * 100);
}

/* NVDEC or NVENC: bound when saturated while its elements are the busiest
 * stages (a saturated NVDEC behind a slower stage does not limit) */
static void
codec_candidate (const GpuprofSnapshot * snap, GArray * out,
    const GpuprofGpuResourceRow * r, gboolean decode)
{
  const gchar *engine = decode ? "NVDEC" : "NVENC";
  gdouble mean = decode ? r->dec : r->enc;
  gdouble peak = decode ? r->dec_peak : r->enc_peak;
  gdouble sat = decode ? r->dec_saturated : r->enc_saturated;
  const gchar *kind = decode ? "decoder" : "encoder";
  Stages st = busiest_stages (snap, decode ? "dec" : "enc",
      decode ? "decoder" : "encoder");
  gchar *busy;
  GpuprofGpuCandidate *c;

  if (mean <= 0.0 && peak <= 0.0)
    return;
  busy = readings_text (r, mean, peak, sat);
  c = add (out, r, engine, mean);
  if (saturated (mean, sat) && codecs_busiest (&st)) {
    c->bound = decode ? GPUPROF_GPU_BOUND_DECODE : GPUPROF_GPU_BOUND_ENCODE;
    c->stage = g_strdup (st.codec->path);
    c->evidence = g_strdup_printf ("%s: %s %s while the %ss are the "
        "busiest stages (%u %s%s, %s in its calls %.0f%% of its thread's "
        "time); SMs %.0f%%", gpuprof_gpu_bound_name (c->bound), engine, busy,
        kind, st.n_codecs, kind, st.n_codecs == 1 ? "" : "s", st.codec->path,
        occupancy (st.codec) * 100, r->sm * 100);
    c->advice = decode ?
        g_strdup_printf ("fewer or smaller streams per GPU: NVDEC decodes "
        "at its limit (%u stream%s here) — lower resolution or frame rate, "
        "or spread the streams over more GPUs; batch size and inference "
        "settings do not help", st.n_codecs, st.n_codecs == 1 ? "" : "s") :
        g_strdup_printf ("fewer or smaller streams per GPU: NVENC encodes "
        "at its limit (%u encoder%s) — lower resolution, frame rate or a "
        "faster preset, or spread them over more GPUs", st.n_codecs,
        st.n_codecs == 1 ? "" : "s");
  } else {
    if (!saturated (mean, sat))
      c->evidence = g_strdup_printf ("%s %s", engine, busy);
    else if (st.codec)
      c->evidence = g_strdup_printf ("%s %s; the %ss are not the busiest "
          "stages: another stage limits first", engine, busy, kind);
    else
      c->evidence = g_strdup_printf ("%s %s; no %s of this pipeline: "
          "another process's load?", engine, busy, kind);
    c->advice = g_strdup ("");
  }
  g_free (busy);
}

const GpuprofGpuElementRow *
gpuprof_gpu_verdict_top_stage (const GpuprofSnapshot * snap, gdouble * share)
{
  const GpuprofGpuElementRow *top = NULL;
  guint64 all = 0;
  guint i;

  for (i = 0; i < snap->gpu_elements->len; i++) {
    const GpuprofGpuElementRow *e =
        &g_array_index (snap->gpu_elements, GpuprofGpuElementRow, i);

    all += e->kernel_ns;
    if (e->kernel_ns && (!e->thread || !*e->thread)
        && (!top || e->kernel_ns > top->kernel_ns))
      top = e;
  }
  if (share)
    *share = top && all ? (gdouble) top->kernel_ns / all : 0.0;
  return top;
}

/* CUPTI's busy share of the one device (no NVML); 0 when unknown */
static gdouble
cupti_busy (const GpuprofSnapshot * snap)
{
  gdouble busy = 0.0;
  guint i;

  for (i = 0; i < snap->gpu_devices->len; i++)
    busy = MAX (busy, g_array_index (snap->gpu_devices, GpuprofGpuDeviceRow,
            i).busy);
  return busy;
}

static void
compute_candidate (const GpuprofSnapshot * snap, GArray * out,
    const GpuprofGpuResourceRow * r, const gchar * ncu)
{
  gdouble share = 0.0, mean = r ? r->sm : cupti_busy (snap);
  gdouble sat = r ? r->sm_saturated : 0.0;
  const GpuprofGpuElementRow *top = gpuprof_gpu_verdict_top_stage (snap,
      &share);
  gboolean cupti = snap->gpu->len > 0;
  GpuprofGpuCandidate *c;
  gchar *who;

  if (mean <= 0.0)
    return;
  c = add (out, r, "SMs", mean);
  if (top)
    who = g_strdup_printf ("%s runs %.0f%% of the kernel time (CUPTI: %.3f "
        "ms GPU per buffer)", top->path, share * 100,
        top->ns_per_buffer / 1e6);
  else
    who = g_strdup (cupti ? "no stage's kernels were recorded" :
        "which stage's kernels: cupti=on tells");
  if (saturated (mean, sat) && (!cupti || (top
              && share >= GPUPROF_GPU_VERDICT_DOMINANT))) {
    c->bound = GPUPROF_GPU_BOUND_COMPUTE;
    c->stage = top ? g_strdup (top->path) : NULL;
    c->evidence = g_strdup_printf ("compute-bound: SMs %.0f%% busy%s; %s",
        mean * 100, r ? "" : " (CUPTI's busy time: no NVML)", who);
    c->advice = g_strdup_printf ("%s%s: larger batches use the SMs better "
        "per frame (batch-size; gst-gpuprof sweep finds the knee), lower "
        "precision (FP16/INT8), a smaller model, or fewer streams per "
        "GPU%s%s", top ? "" : "the inference stage", top ? top->path : "",
        ncu && *ncu ? "; its kernels in Nsight Compute: " : "",
        ncu && *ncu ? ncu : "");
  } else {
    c->evidence = g_strdup_printf ("SMs %.0f%% busy; %s", mean * 100, who);
    c->advice = g_strdup ("");
  }
  g_free (who);
}

static void
copy_candidate (const GpuprofSnapshot * snap, GArray * out,
    const GpuprofGpuResourceRow * r)
{
  guint64 copy = 0, kernel = 0, bytes = 0, copies = 0;
  const GpuprofGpuElementRow *most = NULL;
  GpuprofGpuCandidate *c;
  gdouble share;
  guint i;

  for (i = 0; i < snap->gpu_elements->len; i++) {
    const GpuprofGpuElementRow *e =
        &g_array_index (snap->gpu_elements, GpuprofGpuElementRow, i);

    copy += e->copy_ns;
    kernel += e->kernel_ns;
    bytes += e->copy_bytes;
    copies += e->copies;
    if (e->copy_ns && (!most || e->copy_ns > most->copy_ns))
      most = e;
  }
  if (!copy || !snap->wall_ns)
    return;
  share = (gdouble) copy / snap->wall_ns;
  c = add (out, r, "copy", share);
  c->evidence = g_strdup_printf ("%scopies %.0f%% of the wall (%.3f ms, %"
      G_GUINT64_FORMAT " copies, %.1f MiB) against %.3f ms of kernels; most "
      "by %s (%.3f ms)", share >= GPUPROF_GPU_VERDICT_COPY_SHARE
      && copy > kernel ? "copy-bound: " : "", share * 100, copy / 1e6, copies,
      bytes / 1048576.0, kernel / 1e6, most->path, most->copy_ns / 1e6);
  if (share >= GPUPROF_GPU_VERDICT_COPY_SHARE && copy > kernel) {
    c->bound = GPUPROF_GPU_BOUND_COPY;
    c->stage = g_strdup (most->path);
    c->advice = g_strdup_printf ("fewer copies: keep frames in GPU memory "
        "between elements (memory:CUDAMemory / memory:NVMM caps) and copy "
        "once; where a copy stays, pinned (page-locked) host memory for "
        "it: %s copies most", most->path);
  } else {
    c->advice = g_strdup ("");
  }
}

static void
memory_candidate (GArray * out, const GpuprofGpuResourceRow * r)
{
  GpuprofGpuCandidate *c;
  gchar *busy;

  if (r->mem <= 0.0)
    return;
  busy = readings_text (r, r->mem, r->mem_peak, r->mem_saturated);
  c = add (out, r, "memory", r->mem);
  if (saturated (r->mem, r->mem_saturated)) {
    c->bound = GPUPROF_GPU_BOUND_MEMORY;
    c->evidence = g_strdup_printf ("memory-bound: device memory %s, SMs "
        "%.0f%%", busy, r->sm * 100);
    c->advice = g_strdup ("fewer bytes per frame: smaller frames or "
        "formats (NV12 over RGBA), FP16 tensors, fewer conversions");
  } else {
    c->evidence = g_strdup_printf ("device memory %s", busy);
    c->advice = g_strdup ("");
  }
  g_free (busy);
}

/* the main reason family of a throttled GPU and what to do */
static const gchar *
throttle_advice (const GpuprofGpuResourceRow * r)
{
  if (r->thermal >= r->power_capped && r->thermal > 0.0)
    return "heat: the GPU slows down to cool — check its cooling and "
        "airflow (nvidia-smi -q -d TEMPERATURE,PERFORMANCE)";
  if (r->power_capped > 0.0)
    return "power: the board's power limit holds the clocks down — raise "
        "it where allowed (nvidia-smi -pl) or lower the load per GPU";
  return "a hardware slowdown (power brake or heat): check the power "
      "supply and cooling (nvidia-smi -q -d PERFORMANCE)";
}

/* "sw_thermal, hw_slowdown": the throttle reasons of "hw_slowdown 100%,
 * sw_thermal 100%, gpu_idle 3%" */
static gchar *
throttle_names (const gchar * reasons)
{
  static const gchar *const throttle[] = { "sw_power_cap", "hw_slowdown",
    "sw_thermal", "hw_thermal", "hw_power_brake"
  };
  gchar **parts = g_strsplit (reasons ? reasons : "", ", ", -1);
  GString *s = g_string_new (NULL);
  guint i, k;

  for (i = 0; parts[i]; i++) {
    gchar *sp = strchr (parts[i], ' ');

    if (sp)
      *sp = '\0';
    for (k = 0; k < G_N_ELEMENTS (throttle); k++)
      if (!strcmp (parts[i], throttle[k]))
        g_string_append_printf (s, "%s%s", s->len ? ", " : "", parts[i]);
  }
  g_strfreev (parts);
  return g_string_free (s, FALSE);
}

static void
clock_candidate (GArray * out, const GpuprofGpuResourceRow * r)
{
  gdouble busy = MAX (MAX (r->sm, r->dec), r->enc);
  GpuprofGpuCandidate *c;
  gchar *engine, *names;

  if (r->throttled <= 0.0 || busy < GPUPROF_GPU_VERDICT_BUSY)
    return;
  names = throttle_names (r->reasons);
  engine = g_strdup_printf ("clocks (throttled: %s)", names);
  g_free (names);
  c = add (out, r, engine, r->throttled);
  g_free (engine);
  c->evidence = g_strdup_printf ("%sSM clock %.0f of %" G_GUINT64_FORMAT
      " MHz (%.0f%%), held down in %.0f%% of the readings while the GPU "
      "works (busiest engine %.0f%%): %s", r->throttled >=
      GPUPROF_GPU_VERDICT_THROTTLED ? "throttled: " : "", r->clock_mhz,
      r->clock_max_mhz, r->clock_max_mhz ? 100.0 * r->clock_mhz /
      r->clock_max_mhz : 0.0, r->throttled * 100, busy * 100, r->reasons);
  if (r->throttled >= GPUPROF_GPU_VERDICT_THROTTLED) {
    c->bound = GPUPROF_GPU_BOUND_THROTTLED;
    c->advice = g_strdup (throttle_advice (r));
  } else {
    c->advice = g_strdup ("");
  }
}

static gint
by_utilisation (gconstpointer a, gconstpointer b)
{
  const GpuprofGpuCandidate *x = a, *y = b;

  if (x->utilisation != y->utilisation)
    return x->utilisation < y->utilisation ? 1 : -1;
  return g_strcmp0 (x->what, y->what);
}

GArray *
gpuprof_gpu_verdict_candidates (const GpuprofSnapshot * snap)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (GpuprofGpuCandidate));
  const gchar *ncu = snap->gpu->len ? g_array_index (snap->gpu, GpuprofGpuRow,
      0).ncu : NULL;
  guint i, n = snap->gpu_resources ? snap->gpu_resources->len : 0;

  g_array_set_clear_func (out, candidate_clear);
  for (i = 0; i < n; i++) {
    const GpuprofGpuResourceRow *r = &g_array_index (snap->gpu_resources,
        GpuprofGpuResourceRow, i);

    codec_candidate (snap, out, r, TRUE);
    codec_candidate (snap, out, r, FALSE);
    compute_candidate (snap, out, r, ncu);
    memory_candidate (out, r);
    clock_candidate (out, r);
  }
  /* CUPTI without NVML: the SMs from its busy time */
  if (!n && snap->gpu->len)
    compute_candidate (snap, out, NULL, ncu);
  /* copies are CUPTI's: one engine set for the pipeline's (first) GPU */
  copy_candidate (snap, out, n ? &g_array_index (snap->gpu_resources,
          GpuprofGpuResourceRow, 0) : NULL);
  g_array_sort (out, by_utilisation);
  return out;
}

const GpuprofGpuCandidate *
gpuprof_gpu_verdict_bound (GArray * candidates)
{
  guint i;

  for (i = 0; candidates && i < candidates->len; i++) {
    const GpuprofGpuCandidate *c = &g_array_index (candidates,
        GpuprofGpuCandidate, i);

    if (c->bound != GPUPROF_GPU_BOUND_NONE)
      return c;
  }
  return NULL;
}

/* ---------------------------------------------------------------- ncu */

#define NCU_KERNELS 3

static void
append_regex_escaped (GString * s, const gchar * name)
{
  for (; *name; name++) {
    if (strchr ("\\^$.|?*+()[]{}", *name))
      g_string_append_c (s, '\\');
    g_string_append_c (s, *name);
  }
}

/* @word as a shell reads it back: quoted only when it must be */
static void
append_shell_word (GString * s, const gchar * word)
{
  gchar *q;

  if (*word && strspn (word, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrs"
          "tuvwxyz0123456789_./:=,+-@%") == strlen (word)) {
    g_string_append (s, word);
    return;
  }
  q = g_shell_quote (word);
  g_string_append (s, q);
  g_free (q);
}

gchar *
gpuprof_gpu_ncu_command (const GpuprofSnapshot * snap, const gchar * stage,
    const gchar * window, const gchar * const *argv)
{
  GString *re = g_string_new ("regex:^(");
  GString *cmd;
  guint64 launches = 0, skip;
  guint i, n = 0;
  gchar *q;

  for (i = 0; stage && i < snap->gpu_kernels->len && n < NCU_KERNELS; i++) {
    const GpuprofGpuKernelRow *k =
        &g_array_index (snap->gpu_kernels, GpuprofGpuKernelRow, i);

    if (g_strcmp0 (k->element, stage) || !k->name)
      continue;
    if (n++)
      g_string_append_c (re, '|');
    append_regex_escaped (re, k->name);
    launches += k->calls;
  }
  if (!n) {
    g_string_free (re, TRUE);
    return NULL;
  }
  g_string_append (re, ")$");
  /* past the first tenth of the launches: start-up left out (inside the
   * window, whose start-up is already behind) */
  skip = window ? MIN (launches / 10, 20) : MIN (launches / 10, 100);
  cmd = g_string_new (NULL);
  if (window)
    g_string_append_printf (cmd, "GST_TRACERS='gpuprof(window=%s)' ",
        window);
  g_string_append (cmd, "ncu ");
  if (window)
    g_string_append (cmd, "--profile-from-start off ");
  q = g_shell_quote (re->str);
  g_string_append_printf (cmd, "--kernel-name-base mangled --kernel-name %s "
      "--launch-skip %" G_GUINT64_FORMAT " --launch-count %u --set full -o "
      "gpuprof-kernels", q, skip, n);
  g_free (q);
  for (i = 0; argv && argv[i]; i++) {
    g_string_append_c (cmd, ' ');
    append_shell_word (cmd, argv[i]);
  }
  if (!argv || !argv[0])
    g_string_append (cmd, " <your command>");
  g_string_free (re, TRUE);
  return g_string_free (cmd, FALSE);
}

/* ---------------------------------------------------- resources rows */

static void
add_resource (GpuprofSnapshot * snap, const gchar * kind,
    const GpuprofGpuResourceRow * r, gdouble utilisation, gdouble peak,
    gdouble sat, guint64 samples, gchar * detail)
{
  GpuprofResourceRow *row = gpuprof_summary_add_row (snap,
      GPUPROF_SUMMARY_RESOURCES);

  row->kind = g_strdup (kind);
  row->name = g_strdup (r ? r->name : "GPU");
  row->device = g_strdup (r && r->device ? r->device : "");
  row->utilisation = utilisation;
  row->peak = peak;
  row->saturated = sat;
  row->samples = samples;
  row->detail = detail;
}

static void
engine_resources (GpuprofSnapshot * snap, const GpuprofGpuResourceRow * r)
{
  gchar *ours = r->self_known ? g_strdup_printf ("this process %.0f%% of "
      "it", r->self_sm * 100) : g_strdup ("this process's share unknown");

  add_resource (snap, "gpu-sm", r, r->sm, r->sm_peak, r->sm_saturated,
      r->readings, g_strdup_printf ("SMs %.0f%% busy (NVML), %s",
          r->sm * 100, ours));
  g_free (ours);
  add_resource (snap, "gpu-nvdec", r, r->dec, r->dec_peak, r->dec_saturated,
      r->readings, g_strdup_printf ("NVDEC %.0f%% busy, at or above 90%% in "
          "%.0f%% of the readings", r->dec * 100, r->dec_saturated * 100));
  add_resource (snap, "gpu-nvenc", r, r->enc, r->enc_peak, r->enc_saturated,
      r->readings, g_strdup_printf ("NVENC %.0f%% busy", r->enc * 100));
  add_resource (snap, "gpu-memory", r, r->mem, r->mem_peak,
      r->mem_saturated, r->readings, g_strdup_printf ("memory bandwidth "
          "%.0f%% busy; %.0f of %.0f MiB used at most", r->mem * 100,
          r->mem_used_peak / 1048576.0, r->mem_total / 1048576.0));
  /* the clock: how far below its maximum it ran; saturated = held down */
  add_resource (snap, "gpu-clock", r, r->clock_max_mhz ? r->clock_mhz /
      r->clock_max_mhz : 0.0, r->clock_max_mhz ? r->clock_mhz /
      r->clock_max_mhz : 0.0, r->throttled, r->readings,
      r->throttled > 0.0 ? g_strdup_printf ("throttled: %s", r->reasons) :
      g_strdup_printf ("SM clock %.0f of %" G_GUINT64_FORMAT " MHz, not "
          "held down", r->clock_mhz, r->clock_max_mhz));
}

void
gpuprof_gpu_verdict_fill_resources (GpuprofSnapshot * snap)
{
  const GpuprofGpuResourceRow *first = NULL;
  guint64 copy = 0, copies = 0;
  guint i;

  /* the gpu-* rows go, the CPUs' stay */
  for (i = snap->resources->len; i > 0; i--) {
    const GpuprofResourceRow *row = &g_array_index (snap->resources,
        GpuprofResourceRow, i - 1);

    if (g_str_has_prefix (row->kind, "gpu-"))
      g_array_remove_index (snap->resources, i - 1);
  }
  for (i = 0; i < snap->gpu_resources->len; i++) {
    const GpuprofGpuResourceRow *r = &g_array_index (snap->gpu_resources,
        GpuprofGpuResourceRow, i);

    first = first ? first : r;
    engine_resources (snap, r);
  }
  for (i = 0; i < snap->gpu_elements->len; i++) {
    copy += g_array_index (snap->gpu_elements, GpuprofGpuElementRow,
        i).copy_ns;
    copies += g_array_index (snap->gpu_elements, GpuprofGpuElementRow,
        i).copies;
  }
  if (copy && snap->wall_ns) {
    gdouble share = MIN ((gdouble) copy / snap->wall_ns, 1.0);

    add_resource (snap, "gpu-copy", first, share, share,
        share >= GPUPROF_GPU_VERDICT_COPY_SHARE ? 1.0 : 0.0, copies,
        g_strdup_printf ("copies %.0f%% of the wall (CUPTI: %.3f ms in %"
            G_GUINT64_FORMAT " copies)", share * 100, copy / 1e6, copies));
  }
}
