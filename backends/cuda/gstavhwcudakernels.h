/* gst-avhw: CUDA backend, its own kernels: the embedded PTX and cubins
 * and their loading with the driver API
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include <ffnvcodec/dynlink_cuda.h>

G_BEGIN_DECLS

/* One compiled form of kernels/avhw-convert.cu: a cubin for sm_@sm (it
 * runs on that major architecture from that minor on), or the PTX, whose
 * target is sm_@sm and which the driver JIT-compiles for newer ones. */
typedef struct
{
  guint sm;
  gboolean ptx;
  const guint8 *data;
  gsize size;
} CudaKernelImage;

/* The images built into the library (gstavhwcudakernels-data.c, made by
 * kernels/embed.py): the cubins by ascending sm, then the PTX, last. */
extern const CudaKernelImage cuda_kernel_images[];
extern const guint cuda_n_kernel_images;

#define CUDA_KERNELS_ERROR (cuda_kernels_error_quark ())
GQuark cuda_kernels_error_quark (void);

/* The image to load on a device of compute capability @major.@minor: the
 * newest cubin of that major architecture not newer than the device, else
 * the PTX if its target is not newer than the device; NULL when none fits.
 * @prefer_ptx skips the cubins. */
const CudaKernelImage *cuda_kernels_pick_image (const CudaKernelImage * images,
    guint n_images, gint major, gint minor, gboolean prefer_ptx);

struct CudaFunctions;

/* The kernels, loaded as one module in one CUDA context. */
typedef struct _CudaKernels CudaKernels;

/* Loads the embedded image for @ctx's device (cuda_kernels_pick_image();
 * when a cubin fails to load, the PTX). The environment variable
 * GST_AVHW_CUDA_KERNELS=ptx loads the PTX even where a cubin fits. @cu and
 * @ctx must outlive the result; free with cuda_kernels_free(). */
CudaKernels *cuda_kernels_load (const struct CudaFunctions *cu, CUcontext ctx,
    GError ** error);

/* The same from one given image (a cubin, fatbin or NUL-terminated PTX),
 * which the caller keeps alive until this returns; @what names it. */
CudaKernels *cuda_kernels_load_data (const struct CudaFunctions *cu,
    CUcontext ctx, const void *data, const gchar * what, GError ** error);

/* What was loaded, for logs: "sm_90 cubin", "PTX (sm_70), JIT-compiled by
 * the driver", with why a cubin was not taken when one was tried. */
const gchar *cuda_kernels_get_image (const CudaKernels * kernels);

/* A kernel of the module by its entry name (kernels/avhw-convert.h); NULL
 * with @error set when it is not there. */
CUfunction cuda_kernels_get_function (const CudaKernels * kernels,
    const gchar * entry, GError ** error);

const struct CudaFunctions *cuda_kernels_get_driver (const CudaKernels *
    kernels);
CUcontext cuda_kernels_get_context (const CudaKernels * kernels);

/* Checks a driver call's result; on failure sets @error to the call's text
 * and the driver's error name and description. */
gboolean cuda_kernels_check (const struct CudaFunctions *cu, CUresult res,
    const gchar * call, GError ** error);
#define CUDA_KERNELS_CHECK(cu, x, error) \
  cuda_kernels_check ((cu), (x), #x, (error))

void cuda_kernels_free (CudaKernels * kernels);

G_END_DECLS
