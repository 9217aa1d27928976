/* gst-avhw benchmark helper: where a process's Vulkan time goes.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * An LD_PRELOAD library, the Vulkan twin of cu-time.c. FFmpeg, libplacebo,
 * GStreamer's vulkan library and the vulkan backend take Vulkan functions
 * from the loader by name (vkGetInstanceProcAddr, vkGetDeviceProcAddr,
 * dlsym) or call the loader's exports; this library puts itself in front
 * of all three and hands out a timing wrapper for the calls listed below.
 * At exit it prints to stderr, per function called: calls, total ms, max
 * ms, and the process's wall time:
 *
 *   VK-TIME label=L process=P fn=vkWaitSemaphores calls=N total_ms=T max_ms=M
 *   VK-TIME label=L process=P wall_ms=W
 *
 * VK_TIME_TRACE=US also prints each call that took US microseconds or
 * more as it returns (end time in ms since the library loaded, thread):
 *
 *   VK-CALL t_ms=1234.567 tid=42 fn=vkCreateDevice ms=12.345
 *
 * SIGUSR2 prints every call in progress, with its thread and for how long
 * (a stalled process: which threads wait in which Vulkan call), then every
 * thread's stack (glibc's backtrace(), frames as "library(+offset)": the
 * GPU machine has no gdb; addr2line on the unstripped library names them):
 *
 *   VK-PENDING tid=42 fn=vkWaitSemaphores ms=60123.4 arg1=0x... arg2=0x...
 *   VK-STACK tid=42
 *   /tmp/gpubundle/lib/libavcodec.so.61(+0x1a2b3c)[0x7f...]
 *
 * VK_TIME_SYNC=1 adds, after the pending calls, the timeline semaphores
 * the GPU waits on and the queries a pending vkGetQueryPoolResults asks
 * for (vk-sync.c: a wait nothing will ever signal).
 *
 * VK_TIME_LABEL names the rows; VK_TIME_OUT=FILE appends them to FILE.
 * Every wrapped function takes at most six integer or pointer arguments,
 * so one wrapper shape forwards any of them; void functions' "result" is
 * ignored by their callers.
 *
 *   LD_PRELOAD=.../libavhw-vk-time.so VK_TIME_TRACE=5000 gst-launch-1.0 ...
 */
#include "preload-timer.h"
#include "vk-sync.h"

#include <dirent.h>
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>

typedef int (*Fn) (uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t,
    uintptr_t);
typedef void *(*GetProc) (void *, const char *);

#define FUNCTIONS(X) \
  X (vkCreateInstance) X (vkDestroyInstance) X (vkEnumeratePhysicalDevices) \
  X (vkCreateDevice) X (vkDestroyDevice) X (vkDeviceWaitIdle) \
  X (vkQueueSubmit) X (vkQueueSubmit2) X (vkQueueSubmit2KHR) \
  X (vkQueueWaitIdle) X (vkWaitSemaphores) X (vkWaitSemaphoresKHR) \
  X (vkWaitForFences) X (vkGetFenceStatus) X (vkResetFences) \
  X (vkGetSemaphoreCounterValue) X (vkSignalSemaphore) \
  X (vkCreateSemaphore) X (vkDestroySemaphore) \
  X (vkAllocateMemory) X (vkFreeMemory) X (vkMapMemory) \
  X (vkCreateImage) X (vkDestroyImage) X (vkBindImageMemory2) \
  X (vkCreateImageView) X (vkDestroyImageView) \
  X (vkCreateBuffer) X (vkDestroyBuffer) \
  X (vkCreateCommandPool) X (vkAllocateCommandBuffers) \
  X (vkBeginCommandBuffer) X (vkEndCommandBuffer) \
  X (vkCreateShaderModule) X (vkCreateComputePipelines) \
  X (vkCreateGraphicsPipelines) X (vkCreateShadersEXT) \
  X (vkCreateVideoSessionKHR) X (vkDestroyVideoSessionKHR) \
  X (vkBindVideoSessionMemoryKHR) X (vkCreateVideoSessionParametersKHR) \
  X (vkDestroyVideoSessionParametersKHR) \
  X (vkGetPhysicalDeviceVideoCapabilitiesKHR) \
  X (vkCmdResetQueryPool) X (vkCmdBeginQuery)
/* taking more than six arguments: wrapped by hand below */
#define FUNCTIONS8(X) X (vkGetQueryPoolResults)

enum
{
  FUNCTIONS (PT_ENUM_ENTRY) FUNCTIONS8 (PT_ENUM_ENTRY) N_FUNCTIONS
};

static const char *const names[N_FUNCTIONS] = { FUNCTIONS (PT_NAME_ENTRY)
      FUNCTIONS8 (PT_NAME_ENTRY)
};

/* the loader's exports (called by symbol), and the functions the
 * proc-addr calls gave (the driver's, or the loader's trampolines), as
 * atomic_uintptr_t: Fn pointers */
static atomic_uintptr_t real_export[N_FUNCTIONS];
static atomic_uintptr_t real_proc[N_FUNCTIONS];
static PtCount counts[N_FUNCTIONS];
static long long t_load, trace_ns = -1;

/* calls in progress, for SIGUSR2 */
#define SLOTS 256
typedef struct
{
  atomic_long tid;
  atomic_int fn;
  atomic_llong t0;
  uintptr_t a, b;
} Pending;
static Pending pending[SLOTS];

static void *(*real_dlsym) (void *, const char *);
static GetProc real_gipa, real_gdpa;

static int
enter (int i, long long t0, uintptr_t a, uintptr_t b)
{
  long tid = (long) syscall (SYS_gettid);
  int s;

  for (s = 0; s < SLOTS; s++) {
    long none = 0;

    if (atomic_compare_exchange_strong (&pending[s].tid, &none, tid)) {
      pending[s].a = a;
      pending[s].b = b;
      atomic_store (&pending[s].t0, t0);
      atomic_store (&pending[s].fn, i);
      return s;
    }
  }
  return -1;
}

static void
leave (int i, int slot, long long t0)
{
  if (slot >= 0)
    atomic_store (&pending[slot].tid, 0);
  pt_count (&counts[i], t0, trace_ns, t_load, "VK-CALL", names[i]);
}

/* every thread's stack, one thread at a time (a spin lock: these run in
 * signal handlers) */
static atomic_int stack_lock, stacks_done;

static void
print_own_stack (void)
{
  void *frames[48];
  char line[64];
  int n = backtrace (frames, 48), len;

  while (atomic_exchange (&stack_lock, 1));
  len = snprintf (line, sizeof (line), "VK-STACK tid=%ld\n",
      (long) syscall (SYS_gettid));
  if (len > 0 && write (2, line, (size_t) len) < 0)
    len = 0;
  backtrace_symbols_fd (frames, n, 2);
  atomic_store (&stack_lock, 0);
}

static void
on_stack_signal (int sig)
{
  (void) sig;
  print_own_stack ();
  atomic_fetch_add (&stacks_done, 1);
}

/* signals every other thread of the process (read from /proc/self/task
 * with getdents64, which a signal handler may call) to print its stack,
 * and waits up to 2 s for them */
static void
all_stacks (void)
{
  char buf[4096];
  long self = (long) syscall (SYS_gettid);
  int fd = open ("/proc/self/task", O_RDONLY | O_DIRECTORY), sent = 0, i;
  long n;

  if (fd < 0)
    return;
  atomic_store (&stacks_done, 0);
  while ((n = syscall (SYS_getdents64, fd, buf, sizeof (buf))) > 0) {
    long off = 0;

    while (off < n) {
      struct dirent64 *d = (struct dirent64 *) (buf + off);
      long tid = atol (d->d_name);

      off += d->d_reclen;
      if (tid > 0 && tid != self
          && syscall (SYS_tgkill, (long) getpid (), tid, SIGRTMIN + 4) == 0)
        sent++;
    }
  }
  close (fd);
  print_own_stack ();
  for (i = 0; i < 200 && atomic_load (&stacks_done) < sent; i++) {
    struct timespec ts = { 0, 10000000 };

    nanosleep (&ts, NULL);
  }
}

static Fn export_of (int i);

/* the real vkGetSemaphoreCounterValue, for vk_sync_dump() */
static int
counter_value (uintptr_t dev, uint64_t sem, uint64_t * v)
{
  Fn f = export_of (F_vkGetSemaphoreCounterValue);

  return f ? f (dev, (uintptr_t) sem, (uintptr_t) v, 0, 0, 0) : -1;
}

static void
on_sigusr2 (int sig)
{
  long long t = pt_now_ns ();
  char line[256];
  int s, n;

  (void) sig;
  for (s = 0; s < SLOTS; s++) {
    long tid = atomic_load (&pending[s].tid);

    if (!tid)
      continue;
    n = snprintf (line, sizeof (line), "VK-PENDING tid=%ld fn=%s ms=%.1f "
        "arg1=%#lx arg2=%#lx\n", tid, names[atomic_load (&pending[s].fn)],
        (t - atomic_load (&pending[s].t0)) / 1e6,
        (unsigned long) pending[s].a, (unsigned long) pending[s].b);
    if (n > 0 && write (2, line, (size_t) n) < 0)
      break;
  }
  n = snprintf (line, sizeof (line), "VK-PENDING end\n");
  if (write (2, line, (size_t) n) < 0)
    return;
  if (vk_sync_enabled ()) {
    for (s = 0; s < SLOTS; s++)
      if (atomic_load (&pending[s].tid)
          && atomic_load (&pending[s].fn) == F_vkGetQueryPoolResults)
        vk_sync_dump_queries (pending[s].a, (uint32_t) pending[s].b,
            (uint32_t) (pending[s].b >> 32));
    vk_sync_dump (counter_value);
  }
  all_stacks ();
  n = snprintf (line, sizeof (line), "VK-STACK end\n");
  if (write (2, line, (size_t) n) < 0)
    return;
}

static Fn
export_of (int i)
{
  Fn f = (Fn) atomic_load (&real_export[i]);

  if (!f) {
    void *h;

    f = (Fn) real_dlsym (RTLD_NEXT, names[i]);
    if (!f && (h = dlopen ("libvulkan.so.1", RTLD_NOW | RTLD_NOLOAD)))
      f = (Fn) real_dlsym (h, names[i]);
    atomic_store (&real_export[i], (uintptr_t) f);
  }
  return f;
}

/* what vk-sync.c keeps (VK_TIME_SYNC) learns of a call that returned */
static void
observe (int i, uintptr_t a, uintptr_t b, uintptr_t c, uintptr_t d, int ret)
{
  if (!vk_sync_enabled ())
    return;
  switch (i) {
    case F_vkCreateSemaphore:
      if (ret == 0)
        vk_sync_created (a, (const void *) b, *(const uint64_t *) d);
      break;
    case F_vkDestroySemaphore:
      vk_sync_destroyed ((uint64_t) b);
      break;
    case F_vkQueueSubmit:
      if (ret == 0)
        vk_sync_submit (a, (uint32_t) b, (const void *) c);
      break;
    case F_vkQueueSubmit2:
    case F_vkQueueSubmit2KHR:
      if (ret == 0)
        vk_sync_submit2 (a, (uint32_t) b, (const void *) c);
      break;
    case F_vkSignalSemaphore:
      if (ret == 0)
        vk_sync_host_signal ((const void *) b);
      break;
    case F_vkCmdResetQueryPool:
      vk_sync_query ((uint64_t) b, (uint32_t) c, (uint32_t) d, 0);
      break;
    case F_vkCmdBeginQuery:
      vk_sync_query ((uint64_t) b, (uint32_t) c, 1, 1);
      break;
    default:
      break;
  }
}

/* the exported wrappers' prototypes (the loader's names, this library's
 * argument shape) */
#define PROTO(name) \
  int name (uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t);
FUNCTIONS (PROTO)
#undef PROTO
#define WRAP(name) \
  static int proc_##name (uintptr_t a, uintptr_t b, uintptr_t c, \
      uintptr_t d, uintptr_t e, uintptr_t f) \
  { \
    long long t0 = pt_now_ns (); \
    int slot = enter (F_##name, t0, a, b); \
    int ret = ((Fn) atomic_load (&real_proc[F_##name])) (a, b, c, d, e, f); \
    leave (F_##name, slot, t0); \
    observe (F_##name, a, b, c, d, ret); \
    return ret; \
  } \
  int name (uintptr_t a, uintptr_t b, uintptr_t c, uintptr_t d, \
      uintptr_t e, uintptr_t f) \
  { \
    long long t0 = pt_now_ns (); \
    Fn real = export_of (F_##name); \
    int slot, ret; \
    if (!real) \
      abort (); \
    slot = enter (F_##name, t0, a, b); \
    ret = real (a, b, c, d, e, f); \
    leave (F_##name, slot, t0); \
    observe (F_##name, a, b, c, d, ret); \
    return ret; \
  }
    FUNCTIONS (WRAP)
#undef WRAP
/* vkGetQueryPoolResults: eight arguments; pending with the pool and
 * (first query | count << 32) */
     typedef int (*Fn8) (uintptr_t, uintptr_t, uint32_t, uint32_t, size_t,
    void *, uint64_t, uint32_t);

     static int
         call8 (Fn8 real, uintptr_t dev, uintptr_t pool, uint32_t first,
    uint32_t count, size_t size, void *data, uint64_t stride, uint32_t flags)
{
  long long t0 = pt_now_ns ();
  int slot = enter (F_vkGetQueryPoolResults, t0, pool,
      (uintptr_t) first | ((uintptr_t) count << 32));
  int ret = real (dev, pool, first, count, size, data, stride, flags);

  leave (F_vkGetQueryPoolResults, slot, t0);
  return ret;
}

int vkGetQueryPoolResults (uintptr_t, uintptr_t, uint32_t, uint32_t, size_t,
    void *, uint64_t, uint32_t);
int
vkGetQueryPoolResults (uintptr_t dev, uintptr_t pool, uint32_t first,
    uint32_t count, size_t size, void *data, uint64_t stride, uint32_t flags)
{
  Fn8 real = (Fn8) (void (*)(void)) export_of (F_vkGetQueryPoolResults);

  if (!real)
    abort ();
  return call8 (real, dev, pool, first, count, size, data, stride, flags);
}

static int
proc_vkGetQueryPoolResults (uintptr_t dev, uintptr_t pool, uint32_t first,
    uint32_t count, size_t size, void *data, uint64_t stride, uint32_t flags)
{
  return call8 ((Fn8) atomic_load (&real_proc[F_vkGetQueryPoolResults]), dev,
      pool, first, count, size, data, stride, flags);
}

/* the wrappers, as void pointers: the eight-argument one has another
 * shape */
static void *const proc_wrappers[N_FUNCTIONS] = {
#define WRAPPER(name) (void *) proc_##name,
  FUNCTIONS (WRAPPER) FUNCTIONS8 (WRAPPER)
#undef WRAPPER
};

static void *const export_wrappers[N_FUNCTIONS] = {
#define WRAPPER(name) (void *) name,
  FUNCTIONS (WRAPPER) FUNCTIONS8 (WRAPPER)
#undef WRAPPER
};

void *vkGetInstanceProcAddr (void *instance, const char *name);
void *vkGetDeviceProcAddr (void *device, const char *name);

/* @p, the real function called @name, or the wrapper to hand out instead */
static void *
wrap_proc (const char *name, void *p)
{
  int i;

  if (!p || strncmp (name, "vk", 2) != 0)
    return p;
  if (!strcmp (name, "vkGetInstanceProcAddr"))
    return (void *) vkGetInstanceProcAddr;
  if (!strcmp (name, "vkGetDeviceProcAddr"))
    return (void *) vkGetDeviceProcAddr;
  for (i = 0; i < N_FUNCTIONS; i++) {
    if (strcmp (name, names[i]) == 0) {
      uintptr_t none = 0;

      /* what the loader exports (the core functions) goes through its
       * trampoline, which serves every instance and device */
      if (export_of (i))
        return export_wrappers[i];
      /* an extension's: one driver per process, the first function found
       * stays */
      atomic_compare_exchange_strong (&real_proc[i], &none, (uintptr_t) p);
      return atomic_load (&real_proc[i]) == (uintptr_t) p ?
          proc_wrappers[i] : p;
    }
  }
  return p;
}

/* the loader's two entry points, from wherever it is: the global scope,
 * or (loaded by a plugin with local binding) its own handle */
static void
find_loader (void)
{
  void *h;

  if (real_gipa && real_gdpa)
    return;
  if (!real_gipa)
    real_gipa = (GetProc) real_dlsym (RTLD_NEXT, "vkGetInstanceProcAddr");
  if (!real_gdpa)
    real_gdpa = (GetProc) real_dlsym (RTLD_NEXT, "vkGetDeviceProcAddr");
  if ((!real_gipa || !real_gdpa)
      && (h = dlopen ("libvulkan.so.1", RTLD_NOW))) {
    if (!real_gipa)
      real_gipa = (GetProc) real_dlsym (h, "vkGetInstanceProcAddr");
    if (!real_gdpa)
      real_gdpa = (GetProc) real_dlsym (h, "vkGetDeviceProcAddr");
  }
}

void *
vkGetInstanceProcAddr (void *instance, const char *name)
{
  find_loader ();
  return real_gipa ? wrap_proc (name, real_gipa (instance, name)) : NULL;
}

void *
vkGetDeviceProcAddr (void *device, const char *name)
{
  find_loader ();
  return real_gdpa ? wrap_proc (name, real_gdpa (device, name)) : NULL;
}

__attribute__((constructor))
     static void load (void)
{
  const char *t = getenv ("VK_TIME_TRACE");
  struct sigaction sa;

  if (real_dlsym)
    return;
  t_load = pt_now_ns ();
  if (t && *t)
    trace_ns = atoll (t) * 1000LL;
  real_dlsym = pt_real_dlsym ();
  if (!real_dlsym) {
    fprintf (stderr, "vk-time: cannot find the real dlsym\n");
    abort ();
  }
  memset (&sa, 0, sizeof (sa));
  sa.sa_handler = on_sigusr2;
  sa.sa_flags = SA_RESTART;
  sigaction (SIGUSR2, &sa, NULL);
  sa.sa_handler = on_stack_signal;
  sigaction (SIGRTMIN + 4, &sa, NULL);
  {
    /* backtrace() loads libgcc_s at its first call: not in a handler */
    void *f[2];

    backtrace (f, 2);
  }
}

/* a program or library that takes the loader's entry points with dlsym()
 * (FFmpeg without a get_proc_addr, libplacebo) gets the wrappers */
void *
dlsym (void *handle, const char *symbol)
{
  void *p;

  if (!real_dlsym)
    load ();
  p = real_dlsym (handle, symbol);
  if (!p || strncmp (symbol, "vk", 2) != 0)
    return p;
  if (!strcmp (symbol, "vkGetInstanceProcAddr")) {
    if (!real_gipa)
      real_gipa = (GetProc) p;
    return (void *) vkGetInstanceProcAddr;
  }
  if (!strcmp (symbol, "vkGetDeviceProcAddr")) {
    if (!real_gdpa)
      real_gdpa = (GetProc) p;
    return (void *) vkGetDeviceProcAddr;
  }
  return wrap_proc (symbol, p);
}

__attribute__((destructor))
     static void report (void)
{
  pt_report ("VK-TIME", "VK_TIME_LABEL", "VK_TIME_OUT", names, counts,
      N_FUNCTIONS, t_load);
}
