/* gpuprof-nvml-check: what gpuprof's NVML loader reads, printed for a
 * person to compare with `nvidia-smi dmon -s uc` run beside it on a GPU
 * host (docs/resources.md, "Checking on a GPU host"). Not a test: the test
 * gpu-nvml-check runs it on the fake libnvidia-ml so it keeps working.
 *
 *   gpuprof-nvml-check [--count N] [--period-ms MS] [--pcie]
 *                      [--library PATH] [--cuda-device N]
 *
 * One line per device and reading, columns in dmon's order (sm mem enc
 * dec, then the SM clock), then what dmon lacks: the SM clock's maximum,
 * the clock event reasons, PCIe (with --pcie: 40 ms a device), the
 * processes NVML sampled since the previous reading, their samples, this
 * process's samples and its share of the SM and NVDEC time, and how long
 * the reading took. "-" is unknown; why is
 * said once per device and field. Exit status 0 when NVML opened, 1 when
 * not (its one line on stderr), 2 on bad arguments. */
#include <glib.h>
#include <stdlib.h>

#include "gpuprof-nvml.h"

static gint count = 10, period_ms = 1000, cuda_device = -1;
static gboolean pcie;
static gchar *library;

static GOptionEntry entries[] = {
  {"count", 'c', 0, G_OPTION_ARG_INT, &count, "readings (default 10)", "N"},
  {"period-ms", 'd', 0, G_OPTION_ARG_INT, &period_ms,
      "between readings (default 1000, as nvidia-smi dmon)", "MS"},
  {"pcie", 0, 0, G_OPTION_ARG_NONE, &pcie,
      "also PCIe throughput (each reading waits 2 x 20 ms a device)", NULL},
  {"library", 'l', 0, G_OPTION_ARG_FILENAME, &library,
      "NVML library (default $GPUPROF_NVML_LIBRARY, else libnvidia-ml.so.1)",
      "PATH"},
  {"cuda-device", 0, 0, G_OPTION_ARG_INT, &cuda_device,
      "print the NVML device of this CUDA ordinal (CUDA_VISIBLE_DEVICES "
        "applied)", "N"},
  {NULL}
};

static gboolean
known (const GpuprofNvmlReading * r, GpuprofNvmlField f)
{
  return (r->have & GPUPROF_NVML_BIT (f)) != 0;
}

/* "%5u" of @v, or "-" in its width when @f is unknown */
static void
column (GString * line, const GpuprofNvmlReading * r, GpuprofNvmlField f,
    gint width, guint64 v)
{
  if (known (r, f))
    g_string_append_printf (line, " %*" G_GUINT64_FORMAT, width, v);
  else
    g_string_append_printf (line, " %*s", width, "-");
}

/* this process's share of what all processes used, %; "-" when unknown
 * or nobody used it */
static void
share (GString * line, const GpuprofNvmlReading * r, gint width,
    guint64 self, guint64 all)
{
  if (known (r, GPUPROF_NVML_PROCESS) && all)
    g_string_append_printf (line, " %*.0f", width, 100.0 * self / all);
  else
    g_string_append_printf (line, " %*s", width, "-");
}

static void
print_header (void)
{
  g_print ("# %7s %3s %4s %4s %4s %4s %6s %6s %8s %9s %24s %8s %8s %5s "
      "%7s %4s %7s %8s %8s\n", "time_s", "gpu", "sm", "mem", "enc", "dec",
      "sm_MHz", "max", "used_MiB", "total_MiB", "reasons", "rx_KB/s",
      "tx_KB/s", "procs", "samples", "self", "self_sm%", "self_dec%",
      "read_us");
}

static void
print_reading (guint i, gdouble t, const GpuprofNvmlReading * r,
    gdouble read_us)
{
  GString *line = g_string_new (NULL);
  gchar reasons[256];

  g_string_append_printf (line, "  %7.2f %3u", t, i);
  column (line, r, GPUPROF_NVML_UTIL, 4, r->sm_pct);
  column (line, r, GPUPROF_NVML_UTIL, 4, r->mem_pct);
  column (line, r, GPUPROF_NVML_ENCODER, 4, r->enc_pct);
  column (line, r, GPUPROF_NVML_DECODER, 4, r->dec_pct);
  column (line, r, GPUPROF_NVML_CLOCKS, 6, r->sm_mhz);
  column (line, r, GPUPROF_NVML_CLOCKS, 6, r->sm_max_mhz);
  column (line, r, GPUPROF_NVML_MEMORY, 8, r->mem_used >> 20);
  column (line, r, GPUPROF_NVML_MEMORY, 9, r->mem_total >> 20);
  g_string_append_printf (line, " %24s", known (r, GPUPROF_NVML_REASONS) ?
      gpuprof_nvml_reasons_string (r->reasons, reasons, sizeof (reasons)) :
      "-");
  column (line, r, GPUPROF_NVML_PCIE, 8, r->pcie_rx_kbs);
  column (line, r, GPUPROF_NVML_PCIE, 8, r->pcie_tx_kbs);
  column (line, r, GPUPROF_NVML_PROCESS, 5, r->procs);
  column (line, r, GPUPROF_NVML_PROCESS, 7, r->all.samples);
  column (line, r, GPUPROF_NVML_PROCESS, 4, r->self.samples);
  share (line, r, 8, r->self.sm, r->all.sm);
  share (line, r, 9, r->self.dec, r->all.dec);
  g_string_append_printf (line, " %8.0f", read_us);
  g_print ("%s\n", line->str);
  g_string_free (line, TRUE);
}

/* each unknown field's reason, once per device */
static void
print_unknowns (GpuprofNvml * nvml, guint i, const GpuprofNvmlReading * r,
    guint fields, guint * said)
{
  guint f;

  for (f = 0; f < GPUPROF_NVML_N_FIELDS; f++) {
    if (!(fields & GPUPROF_NVML_BIT (f)) || known (r, f)
        || (*said & GPUPROF_NVML_BIT (f)))
      continue;
    *said |= GPUPROF_NVML_BIT (f);
    g_print ("# gpu %u: %s unknown: %s (%d)\n", i, gpuprof_nvml_field_name (f),
        gpuprof_nvml_status_string (nvml, r->status[f]), r->status[f]);
  }
}

int
main (int argc, char **argv)
{
  GOptionContext *ctx = g_option_context_new ("- print what gpuprof reads "
      "from NVML");
  GError *error = NULL;
  GpuprofNvml *nvml;
  gchar *reason = NULL;
  guint fields, n, i, *said;
  gint k;
  gint64 start;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || count < 1
      || period_ms < 0) {
    g_printerr ("gpuprof-nvml-check: %s\n", error ? error->message :
        "--count must be 1 or more, --period-ms 0 or more");
    return 2;
  }
  g_option_context_free (ctx);

  if (!(nvml = gpuprof_nvml_open (library, &reason))) {
    g_printerr ("%s\n", reason);
    g_free (reason);
    return 1;
  }
  n = gpuprof_nvml_device_count (nvml);
  g_print ("# NVML: %s, %u device(s); optional calls missing: %s\n",
      gpuprof_nvml_library (nvml), n, *gpuprof_nvml_missing (nvml) ?
      gpuprof_nvml_missing (nvml) : "none");
  for (i = 0; i < n; i++) {
    const GpuprofNvmlDevice *d = gpuprof_nvml_device (nvml, i);

    if (d->usable)
      g_print ("# gpu %u: %s, %s, PCI %s\n", i, d->name[0] ? d->name : "?",
          d->uuid[0] ? d->uuid : "?", d->pci_bus_id[0] ? d->pci_bus_id : "?");
    else
      g_print ("# gpu %u: not usable: %s (%d)\n", i,
          gpuprof_nvml_status_string (nvml, d->status), d->status);
  }
  if (cuda_device >= 0) {
    const gchar *vis = g_getenv ("CUDA_VISIBLE_DEVICES");
    const gchar *order = g_getenv ("CUDA_DEVICE_ORDER");

    g_print ("# CUDA device %d (CUDA_VISIBLE_DEVICES=%s, CUDA_DEVICE_ORDER=%s)"
        " is NVML device %d (-1: cannot tell)\n", cuda_device,
        vis ? vis : "(unset)", order ? order : "(unset)",
        gpuprof_nvml_find_cuda_ordinal (nvml, (guint) cuda_device));
  }

  fields = GPUPROF_NVML_DEFAULT_FIELDS;
  if (pcie)
    fields |= GPUPROF_NVML_BIT (GPUPROF_NVML_PCIE);
  said = g_new0 (guint, n);
  print_header ();
  start = g_get_monotonic_time ();
  for (k = 0; k < count; k++) {
    for (i = 0; i < n; i++) {
      GpuprofNvmlReading r;
      gint64 t0 = g_get_monotonic_time ();

      if (!gpuprof_nvml_read (nvml, i, fields, &r))
        continue;
      print_reading (i, (t0 - start) / 1e6, &r,
          (gdouble) (g_get_monotonic_time () - t0));
      print_unknowns (nvml, i, &r, fields, &said[i]);
    }
    if (k + 1 < count)
      g_usleep ((gulong) period_ms * 1000);
  }
  g_free (said);
  gpuprof_nvml_close (nvml);
  g_free (library);
  return 0;
}
