/* gst-avhw: interop with GStreamer's own device types, an optional
 * interface of a backend
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/gstavhwbackend-impl.h>

G_BEGIN_DECLS

#define GST_TYPE_AVHW_FOREIGN_INTEROP (gst_avhw_foreign_interop_get_type ())
GST_AVHW_API
G_DECLARE_INTERFACE (GstAvhwForeignInterop, gst_avhw_foreign_interop, GST,
    AVHW_FOREIGN_INTEROP, GstAvhwBackend);

/**
 * GstAvhwForeignInteropInterface:
 * @parent_iface: the parent interface
 * @foreign_context_type: the #GstContext type of GStreamer's own elements
 *   for this kind of device ("gst.cuda.context", "gst.vulkan.device",
 *   "gst.va.display.handle"). %NULL: no context interop (memory interop
 *   only).
 * @foreign_context_get_handle: the identity of the native device a foreign
 *   context holds (e.g. its GstCudaContext), so one foreign device maps to
 *   one avhw device. Required with @foreign_context_type.
 * @wrap_foreign_context: makes an FFmpeg device context on the device a
 *   foreign context holds (alloc, fill hwctx, init), and says its index.
 *   Required with @foreign_context_type.
 * @fill_foreign_context: writes @device into @context, a writable context
 *   of @foreign_context_type (or of one of @foreign_query_types), to answer
 *   GStreamer elements' queries; %FALSE leaves the query unanswered.
 *   Optional.
 * @foreign_query_types: %NULL-terminated further #GstContext types of
 *   GStreamer's own elements whose queries @fill_foreign_context answers
 *   for a device, besides @foreign_context_type ("gst.vulkan.queue": the
 *   queue GStreamer's elements then submit on, under the lock FFmpeg takes
 *   too). Optional.
 * @make_foreign_context: a new context of @foreign_context_type holding a
 *   device of GStreamer's own type made for device @index (the first one
 *   when -1), for avhw elements about to open a device next to GStreamer's
 *   elements that take only @foreign_memory_feature (downstream) or give
 *   only it (upstream, where @import_foreign_buffer is set), so both use
 *   that device: the library then wraps it with @wrap_foreign_context and
 *   answers GStreamer's queries with it. Optional; %NULL when the backend
 *   cannot make one.
 * @foreign_memory_feature: the caps feature of GStreamer's own device
 *   memory for this kind of device ("memory:CUDAMemory"), for memory
 *   interop. Optional; %NULL: no memory interop.
 * @export_foreign_buffer: a new buffer of GStreamer's own device memory
 *   (@foreign_memory_feature) holding the hardware frame @frame of
 *   @device, laid out as @info; wrapping it where GStreamer allows, else
 *   one device-to-device copy. %NULL without an error when @frame must not
 *   be lent (a decoder may still use its images, as references, while
 *   GStreamer holds them) and the backend does not copy itself: the caller
 *   then exports a copy of it. Optional.
 * @device_exports_foreign: whether @export_foreign_buffer can hand frames
 *   of @sw_format made on @device to GStreamer's own memory; when not,
 *   @reason (nullable) says why, newly allocated. Elements offer
 *   @foreign_memory_feature for that device and format only when it says
 *   yes, so negotiation picks another memory rather than a wrong frame.
 *   Optional; %NULL: every device and format of the backend can.
 * @import_foreign_buffer: copies a buffer of GStreamer's own device memory
 *   into the hardware frame @dst of @device, on the device. Optional.
 * @wrap_foreign_buffer: a new hardware frame of the frames context
 *   @frames_ctx whose planes are @buffer's own device memory (laid out as
 *   @info), which the frame keeps alive: no copy. %NULL without an error
 *   when @buffer's layout does not fit frames of @frames_ctx (the caller
 *   then copies with @import_foreign_buffer); %NULL with @error on
 *   failure. Optional.
 * @device_imports_foreign: whether @import_foreign_buffer can take
 *   GStreamer's own memory into frames of @device (a Vulkan image can be
 *   copied only on the VkDevice it was made on); when not, @reason
 *   (nullable) says why, newly allocated. avhwupload offers
 *   @foreign_memory_feature input for that device only when it says yes.
 *   Optional; %NULL: every device of the backend can.
 * @foreign_buffer_plane: when @buffer is GStreamer's own device memory of
 *   this backend's kind (one memory), sets the device handle of @plane as
 *   the backend's own frames hold it (a CUdeviceptr for cuda), the plane's
 *   pitch in bytes and the index of the device it lives on, and returns
 *   %TRUE; the handle stays valid while @buffer lives, with the memory's
 *   pending work done. %FALSE for any other buffer and for a plane it
 *   lacks. It lets applications use such frames in place, as
 *   gst_avhw_buffer_get_plane_handle() does. Optional.
 *
 * What a backend whose device kind GStreamer has elements of its own for
 * (CUDA, Vulkan, VA) does to share devices and frames with them. A
 * backend implements it with G_IMPLEMENT_INTERFACE() in its type
 * definition; the library asks GST_IS_AVHW_FOREIGN_INTEROP() of the
 * backend, and a backend without it has no interop. Every vfunc gets the
 * backend as its first argument, as the class's do.
 */
struct _GstAvhwForeignInteropInterface
{
  GTypeInterface parent_iface;

  const gchar *foreign_context_type;
  gpointer (*foreign_context_get_handle) (GstAvhwBackend * backend,
      GstContext * context);
  AVBufferRef *(*wrap_foreign_context) (GstAvhwBackend * backend,
      GstContext * context, guint * index, GError ** error);
  gboolean (*fill_foreign_context) (GstAvhwBackend * backend,
      GstAvhwDevice * device, GstContext * context);
  const gchar *const *foreign_query_types;
  GstContext *(*make_foreign_context) (GstAvhwBackend * backend, gint index,
      GError ** error);

  const gchar *foreign_memory_feature;
  GstBuffer *(*export_foreign_buffer) (GstAvhwBackend * backend,
      GstAvhwDevice * device, const AVFrame * frame,
      const GstVideoInfo * info, GError ** error);
  gboolean (*device_exports_foreign) (GstAvhwBackend * backend,
      GstAvhwDevice * device, enum AVPixelFormat sw_format, gchar ** reason);
  gboolean (*import_foreign_buffer) (GstAvhwBackend * backend,
      GstAvhwDevice * device, GstBuffer * buffer, const GstVideoInfo * info,
      AVFrame * dst, GError ** error);
  AVFrame *(*wrap_foreign_buffer) (GstAvhwBackend * backend,
      GstAvhwDevice * device, GstBuffer * buffer, const GstVideoInfo * info,
      AVBufferRef * frames_ctx, GError ** error);
  gboolean (*device_imports_foreign) (GstAvhwBackend * backend,
      GstAvhwDevice * device, gchar ** reason);
  gboolean (*foreign_buffer_plane) (GstAvhwBackend * backend,
      GstBuffer * buffer, guint plane, guint64 * handle, gint * stride,
      gint * index);

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING - 1];
};

GST_AVHW_API
GstAvhwForeignInteropInterface *
gst_avhw_backend_get_foreign_interop (GstAvhwBackend * backend);

GST_AVHW_API
GstBuffer * gst_avhw_backend_export_foreign_buffer (GstAvhwBackend * backend,
    GstAvhwDevice * device, const AVFrame * frame, const GstVideoInfo * info,
    GError ** error);

GST_AVHW_API
gboolean gst_avhw_backend_device_exports_foreign (GstAvhwBackend * backend,
    GstAvhwDevice * device, enum AVPixelFormat sw_format, gchar ** reason);

GST_AVHW_API
gboolean gst_avhw_backend_import_foreign_buffer (GstAvhwBackend * backend,
    GstAvhwDevice * device, GstBuffer * buffer, const GstVideoInfo * info,
    AVFrame * dst, GError ** error);

GST_AVHW_API
AVFrame * gst_avhw_backend_wrap_foreign_buffer (GstAvhwBackend * backend,
    GstAvhwDevice * device, GstBuffer * buffer, const GstVideoInfo * info,
    AVBufferRef * frames_ctx, GError ** error);

G_END_DECLS
