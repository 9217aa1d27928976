/* gst-avhw: CUDA backend, interop with GStreamer's CUDA elements
 * (gst.cuda.context, library gstreamer-cuda-1.0: nvcodec's cudaupload,
 * cudadownload, cudaconvert, nvh264dec...)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstavhwcudainterop.h"
/* Through gstcuda-shim/cuda.h: ffnvcodec's CUDA types. */
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>

GST_DEBUG_CATEGORY_STATIC (cuda_interop_debug);
#define GST_CAT_DEFAULT cuda_interop_debug

/* gstcudautils.h's GST_CUDA_CONTEXT_TYPE and the fields
 * gst_context_set_cuda_context() writes; that header is not usable without
 * the CUDA toolkit (it needs cudaGL.h). */
#define CUDA_CONTEXT_TYPE "gst.cuda.context"
#define CUDA_CONTEXT_FIELD "gst.cuda.context"
#define CUDA_DEVICE_ID_FIELD "cuda-device-id"

/*
 * Direction GStreamer -> avhw: a gst.cuda.context context (from the
 * application, a bin, or a CUDA element answering our query) gives an
 * FFmpeg device context on the GstCudaContext's CUcontext, keeping a
 * reference on the GstCudaContext for the device context's life.
 *
 * Direction avhw -> GStreamer: a device made that way answers with the same
 * GstCudaContext. A device FFmpeg made (the GPU's primary context) answers
 * with one gst_cuda_context_new_wrapped() around its CUcontext, made once
 * per device and kept on it (qdata); that GstCudaContext in turn holds the
 * device context, so the CUcontext outlives every CUDA element still using
 * the wrapper, and a context holding it that comes back maps to the very
 * same device context.
 *
 * gstreamer-cuda-1.0 loads libcuda only when a GstCudaContext is made, so
 * linking it keeps the plugin loadable without a driver.
 */

/* On a GstCudaContext we made: the device context it wraps. */
typedef struct
{
  AVBufferRef *device_ctx;
  guint index;
} CudaOwnContext;

static GQuark cuda_own_quark;   /* on a GstCudaContext: CudaOwnContext */
static GQuark cuda_wrapper_quark;       /* on a GstAvhwDevice: GstCudaContext */
static GMutex cuda_fill_lock;

static void
cuda_own_context_free (CudaOwnContext * own)
{
  av_buffer_unref (&own->device_ctx);
  g_free (own);
}

/* The GstCudaContext in @context, a new reference, or NULL. */
static GstCudaContext *
cuda_gst_context_from (GstContext * context)
{
  const GValue *v = gst_structure_get_value (gst_context_get_structure
      (context), CUDA_CONTEXT_FIELD);

  if (!v || !G_VALUE_HOLDS_OBJECT (v) || !GST_IS_CUDA_CONTEXT
      (g_value_get_object (v)))
    return NULL;
  return gst_object_ref (g_value_get_object (v));
}

static gpointer
cuda_foreign_get_handle (GstAvhwBackend * backend, GstContext * context)
{
  GstCudaContext *gst_ctx = cuda_gst_context_from (context);
  gpointer handle;

  if (!gst_ctx)
    return NULL;
  /* The CUcontext is the identity: wrappers of one CUcontext are one
   * device. It stays valid while the cached device holds the
   * GstCudaContext. */
  handle = gst_cuda_context_get_handle (gst_ctx);
  gst_object_unref (gst_ctx);
  return handle;
}

static void
cuda_release_gst_context (AVHWDeviceContext * dctx)
{
  gst_object_unref (dctx->user_opaque);
}

static AVBufferRef *
cuda_wrap_foreign_context (GstAvhwBackend * backend, GstContext * context,
    guint * index, GError ** error)
{
  GstCudaContext *gst_ctx = cuda_gst_context_from (context);
  CudaOwnContext *own;
  gchar *reason = NULL;
  guint device_id = 0;
  CUcontext ctx;

  if (!gst_ctx) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_INVALID_ARGUMENT,
        "cuda: the " CUDA_CONTEXT_TYPE " context holds no GstCudaContext");
    return NULL;
  }
  own = g_object_get_qdata (G_OBJECT (gst_ctx), cuda_own_quark);
  if (own) {
    *index = own->index;
    gst_object_unref (gst_ctx);
    return av_buffer_ref (own->device_ctx);
  }
  ctx = gst_cuda_context_get_handle (gst_ctx);
  if (!ctx) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_INVALID_ARGUMENT,
        "cuda: %" GST_PTR_FORMAT " holds no CUcontext", gst_ctx);
    gst_object_unref (gst_ctx);
    return NULL;
  }
  if (!cuda_ensure_probed (&reason)) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_NO_DEVICE,
        "cuda: cannot use %" GST_PTR_FORMAT ": %s", gst_ctx, reason);
    g_free (reason);
    gst_object_unref (gst_ctx);
    return NULL;
  }
  g_object_get (gst_ctx, "cuda-device-id", &device_id, NULL);
  *index = device_id;
  GST_INFO ("cuda:%u on GStreamer's %" GST_PTR_FORMAT " (CUcontext %p)",
      device_id, gst_ctx, ctx);
  /* The device context owns this reference: cuda_release_gst_context drops
   * it when the device context goes, also when wrapping fails. */
  return cuda_wrap_context (ctx, cuda_release_gst_context, gst_ctx, error);
}

/* One GstCudaContext around the CUcontext of @device, which FFmpeg made;
 * NULL when GStreamer could not make it. */
static GstCudaContext *
cuda_make_wrapper (GstAvhwDevice * device)
{
  AVBufferRef *ref = gst_avhw_device_get_device_ctx (device);
  AVCUDADeviceContext *hwctx = ((AVHWDeviceContext *) ref->data)->hwctx;
  const CudaFunctions *cu = cuda_ensure_probed (NULL);
  GstCudaContext *wrapper;
  CudaOwnContext *own;
  CUcontext dummy;
  CUdevice dev;

  /* gstreamer-cuda calls the driver through its own table, filled by
   * gst_cuda_load_library(): without it every call asserts. */
  if (!cu || !gst_cuda_load_library ()) {
    GST_WARNING_OBJECT (device, "gstreamer-cuda could not load the CUDA "
        "driver library");
    return NULL;
  }
  if (cu->cuCtxPushCurrent (hwctx->cuda_ctx) != CUDA_SUCCESS)
    return NULL;
  if (cu->cuCtxGetDevice (&dev) != CUDA_SUCCESS)
    dev = -1;
  cu->cuCtxPopCurrent (&dummy);
  if (dev < 0)
    return NULL;
  /* Does not own the CUcontext: it is never destroyed through it. */
  wrapper = gst_cuda_context_new_wrapped (hwctx->cuda_ctx, dev);
  if (!wrapper)
    return NULL;
  own = g_new0 (CudaOwnContext, 1);
  own->device_ctx = av_buffer_ref (ref);
  own->index = gst_avhw_device_get_index (device);
  g_object_set_qdata_full (G_OBJECT (wrapper), cuda_own_quark, own,
      (GDestroyNotify) cuda_own_context_free);
  GST_INFO_OBJECT (device, "made %" GST_PTR_FORMAT " around CUcontext %p",
      wrapper, hwctx->cuda_ctx);
  return wrapper;
}

/* The GstCudaContext standing for @device (transfer none, lives as long as
 * the device): GStreamer's own when the device was made on it, else one
 * wrapper made once. NULL when GStreamer could not make it. */
GstCudaContext *
cuda_interop_get_gst_context (GstAvhwDevice * device)
{
  AVHWDeviceContext *dctx =
      (AVHWDeviceContext *) gst_avhw_device_get_device_ctx (device)->data;
  GstCudaContext *gst_ctx;

  g_mutex_lock (&cuda_fill_lock);
  if (dctx->free == cuda_release_gst_context) {
    /* Made on GStreamer's own context: hand that one back. */
    gst_ctx = dctx->user_opaque;
  } else {
    gst_ctx = g_object_get_qdata (G_OBJECT (device), cuda_wrapper_quark);
    if (!gst_ctx && (gst_ctx = cuda_make_wrapper (device)))
      g_object_set_qdata_full (G_OBJECT (device), cuda_wrapper_quark,
          gst_ctx, gst_object_unref);
  }
  g_mutex_unlock (&cuda_fill_lock);
  return gst_ctx;
}

static gboolean
cuda_fill_foreign_context (GstAvhwBackend * backend, GstAvhwDevice * device,
    GstContext * context)
{
  GstCudaContext *gst_ctx = cuda_interop_get_gst_context (device);
  guint device_id = 0;

  if (gst_ctx) {
    g_object_get (gst_ctx, "cuda-device-id", &device_id, NULL);
    gst_structure_set (gst_context_writable_structure (context),
        CUDA_CONTEXT_FIELD, GST_TYPE_CUDA_CONTEXT, gst_ctx,
        CUDA_DEVICE_ID_FIELD, G_TYPE_UINT, device_id, NULL);
  } else {
    GST_WARNING_OBJECT (device, "GStreamer could not wrap this device's "
        "CUcontext in a GstCudaContext");
  }
  return gst_ctx != NULL;
}

void
cuda_interop_iface_init (GstAvhwForeignInteropInterface * iface)
{
  GST_DEBUG_CATEGORY_INIT (cuda_interop_debug, "avhwcudainterop", 0,
      "gst-avhw CUDA backend: interop with GStreamer's CUDA elements");
  cuda_own_quark = g_quark_from_static_string ("avhw-cuda-own-context");
  cuda_wrapper_quark = g_quark_from_static_string ("avhw-cuda-gst-context");
  /* Registers the type only; loads no CUDA. */
  g_type_ensure (GST_TYPE_CUDA_CONTEXT);
  iface->foreign_context_type = CUDA_CONTEXT_TYPE;
  iface->foreign_context_get_handle = cuda_foreign_get_handle;
  iface->wrap_foreign_context = cuda_wrap_foreign_context;
  iface->fill_foreign_context = cuda_fill_foreign_context;
  cuda_memory_iface_init (iface);
}
