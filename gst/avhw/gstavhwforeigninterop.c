/* gst-avhw: interop with GStreamer's own device types, an optional
 * interface of a backend
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstavhw-impl.h"
#include "gstavhw-private.h"

GST_DEBUG_CATEGORY_STATIC (avhw_foreign_debug);
#define GST_CAT_DEFAULT avhw_foreign_debug

/**
 * SECTION:gstavhwforeigninterop
 * @title: GstAvhwForeignInterop
 * @short_description: sharing devices and frames with GStreamer's CUDA,
 *   Vulkan and VA elements
 *
 * A backend whose kind of device GStreamer has elements of its own for
 * implements #GstAvhwForeignInteropInterface (gstavhwforeigninterop-impl.h,
 * part of the implementer API); the calls below answer "no interop" for
 * one that does not.
 */

G_DEFINE_INTERFACE (GstAvhwForeignInterop, gst_avhw_foreign_interop,
    GST_TYPE_AVHW_BACKEND);

static void
gst_avhw_foreign_interop_default_init (GstAvhwForeignInteropInterface * iface)
{
  GST_DEBUG_CATEGORY_INIT (avhw_foreign_debug, "avhwforeign", 0,
      "gst-avhw interop with GStreamer's own device types");
}

#define KLASS(b) GST_AVHW_BACKEND_GET_CLASS (b)

/**
 * gst_avhw_backend_get_foreign_interop: (skip)
 * @backend: a #GstAvhwBackend
 *
 * Returns: (transfer none) (nullable): @backend's
 *   #GstAvhwForeignInteropInterface, or %NULL when it has no interop with
 *   GStreamer's own device types
 */
GstAvhwForeignInteropInterface *
gst_avhw_backend_get_foreign_interop (GstAvhwBackend * backend)
{
  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), NULL);
  if (!GST_IS_AVHW_FOREIGN_INTEROP (backend))
    return NULL;
  return GST_AVHW_FOREIGN_INTEROP_GET_IFACE (backend);
}

/**
 * gst_avhw_backend_get_foreign_context_type:
 * @backend: a #GstAvhwBackend
 *
 * Returns: (transfer none) (nullable): the #GstContext type of GStreamer's
 *   own elements for this backend's devices, when the backend interoperates
 */
const gchar *
gst_avhw_backend_get_foreign_context_type (GstAvhwBackend * backend)
{
  GstAvhwForeignInteropInterface *iface;

  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), NULL);
  iface = gst_avhw_backend_get_foreign_interop (backend);
  return iface ? iface->foreign_context_type : NULL;
}

/**
 * gst_avhw_backend_get_foreign_memory_feature:
 * @backend: a #GstAvhwBackend
 *
 * Returns: (transfer none) (nullable): the caps feature of GStreamer's own
 *   device memory this backend exchanges frames with, if any
 */
const gchar *
gst_avhw_backend_get_foreign_memory_feature (GstAvhwBackend * backend)
{
  GstAvhwForeignInteropInterface *iface;

  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), NULL);
  iface = gst_avhw_backend_get_foreign_interop (backend);
  return iface && iface->export_foreign_buffer ?
      iface->foreign_memory_feature : NULL;
}

/**
 * gst_avhw_backend_get_foreign_input_feature:
 * @backend: a #GstAvhwBackend
 *
 * Returns: (transfer none) (nullable): the caps feature of GStreamer's own
 *   device memory this backend takes frames from (copies or wraps them into
 *   its own frames), if any; a backend may export without importing
 */
const gchar *
gst_avhw_backend_get_foreign_input_feature (GstAvhwBackend * backend)
{
  GstAvhwForeignInteropInterface *iface;

  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), NULL);
  iface = gst_avhw_backend_get_foreign_interop (backend);
  return iface && iface->import_foreign_buffer ?
      iface->foreign_memory_feature : NULL;
}

/**
 * gst_avhw_backend_device_imports_foreign:
 * @backend: a #GstAvhwBackend
 * @device: a device of @backend
 *
 * Returns: whether @device takes frames in GStreamer's own device memory
 *   (gst_avhw_backend_get_foreign_input_feature()); the reason it does not
 *   is logged
 */
gboolean
gst_avhw_backend_device_imports_foreign (GstAvhwBackend * backend,
    GstAvhwDevice * device)
{
  GstAvhwForeignInteropInterface *iface;
  gchar *why = NULL;
  gboolean ok;

  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), FALSE);
  g_return_val_if_fail (GST_IS_AVHW_DEVICE (device), FALSE);
  iface = gst_avhw_backend_get_foreign_interop (backend);
  if (!iface || !iface->import_foreign_buffer || !iface->foreign_memory_feature)
    return FALSE;
  if (!iface->device_imports_foreign)
    return TRUE;
  ok = iface->device_imports_foreign (backend, device, &why);
  if (!ok)
    GST_DEBUG_OBJECT (backend, "%s takes no %s: %s",
        gst_avhw_device_get_name (device), iface->foreign_memory_feature,
        why ? why : "no reason given");
  g_free (why);
  return ok;
}

/**
 * gst_avhw_backend_export_foreign_buffer: (skip)
 * @backend: a #GstAvhwBackend
 * @device: the device @frame lives on
 * @frame: a hardware frame of @device
 * @info: its software layout
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): a buffer of GStreamer's own device
 *   memory holding @frame, or %NULL with @error
 */
GstBuffer *
gst_avhw_backend_export_foreign_buffer (GstAvhwBackend * backend,
    GstAvhwDevice * device, const AVFrame * frame, const GstVideoInfo * info,
    GError ** error)
{
  GstAvhwForeignInteropInterface *iface;

  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), NULL);
  iface = gst_avhw_backend_get_foreign_interop (backend);
  if (!iface || !iface->export_foreign_buffer) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_NOT_SUPPORTED,
        "backend %s cannot hand frames to GStreamer's own device memory",
        KLASS (backend)->name);
    return NULL;
  }
  return iface->export_foreign_buffer (backend, device, frame, info, error);
}

/**
 * gst_avhw_backend_device_exports_foreign: (skip)
 * @backend: a #GstAvhwBackend
 * @device: a device of @backend
 * @sw_format: the software format of the frames to export
 * @reason: (out) (optional) (nullable): why not, when not
 *
 * Whether frames of @sw_format on @device can go to GStreamer's own device
 * memory (#GstAvhwForeignInteropInterface.foreign_memory_feature) with
 * gst_avhw_backend_export_foreign_buffer(). Elements ask it before they
 * offer that memory downstream.
 *
 * Returns: %TRUE when they can
 */
gboolean
gst_avhw_backend_device_exports_foreign (GstAvhwBackend * backend,
    GstAvhwDevice * device, enum AVPixelFormat sw_format, gchar ** reason)
{
  GstAvhwForeignInteropInterface *iface;
  gchar *why = NULL;
  gboolean ok;

  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), FALSE);
  if (reason)
    *reason = NULL;
  iface = gst_avhw_backend_get_foreign_interop (backend);
  if (!iface || !iface->export_foreign_buffer || !iface->foreign_memory_feature) {
    if (reason)
      *reason = g_strdup_printf ("backend %s does not export to GStreamer's "
          "own memory", KLASS (backend)->name);
    return FALSE;
  }
  if (!iface->device_exports_foreign)
    return TRUE;
  ok = iface->device_exports_foreign (backend, device, sw_format, &why);
  if (reason)
    *reason = why;
  else
    g_free (why);
  return ok;
}

/**
 * gst_avhw_backend_import_foreign_buffer: (skip)
 * @backend: a #GstAvhwBackend
 * @device: the device of @dst
 * @buffer: a buffer of the backend's foreign memory feature
 * @info: its layout
 * @dst: a hardware frame of @device to fill
 * @error: return location for a #GError
 *
 * Returns: %TRUE when @dst holds @buffer's picture
 */
gboolean
gst_avhw_backend_import_foreign_buffer (GstAvhwBackend * backend,
    GstAvhwDevice * device, GstBuffer * buffer, const GstVideoInfo * info,
    AVFrame * dst, GError ** error)
{
  GstAvhwForeignInteropInterface *iface;

  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), FALSE);
  iface = gst_avhw_backend_get_foreign_interop (backend);
  if (!iface || !iface->import_foreign_buffer) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_NOT_SUPPORTED,
        "backend %s cannot take frames from GStreamer's own device memory",
        KLASS (backend)->name);
    return FALSE;
  }
  return iface->import_foreign_buffer (backend, device, buffer, info, dst,
      error);
}

/**
 * gst_avhw_backend_wrap_foreign_buffer: (skip)
 * @backend: a #GstAvhwBackend
 * @device: the device of @frames_ctx
 * @buffer: a buffer of the backend's foreign memory feature
 * @info: its layout
 * @frames_ctx: the frames context the new frame belongs to
 * @error: return location for a #GError
 *
 * Makes a hardware frame on @buffer's own device memory, without a copy,
 * where the backend can and @buffer's layout fits frames of @frames_ctx.
 *
 * Returns: (transfer full) (nullable): the frame (it keeps @buffer's
 *   memory alive), or %NULL: with @error set on a failure, without when
 *   the caller should copy with gst_avhw_backend_import_foreign_buffer()
 */
AVFrame *
gst_avhw_backend_wrap_foreign_buffer (GstAvhwBackend * backend,
    GstAvhwDevice * device, GstBuffer * buffer, const GstVideoInfo * info,
    AVBufferRef * frames_ctx, GError ** error)
{
  GstAvhwForeignInteropInterface *iface;

  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), NULL);
  g_return_val_if_fail (frames_ctx != NULL, NULL);
  iface = gst_avhw_backend_get_foreign_interop (backend);
  if (!iface || !iface->wrap_foreign_buffer)
    return NULL;
  return iface->wrap_foreign_buffer (backend, device, buffer, info,
      frames_ctx, error);
}

/* The backend whose GStreamer device memory @buffer is, with @plane's
 * handle, pitch and the device's index; NULL for avhw memory, system
 * memory and memory no backend knows. Loads the backends the first time
 * a buffer of other memory than system memory comes. */
GstAvhwBackend *
gst_avhw_foreign_buffer_plane (GstBuffer * buffer, guint plane,
    guint64 * handle, gint * stride, gint * index)
{
  GstAvhwBackend *found = NULL;
  GstMemory *mem;
  GList *backends, *l;

  if (gst_buffer_n_memory (buffer) != 1)
    return NULL;
  mem = gst_buffer_peek_memory (buffer, 0);
  if (gst_memory_is_type (mem, GST_ALLOCATOR_SYSMEM)
      || gst_memory_is_type (mem, GST_AVHW_MEMORY_NAME))
    return NULL;
  backends = gst_avhw_backend_list ();
  for (l = backends; l && !found; l = l->next) {
    GstAvhwForeignInteropInterface *iface =
        gst_avhw_backend_get_foreign_interop (l->data);

    if (iface && iface->foreign_buffer_plane
        && iface->foreign_buffer_plane (l->data, buffer, plane, handle,
            stride, index))
      found = l->data;
  }
  g_list_free_full (backends, gst_object_unref);
  /* Backends stay loaded (the registry holds them) */
  return found;
}
