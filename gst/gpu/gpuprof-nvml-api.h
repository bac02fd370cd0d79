/* gpuprof: the part of NVIDIA's NVML API that gpuprof uses, declared here
 * (no nvml.h needed to build), written from NVIDIA's public NVML reference
 * (docs.nvidia.com/deploy/nvml-api): the same names, values and layouts as
 * nvml.h, API version 12/13. Plain C, no GLib: the fake library of the
 * tests (tests/gpu/fake-nvml.c) defines these functions from it.
 *
 * gpuprof never links libnvidia-ml: gpuprof-nvml.c loads it at run time and
 * takes each function's type from the prototypes below (__typeof__). */
#pragma once

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum nvmlReturn_enum
{
  NVML_SUCCESS = 0,
  NVML_ERROR_UNINITIALIZED = 1,
  NVML_ERROR_INVALID_ARGUMENT = 2,
  NVML_ERROR_NOT_SUPPORTED = 3,
  NVML_ERROR_NO_PERMISSION = 4,
  NVML_ERROR_ALREADY_INITIALIZED = 5,
  NVML_ERROR_NOT_FOUND = 6,
  NVML_ERROR_INSUFFICIENT_SIZE = 7,
  NVML_ERROR_INSUFFICIENT_POWER = 8,
  NVML_ERROR_DRIVER_NOT_LOADED = 9,
  NVML_ERROR_TIMEOUT = 10,
  NVML_ERROR_IRQ_ISSUE = 11,
  NVML_ERROR_LIBRARY_NOT_FOUND = 12,
  NVML_ERROR_FUNCTION_NOT_FOUND = 13,
  NVML_ERROR_CORRUPTED_INFOROM = 14,
  NVML_ERROR_GPU_IS_LOST = 15,
  NVML_ERROR_RESET_REQUIRED = 16,
  NVML_ERROR_OPERATING_SYSTEM = 17,
  NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,
  NVML_ERROR_IN_USE = 19,
  NVML_ERROR_MEMORY = 20,
  NVML_ERROR_NO_DATA = 21,
  NVML_ERROR_UNKNOWN = 999
} nvmlReturn_t;

typedef struct nvmlDevice_st *nvmlDevice_t;

#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE 32
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE 16

/* percent of the last sample period (1/6 s to 1 s by product) during which
 * one or more kernels ran (gpu) / device memory was read or written */
typedef struct nvmlUtilization_st
{
  unsigned int gpu;
  unsigned int memory;
} nvmlUtilization_t;

/* bytes */
typedef struct nvmlMemory_st
{
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
} nvmlMemory_t;

/* nvmlDeviceGetPciInfo_v3 */
typedef struct nvmlPciInfo_st
{
  char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];       /* "00000000:3B:00.0" */
} nvmlPciInfo_t;

/* one process's utilisation in one sample; timeStamp: CPU time in µs */
typedef struct nvmlProcessUtilizationSample_st
{
  unsigned int pid;
  unsigned long long timeStamp;
  unsigned int smUtil;
  unsigned int memUtil;
  unsigned int encUtil;
  unsigned int decUtil;
} nvmlProcessUtilizationSample_t;

typedef enum nvmlClockType_enum
{
  NVML_CLOCK_GRAPHICS = 0,
  NVML_CLOCK_SM = 1,
  NVML_CLOCK_MEM = 2,
  NVML_CLOCK_VIDEO = 3
} nvmlClockType_t;

/* KB/s over a 20 ms window the call waits for */
typedef enum nvmlPcieUtilCounter_enum
{
  NVML_PCIE_UTIL_TX_BYTES = 0,
  NVML_PCIE_UTIL_RX_BYTES = 1
} nvmlPcieUtilCounter_t;

/* nvmlDeviceGetCurrentClocksEventReasons (formerly ...ThrottleReasons) */
#define nvmlClocksEventReasonGpuIdle                   0x0000000000000001ULL
#define nvmlClocksEventReasonApplicationsClocksSetting 0x0000000000000002ULL
#define nvmlClocksEventReasonSwPowerCap                0x0000000000000004ULL
#define nvmlClocksThrottleReasonHwSlowdown             0x0000000000000008ULL
#define nvmlClocksEventReasonSyncBoost                 0x0000000000000010ULL
#define nvmlClocksEventReasonSwThermalSlowdown         0x0000000000000020ULL
#define nvmlClocksThrottleReasonHwThermalSlowdown      0x0000000000000040ULL
#define nvmlClocksThrottleReasonHwPowerBrakeSlowdown   0x0000000000000080ULL
#define nvmlClocksEventReasonDisplayClockSetting       0x0000000000000100ULL

/* the layouts nvml.h has (x86-64 and aarch64 Linux) */
_Static_assert (sizeof (nvmlPciInfo_t) == 68, "nvmlPciInfo_t");
_Static_assert (offsetof (nvmlPciInfo_t, busId) == 36, "nvmlPciInfo_t");
_Static_assert (sizeof (nvmlProcessUtilizationSample_t) == 32,
    "nvmlProcessUtilizationSample_t");
_Static_assert (offsetof (nvmlProcessUtilizationSample_t, smUtil) == 16,
    "nvmlProcessUtilizationSample_t");
_Static_assert (sizeof (nvmlMemory_t) == 24, "nvmlMemory_t");

nvmlReturn_t nvmlInit_v2 (void);
nvmlReturn_t nvmlShutdown (void);
const char *nvmlErrorString (nvmlReturn_t result);
nvmlReturn_t nvmlDeviceGetCount_v2 (unsigned int *deviceCount);
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2 (unsigned int index,
    nvmlDevice_t * device);
nvmlReturn_t nvmlDeviceGetName (nvmlDevice_t device, char *name,
    unsigned int length);
nvmlReturn_t nvmlDeviceGetUUID (nvmlDevice_t device, char *uuid,
    unsigned int length);
nvmlReturn_t nvmlDeviceGetPciInfo_v3 (nvmlDevice_t device,
    nvmlPciInfo_t * pci);
nvmlReturn_t nvmlDeviceGetUtilizationRates (nvmlDevice_t device,
    nvmlUtilization_t * utilization);
nvmlReturn_t nvmlDeviceGetDecoderUtilization (nvmlDevice_t device,
    unsigned int *utilization, unsigned int *samplingPeriodUs);
nvmlReturn_t nvmlDeviceGetEncoderUtilization (nvmlDevice_t device,
    unsigned int *utilization, unsigned int *samplingPeriodUs);
nvmlReturn_t nvmlDeviceGetMemoryInfo (nvmlDevice_t device,
    nvmlMemory_t * memory);
nvmlReturn_t nvmlDeviceGetClockInfo (nvmlDevice_t device,
    nvmlClockType_t type, unsigned int *clock);
nvmlReturn_t nvmlDeviceGetMaxClockInfo (nvmlDevice_t device,
    nvmlClockType_t type, unsigned int *clock);
nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons (nvmlDevice_t device,
    unsigned long long *clocksEventReasons);
nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons (nvmlDevice_t device,
    unsigned long long *clocksThrottleReasons);
nvmlReturn_t nvmlDeviceGetPcieThroughput (nvmlDevice_t device,
    nvmlPcieUtilCounter_t counter, unsigned int *value);
nvmlReturn_t nvmlDeviceGetProcessUtilization (nvmlDevice_t device,
    nvmlProcessUtilizationSample_t * utilization,
    unsigned int *processSamplesCount, unsigned long long lastSeenTimeStamp);

#ifdef __cplusplus
}
#endif
