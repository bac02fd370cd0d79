/* gpuprof: the GPU's engines, clocks and memory from NVML, loaded at run
 * time.
 *
 * libnvidia-ml.so.1 (the driver's; $GPUPROF_NVML_LIBRARY or the caller's
 * path instead) is dlopen'ed into a table of function pointers, required
 * and optional symbols apart, like gst-plugins-bad's CUDA loader and
 * gpuprof-cupti.c: where it is missing, too old, or nvmlInit fails, opening
 * says why in one line and nothing else happens. A reading fills a plain
 * struct per device: utilisation of the SMs, memory, NVDEC and NVENC,
 * memory used, the SM clock against its maximum and why it is held down,
 * PCIe throughput, and this process's own share (docs/resources.md, "GPU
 * (NVML)"). What could not be read is marked unknown, with NVML's reason.
 *
 * Threading contract: a GpuprofNvml belongs to one thread at a time (the
 * sampler); it takes no lock and is never touched by a hook. NVML calls
 * are ioctls into the driver: never on the buffer path. A reading
 * allocates nothing unless more processes use the GPU than ever before.
 * The library stays loaded after gpuprof_nvml_close() (NVML may keep
 * threads of its own; unloading it under them would crash). */
#pragma once

#include "gpuprof-api.h"

#include <glib.h>

G_BEGIN_DECLS

typedef struct _GpuprofNvml GpuprofNvml;

/* What a reading reads, one NVML call (or two) each; the bit of each is
 * 1 << its value. */
typedef enum
{
  GPUPROF_NVML_UTIL = 0,        /* sm_pct, mem_pct */
  GPUPROF_NVML_DECODER,         /* dec_pct (NVDEC) */
  GPUPROF_NVML_ENCODER,         /* enc_pct (NVENC) */
  GPUPROF_NVML_MEMORY,          /* mem_used, mem_total */
  GPUPROF_NVML_CLOCKS,          /* sm_mhz, sm_max_mhz */
  GPUPROF_NVML_REASONS,         /* clock event (throttle) reasons */
  GPUPROF_NVML_PCIE,            /* pcie_rx/tx: each call waits 20 ms */
  GPUPROF_NVML_PROCESS,         /* this process's share of the engines */
  GPUPROF_NVML_N_FIELDS
} GpuprofNvmlField;

#define GPUPROF_NVML_BIT(f) (1u << (f))
/* everything but PCIe, whose two calls take 40 ms a device */
#define GPUPROF_NVML_DEFAULT_FIELDS \
  ((GPUPROF_NVML_BIT (GPUPROF_NVML_N_FIELDS) - 1) & \
   ~GPUPROF_NVML_BIT (GPUPROF_NVML_PCIE))

/* GpuprofNvmlReading.status[] beside NVML's own nvmlReturn_t values */
#define GPUPROF_NVML_NOT_ASKED (-2)     /* not in the fields asked for */
#define GPUPROF_NVML_NO_SYMBOL (-1)     /* this driver's NVML lacks the call */

/* Clock event reasons (NVML's bits, nvmlClocksEventReason*) */
#define GPUPROF_NVML_REASON_GPU_IDLE           0x001ULL
#define GPUPROF_NVML_REASON_APP_CLOCKS         0x002ULL
#define GPUPROF_NVML_REASON_SW_POWER_CAP       0x004ULL
#define GPUPROF_NVML_REASON_HW_SLOWDOWN        0x008ULL
#define GPUPROF_NVML_REASON_SYNC_BOOST         0x010ULL
#define GPUPROF_NVML_REASON_SW_THERMAL         0x020ULL
#define GPUPROF_NVML_REASON_HW_THERMAL         0x040ULL
#define GPUPROF_NVML_REASON_HW_POWER_BRAKE     0x080ULL
#define GPUPROF_NVML_REASON_DISPLAY_CLOCKS     0x100ULL
/* the reasons that hold a busy GPU's clocks down: power, heat, slowdown
 * (idle, application clocks, sync boost and display clocks are settings
 * or rest, not a limit) */
#define GPUPROF_NVML_REASONS_THROTTLE \
  (GPUPROF_NVML_REASON_SW_POWER_CAP | GPUPROF_NVML_REASON_HW_SLOWDOWN | \
   GPUPROF_NVML_REASON_SW_THERMAL | GPUPROF_NVML_REASON_HW_THERMAL | \
   GPUPROF_NVML_REASON_HW_POWER_BRAKE)

/* One device, as found when NVML was opened */
typedef struct
{
  guint index;                  /* NVML's */
  gboolean usable;              /* its handle was given (else @status why) */
  gint status;                  /* nvmlDeviceGetHandleByIndex_v2's result */
  gchar name[96];               /* "" when unknown */
  gchar uuid[96];               /* "GPU-…"; "" when unknown */
  gchar pci_bus_id[32];         /* "00000000:3B:00.0"; "" when unknown */
  guint pci_domain, pci_bus, pci_device;
} GpuprofNvmlDevice;

/* Sums of process samples (nvmlDeviceGetProcessUtilization): one sample
 * per process per NVML sampling period in which it used the GPU, each
 * field a % of that period */
typedef struct
{
  guint samples;
  guint64 sm, mem, enc, dec;    /* sums over the samples, % */
} GpuprofNvmlProcessSums;

/* One reading of one device. A field is known when its bit is in @have;
 * otherwise status[field] says why (an nvmlReturn_t, NOT_SUPPORTED = 3 on
 * GPUs without it, or GPUPROF_NVML_NOT_ASKED / _NO_SYMBOL). */
typedef struct
{
  guint64 ts_ns;                /* CLOCK_MONOTONIC when read */
  guint have;                   /* GPUPROF_NVML_BIT (field) of fields read */
  gint status[GPUPROF_NVML_N_FIELDS];

  guint sm_pct;                 /* UTIL: time a kernel ran, % */
  guint mem_pct;                /* UTIL: time memory was read/written, % */
  guint dec_pct, dec_period_us; /* DECODER: NVDEC busy %, over that period */
  guint enc_pct, enc_period_us; /* ENCODER: NVENC busy % */
  guint64 mem_used, mem_total;  /* MEMORY: bytes */
  guint sm_mhz, sm_max_mhz;     /* CLOCKS */
  guint64 reasons;              /* REASONS: GPUPROF_NVML_REASON_* bits */
  guint pcie_rx_kbs, pcie_tx_kbs;       /* PCIE: KB/s, as NVML gives them */

  /* PROCESS: the samples NVML took since the previous reading of this
   * device (none: no process used the GPU, or NVML has not sampled since),
   * of this process (@self) and of all (@all). Sum them over readings:
   * this process's share of the SM time is Σself.sm / Σall.sm (an idle
   * period has no sample, so a mean over its own samples overstates). */
  guint procs;                  /* processes with samples */
  GpuprofNvmlProcessSums self, all;
} GpuprofNvmlReading;

/* Loads NVML (@library: path or soname; %NULL: $GPUPROF_NVML_LIBRARY, else
 * "libnvidia-ml.so.1"), initialises it and lists the devices. %NULL when
 * any of that fails, with one line in @reason ("NVML off: …"). */
GPUPROF_API
GpuprofNvml *gpuprof_nvml_open (const gchar * library, gchar ** reason);
/* nvmlShutdown; frees @nvml */
GPUPROF_API
void gpuprof_nvml_close (GpuprofNvml * nvml);

/* The library loaded, and the optional functions it lacks
 * ("nvmlDeviceGetPcieThroughput, …", "" when none) */
GPUPROF_API
const gchar *gpuprof_nvml_library (const GpuprofNvml * nvml);
GPUPROF_API
const gchar *gpuprof_nvml_missing (const GpuprofNvml * nvml);

GPUPROF_API
guint gpuprof_nvml_device_count (const GpuprofNvml * nvml);
GPUPROF_API
const GpuprofNvmlDevice *gpuprof_nvml_device (const GpuprofNvml * nvml,
    guint index);

/* Reads @fields (GPUPROF_NVML_BIT()s) of device @index into @out; FALSE
 * (@out all unknown) when the device is not usable. */
GPUPROF_API
gboolean gpuprof_nvml_read (GpuprofNvml * nvml, guint index, guint fields,
    GpuprofNvmlReading * out);

/* ---- which NVML device a CUDA device is ---- */

/* NVML index of the device at PCI @bus_id ("0000:3b:00.0" as CUDA's
 * cuDeviceGetPCIBusId writes it, "00000000:3B:00.0" as NVML, "3b:00.0");
 * -1 when none */
GPUPROF_API
gint gpuprof_nvml_find_pci_bus_id (const GpuprofNvml * nvml,
    const gchar * bus_id);
/* NVML index of the device with @uuid ("GPU-…", or without "GPU-": the
 * form CUDA_VISIBLE_DEVICES and cuDeviceGetUuid give); -1 when none */
GPUPROF_API
gint gpuprof_nvml_find_uuid (const GpuprofNvml * nvml, const gchar * uuid);
/* NVML index of CUDA device @ordinal of this process, from
 * $CUDA_VISIBLE_DEVICES and $CUDA_DEVICE_ORDER; -1 when it cannot be told
 * (see gpuprof_nvml_cuda_ordinal_to_index()) */
GPUPROF_API
gint gpuprof_nvml_find_cuda_ordinal (const GpuprofNvml * nvml, guint ordinal);

/* Pure: "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" from CUDA's 16-byte
 * CUuuid (CUPTI's device records carry it too); @out holds 41 bytes */
GPUPROF_API
void gpuprof_nvml_uuid_string (const guint8 bytes[16], gchar out[41]);
/* Pure: a PCI bus id in any of the forms above; FALSE when malformed */
GPUPROF_API
gboolean gpuprof_nvml_parse_pci_bus_id (const gchar * s, guint * domain,
    guint * bus, guint * device, guint * function);
/* Pure: the NVML index of CUDA device @ordinal given the NVML devices,
 * CUDA_VISIBLE_DEVICES (@visible, %NULL: unset) and CUDA_DEVICE_ORDER
 * (@order, %NULL: FASTEST_FIRST). CUDA numbers devices in PCI order with
 * PCI_BUS_ID; fastest first by default, taken here as PCI order when all
 * are one model (ties go in PCI order in practice; not documented). An
 * index in @visible is a position in that order, a "GPU-" entry a UUID
 * (or its unique prefix); the list ends at its first invalid entry. -1
 * when it cannot be told: the ordinal is not visible, a MIG entry, or
 * models mixed with FASTEST_FIRST (CUDA's speed ranking is not NVML's to
 * know: map by PCI bus id or UUID from CUDA then, which are exact). */
GPUPROF_API
gint gpuprof_nvml_cuda_ordinal_to_index (const GpuprofNvmlDevice * devices,
    guint n_devices, guint ordinal, const gchar * visible,
    const gchar * order);

/* Pure: "sw_power_cap,hw_thermal" for @reasons into @buf ("none" when 0) */
GPUPROF_API
const gchar *gpuprof_nvml_reasons_string (guint64 reasons, gchar * buf,
    gsize size);
/* Why a field is unknown: NVML's words for @status (a
 * GpuprofNvmlReading.status), "not asked" or "not in this driver's NVML" */
GPUPROF_API
const gchar *gpuprof_nvml_status_string (const GpuprofNvml * nvml,
    gint status);
/* Pure: the name of a field ("util", "decoder", …) */
GPUPROF_API
const gchar *gpuprof_nvml_field_name (GpuprofNvmlField field);

G_END_DECLS
