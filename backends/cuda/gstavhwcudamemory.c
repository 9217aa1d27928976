/* gst-avhw: CUDA backend, frames to and from GStreamer's CUDA memory
 * (memory:CUDAMemory of nvcodec's cudaupload, cudadownload, cudaconvert,
 * cudascale, nvh264enc...)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <libavutil/pixdesc.h>

#include "gstavhwcudainterop.h"
/* Through gstcuda-shim: ffnvcodec's CUDA types. */
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudaloader.h>

GST_DEBUG_CATEGORY_STATIC (cuda_memory_debug);
#define GST_CAT_DEFAULT cuda_memory_debug

/*
 * GStreamer 1.22 cannot wrap device memory it did not allocate
 * (gst_cuda_allocator_alloc_wrapped came later), so a frame crosses with
 * one device-to-device copy: into a GstCudaMemory for export, out of one
 * for import. Both sides are plain pitched device memory; the copy runs on
 * the frame's device stream and is synchronised before the buffer moves on.
 */

/* Copies between CUDA frame @frame and GStreamer CUDA memory @mem, seen as
 * a CUDA frame of its own layout; @to_frame picks the direction. */
static gboolean
cuda_transfer (AVFrame * frame, GstMemory * mem, gboolean to_frame,
    GError ** error)
{
  const GstVideoInfo *info = &GST_CUDA_MEMORY_CAST (mem)->info;
  const AVHWFramesContext *fc;
  AVFrame view = { 0, };
  GstMapInfo map;
  gboolean ok;
  int w, h;
  guint p;

  if (!gst_cuda_load_library () || frame->format != AV_PIX_FMT_CUDA
      || !frame->hw_frames_ctx) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_INVALID_ARGUMENT,
        "cuda: not a CUDA frame, or no CUDA driver");
    return FALSE;
  }
  fc = (const AVHWFramesContext *) frame->hw_frames_ctx->data;
  if (!gst_memory_map (mem, &map, (to_frame ? GST_MAP_READ : GST_MAP_WRITE)
          | GST_MAP_CUDA)) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
        "cuda: could not map the CUDA memory on the device");
    return FALSE;
  }
  view.format = AV_PIX_FMT_CUDA;
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    view.data[p] = map.data + GST_VIDEO_INFO_PLANE_OFFSET (info, p);
    view.linesize[p] = GST_VIDEO_INFO_PLANE_STRIDE (info, p);
  }
  w = MIN (GST_VIDEO_INFO_WIDTH (info), frame->width);
  h = MIN (GST_VIDEO_INFO_HEIGHT (info), frame->height);
  ok = to_frame ? cuda_copy_frame (fc, frame, &view, w, h, error) :
      cuda_copy_frame (fc, &view, frame, w, h, error);
  gst_memory_unmap (mem, &map);
  return ok;
}

static GstBuffer *
cuda_export_foreign_buffer (GstAvhwBackend * backend, GstAvhwDevice * device,
    const AVFrame * frame, const GstVideoInfo * info, GError ** error)
{
  GstCudaContext *gst_ctx = cuda_interop_get_gst_context (device);
  GstAllocator *alloc;
  GstMemory *mem;
  GstBuffer *buf;
  GstVideoInfo *minfo;

  if (!gst_ctx) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
        "cuda: GStreamer could not wrap %s's CUDA context",
        gst_avhw_device_get_name (device));
    return NULL;
  }
  gst_cuda_memory_init_once ();
  alloc = gst_allocator_find (GST_CUDA_MEMORY_TYPE_NAME);
  mem = alloc ? gst_cuda_allocator_alloc (GST_CUDA_ALLOCATOR (alloc), gst_ctx,
      info) : NULL;
  gst_clear_object (&alloc);
  if (!mem) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
        "cuda: GStreamer could not allocate CUDA memory for a %dx%d %s frame",
        GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
        gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (info)));
    return NULL;
  }
  if (!cuda_transfer ((AVFrame *) frame, mem, FALSE, error)) {
    gst_memory_unref (mem);
    return NULL;
  }
  minfo = &GST_CUDA_MEMORY_CAST (mem)->info;
  buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, mem);
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (minfo), GST_VIDEO_INFO_WIDTH (minfo),
      GST_VIDEO_INFO_HEIGHT (minfo), GST_VIDEO_INFO_N_PLANES (minfo),
      minfo->offset, minfo->stride);
  return buf;
}

static gboolean
cuda_import_foreign_buffer (GstAvhwBackend * backend, GstAvhwDevice * device,
    GstBuffer * buffer, const GstVideoInfo * info, AVFrame * dst,
    GError ** error)
{
  GstMemory *mem = gst_buffer_n_memory (buffer) == 1 ?
      gst_buffer_peek_memory (buffer, 0) : NULL;

  if (!mem || !gst_is_cuda_memory (mem)) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_INVALID_ARGUMENT,
        "cuda: the buffer is not one GStreamer CUDA memory");
    return FALSE;
  }
  return cuda_transfer (dst, mem, TRUE, error);
}

void
cuda_memory_class_init (GstAvhwBackendClass * bclass)
{
  GST_DEBUG_CATEGORY_INIT (cuda_memory_debug, "avhwcudamemory", 0,
      "gst-avhw CUDA backend: frames to and from GStreamer's CUDA memory");
  bclass->foreign_memory_feature = GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY;
  bclass->export_foreign_buffer = cuda_export_foreign_buffer;
  bclass->import_foreign_buffer = cuda_import_foreign_buffer;
}
