/* gst-avhw benchmarks: shared helpers (clock, CPU time, device memory)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Device memory comes from NVML (libnvidia-ml.so.1) and the CUDA primary
 * context state from the driver (libcuda.so.1), both loaded at run time with
 * dlopen: the benchmarks build and run without an NVIDIA driver and then
 * report memory as unknown. NVML needs no CUDA context, so reading it does
 * not change what is measured.
 */
#pragma once

#include <dlfcn.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <glib.h>

static inline gdouble
bench_now_s (void)
{
  return g_get_monotonic_time () / 1e6;
}

/* user + system CPU seconds of this process */
static inline gdouble
bench_cpu_s (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
      ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* resident set size in MiB, from /proc/self/statm */
static inline gdouble
bench_rss_mib (void)
{
  gchar *s = NULL;
  gulong size = 0, rss = 0;

  if (g_file_get_contents ("/proc/self/statm", &s, NULL, NULL))
    sscanf (s, "%lu %lu", &size, &rss);
  g_free (s);
  return rss * (gdouble) sysconf (_SC_PAGESIZE) / (1 << 20);
}

/* ---------------------------------------------------------------- NVML */

typedef struct
{
  unsigned long long total, free, used;
} BenchNvmlMemory;

/* nvmlProcessInfo_t as nvmlDeviceGetComputeRunningProcesses_v3 fills it */
typedef struct
{
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
} BenchNvmlProcessInfo;

typedef struct
{
  gboolean ok;
  void *dev;
  int (*get_memory) (void *dev, BenchNvmlMemory * mem);
  int (*get_procs) (void *dev, unsigned int *count,
      BenchNvmlProcessInfo * infos);
} BenchNvml;

static BenchNvml bench_nvml;

/* Opens NVML for GPU @index; FALSE (memory reported as unknown) without it. */
static inline gboolean
bench_nvml_init (guint index)
{
  void *lib;
  int (*init) (void);
  int (*get_handle) (unsigned int, void **);

  if (bench_nvml.ok)
    return TRUE;
  lib = dlopen ("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return FALSE;
  init = (int (*)(void)) dlsym (lib, "nvmlInit_v2");
  get_handle = (int (*)(unsigned int, void **)) dlsym (lib,
      "nvmlDeviceGetHandleByIndex_v2");
  bench_nvml.get_memory = (int (*)(void *, BenchNvmlMemory *)) dlsym (lib,
      "nvmlDeviceGetMemoryInfo");
  bench_nvml.get_procs = (int (*)(void *, unsigned int *,
          BenchNvmlProcessInfo *)) dlsym (lib,
      "nvmlDeviceGetComputeRunningProcesses_v3");
  if (!init || !get_handle || !bench_nvml.get_memory || init () != 0
      || get_handle (index, &bench_nvml.dev) != 0)
    return FALSE;
  bench_nvml.ok = TRUE;
  return TRUE;
}

/* Device memory used on the whole GPU, MiB; -1 when unknown. */
static inline gdouble
bench_gpu_used_mib (void)
{
  BenchNvmlMemory m;

  if (!bench_nvml.ok || bench_nvml.get_memory (bench_nvml.dev, &m) != 0)
    return -1;
  return m.used / (gdouble) (1 << 20);
}

/* Device memory this process holds, MiB (0 with no CUDA context); -1 when
 * NVML cannot say. */
static inline gdouble
bench_proc_used_mib (void)
{
  BenchNvmlProcessInfo infos[64];
  unsigned int n = G_N_ELEMENTS (infos), i;
  unsigned int pid = (unsigned int) getpid ();

  if (!bench_nvml.ok || !bench_nvml.get_procs)
    return -1;
  memset (infos, 0, sizeof (infos));
  if (bench_nvml.get_procs (bench_nvml.dev, &n, infos) != 0)
    return -1;
  for (i = 0; i < n && i < G_N_ELEMENTS (infos); i++)
    if (infos[i].pid == pid)
      return infos[i].usedGpuMemory / (gdouble) (1 << 20);
  return 0;
}

/* ---------------------------------------------------------------- CUDA */

/* 1 when GPU @index's primary context is active (retained by someone in
 * this process), 0 when not, -1 when unknown. Needs no context. */
static inline gint
bench_cuda_primary_active (guint index)
{
  static void *lib;
  static int (*get_state) (int, unsigned int *, int *);
  static int (*dev_get) (int *, int);
  unsigned int flags = 0;
  int active = 0, dev = 0;

  if (!lib) {
    int (*cu_init) (unsigned int);

    lib = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
      return -1;
    cu_init = (int (*)(unsigned int)) dlsym (lib, "cuInit");
    dev_get = (int (*)(int *, int)) dlsym (lib, "cuDeviceGet");
    get_state = (int (*)(int, unsigned int *, int *)) dlsym (lib,
        "cuDevicePrimaryCtxGetState_v2");
    if (!get_state)
      get_state = (int (*)(int, unsigned int *, int *)) dlsym (lib,
          "cuDevicePrimaryCtxGetState");
    if (!cu_init || !dev_get || !get_state || cu_init (0) != 0) {
      get_state = NULL;
      return -1;
    }
  }
  if (!get_state || dev_get (&dev, (int) index) != 0
      || get_state (dev, &flags, &active) != 0)
    return -1;
  return active ? 1 : 0;
}

/* "12.3" or "-" */
static inline gchar *
bench_fmt (gdouble v, const gchar * fmt)
{
  return v < 0 ? g_strdup ("-") : g_strdup_printf (fmt, v);
}
