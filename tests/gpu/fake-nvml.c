/* A fake libnvidia-ml for tests on machines without a GPU.
 *
 * Exports the NVML functions gpuprof-nvml.c loads, with NVML's types and
 * layouts (gst/gpu/gpuprof-nvml-api.h), and readings a test scripts over
 * time. Built three times (tests/gpu/meson.build): complete; as an older
 * driver (FAKE_NVML_OLD_DRIVER: the reasons call under its old name only,
 * no process utilisation, no PCIe throughput); and without a required
 * call (FAKE_NVML_NO_UTILIZATION).
 *
 * Environment, read at the first nvmlInit_v2:
 *   FAKE_NVML_DEVICES=N       devices (default 1, at most 8)
 *   FAKE_NVML_INIT_RESULT=R   nvmlInit_v2 returns R (e.g. 9: driver not
 *                             loaded)
 *   FAKE_NVML_NAMES=a,b       device names (default "Fake GPU")
 *   FAKE_NVML_BUSES=3b,19     PCI bus of each device, hex (default 0x19,
 *                             0x29, ...: NVML order is PCI order)
 *   FAKE_NVML_SCRIPT=…        the readings over time (below)
 *   FAKE_NVML_REPORT=path     at exit, the calls made: "<function> <n>"
 *                             lines, then "caller <tid> <n>" lines
 *
 * Script: phases "T:items" separated by ';', T in ms after the first
 * nvmlInit_v2 (or after fake_nvml_script()); "T/D:items" for device D
 * only. Each phase changes what it names and keeps the rest. Items are
 * presets (idle, decode-bound, encode-bound, compute-bound, throttled) or
 * key=value: sm mem dec enc (%), used total (MiB), clock max (SM MHz),
 * reasons (gpu_idle+sw_power_cap+hw_slowdown+sw_thermal+hw_thermal+
 * hw_power_brake+sync_boost+applications_clocks+display_clocks, or 0x..),
 * rx tx (PCIe KB/s), psm pmem penc pdec (this process's samples; by
 * default the device's own figures: one process on the GPU), other
 * (other processes' SM %), others (how many, default 1), unsupported (util+dec+enc+memory+clocks+
 * reasons+pcie+process: those calls return NVML_ERROR_NOT_SUPPORTED).
 * E.g. "0:idle;500:decode-bound;1500/1:throttled,reasons=sw_power_cap".
 *
 * Process samples are taken as NVML does: one per process that used the
 * GPU in each sampling period (FAKE_NVML_PROC_PERIOD_MS, default 100 ms,
 * periods counted from the script's start), with the figures the script
 * gives at that period's end, stamped then (wall clock, µs); the last 20
 * periods are kept; a call returns those newer than its lastSeenTimeStamp.
 *
 * Every call is counted, per function and per calling thread
 * (fake_nvml_calls(), fake_nvml_callers()); a call while NVML is not
 * initialised returns NVML_ERROR_UNINITIALIZED and counts under
 * "uninitialized".
 */
#include "gpuprof-nvml-api.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#define EXPORT __attribute__ ((visibility ("default")))
#define MAX_DEVICES 8
#define MAX_STEPS 256
#define MAX_CALLERS 64
#define OTHER_PID 0x7fff0000u
#define MAX_OTHERS 1024
#define PROC_HISTORY 20

enum
{
  F_UTIL = 1 << 0, F_DEC = 1 << 1, F_ENC = 1 << 2, F_MEMORY = 1 << 3,
  F_CLOCKS = 1 << 4, F_REASONS = 1 << 5, F_PCIE = 1 << 6, F_PROCESS = 1 << 7,
};

/* the figures a device gives; p*: -1 = the device's own */
typedef enum
{
  K_SM, K_MEM, K_DEC, K_ENC, K_USED, K_TOTAL, K_CLOCK, K_MAX, K_REASONS,
  K_RX, K_TX, K_PSM, K_PMEM, K_PENC, K_PDEC, K_OTHER, K_OTHERS,
  K_UNSUPPORTED, N_KEYS
} Key;

static const char *key_names[N_KEYS] = {
  "sm", "mem", "dec", "enc", "used", "total", "clock", "max", "reasons",
  "rx", "tx", "psm", "pmem", "penc", "pdec", "other", "others",
  "unsupported",
};

static const long long defaults[N_KEYS] = {
  0, 0, 0, 0, 500, 81559, 1980, 1980, 0, 0, 0, -1, -1, -1, -1, 0, 1, 0,
};

typedef struct
{
  long start_ms;
  int device;                   /* -1: all */
  Key key;
  long long value;
} Step;

static const struct
{
  const char *name;
  const char *items;
} presets[] = {
  {"idle", "sm=0,mem=0,dec=0,enc=0,clock=345,reasons=gpu_idle"},
  {"decode-bound", "sm=14,mem=9,dec=97,enc=0,clock=1980,reasons=0"},
  {"encode-bound", "sm=20,mem=12,dec=0,enc=96,clock=1980,reasons=0"},
  {"compute-bound", "sm=99,mem=62,dec=3,enc=0,clock=1980,reasons=0"},
  {"throttled", "sm=98,mem=40,clock=1095,reasons=sw_thermal+hw_slowdown"},
};

static const struct
{
  const char *name;
  unsigned long long bit;
} reason_names[] = {
  {"gpu_idle", nvmlClocksEventReasonGpuIdle},
  {"applications_clocks", nvmlClocksEventReasonApplicationsClocksSetting},
  {"sw_power_cap", nvmlClocksEventReasonSwPowerCap},
  {"hw_slowdown", nvmlClocksThrottleReasonHwSlowdown},
  {"sync_boost", nvmlClocksEventReasonSyncBoost},
  {"sw_thermal", nvmlClocksEventReasonSwThermalSlowdown},
  {"hw_thermal", nvmlClocksThrottleReasonHwThermalSlowdown},
  {"hw_power_brake", nvmlClocksThrottleReasonHwPowerBrakeSlowdown},
  {"display_clocks", nvmlClocksEventReasonDisplayClockSetting},
};

static const struct
{
  const char *name;
  unsigned bit;
} field_names[] = {
  {"util", F_UTIL}, {"dec", F_DEC}, {"enc", F_ENC}, {"memory", F_MEMORY},
  {"clocks", F_CLOCKS}, {"reasons", F_REASONS}, {"pcie", F_PCIE},
  {"process", F_PROCESS},
};

struct nvmlDevice_st
{
  unsigned index;
  char name[64];
  unsigned bus;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int env_read;
static int init_refs;
static unsigned n_devices = 1;
static struct nvmlDevice_st devices[MAX_DEVICES];
static Step steps[MAX_STEPS];
static int n_steps;
static struct timespec t0;
static unsigned long long t0_real_us;
static long proc_period_ms = 100;

/* ---- call counting ---- */

#define MAX_FUNCS 32
static const char *func_names[MAX_FUNCS];
static unsigned long func_calls[MAX_FUNCS];
static int caller_tids[MAX_CALLERS];
static unsigned long caller_calls[MAX_CALLERS];

static void
count_call_locked (const char *func)
{
  int tid = (int) syscall (SYS_gettid), i;

  for (i = 0; i < MAX_FUNCS && func_names[i] && strcmp (func_names[i], func);
      i++);
  if (i < MAX_FUNCS) {
    func_names[i] = func;
    func_calls[i]++;
  }
  for (i = 0; i < MAX_CALLERS && caller_tids[i] && caller_tids[i] != tid; i++);
  if (i < MAX_CALLERS) {
    caller_tids[i] = tid;
    caller_calls[i]++;
  }
}

/* ---- the script ---- */

static long long
parse_names (const char *value, int reasons, int *ok)
{
  char buf[256], *tok, *save = NULL;
  long long bits = 0;
  unsigned i;

  if (!strncmp (value, "0x", 2) || (value[0] >= '0' && value[0] <= '9'))
    return strtoll (value, NULL, 0);
  snprintf (buf, sizeof (buf), "%s", value);
  for (tok = strtok_r (buf, "+", &save); tok; tok = strtok_r (NULL, "+",
          &save)) {
    int found = 0;

    if (reasons) {
      for (i = 0; i < sizeof (reason_names) / sizeof (reason_names[0]); i++)
        if (!strcmp (tok, reason_names[i].name)) {
          bits |= (long long) reason_names[i].bit;
          found = 1;
        }
    } else {
      for (i = 0; i < sizeof (field_names) / sizeof (field_names[0]); i++)
        if (!strcmp (tok, field_names[i].name)) {
          bits |= field_names[i].bit;
          found = 1;
        }
    }
    if (!found)
      *ok = 0;
  }
  return bits;
}

static int parse_items (const char *items, long start, int device);

static int
parse_item (const char *item, long start, int device)
{
  const char *eq = strchr (item, '=');
  unsigned i;
  int ok = 1;

  if (!eq) {
    for (i = 0; i < sizeof (presets) / sizeof (presets[0]); i++)
      if (!strcmp (item, presets[i].name))
        return parse_items (presets[i].items, start, device);
    return 0;
  }
  for (i = 0; i < N_KEYS; i++) {
    if (strlen (key_names[i]) != (size_t) (eq - item)
        || strncmp (item, key_names[i], eq - item))
      continue;
    if (n_steps == MAX_STEPS)
      return 0;
    steps[n_steps].start_ms = start;
    steps[n_steps].device = device;
    steps[n_steps].key = (Key) i;
    steps[n_steps].value = i == K_REASONS || i == K_UNSUPPORTED ?
        parse_names (eq + 1, i == K_REASONS, &ok) : strtoll (eq + 1, NULL, 0);
    n_steps++;
    return ok;
  }
  return 0;
}

static int
parse_items (const char *items, long start, int device)
{
  char buf[1024], *tok, *save = NULL;

  snprintf (buf, sizeof (buf), "%s", items);
  for (tok = strtok_r (buf, ",", &save); tok; tok = strtok_r (NULL, ",",
          &save))
    if (!parse_item (tok, start, device))
      return 0;
  return 1;
}

static unsigned long long
real_us (void)
{
  struct timespec now;

  clock_gettime (CLOCK_REALTIME, &now);
  return (unsigned long long) now.tv_sec * 1000000 + now.tv_nsec / 1000;
}

/* the script's time 0 */
static void
start_time (void)
{
  clock_gettime (CLOCK_MONOTONIC, &t0);
  t0_real_us = real_us ();
}

/* lock held */
static int
parse_script (const char *script)
{
  char *copy = strdup (script), *phase, *save = NULL;
  int ok = 1;

  n_steps = 0;
  for (phase = strtok_r (copy, ";", &save); phase && ok;
      phase = strtok_r (NULL, ";", &save)) {
    char *colon = strchr (phase, ':'), *slash;
    int device = -1;

    if (!colon) {
      ok = 0;
      break;
    }
    *colon = 0;
    if ((slash = strchr (phase, '/')))
      device = atoi (slash + 1);
    ok = parse_items (colon + 1, atol (phase), device);
  }
  free (copy);
  start_time ();
  return ok ? 0 : -1;
}

static long
elapsed_ms (void)
{
  struct timespec now;

  clock_gettime (CLOCK_MONOTONIC, &now);
  return (now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000;
}

/* the figures of @dev at @now ms (lock held); steps apply in time order */
static void
values_at (const struct nvmlDevice_st *dev, long now, long long v[N_KEYS])
{
  long done = -1;
  int i;

  memcpy (v, defaults, sizeof (defaults));
  /* phases may be listed in any order: apply them by start time */
  while (1) {
    long next = -1;

    for (i = 0; i < n_steps; i++)
      if (steps[i].start_ms > done && steps[i].start_ms <= now
          && (next < 0 || steps[i].start_ms < next))
        next = steps[i].start_ms;
    if (next < 0)
      break;
    for (i = 0; i < n_steps; i++)
      if (steps[i].start_ms == next
          && (steps[i].device < 0 || steps[i].device == (int) dev->index))
        v[steps[i].key] = steps[i].value;
    done = next;
  }
  if (v[K_PSM] < 0)
    v[K_PSM] = v[K_SM];
  if (v[K_PMEM] < 0)
    v[K_PMEM] = v[K_MEM];
  if (v[K_PENC] < 0)
    v[K_PENC] = v[K_ENC];
  if (v[K_PDEC] < 0)
    v[K_PDEC] = v[K_DEC];
}

static void
read_env_locked (void)
{
  const char *s;
  unsigned i;

  if (env_read)
    return;
  env_read = 1;
  if ((s = getenv ("FAKE_NVML_DEVICES")))
    n_devices = (unsigned) atoi (s);
  if (n_devices > MAX_DEVICES)
    n_devices = MAX_DEVICES;
  for (i = 0; i < MAX_DEVICES; i++) {
    devices[i].index = i;
    snprintf (devices[i].name, sizeof (devices[i].name), "Fake GPU");
    devices[i].bus = 0x19 + 0x10 * i;
  }
  if ((s = getenv ("FAKE_NVML_PROC_PERIOD_MS")) && atol (s) > 0)
    proc_period_ms = atol (s);
  if ((s = getenv ("FAKE_NVML_NAMES"))) {
    char buf[512], *tok, *save = NULL;

    snprintf (buf, sizeof (buf), "%s", s);
    for (i = 0, tok = strtok_r (buf, ",", &save); tok && i < MAX_DEVICES;
        tok = strtok_r (NULL, ",", &save), i++)
      snprintf (devices[i].name, sizeof (devices[i].name), "%s", tok);
  }
  if ((s = getenv ("FAKE_NVML_BUSES"))) {
    char buf[512], *tok, *save = NULL;

    snprintf (buf, sizeof (buf), "%s", s);
    for (i = 0, tok = strtok_r (buf, ",", &save); tok && i < MAX_DEVICES;
        tok = strtok_r (NULL, ",", &save), i++)
      devices[i].bus = (unsigned) strtoul (tok, NULL, 16);
  }
  if (parse_script ((s = getenv ("FAKE_NVML_SCRIPT")) ? s : "") != 0) {
    fprintf (stderr, "fake NVML: bad FAKE_NVML_SCRIPT: %s\n", s);
    abort ();
  }
}

/* every call starts here: counts it, and refuses it before init */
#define ENTER(need_init) ENTER_AS (__func__, need_init)
#define ENTER_AS(func, need_init) \
  pthread_mutex_lock (&lock); \
  count_call_locked (func); \
  if ((need_init) && !init_refs) { \
    count_call_locked ("uninitialized"); \
    pthread_mutex_unlock (&lock); \
    return NVML_ERROR_UNINITIALIZED; \
  }
#define LEAVE(r) do { pthread_mutex_unlock (&lock); return (r); } while (0)

static int
valid (nvmlDevice_t d)
{
  return d >= devices && d < devices + n_devices;
}

/* the device's figures, or NOT_SUPPORTED when @field is scripted so */
#define READ_VALUES(d, v, field) READ_VALUES_AS (__func__, d, v, field)
#define READ_VALUES_AS(func, d, v, field) \
  ENTER_AS (func, 1); \
  if (!valid (d)) LEAVE (NVML_ERROR_INVALID_ARGUMENT); \
  values_at ((d), elapsed_ms (), (v)); \
  if ((v)[K_UNSUPPORTED] & (field)) LEAVE (NVML_ERROR_NOT_SUPPORTED);

/* ---- NVML ---- */

EXPORT nvmlReturn_t
nvmlInit_v2 (void)
{
  const char *r;

  pthread_mutex_lock (&lock);
  count_call_locked (__func__);
  read_env_locked ();
  if ((r = getenv ("FAKE_NVML_INIT_RESULT")) && atoi (r))
    LEAVE ((nvmlReturn_t) atoi (r));
  if (!init_refs++)
    start_time ();
  LEAVE (NVML_SUCCESS);
}

EXPORT nvmlReturn_t
nvmlShutdown (void)
{
  ENTER (1);
  init_refs--;
  LEAVE (NVML_SUCCESS);
}

EXPORT const char *
nvmlErrorString (nvmlReturn_t result)
{
  pthread_mutex_lock (&lock);
  count_call_locked (__func__);
  pthread_mutex_unlock (&lock);
  switch (result) {
    case NVML_SUCCESS:
      return "Success";
    case NVML_ERROR_UNINITIALIZED:
      return "Uninitialized";
    case NVML_ERROR_NOT_SUPPORTED:
      return "Not Supported";
    case NVML_ERROR_NO_PERMISSION:
      return "Insufficient Permissions";
    case NVML_ERROR_DRIVER_NOT_LOADED:
      return "Driver Not Loaded";
    case NVML_ERROR_LIB_RM_VERSION_MISMATCH:
      return "Driver/library version mismatch";
    default:
      return "Unknown Error";
  }
}

EXPORT nvmlReturn_t
nvmlDeviceGetCount_v2 (unsigned int *count)
{
  ENTER (1);
  *count = n_devices;
  LEAVE (NVML_SUCCESS);
}

EXPORT nvmlReturn_t
nvmlDeviceGetHandleByIndex_v2 (unsigned int index, nvmlDevice_t * device)
{
  ENTER (1);
  if (index >= n_devices)
    LEAVE (NVML_ERROR_INVALID_ARGUMENT);
  *device = &devices[index];
  LEAVE (NVML_SUCCESS);
}

EXPORT nvmlReturn_t
nvmlDeviceGetName (nvmlDevice_t d, char *name, unsigned int length)
{
  ENTER (1);
  if (!valid (d))
    LEAVE (NVML_ERROR_INVALID_ARGUMENT);
  if (strlen (d->name) >= length)
    LEAVE (NVML_ERROR_INSUFFICIENT_SIZE);
  strcpy (name, d->name);
  LEAVE (NVML_SUCCESS);
}

EXPORT nvmlReturn_t
nvmlDeviceGetUUID (nvmlDevice_t d, char *uuid, unsigned int length)
{
  ENTER (1);
  if (!valid (d))
    LEAVE (NVML_ERROR_INVALID_ARGUMENT);
  if (length < 41)
    LEAVE (NVML_ERROR_INSUFFICIENT_SIZE);
  snprintf (uuid, length, "GPU-%08x-0000-4000-8000-0000000000%02x",
      0xfa6e0000u + d->index, d->index);
  LEAVE (NVML_SUCCESS);
}

EXPORT nvmlReturn_t
nvmlDeviceGetPciInfo_v3 (nvmlDevice_t d, nvmlPciInfo_t * pci)
{
  ENTER (1);
  if (!valid (d))
    LEAVE (NVML_ERROR_INVALID_ARGUMENT);
  memset (pci, 0, sizeof (*pci));
  pci->domain = 0;
  pci->bus = d->bus;
  pci->device = 0;
  pci->pciDeviceId = 0x233010de;
  snprintf (pci->busIdLegacy, sizeof (pci->busIdLegacy), "0000:%02X:00.0",
      d->bus);
  snprintf (pci->busId, sizeof (pci->busId), "00000000:%02X:00.0", d->bus);
  LEAVE (NVML_SUCCESS);
}

#ifndef FAKE_NVML_NO_UTILIZATION
EXPORT nvmlReturn_t
nvmlDeviceGetUtilizationRates (nvmlDevice_t d, nvmlUtilization_t * u)
{
  long long v[N_KEYS];

  READ_VALUES (d, v, F_UTIL);
  u->gpu = (unsigned) v[K_SM];
  u->memory = (unsigned) v[K_MEM];
  LEAVE (NVML_SUCCESS);
}
#endif

/* NVDEC or NVENC: @key's %, over NVML's usual period */
static nvmlReturn_t
engine_util (const char *func, nvmlDevice_t d, Key key, unsigned field,
    unsigned int *pct, unsigned int *period_us)
{
  long long v[N_KEYS];

  READ_VALUES_AS (func, d, v, field);
  *pct = (unsigned) v[key];
  *period_us = 167000;
  LEAVE (NVML_SUCCESS);
}

EXPORT nvmlReturn_t
nvmlDeviceGetDecoderUtilization (nvmlDevice_t d, unsigned int *pct,
    unsigned int *period_us)
{
  return engine_util (__func__, d, K_DEC, F_DEC, pct, period_us);
}

EXPORT nvmlReturn_t
nvmlDeviceGetEncoderUtilization (nvmlDevice_t d, unsigned int *pct,
    unsigned int *period_us)
{
  return engine_util (__func__, d, K_ENC, F_ENC, pct, period_us);
}

EXPORT nvmlReturn_t
nvmlDeviceGetMemoryInfo (nvmlDevice_t d, nvmlMemory_t * m)
{
  long long v[N_KEYS];

  READ_VALUES (d, v, F_MEMORY);
  m->total = (unsigned long long) v[K_TOTAL] << 20;
  m->used = (unsigned long long) v[K_USED] << 20;
  m->free = m->total - m->used;
  LEAVE (NVML_SUCCESS);
}

/* the SM (or graphics) clock: @key, now or its maximum */
static nvmlReturn_t
sm_clock (const char *func, nvmlDevice_t d, nvmlClockType_t type, Key key,
    unsigned int *mhz)
{
  long long v[N_KEYS];

  READ_VALUES_AS (func, d, v, F_CLOCKS);
  if (type != NVML_CLOCK_SM && type != NVML_CLOCK_GRAPHICS)
    LEAVE (NVML_ERROR_NOT_SUPPORTED);
  *mhz = (unsigned) v[key];
  LEAVE (NVML_SUCCESS);
}

EXPORT nvmlReturn_t
nvmlDeviceGetClockInfo (nvmlDevice_t d, nvmlClockType_t type,
    unsigned int *mhz)
{
  return sm_clock (__func__, d, type, K_CLOCK, mhz);
}

EXPORT nvmlReturn_t
nvmlDeviceGetMaxClockInfo (nvmlDevice_t d, nvmlClockType_t type,
    unsigned int *mhz)
{
  return sm_clock (__func__, d, type, K_MAX, mhz);
}

static nvmlReturn_t
clock_reasons (const char *func, nvmlDevice_t d, unsigned long long *reasons)
{
  long long v[N_KEYS];

  READ_VALUES_AS (func, d, v, F_REASONS);
  *reasons = (unsigned long long) v[K_REASONS];
  LEAVE (NVML_SUCCESS);
}

#ifndef FAKE_NVML_OLD_DRIVER
EXPORT nvmlReturn_t
nvmlDeviceGetCurrentClocksEventReasons (nvmlDevice_t d,
    unsigned long long *reasons)
{
  return clock_reasons (__func__, d, reasons);
}
#endif

EXPORT nvmlReturn_t
nvmlDeviceGetCurrentClocksThrottleReasons (nvmlDevice_t d,
    unsigned long long *reasons)
{
  return clock_reasons (__func__, d, reasons);
}

#ifndef FAKE_NVML_OLD_DRIVER
EXPORT nvmlReturn_t
nvmlDeviceGetPcieThroughput (nvmlDevice_t d, nvmlPcieUtilCounter_t counter,
    unsigned int *kbs)
{
  long long v[N_KEYS];

  READ_VALUES (d, v, F_PCIE);
  *kbs = (unsigned) (counter == NVML_PCIE_UTIL_RX_BYTES ? v[K_RX] : v[K_TX]);
  LEAVE (NVML_SUCCESS);
}

/* the samples of the periods ended since @last_seen (lock held) into
 * @s; how many */
static unsigned
take_samples (const struct nvmlDevice_st *d, unsigned long long last_seen,
    nvmlProcessUtilizationSample_t * s)
{
  long last = elapsed_ms () / proc_period_ms, k;
  unsigned n = 0;

  for (k = last > PROC_HISTORY ? last - PROC_HISTORY + 1 : 1; k <= last; k++) {
    unsigned long long ts = t0_real_us + (unsigned long long) k
        * proc_period_ms * 1000;
    long long v[N_KEYS], o;

    if (ts <= last_seen)
      continue;
    values_at (d, k * proc_period_ms, v);
    if (v[K_UNSUPPORTED] & F_PROCESS)
      continue;
    if (v[K_PSM] || v[K_PMEM] || v[K_PENC] || v[K_PDEC]) {
      s[n].pid = (unsigned) getpid ();
      s[n].smUtil = (unsigned) v[K_PSM];
      s[n].memUtil = (unsigned) v[K_PMEM];
      s[n].encUtil = (unsigned) v[K_PENC];
      s[n].decUtil = (unsigned) v[K_PDEC];
      s[n++].timeStamp = ts;
    }
    for (o = 0; v[K_OTHER] && o < v[K_OTHERS] && o < MAX_OTHERS; o++) {
      memset (&s[n], 0, sizeof (s[n]));
      s[n].pid = OTHER_PID + (unsigned) o;
      s[n].smUtil = (unsigned) v[K_OTHER];
      s[n++].timeStamp = ts;
    }
  }
  return n;
}

EXPORT nvmlReturn_t
nvmlDeviceGetProcessUtilization (nvmlDevice_t d,
    nvmlProcessUtilizationSample_t * out, unsigned int *count,
    unsigned long long last_seen)
{
  static nvmlProcessUtilizationSample_t s[PROC_HISTORY * (MAX_OTHERS + 1)];
  long long v[N_KEYS];
  unsigned n;

  READ_VALUES (d, v, F_PROCESS);
  n = take_samples (d, last_seen, s);
  if (!n)
    LEAVE (NVML_ERROR_NOT_FOUND);
  if (!out || *count < n) {
    *count = n;
    LEAVE (NVML_ERROR_INSUFFICIENT_SIZE);
  }
  memcpy (out, s, n * sizeof (s[0]));
  *count = n;
  LEAVE (NVML_SUCCESS);
}
#endif

/* ---- for tests (dlsym) ---- */

/* replaces the script and restarts its time; 0, or -1 when malformed */
EXPORT int
fake_nvml_script (const char *script)
{
  int r;

  pthread_mutex_lock (&lock);
  read_env_locked ();
  r = parse_script (script ? script : "");
  pthread_mutex_unlock (&lock);
  return r;
}

/* calls of @func so far (NULL: of all, the test functions not counted) */
EXPORT unsigned long
fake_nvml_calls (const char *func)
{
  unsigned long n = 0;
  int i;

  pthread_mutex_lock (&lock);
  for (i = 0; i < MAX_FUNCS && func_names[i]; i++)
    if (func ? !strcmp (func_names[i], func) :
        strcmp (func_names[i], "uninitialized"))
      n += func_calls[i];
  pthread_mutex_unlock (&lock);
  return n;
}

EXPORT void
fake_nvml_reset_calls (void)
{
  pthread_mutex_lock (&lock);
  memset (func_calls, 0, sizeof (func_calls));
  memset (caller_tids, 0, sizeof (caller_tids));
  memset (caller_calls, 0, sizeof (caller_calls));
  pthread_mutex_unlock (&lock);
}

/* the threads that called, with their calls; returns how many */
EXPORT unsigned
fake_nvml_callers (int *tids, unsigned long *calls, unsigned max)
{
  unsigned n;

  pthread_mutex_lock (&lock);
  for (n = 0; n < MAX_CALLERS && caller_tids[n]; n++)
    if (n < max) {
      tids[n] = caller_tids[n];
      calls[n] = caller_calls[n];
    }
  pthread_mutex_unlock (&lock);
  return n < max ? n : max;
}

/* FAKE_NVML_REPORT: the calls, for a test of another process */
static void write_report (void) __attribute__ ((destructor));

static void
write_report (void)
{
  const char *path = getenv ("FAKE_NVML_REPORT");
  FILE *f;
  int i;

  if (!path || !(f = fopen (path, "w")))
    return;
  for (i = 0; i < MAX_FUNCS && func_names[i]; i++)
    fprintf (f, "%s %lu\n", func_names[i], func_calls[i]);
  for (i = 0; i < MAX_CALLERS && caller_tids[i]; i++)
    fprintf (f, "caller %d %lu\n", caller_tids[i], caller_calls[i]);
  fclose (f);
}
