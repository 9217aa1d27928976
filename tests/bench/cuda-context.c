/* gst-avhw benchmark: what a CUDA context costs in device memory, and what
 * its limits change (issue 8, item 4)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   avhw-bench-cuda-context [--gpu N]
 *
 * Retains GPU N's primary context (as the cuda backend does) and prints, as
 * Markdown, the process's device memory (NVML) after each step: cuInit, the
 * context, then lowering each context limit in turn (per-thread stack,
 * printf FIFO, device malloc heap), with the limit's value before and after,
 * then runs a kernel that needs 1 KiB of stack per thread with the limit at
 * 0 (exit 1 when it fails or computes wrong numbers).
 * Needs the NVIDIA driver (libcuda.so.1, libnvidia-ml.so.1); without it it
 * says so and exits 77.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include "bench-common.h"

/* A kernel with a 1 KiB local array (1024 bytes of stack per thread, as
 * ptxas reports): out[t] = ((t * 7) % 256) * n. Launched once the stack
 * limit is 0, it shows that the driver raises the limit for a kernel that
 * needs more, as its documentation says. */
static const char stack_user_ptx[] =
    ".version 7.0\n"
    ".target sm_52\n"
    ".address_size 64\n"
    ".visible .entry stack_user(.param .u64 out, .param .u32 n)\n"
    "{\n"
    "  .local .align 4 .b8 depot[1024];\n"
    "  .reg .b32 %r<8>;\n"
    "  .reg .b64 %rd<8>;\n"
    "  .reg .pred %p;\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  ld.param.u32 %r1, [n];\n"
    "  mov.u64 %rd2, depot;\n"
    "  mov.u32 %r2, 0;\n"
    "LOOP:\n"
    "  mul.lo.s32 %r3, %r2, %r1;\n"
    "  mul.wide.u32 %rd3, %r2, 4;\n"
    "  add.s64 %rd4, %rd2, %rd3;\n"
    "  st.local.u32 [%rd4], %r3;\n"
    "  add.s32 %r2, %r2, 1;\n"
    "  setp.lt.u32 %p, %r2, 256;\n"
    "  @%p bra LOOP;\n"
    "  mov.u32 %r4, %tid.x;\n"
    "  mul.lo.s32 %r5, %r4, 7;\n"
    "  and.b32 %r5, %r5, 255;\n"
    "  mul.wide.u32 %rd5, %r5, 4;\n"
    "  add.s64 %rd6, %rd2, %rd5;\n"
    "  ld.local.u32 %r6, [%rd6];\n"
    "  cvta.to.global.u64 %rd7, %rd1;\n"
    "  mul.wide.u32 %rd5, %r4, 4;\n"
    "  add.s64 %rd7, %rd7, %rd5;\n"
    "  st.global.u32 [%rd7], %r6;\n" "  ret;\n" "}\n";

enum
{ LIMIT_STACK_SIZE = 0, LIMIT_PRINTF_FIFO_SIZE = 1, LIMIT_MALLOC_HEAP_SIZE = 2
};

typedef struct
{
  int (*init) (unsigned int);
  int (*device_get) (int *, int);
  int (*retain) (void **, int);
  int (*release) (int);
  int (*push) (void *);
  int (*pop) (void **);
  int (*get_limit) (size_t *, int);
  int (*set_limit) (int, size_t);
  int (*mem_info) (size_t *, size_t *);
  int (*module_load) (void **, const void *);
  int (*module_unload) (void *);
  int (*get_function) (void **, void *, const char *);
  int (*mem_alloc) (unsigned long long *, size_t);
  int (*mem_free) (unsigned long long);
  int (*memcpy_dtoh) (void *, unsigned long long, size_t);
  int (*launch) (void *, unsigned int, unsigned int, unsigned int,
      unsigned int, unsigned int, unsigned int, unsigned int, void *,
      void **, void **);
  int (*synchronize) (void);
} Cu;

static gboolean
load_cuda (Cu * cu)
{
  void *lib = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);

  if (!lib)
    return FALSE;
#define SYM(field, name) *(void **) &cu->field = dlsym (lib, name)
  SYM (init, "cuInit");
  SYM (device_get, "cuDeviceGet");
  SYM (retain, "cuDevicePrimaryCtxRetain");
  SYM (release, "cuDevicePrimaryCtxRelease_v2");
  SYM (push, "cuCtxPushCurrent_v2");
  SYM (pop, "cuCtxPopCurrent_v2");
  SYM (get_limit, "cuCtxGetLimit");
  SYM (set_limit, "cuCtxSetLimit");
  SYM (mem_info, "cuMemGetInfo_v2");
  SYM (module_load, "cuModuleLoadData");
  SYM (module_unload, "cuModuleUnload");
  SYM (get_function, "cuModuleGetFunction");
  SYM (mem_alloc, "cuMemAlloc_v2");
  SYM (mem_free, "cuMemFree_v2");
  SYM (memcpy_dtoh, "cuMemcpyDtoH_v2");
  SYM (launch, "cuLaunchKernel");
  SYM (synchronize, "cuCtxSynchronize");
#undef SYM
  return cu->init && cu->device_get && cu->retain && cu->release && cu->push
      && cu->pop && cu->get_limit && cu->set_limit && cu->mem_info
      && cu->module_load && cu->module_unload && cu->get_function
      && cu->mem_alloc && cu->mem_free && cu->memcpy_dtoh && cu->launch
      && cu->synchronize;
}

/* NVML updates per-process numbers with a small delay */
static gdouble
settled_mib (void)
{
  g_usleep (300000);
  return bench_proc_used_mib ();
}

static void
row (const gchar * step, const gchar * limit, gdouble mib, gdouble base)
{
  gchar *m = bench_fmt (mib, "%.0f");
  gchar *d = bench_fmt (mib >= 0 && base >= 0 ? mib - base : -1, "%+.0f");

  g_print ("| %s | %s | %s | %s |\n", step, limit, m, d);
  g_free (m);
  g_free (d);
}

static void
lower (Cu * cu, int which, const gchar * name, size_t value, gdouble * last)
{
  size_t before = 0, after = 0;
  int r;
  gchar *limit;
  gdouble mib;

  cu->get_limit (&before, which);
  r = cu->set_limit (which, value);
  cu->get_limit (&after, which);
  mib = settled_mib ();
  limit = r == 0 ? g_strdup_printf ("%" G_GSIZE_FORMAT " -> %" G_GSIZE_FORMAT
      " bytes", before, after) : g_strdup_printf ("refused (CUresult %d)", r);
  row (name, limit, mib, *last);
  *last = mib;
  g_free (limit);
}

/* Runs stack_user on 256 threads; the row says whether it ran and gave
 * the right numbers, and the stack limit after it. */
static gboolean
launch_stack_user (Cu * cu, gdouble * last)
{
  void *mod = NULL, *fn = NULL;
  unsigned long long out = 0;
  int host[256], n = 3, r, i, wrong = 0;
  void *args[2];
  size_t limit = 0;
  gchar *what;
  gdouble mib;

  r = cu->module_load (&mod, stack_user_ptx);
  if (r == 0)
    r = cu->get_function (&fn, mod, "stack_user");
  if (r == 0)
    r = cu->mem_alloc (&out, sizeof (host));
  args[0] = &out;
  args[1] = &n;
  if (r == 0)
    r = cu->launch (fn, 1, 1, 1, 256, 1, 1, 0, NULL, args, NULL);
  if (r == 0)
    r = cu->synchronize ();
  if (r == 0)
    r = cu->memcpy_dtoh (host, out, sizeof (host));
  for (i = 0; r == 0 && i < 256; i++)
    wrong += host[i] != ((i * 7) % 256) * n;
  if (out)
    cu->mem_free (out);
  if (mod)
    cu->module_unload (mod);
  cu->get_limit (&limit, LIMIT_STACK_SIZE);
  mib = settled_mib ();
  what = r ? g_strdup_printf ("FAILED (CUresult %d)", r) :
      g_strdup_printf ("%s; stack limit now %" G_GSIZE_FORMAT " bytes",
      wrong ? "WRONG RESULTS" : "ran, results right", limit);
  row ("kernel with 1 KiB of stack per thread", what, mib, *last);
  *last = mib;
  g_free (what);
  return r == 0 && !wrong;
}

int
main (int argc, char **argv)
{
  gint gpu = 0;
  GOptionEntry entries[] = {
    {"gpu", 0, 0, G_OPTION_ARG_INT, &gpu, "GPU index (default 0)", "N"},
    {NULL}
  };
  GOptionContext *octx = g_option_context_new (NULL);
  GError *err = NULL;
  Cu cu = { 0 };
  void *ctx = NULL, *dummy;
  int dev = 0;
  size_t free_b = 0, total_b = 0;
  gdouble base, last, mib;
  gboolean ok;

  g_option_context_add_main_entries (octx, entries, NULL);
  if (!g_option_context_parse (octx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (octx);
  if (!load_cuda (&cu) || !bench_nvml_init ((guint) gpu)) {
    g_print ("SKIP: no NVIDIA driver (libcuda.so.1 and libnvidia-ml.so.1)\n");
    return 77;
  }
  g_print ("| step | limit | process MiB | change MiB |\n");
  g_print ("| --- | --- | ---: | ---: |\n");
  base = settled_mib ();
  row ("nothing yet", "", base, base);
  if (cu.init (0) != 0 || cu.device_get (&dev, gpu) != 0) {
    g_printerr ("cuInit/cuDeviceGet failed\n");
    return 1;
  }
  last = settled_mib ();
  row ("cuInit", "", last, base);
  if (cu.retain (&ctx, dev) != 0 || cu.push (ctx) != 0) {
    g_printerr ("cannot retain GPU %d's primary context\n", gpu);
    return 1;
  }
  mib = settled_mib ();
  row ("primary context retained", "defaults", mib, last);
  last = mib;
  lower (&cu, LIMIT_STACK_SIZE, "CU_LIMIT_STACK_SIZE lowered", 0, &last);
  lower (&cu, LIMIT_PRINTF_FIFO_SIZE, "CU_LIMIT_PRINTF_FIFO_SIZE lowered", 0,
      &last);
  lower (&cu, LIMIT_MALLOC_HEAP_SIZE, "CU_LIMIT_MALLOC_HEAP_SIZE lowered", 0,
      &last);
  ok = launch_stack_user (&cu, &last);
  lower (&cu, LIMIT_STACK_SIZE, "CU_LIMIT_STACK_SIZE back to 1024", 1024,
      &last);
  cu.mem_info (&free_b, &total_b);
  g_print ("\ncontext total: %.0f MiB (process, NVML); cuMemGetInfo: "
      "%.0f of %.0f MiB free\n", last - base, free_b / 1048576.0,
      total_b / 1048576.0);
  cu.pop (&dummy);
  cu.release (dev);
  return ok ? 0 : 1;
}
