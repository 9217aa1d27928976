/* gst-avhw: CUDA backend, loading its own kernels
 *
 * The kernels are compiled at build time (kernels/meson.build) and
 * embedded: a PTX and, where the build found ptxas, cubins for sm_70 to
 * sm_90. They are loaded with the driver API alone (cuModuleLoadData, the
 * driver already dlopened by ffnvcodec's loader): no CUDA toolkit and no
 * NVRTC at run time. A cubin for the device's architecture loads at once;
 * the PTX is JIT-compiled by the driver on first use, then comes from the
 * driver's cache (~/.nv/ComputeCache).
 *
 * Needs GLib and the driver only (no GStreamer), so that the test
 * libs/cuda-kernels runs on machines that have nothing else.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <ffnvcodec/dynlink_loader.h>

#include "gstavhwcudakernels.h"

struct _CudaKernels
{
  const CudaFunctions *cu;
  CUcontext ctx;
  CUmodule module;
  gchar *image;
};

GQuark
cuda_kernels_error_quark (void)
{
  return g_quark_from_static_string ("cuda-kernels-error-quark");
}

gboolean
cuda_kernels_check (const CudaFunctions * cu, CUresult res, const gchar * call,
    GError ** error)
{
  const char *name = NULL, *desc = NULL;

  if (res == CUDA_SUCCESS)
    return TRUE;
  if (cu->cuGetErrorName (res, &name) != CUDA_SUCCESS || !name)
    name = "unknown CUresult";
  if (cu->cuGetErrorString (res, &desc) != CUDA_SUCCESS || !desc)
    desc = "no description";
  g_set_error (error, CUDA_KERNELS_ERROR, (gint) res,
      "cuda: %s failed: %s (%d: %s)", call, name, (int) res, desc);
  return FALSE;
}

const CudaKernelImage *
cuda_kernels_pick_image (const CudaKernelImage * images, guint n_images,
    gint major, gint minor, gboolean prefer_ptx)
{
  const CudaKernelImage *best = NULL, *ptx = NULL;
  guint device_sm = (guint) (major * 10 + minor), i;

  for (i = 0; i < n_images; i++) {
    const CudaKernelImage *im = &images[i];

    if (im->ptx) {
      if (im->sm <= device_sm)
        ptx = im;
    } else if ((gint) (im->sm / 10) == major && (gint) (im->sm % 10) <= minor
        && (!best || im->sm > best->sm)) {
      best = im;
    }
  }
  return best && !prefer_ptx ? best : ptx;
}

static gboolean
cuda_kernels_module_load (CudaKernels * k, const void *data, GError ** error)
{
  CUcontext dummy;
  gboolean ok;

  if (!CUDA_KERNELS_CHECK (k->cu, k->cu->cuCtxPushCurrent (k->ctx), error))
    return FALSE;
  ok = CUDA_KERNELS_CHECK (k->cu, k->cu->cuModuleLoadData (&k->module, data),
      error);
  k->cu->cuCtxPopCurrent (&dummy);
  return ok;
}

static CudaKernels *
cuda_kernels_new (const CudaFunctions * cu, CUcontext ctx)
{
  CudaKernels *k = g_new0 (CudaKernels, 1);

  k->cu = cu;
  k->ctx = ctx;
  return k;
}

static gchar *
cuda_kernels_image_name (const CudaKernelImage * im)
{
  if (im->ptx)
    return g_strdup_printf ("PTX (sm_%u), JIT-compiled by the driver", im->sm);
  return g_strdup_printf ("sm_%u cubin", im->sm);
}

CudaKernels *
cuda_kernels_load (const CudaFunctions * cu, CUcontext ctx, GError ** error)
{
  const CudaKernelImage *im, *ptx;
  gboolean prefer_ptx = g_strcmp0 (g_getenv ("GST_AVHW_CUDA_KERNELS"),
      "ptx") == 0;
  CudaKernels *k = cuda_kernels_new (cu, ctx);
  GError *cubin_error = NULL;
  int major = 0, minor = 0;
  CUcontext dummy;
  CUdevice dev;
  gchar *name;

  if (!CUDA_KERNELS_CHECK (cu, cu->cuCtxPushCurrent (ctx), error))
    goto fail;
  if (!CUDA_KERNELS_CHECK (cu, cu->cuCtxGetDevice (&dev), error)
      || !CUDA_KERNELS_CHECK (cu, cu->cuDeviceComputeCapability (&major,
              &minor, dev), error)) {
    cu->cuCtxPopCurrent (&dummy);
    goto fail;
  }
  cu->cuCtxPopCurrent (&dummy);

  im = cuda_kernels_pick_image (cuda_kernel_images, cuda_n_kernel_images,
      major, minor, prefer_ptx);
  ptx = cuda_kernels_pick_image (cuda_kernel_images, cuda_n_kernel_images,
      major, minor, TRUE);
  if (!im) {
    g_set_error (error, CUDA_KERNELS_ERROR, 0, "cuda: no kernel image for "
        "sm_%d%d: the PTX targets sm_%u", major, minor,
        cuda_kernel_images[cuda_n_kernel_images - 1].sm);
    goto fail;
  }
  if (cuda_kernels_module_load (k, im->data, im == ptx ? error : &cubin_error)) {
    k->image = cuda_kernels_image_name (im);
    return k;
  }
  if (im == ptx)
    goto fail;
  /* A cubin the driver refuses (a driver older than the toolkit that
   * built it): the PTX. */
  name = cuda_kernels_image_name (im);
  if (!cuda_kernels_module_load (k, ptx->data, error)) {
    g_prefix_error (error, "%s: %s; PTX: ", name, cubin_error->message);
    g_free (name);
    g_clear_error (&cubin_error);
    goto fail;
  }
  k->image = g_strdup_printf ("PTX (sm_%u), JIT-compiled by the driver: the "
      "%s failed: %s", ptx->sm, name, cubin_error->message);
  g_free (name);
  g_clear_error (&cubin_error);
  return k;

fail:
  cuda_kernels_free (k);
  return NULL;
}

CudaKernels *
cuda_kernels_load_data (const CudaFunctions * cu, CUcontext ctx,
    const void *data, const gchar * what, GError ** error)
{
  CudaKernels *k = cuda_kernels_new (cu, ctx);

  if (!cuda_kernels_module_load (k, data, error)) {
    g_prefix_error (error, "%s: ", what);
    cuda_kernels_free (k);
    return NULL;
  }
  k->image = g_strdup (what);
  return k;
}

const gchar *
cuda_kernels_get_image (const CudaKernels * kernels)
{
  return kernels->image;
}

CUfunction
cuda_kernels_get_function (const CudaKernels * kernels, const gchar * entry,
    GError ** error)
{
  CUfunction f = NULL;

  if (!CUDA_KERNELS_CHECK (kernels->cu,
          kernels->cu->cuModuleGetFunction (&f, kernels->module, entry),
          error)) {
    g_prefix_error (error, "%s: ", entry);
    return NULL;
  }
  return f;
}

const CudaFunctions *
cuda_kernels_get_driver (const CudaKernels * kernels)
{
  return kernels->cu;
}

CUcontext
cuda_kernels_get_context (const CudaKernels * kernels)
{
  return kernels->ctx;
}

void
cuda_kernels_free (CudaKernels * kernels)
{
  CUcontext dummy;

  if (!kernels)
    return;
  if (kernels->module
      && kernels->cu->cuCtxPushCurrent (kernels->ctx) == CUDA_SUCCESS) {
    kernels->cu->cuModuleUnload (kernels->module);
    kernels->cu->cuCtxPopCurrent (&dummy);
  }
  g_free (kernels->image);
  g_free (kernels);
}
