/* gst-avhw benchmark: what a CUDA context costs in device memory, and what
 * its limits change (issue 8, item 4)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   avhw-bench-cuda-context [--gpu N]
 *
 * Retains GPU N's primary context (as the cuda backend does) and prints, as
 * Markdown, the process's device memory (NVML) after each step: cuInit, the
 * context, then lowering each context limit in turn (per-thread stack,
 * printf FIFO, device malloc heap), with the limit's value before and after.
 * Needs the NVIDIA driver (libcuda.so.1, libnvidia-ml.so.1); without it it
 * says so and exits 77.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include "bench-common.h"

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
#undef SYM
  return cu->init && cu->device_get && cu->retain && cu->release && cu->push
      && cu->pop && cu->get_limit && cu->set_limit && cu->mem_info;
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
  lower (&cu, LIMIT_STACK_SIZE, "CU_LIMIT_STACK_SIZE back to 1024", 1024,
      &last);
  cu.mem_info (&free_b, &total_b);
  g_print ("\ncontext total: %.0f MiB (process, NVML); cuMemGetInfo: "
      "%.0f of %.0f MiB free\n", last - base, free_b / 1048576.0,
      total_b / 1048576.0);
  cu.pop (&dummy);
  cu.release (dev);
  return 0;
}
