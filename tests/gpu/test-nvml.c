/* The NVML loader and reader (gst/gpu/gpuprof-nvml.c) on the fake
 * libnvidia-ml (tests/gpu/fake-nvml.c): each scripted scenario read back
 * (idle, decode-bound, compute-bound, throttled with its reason, other
 * processes on the GPU, a call the GPU does not support), the script's
 * time line, an older driver's missing calls survived, a missing required
 * call, a failing nvmlInit and an absent library each said in one line,
 * the calls one reading makes, and which NVML device a CUDA device is. */
#include <glib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "gpuprof-nvml.h"
#include "gpuprof-test-nvml.h"

#define FAKE GPUPROF_TEST_NVML_FAKE
#define ALL_FIELDS (GPUPROF_NVML_BIT (GPUPROF_NVML_N_FIELDS) - 1)
#define PERIOD_MS 100           /* the fake's process sampling period */

/* a script's figures from now on, and at least one process sampling
 * period of them ended */
static void
script (const gchar * text)
{
  gpuprof_test_fake_nvml_script (FAKE, text);
  g_usleep ((PERIOD_MS + 30) * 1000);
}

/* @sums are @n samples of @sm, @dec each */
static void
assert_samples (const GpuprofNvmlProcessSums * sums, guint n, guint sm,
    guint dec)
{
  g_assert_cmpuint (sums->samples, ==, n);
  g_assert_cmpuint (sums->sm, ==, (guint64) sm * n);
  g_assert_cmpuint (sums->dec, ==, (guint64) dec * n);
}

static GpuprofNvml *
open_fake (GpuprofTestNvmlKind kind)
{
  gchar *reason = NULL;
  GpuprofNvml *nvml = gpuprof_nvml_open (gpuprof_test_fake_nvml_path (kind),
      &reason);

  if (!nvml)
    g_error ("the fake NVML did not open: %s", reason);
  g_assert_null (reason);
  return nvml;
}

static GpuprofNvmlReading
read_all (GpuprofNvml * nvml, guint device)
{
  GpuprofNvmlReading r;

  g_assert_true (gpuprof_nvml_read (nvml, device, ALL_FIELDS, &r));
  return r;
}

static void
assert_have (const GpuprofNvmlReading * r, guint fields)
{
  guint f;

  for (f = 0; f < GPUPROF_NVML_N_FIELDS; f++) {
    if (fields & GPUPROF_NVML_BIT (f)) {
      if (!(r->have & GPUPROF_NVML_BIT (f)))
        g_error ("%s unknown (status %d)", gpuprof_nvml_field_name (f),
            r->status[f]);
      g_assert_cmpint (r->status[f], ==, 0);
    }
  }
}

/* ---- one line when NVML cannot be used ---- */

static void
assert_one_line (const gchar * reason, const gchar * start)
{
  g_test_message ("%s", reason);
  g_assert_true (g_str_has_prefix (reason, start));
  g_assert_null (strchr (reason, '\n'));
}

static void
test_absent_library (void)
{
  gchar *reason = NULL;

  g_setenv ("GPUPROF_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", TRUE);
  g_assert_null (gpuprof_nvml_open (NULL, &reason));
  assert_one_line (reason, "NVML off: /nonexistent/libnvidia-ml.so.1 not "
      "loadable (");
  g_free (reason);
  /* the caller's path wins over the environment */
  g_assert_null (gpuprof_nvml_open ("/nowhere/libnvidia-ml.so.1", &reason));
  assert_one_line (reason, "NVML off: /nowhere/libnvidia-ml.so.1 not");
  g_free (reason);
  g_unsetenv ("GPUPROF_NVML_LIBRARY");
  /* a NULL reason is fine too */
  g_assert_null (gpuprof_nvml_open ("/nowhere/libnvidia-ml.so.1", NULL));
}

static void
test_init_failure (void)
{
  gchar *reason = NULL;
  GpuprofNvml *nvml;

  g_setenv ("FAKE_NVML_INIT_RESULT", "9", TRUE);
  g_assert_null (gpuprof_nvml_open (gpuprof_test_fake_nvml_path (FAKE),
          &reason));
  assert_one_line (reason, "NVML off: nvmlInit_v2 failed: Driver Not Loaded "
      "(NVML error 9)");
  g_free (reason);
  g_unsetenv ("FAKE_NVML_INIT_RESULT");
  nvml = open_fake (FAKE);
  gpuprof_nvml_close (nvml);
  /* nothing was called while NVML was not initialised */
  g_assert_cmpuint (gpuprof_test_fake_nvml_calls (FAKE, "uninitialized"), ==,
      0);
}

static void
test_missing_required (void)
{
  const gchar *path = gpuprof_test_fake_nvml_path (GPUPROF_TEST_NVML_BROKEN);
  gchar *reason = NULL, *expected;

  g_assert_null (gpuprof_nvml_open (path, &reason));
  expected = g_strdup_printf ("NVML off: %s has no "
      "nvmlDeviceGetUtilizationRates (driver too old?)", path);
  assert_one_line (reason, expected);
  g_assert_cmpstr (reason, ==, expected);
  g_free (expected);
  g_free (reason);
}

/* an older driver: no process utilisation, no PCIe, the reasons under
 * their former name; what it has is read, the rest is unknown */
static void
test_old_driver (void)
{
  const GpuprofTestNvmlKind old = GPUPROF_TEST_NVML_OLD;
  GpuprofNvml *nvml = open_fake (old);
  GpuprofNvmlReading r;

  g_assert_cmpstr (gpuprof_nvml_missing (nvml), ==,
      "nvmlDeviceGetPcieThroughput, nvmlDeviceGetProcessUtilization");
  gpuprof_test_fake_nvml_script (old, "0:throttled,reasons=sw_power_cap");
  r = read_all (nvml, 0);
  assert_have (&r, ALL_FIELDS & ~GPUPROF_NVML_BIT (GPUPROF_NVML_PCIE)
      & ~GPUPROF_NVML_BIT (GPUPROF_NVML_PROCESS));
  g_assert_cmpint (r.status[GPUPROF_NVML_PCIE], ==, GPUPROF_NVML_NO_SYMBOL);
  g_assert_cmpint (r.status[GPUPROF_NVML_PROCESS], ==, GPUPROF_NVML_NO_SYMBOL);
  g_assert_cmpuint (r.reasons, ==, GPUPROF_NVML_REASON_SW_POWER_CAP);
  g_assert_cmpuint (gpuprof_test_fake_nvml_calls (old,
          "nvmlDeviceGetCurrentClocksThrottleReasons"), ==, 1);
  g_assert_cmpuint (r.sm_mhz, ==, 1095);
  gpuprof_nvml_close (nvml);
}

/* ---- scenarios ---- */

static void
test_scenarios (void)
{
  GpuprofNvml *nvml = open_fake (FAKE);
  const GpuprofNvmlDevice *d = gpuprof_nvml_device (nvml, 0);
  GpuprofNvmlReading r;
  gchar reasons[128];

  g_assert_cmpuint (gpuprof_nvml_device_count (nvml), ==, 1);
  g_assert_cmpstr (gpuprof_nvml_missing (nvml), ==, "");
  g_assert_true (d->usable);
  g_assert_cmpstr (d->name, ==, "Fake GPU");
  g_assert_cmpstr (d->pci_bus_id, ==, "00000000:19:00.0");
  g_assert_true (g_str_has_prefix (d->uuid, "GPU-"));

  script ("0:decode-bound,rx=1200,tx=300");
  r = read_all (nvml, 0);
  assert_have (&r, ALL_FIELDS);
  g_assert_cmpuint (r.dec_pct, ==, 97);
  g_assert_cmpuint (r.dec_period_us, ==, 167000);
  g_assert_cmpuint (r.sm_pct, ==, 14);
  g_assert_cmpuint (r.mem_pct, ==, 9);
  g_assert_cmpuint (r.enc_pct, ==, 0);
  g_assert_cmpuint (r.sm_mhz, ==, 1980);
  g_assert_cmpuint (r.sm_max_mhz, ==, 1980);
  g_assert_cmpuint (r.reasons, ==, 0);
  g_assert_cmpuint (r.mem_total, ==, G_GUINT64_CONSTANT (81559) << 20);
  g_assert_cmpuint (r.mem_used, ==, G_GUINT64_CONSTANT (500) << 20);
  g_assert_cmpuint (r.pcie_rx_kbs, ==, 1200);
  g_assert_cmpuint (r.pcie_tx_kbs, ==, 300);
  /* the only process on the GPU: its samples are all there are, with the
   * device's figures, one per period ended since the script started */
  g_assert_cmpuint (r.procs, ==, 1);
  g_assert_cmpuint (r.self.samples, >=, 1);
  assert_samples (&r.self, r.self.samples, 14, 97);
  assert_samples (&r.all, r.self.samples, 14, 97);
  g_assert_cmpuint (r.ts_ns, >, 0);

  script ("0:compute-bound");
  r = read_all (nvml, 0);
  g_assert_cmpuint (r.sm_pct, ==, 99);
  g_assert_cmpuint (r.dec_pct, ==, 3);
  g_assert_cmpuint (r.reasons & GPUPROF_NVML_REASONS_THROTTLE, ==, 0);

  script ("0:throttled");
  r = read_all (nvml, 0);
  g_assert_cmpuint (r.sm_mhz, ==, 1095);
  g_assert_cmpuint (r.sm_max_mhz, ==, 1980);
  g_assert_cmpuint (r.reasons & GPUPROF_NVML_REASONS_THROTTLE, !=, 0);
  g_assert_cmpstr (gpuprof_nvml_reasons_string (r.reasons, reasons,
          sizeof (reasons)), ==, "hw_slowdown,sw_thermal");

  /* idle: no process has samples (NVML says NOT_FOUND): known, none */
  script ("0:idle");
  r = read_all (nvml, 0);
  assert_have (&r, ALL_FIELDS);
  g_assert_cmpuint (r.sm_pct, ==, 0);
  g_assert_cmpuint (r.reasons, ==, GPUPROF_NVML_REASON_GPU_IDLE);
  g_assert_cmpuint (r.procs, ==, 0);
  assert_samples (&r.all, 0, 0, 0);

  /* two pipelines on one GPU, ours and another: a sample each per
   * period; our share of the SM time 30 of 80 */
  script ("0:sm=80,psm=30,other=50");
  r = read_all (nvml, 0);
  g_assert_cmpuint (r.sm_pct, ==, 80);
  g_assert_cmpuint (r.procs, ==, 2);
  g_assert_cmpuint (r.self.samples, >=, 1);
  assert_samples (&r.self, r.self.samples, 30, 0);
  assert_samples (&r.all, 2 * r.self.samples, 40, 0);

  /* a GPU without NVDEC figures (MIG, some models): that field unknown */
  script ("0:decode-bound,unsupported=dec+pcie");
  r = read_all (nvml, 0);
  g_assert_cmpint (r.status[GPUPROF_NVML_DECODER], ==, 3);
  g_assert_cmpint (r.status[GPUPROF_NVML_PCIE], ==, 3);
  g_assert_false (r.have & GPUPROF_NVML_BIT (GPUPROF_NVML_DECODER));
  assert_have (&r, ALL_FIELDS & ~GPUPROF_NVML_BIT (GPUPROF_NVML_DECODER)
      & ~GPUPROF_NVML_BIT (GPUPROF_NVML_PCIE));

  /* fields not asked for are not read */
  g_assert_true (gpuprof_nvml_read (nvml, 0,
          GPUPROF_NVML_BIT (GPUPROF_NVML_UTIL), &r));
  g_assert_cmpuint (r.have, ==, GPUPROF_NVML_BIT (GPUPROF_NVML_UTIL));
  g_assert_cmpint (r.status[GPUPROF_NVML_CLOCKS], ==, GPUPROF_NVML_NOT_ASKED);
  /* no such device */
  g_assert_false (gpuprof_nvml_read (nvml, 1, ALL_FIELDS, &r));
  g_assert_cmpuint (r.have, ==, 0);
  gpuprof_nvml_close (nvml);
}

/* more processes on the GPU than the first sample buffer holds */
static void
test_many_processes (void)
{
  GpuprofNvml *nvml = open_fake (FAKE);
  GpuprofNvmlReading r;

  script ("0:sm=90,psm=5,other=1,others=200");
  r = read_all (nvml, 0);
  g_assert_cmpuint (r.procs, ==, 201);
  g_assert_cmpuint (r.self.samples, >=, 1);
  assert_samples (&r.self, r.self.samples, 5, 0);
  g_assert_cmpuint (r.all.samples, ==, 201 * r.self.samples);
  g_assert_cmpuint (r.all.sm, ==, 205 * r.self.samples);
  gpuprof_nvml_close (nvml);
}

/* a reading has the samples since the previous one, never one twice */
static void
test_process_samples_once (void)
{
  GpuprofNvml *nvml = open_fake (FAKE);
  GpuprofNvmlReading r1, r2;

  gpuprof_test_fake_nvml_script (FAKE, "0:decode-bound");
  g_usleep ((5 * PERIOD_MS + 30) * 1000);
  r1 = read_all (nvml, 0);
  r2 = read_all (nvml, 0);
  g_test_message ("samples: %u, then %u", r1.self.samples, r2.self.samples);
  g_assert_cmpuint (r1.self.samples, >=, 5);
  g_assert_cmpuint (r1.procs, ==, 1);   /* one process, many samples */
  /* the periods ended between two reads in a row: one at most, unless
   * this thread stalled for four periods */
  g_assert_cmpuint (r2.self.samples, <, r1.self.samples);
  gpuprof_nvml_close (nvml);
}

/* the script's time line: phases start at their time */
static void
test_timeline (void)
{
  GpuprofNvml *nvml = open_fake (FAKE);
  GpuprofNvmlReading r;
  gint64 start = g_get_monotonic_time ();

  gpuprof_test_fake_nvml_script (FAKE, "300:decode-bound;0:idle;"
      "600:compute-bound");
  r = read_all (nvml, 0);
  if (g_get_monotonic_time () - start < 250 * 1000)
    g_assert_cmpuint (r.dec_pct, ==, 0);
  g_usleep (350 * 1000);
  r = read_all (nvml, 0);
  if (g_get_monotonic_time () - start < 550 * 1000)
    g_assert_cmpuint (r.dec_pct, ==, 97);
  while (g_get_monotonic_time () - start < 650 * 1000)
    g_usleep (20 * 1000);
  r = read_all (nvml, 0);
  g_assert_cmpuint (r.sm_pct, ==, 99);
  g_assert_cmpuint (r.dec_pct, ==, 3);
  gpuprof_nvml_close (nvml);
}

/* what one reading costs in NVML calls, all on the reading thread */
static void
test_calls_per_reading (void)
{
  GpuprofNvml *nvml = open_fake (FAKE);
  GpuprofNvmlReading r;
  gint tids[4];
  gulong calls[4];

  gpuprof_test_fake_nvml_script (FAKE, "0:decode-bound");
  gpuprof_test_fake_nvml_reset_calls (FAKE);
  g_assert_true (gpuprof_nvml_read (nvml, 0, GPUPROF_NVML_DEFAULT_FIELDS, &r));
  /* util, dec, enc, memory, 2 clocks, reasons, process */
  g_assert_cmpuint (gpuprof_test_fake_nvml_calls (FAKE, NULL), ==, 8);
  g_assert_cmpuint (gpuprof_test_fake_nvml_calls (FAKE,
          "nvmlDeviceGetPcieThroughput"), ==, 0);
  g_assert_true (gpuprof_nvml_read (nvml, 0,
          GPUPROF_NVML_BIT (GPUPROF_NVML_PCIE), &r));
  g_assert_cmpuint (gpuprof_test_fake_nvml_calls (FAKE,
          "nvmlDeviceGetPcieThroughput"), ==, 2);
  g_assert_cmpuint (gpuprof_test_fake_nvml_callers (FAKE, tids, calls, 4), ==,
      1);
  g_assert_cmpint (tids[0], ==, (gint) syscall (SYS_gettid));
  g_assert_cmpuint (calls[0], ==, 10);
  gpuprof_nvml_close (nvml);
  g_assert_cmpuint (gpuprof_test_fake_nvml_calls (FAKE, "nvmlShutdown"), ==, 1);
  g_assert_cmpuint (gpuprof_test_fake_nvml_calls (FAKE, "uninitialized"), ==,
      0);
}

/* ---- which device ---- */

/* in a child process: the fake reads its device list once, at its first
 * nvmlInit */
static void
test_devices (void)
{
  GpuprofNvml *nvml;
  const GpuprofNvmlDevice *d;

  if (!g_test_subprocess ()) {
    g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
    g_test_trap_assert_passed ();
    return;
  }
  g_setenv ("FAKE_NVML_DEVICES", "3", TRUE);
  g_setenv ("FAKE_NVML_BUSES", "3b,19,5e", TRUE);
  g_setenv ("FAKE_NVML_SCRIPT", "0:idle;0/2:decode-bound", TRUE);
  nvml = open_fake (FAKE);
  g_assert_cmpuint (gpuprof_nvml_device_count (nvml), ==, 3);
  d = gpuprof_nvml_device (nvml, 0);
  g_assert_cmpstr (d->pci_bus_id, ==, "00000000:3B:00.0");
  g_assert_cmpuint (d->pci_bus, ==, 0x3b);
  g_assert_null (gpuprof_nvml_device (nvml, 3));
  /* scripted per device */
  g_assert_cmpuint (read_all (nvml, 2).dec_pct, ==, 97);
  g_assert_cmpuint (read_all (nvml, 1).dec_pct, ==, 0);

  /* by PCI bus id, in CUDA's form, NVML's and the short one */
  g_assert_cmpint (gpuprof_nvml_find_pci_bus_id (nvml, "0000:3b:00.0"), ==, 0);
  g_assert_cmpint (gpuprof_nvml_find_pci_bus_id (nvml, "00000000:19:00.0"),
      ==, 1);
  g_assert_cmpint (gpuprof_nvml_find_pci_bus_id (nvml, "5E:00.0"), ==, 2);
  g_assert_cmpint (gpuprof_nvml_find_pci_bus_id (nvml, "0000:3c:00.0"), ==,
      -1);
  g_assert_cmpint (gpuprof_nvml_find_pci_bus_id (nvml, "garbage"), ==, -1);
  /* by UUID, with or without "GPU-" */
  d = gpuprof_nvml_device (nvml, 2);
  g_assert_cmpint (gpuprof_nvml_find_uuid (nvml, d->uuid), ==, 2);
  g_assert_cmpint (gpuprof_nvml_find_uuid (nvml, d->uuid + 4), ==, 2);
  g_assert_cmpint (gpuprof_nvml_find_uuid (nvml, "GPU-nope"), ==, -1);

  /* CUDA numbers them in PCI order (one model): 19, 3b, 5e */
  g_unsetenv ("CUDA_VISIBLE_DEVICES");
  g_unsetenv ("CUDA_DEVICE_ORDER");
  g_assert_cmpint (gpuprof_nvml_find_cuda_ordinal (nvml, 0), ==, 1);
  g_assert_cmpint (gpuprof_nvml_find_cuda_ordinal (nvml, 1), ==, 0);
  g_assert_cmpint (gpuprof_nvml_find_cuda_ordinal (nvml, 2), ==, 2);
  g_assert_cmpint (gpuprof_nvml_find_cuda_ordinal (nvml, 3), ==, -1);
  g_setenv ("CUDA_VISIBLE_DEVICES", "2,0", TRUE);
  g_assert_cmpint (gpuprof_nvml_find_cuda_ordinal (nvml, 0), ==, 2);
  g_assert_cmpint (gpuprof_nvml_find_cuda_ordinal (nvml, 1), ==, 1);
  g_assert_cmpint (gpuprof_nvml_find_cuda_ordinal (nvml, 2), ==, -1);
  gpuprof_nvml_close (nvml);
}

static GpuprofNvmlDevice
device (const gchar * name, const gchar * uuid, guint bus)
{
  GpuprofNvmlDevice d;

  memset (&d, 0, sizeof (d));
  d.usable = TRUE;
  g_strlcpy (d.name, name, sizeof (d.name));
  g_strlcpy (d.uuid, uuid, sizeof (d.uuid));
  g_snprintf (d.pci_bus_id, sizeof (d.pci_bus_id), "00000000:%02X:00.0", bus);
  d.pci_bus = bus;
  return d;
}

static void
test_cuda_ordinals (void)
{
  /* NVML order is not PCI order here, on purpose */
  GpuprofNvmlDevice same[3] = {
    device ("H100", "GPU-aaaa1111-0000-0000-0000-000000000000", 0x5e),
    device ("H100", "GPU-bbbb2222-0000-0000-0000-000000000000", 0x19),
    device ("H100", "GPU-bbbb3333-0000-0000-0000-000000000000", 0x3b),
  };
  GpuprofNvmlDevice mixed[2] = {
    device ("A100", "GPU-cccc-0000-0000-0000-000000000000", 0x19),
    device ("T4", "GPU-dddd-0000-0000-0000-000000000000", 0x3b),
  };
  GpuprofNvmlDevice no_pci[2] = { device ("H100", "GPU-eeee", 0),
    device ("H100", "GPU-ffff", 0)
  };
#define MAP(devs, ord, vis, order) \
  gpuprof_nvml_cuda_ordinal_to_index (devs, G_N_ELEMENTS (devs), ord, vis, order)

  /* one model: CUDA's order is PCI order, fastest first or not */
  g_assert_cmpint (MAP (same, 0, NULL, NULL), ==, 1);
  g_assert_cmpint (MAP (same, 1, NULL, NULL), ==, 2);
  g_assert_cmpint (MAP (same, 2, NULL, "PCI_BUS_ID"), ==, 0);
  g_assert_cmpint (MAP (same, 3, NULL, NULL), ==, -1);
  /* indexes are positions in that order; UUIDs or unique prefixes */
  g_assert_cmpint (MAP (same, 0, "2", NULL), ==, 0);
  g_assert_cmpint (MAP (same, 1, "2, 1", NULL), ==, 2);
  g_assert_cmpint (MAP (same, 0, "GPU-aaaa1111-0000-0000-0000-000000000000",
          NULL), ==, 0);
  g_assert_cmpint (MAP (same, 0, "GPU-aaaa", NULL), ==, 0);
  /* an ambiguous prefix, or any invalid entry, ends the list */
  g_assert_cmpint (MAP (same, 0, "GPU-bbbb,0", NULL), ==, -1);
  g_assert_cmpint (MAP (same, 1, "1,7,0", NULL), ==, -1);
  g_assert_cmpint (MAP (same, 1, "1,x,0", NULL), ==, -1);
  g_assert_cmpint (MAP (same, 2, "1,7,0", NULL), ==, -1);
  g_assert_cmpint (MAP (same, 0, "", NULL), ==, -1);
  /* MIG instances: not NVML devices of ours */
  g_assert_cmpint (MAP (same, 0, "MIG-1234,0", NULL), ==, -1);
  g_assert_cmpint (MAP (same, 1, "MIG-1234,0", NULL), ==, 1);
  /* different models, fastest first: CUDA's ranking is not known here,
   * only UUIDs and PCI order can tell */
  g_assert_cmpint (MAP (mixed, 0, NULL, NULL), ==, -1);
  g_assert_cmpint (MAP (mixed, 0, "1", NULL), ==, -1);
  g_assert_cmpint (MAP (mixed, 0, "GPU-dddd", NULL), ==, 1);
  g_assert_cmpint (MAP (mixed, 0, NULL, "PCI_BUS_ID"), ==, 0);
  g_assert_cmpint (MAP (mixed, 0, "1", "PCI_BUS_ID"), ==, 1);
  /* no PCI ids: no order, but one device is device 0 */
  no_pci[0].pci_bus_id[0] = no_pci[1].pci_bus_id[0] = 0;
  g_assert_cmpint (MAP (no_pci, 1, NULL, NULL), ==, -1);
  g_assert_cmpint (MAP (no_pci, 0, "GPU-ffff", NULL), ==, 1);
  g_assert_cmpint (gpuprof_nvml_cuda_ordinal_to_index (no_pci, 1, 0, NULL,
          NULL), ==, 0);
#undef MAP
}

static void
test_pci_bus_ids (void)
{
  guint domain, bus, dev, fn;

  g_assert_true (gpuprof_nvml_parse_pci_bus_id ("00000000:3B:00.0", &domain,
          &bus, &dev, &fn));
  g_assert_cmpuint (domain, ==, 0);
  g_assert_cmpuint (bus, ==, 0x3b);
  g_assert_cmpuint (dev, ==, 0);
  g_assert_cmpuint (fn, ==, 0);
  g_assert_true (gpuprof_nvml_parse_pci_bus_id ("0001:af:1f.3", &domain,
          &bus, &dev, &fn));
  g_assert_cmpuint (domain, ==, 1);
  g_assert_cmpuint (bus, ==, 0xaf);
  g_assert_cmpuint (dev, ==, 0x1f);
  g_assert_cmpuint (fn, ==, 3);
  g_assert_true (gpuprof_nvml_parse_pci_bus_id ("3b:00", &domain, &bus, &dev,
          &fn));
  g_assert_cmpuint (bus, ==, 0x3b);
  g_assert_false (gpuprof_nvml_parse_pci_bus_id ("", &domain, &bus, &dev,
          &fn));
  g_assert_false (gpuprof_nvml_parse_pci_bus_id ("3b", &domain, &bus, &dev,
          &fn));
  g_assert_false (gpuprof_nvml_parse_pci_bus_id ("0000:3b:00.0x", &domain,
          &bus, &dev, &fn));
  g_assert_false (gpuprof_nvml_parse_pci_bus_id ("123:00.0", &domain, &bus,
          &dev, &fn));
  g_assert_false (gpuprof_nvml_parse_pci_bus_id (NULL, &domain, &bus, &dev,
          &fn));
}

static void
test_names (void)
{
  static const guint8 bytes[16] = { 0xfa, 0x6e, 0, 1, 0x12, 0x34, 0x40, 0,
    0x80, 0, 0xde, 0xad, 0xbe, 0xef, 0, 0x2a
  };
  gchar uuid[41], buf[128];

  gpuprof_nvml_uuid_string (bytes, uuid);
  g_assert_cmpstr (uuid, ==, "GPU-fa6e0001-1234-4000-8000-deadbeef002a");
  g_assert_cmpstr (gpuprof_nvml_reasons_string (0, buf, sizeof (buf)), ==,
      "none");
  g_assert_cmpstr (gpuprof_nvml_reasons_string (GPUPROF_NVML_REASON_SW_POWER_CAP
          | GPUPROF_NVML_REASON_HW_THERMAL | 0x4000, buf, sizeof (buf)), ==,
      "sw_power_cap,hw_thermal,0x4000");
  g_assert_cmpstr (gpuprof_nvml_reasons_string (GPUPROF_NVML_REASON_GPU_IDLE,
          buf, 5), ==, "gpu_");
  g_assert_cmpstr (gpuprof_nvml_field_name (GPUPROF_NVML_DECODER), ==,
      "decoder");
  g_assert_cmpstr (gpuprof_nvml_field_name (GPUPROF_NVML_N_FIELDS), ==,
      "unknown");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/nvml/absent-library", test_absent_library);
  g_test_add_func ("/nvml/init-failure", test_init_failure);
  g_test_add_func ("/nvml/missing-required", test_missing_required);
  g_test_add_func ("/nvml/old-driver", test_old_driver);
  g_test_add_func ("/nvml/scenarios", test_scenarios);
  g_test_add_func ("/nvml/many-processes", test_many_processes);
  g_test_add_func ("/nvml/process-samples-once", test_process_samples_once);
  g_test_add_func ("/nvml/timeline", test_timeline);
  g_test_add_func ("/nvml/calls-per-reading", test_calls_per_reading);
  g_test_add_func ("/nvml/devices", test_devices);
  g_test_add_func ("/nvml/cuda-ordinals", test_cuda_ordinals);
  g_test_add_func ("/nvml/pci-bus-ids", test_pci_bus_ids);
  g_test_add_func ("/nvml/names", test_names);
  return g_test_run ();
}
