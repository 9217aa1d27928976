/* gst-avhw benchmark helper: where a process's CUDA driver and NVDEC time
 * goes.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * An LD_PRELOAD library. FFmpeg (ffnvcodec's loader), GStreamer's nvcodec
 * and the cuda backend all open libcuda and libnvcuvid with dlopen() and
 * take each function with dlsym(); this library puts itself in front of
 * dlsym() and hands out a timing wrapper for the calls listed below. At
 * exit it prints to stderr, per function called: calls, total ms, max ms,
 * and the process's wall time (children such as gst-plugin-scanner inherit
 * LD_PRELOAD and print their own rows):
 *
 *   CU-TIME label=L process=P fn=cuvidCreateDecoder calls=N total_ms=T max_ms=M
 *   CU-TIME label=L process=P wall_ms=W
 *
 * CU_TIME_TRACE=US also prints each call that took US microseconds or
 * more as it returns, with its end time in ms since the library loaded and
 * its thread:
 *
 *   CU-CALL t_ms=1234.567 tid=42 fn=cuvidDestroyDecoder ms=12.345
 *
 * dlopen_nvidia and dlclose_nvidia are the opening and closing of NVIDIA's
 * libraries (a name with cuda, cuvid or nvidia in it).
 * CU_TIME_LABEL names the rows; CU_TIME_OUT=FILE appends them to FILE.
 * Every wrapped function takes only integer and pointer arguments (at most
 * six, so all of them in registers on x86-64 and aarch64; cuLaunchKernel,
 * with eleven, is left out), which is what
 * lets one wrapper shape forward any of them.
 *
 *   LD_PRELOAD=.../libavhw-cu-time.so CU_TIME_TRACE=1000 gst-launch-1.0 ...
 */
#include "preload-timer.h"

#include <stdint.h>
#include <string.h>

typedef int (*Fn) (uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t,
    uintptr_t);

#define FUNCTIONS(X) \
  X (cuvidCreateDecoder) X (cuvidDestroyDecoder) X (cuvidReconfigureDecoder) \
  X (cuvidGetDecoderCaps) X (cuvidDecodePicture) X (cuvidGetDecodeStatus) \
  X (cuvidMapVideoFrame64) X (cuvidUnmapVideoFrame64) \
  X (cuvidCtxLockCreate) X (cuvidCtxLockDestroy) \
  X (cuInit) X (cuCtxCreate_v2) X (cuCtxDestroy_v2) \
  X (cuDevicePrimaryCtxRetain) X (cuDevicePrimaryCtxRelease_v2) \
  X (cuDevicePrimaryCtxRelease) X (cuDevicePrimaryCtxSetFlags_v2) \
  X (cuCtxPushCurrent_v2) X (cuCtxPopCurrent_v2) X (cuCtxSynchronize) \
  X (cuStreamCreate) X (cuStreamDestroy_v2) X (cuStreamSynchronize) \
  X (cuEventSynchronize) X (cuEventRecord) \
  X (cuMemAlloc_v2) X (cuMemAllocPitch_v2) X (cuMemFree_v2) \
  X (cuMemAllocHost_v2) X (cuMemFreeHost) X (cuMemHostRegister_v2) \
  X (cuMemcpy2D_v2) X (cuMemcpy2DAsync_v2) X (cuMemcpyDtoH_v2) \
  X (cuMemcpyHtoD_v2) X (cuMemsetD8Async) \
  X (cuModuleLoadData) X (cuModuleLoadDataEx) \
  X (cuGraphicsMapResources) X (cuGraphicsUnmapResources) \
  X (dlopen_nvidia) X (dlclose_nvidia)

enum
{
  FUNCTIONS (PT_ENUM_ENTRY) N_FUNCTIONS
};

static const char *const names[N_FUNCTIONS] = { FUNCTIONS (PT_NAME_ENTRY) };

static Fn real_fn[N_FUNCTIONS];
static PtCount counts[N_FUNCTIONS];
static long long t_load, trace_ns = -1;

static void
account (int i, long long t0)
{
  pt_count (&counts[i], t0, trace_ns, t_load, "CU-CALL", names[i]);
}

#define WRAP(name) \
  static int wrap_##name (uintptr_t a, uintptr_t b, uintptr_t c, \
      uintptr_t d, uintptr_t e, uintptr_t f) \
  { \
    long long t0 = pt_now_ns (); \
    int ret = real_fn[F_##name] (a, b, c, d, e, f); \
    account (F_##name, t0); \
    return ret; \
  }
FUNCTIONS (WRAP)
#undef WRAP
     static const Fn wrappers[N_FUNCTIONS] = {
#define WRAPPER(name) wrap_##name,
       FUNCTIONS (WRAPPER)
#undef WRAPPER
     };

static void *(*real_dlsym) (void *, const char *);
static void *(*real_dlopen) (const char *, int);
static int (*real_dlclose) (void *);

/* handles dlopen() gave for NVIDIA's libraries (libcuda, libnvcuvid...):
 * their opening and closing are timed as dlopen_nvidia, dlclose_nvidia */
#define MAX_HANDLES 64
static void *_Atomic handles[MAX_HANDLES];

__attribute__((constructor))
     static void load (void)
{
  const char *t = getenv ("CU_TIME_TRACE");

  t_load = pt_now_ns ();
  if (t && *t)
    trace_ns = atoll (t) * 1000LL;
  real_dlsym = pt_real_dlsym ();
  real_dlopen = dlvsym (RTLD_NEXT, "dlopen", "GLIBC_2.34");
  if (!real_dlopen)
    real_dlopen = dlvsym (RTLD_NEXT, "dlopen", "GLIBC_2.2.5");
  real_dlclose = dlvsym (RTLD_NEXT, "dlclose", "GLIBC_2.34");
  if (!real_dlclose)
    real_dlclose = dlvsym (RTLD_NEXT, "dlclose", "GLIBC_2.2.5");
  if (!real_dlsym || !real_dlopen || !real_dlclose) {
    fprintf (stderr, "cu-time: cannot find the real dlsym/dlopen/dlclose\n");
    abort ();
  }
}

void *
dlopen (const char *file, int mode)
{
  long long t0 = pt_now_ns ();
  void *h;
  int i;

  if (!real_dlopen)
    load ();
  h = real_dlopen (file, mode);
  if (!h || !file || (!strstr (file, "cuda") && !strstr (file, "cuvid")
          && !strstr (file, "nvidia")))
    return h;
  account (F_dlopen_nvidia, t0);
  for (i = 0; i < MAX_HANDLES; i++) {
    void *none = NULL;

    if (atomic_load (&handles[i]) == h
        || atomic_compare_exchange_strong (&handles[i], &none, h))
      break;
  }
  return h;
}

int
dlclose (void *handle)
{
  long long t0 = pt_now_ns ();
  int ret, i;

  if (!real_dlclose)
    load ();
  ret = real_dlclose (handle);

  for (i = 0; i < MAX_HANDLES; i++) {
    if (atomic_load (&handles[i]) == handle) {
      account (F_dlclose_nvidia, t0);
      break;
    }
  }
  return ret;
}

void *
dlsym (void *handle, const char *symbol)
{
  void *p = real_dlsym (handle, symbol);
  int i;

  if (!p || strncmp (symbol, "cu", 2) != 0)
    return p;
  for (i = 0; i < N_FUNCTIONS; i++) {
    if (strcmp (symbol, names[i]) == 0) {
      /* one library per name in a process: the first one found stays */
      if (!real_fn[i])
        real_fn[i] = (Fn) p;
      return real_fn[i] == (Fn) p ? (void *) wrappers[i] : p;
    }
  }
  return p;
}

__attribute__((destructor))
     static void report (void)
{
  pt_report ("CU-TIME", "CU_TIME_LABEL", "CU_TIME_OUT", names, counts,
      N_FUNCTIONS, t_load);
}
